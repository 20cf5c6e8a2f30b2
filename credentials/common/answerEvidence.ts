/**
 * What counts as evidence that the Partner API did what a request asked: the answer table's `created` row reads it
 * (answerTable.ts), and every operation hands it to the transport as its `confirmedBy`.
 */
import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { headerValue } from './apiAnswers';

/** application/json or a JSON-based type (application/problem+json), with or without parameters. */
export function isJsonMediaType(contentType: string): boolean {
	return /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i.test(contentType.trim());
}

/** An error document (RFC 9457, application/problem+json): JSON, but never the thing asked for. */
export function isProblemMediaType(contentType: string): boolean {
	return /^application\/problem\+json\s*(?:;|$)/i.test(contentType.trim());
}

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
