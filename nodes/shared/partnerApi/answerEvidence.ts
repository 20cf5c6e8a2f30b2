import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { headerValue } from './apiAnswers';

/** application/json or a JSON-based type (application/problem+json). */
export function isJsonMediaType(contentType: string): boolean {
	return /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i.test(contentType.trim());
}

/** An error document (RFC 9457, application/problem+json): JSON, but never the thing asked for. */
export function isProblemMediaType(contentType: string): boolean {
	return /^application\/problem\+json\s*(?:;|$)/i.test(contentType.trim());
}

/**
 * The evidence that the API did what a request asked (the `created` row reads it): a 200 or 201 with a JSON object
 * that reports no error. No field is required (the answers are not documented); anything else is outcome unknown.
 */
export function showsCreated(answer: IN8nHttpFullResponse): boolean {
	const { statusCode, body } = answer;
	if (statusCode !== 200 && statusCode !== 201) return false;
	if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
	const contentType = headerValue(answer.headers as Record<string, unknown>, 'content-type');
	if (!isJsonMediaType(contentType) || isProblemMediaType(contentType)) return false;
	const fields = body as Record<string, unknown>;
	if (!['error', 'errors', 'fault'].every((field) => isEmpty(fields[field]))) return false;
	// The service's own error document (`{code: "inventory.listings.systemError"}`).
	return !(typeof fields.code === 'string' && /^inventory\./i.test(fields.code));
}

/** No error reported: absent, null, false, or an empty text, list or object. */
function isEmpty(value: unknown): boolean {
	if (value === undefined || value === null || value === false || value === '') return true;
	if (Array.isArray(value)) return value.length === 0;
	return typeof value === 'object' && Object.keys(value).length === 0;
}
