import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { headerValue } from '../transport/fromCredential';
import { isJsonMediaType, isProblemMediaType } from '../transport';

/**
 * The evidence that the Partner API did what a request asked (created a listing, submitted a subscription): a 200
 * or 201 with a JSON object, marked as JSON (not as an error document), that reports no error (no `error`, `errors`,
 * gateway `fault` or service error `code`). The API's answers are not documented, so no field is required; anything
 * else (202, 204, an empty body, a page, an array) may or may not mean it was done, and is reported as outcome
 * unknown.
 */
export function showsCreated(answer: IN8nHttpFullResponse): boolean {
	const { statusCode, body } = answer;
	if (statusCode !== 200 && statusCode !== 201) return false;
	if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
	const contentType = headerValue(answer.headers as Record<string, unknown>, 'content-type');
	if (!isJsonMediaType(contentType) || isProblemMediaType(contentType)) return false;
	const fields = body as Record<string, unknown>;
	if (!['error', 'errors', 'fault'].every((field) => isEmpty(fields[field]))) return false;
	// The service's own error document (`{code: "inventory.listings.systemError", description}`), whatever status.
	return !(typeof fields.code === 'string' && /^inventory\./i.test(fields.code));
}

/** No error reported: absent, null, false, or an empty text, list or object. */
function isEmpty(value: unknown): boolean {
	if (value === undefined || value === null || value === false || value === '') return true;
	if (Array.isArray(value)) return value.length === 0;
	return typeof value === 'object' && Object.keys(value).length === 0;
}
