import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { headerValue } from '../../../../../credentials/common/apiAnswers';
import { isJsonMediaType, isProblemMediaType } from '../../../transport';

/**
 * The evidence of a created listing: a 200 or 201 with a JSON object, marked as JSON (not as an error document),
 * that neither reports an error nor names another External Listing ID. The API's answer is not documented, so no
 * field is required; anything else (202, 204, an empty body, a page, an array) may or may not mean a listing, and
 * is reported as outcome unknown.
 */
export function showsListingCreated(
	answer: IN8nHttpFullResponse,
	externalListingId: number,
): boolean {
	const { statusCode, body } = answer;
	if (statusCode !== 200 && statusCode !== 201) return false;
	if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
	const contentType = headerValue(answer.headers as Record<string, unknown>, 'content-type');
	if (!isJsonMediaType(contentType) || isProblemMediaType(contentType)) return false;
	const fields = body as Record<string, unknown>;
	const reportsError = ['error', 'errors'].some((field) => !isEmpty(fields[field]));
	const namedId = fields.externalListingId;
	const namesAnother =
		namedId !== undefined &&
		namedId !== null &&
		String(namedId).trim() !== String(externalListingId);
	return !reportsError && !namesAnother;
}

/** No error reported: absent, null, false, or an empty text, list or object. */
function isEmpty(value: unknown): boolean {
	if (value === undefined || value === null || value === false || value === '') return true;
	if (Array.isArray(value)) return value.length === 0;
	return typeof value === 'object' && Object.keys(value).length === 0;
}
