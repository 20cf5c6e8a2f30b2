// What counts as evidence that a request was done: a success answer that reports no error anywhere in it. The API
// documents no success body (spec 7), so no field is required; words are read only to deny evidence, never to give it.
import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { asRecord, fieldName, fieldOf, headerValue, isJsonMediaType } from './apiAnswers';

/** An error document (RFC 9457): JSON, but never the thing asked for. */
const PROBLEM_MEDIA_TYPE = /^application\/problem\+json\s*(?:;|$)/i;

/** The `created` row's evidence: a 200 or 201 JSON object that reports no error (no field required: undocumented). */
export function showsCreated(answer: IN8nHttpFullResponse): boolean {
	const { statusCode, body } = answer;
	const fields = asRecord(body);
	if ((statusCode !== 200 && statusCode !== 201) || fields === undefined) return false;
	const contentType = headerValue(answer.headers as Record<string, unknown>, 'content-type');
	if (!isJsonMediaType(contentType) || PROBLEM_MEDIA_TYPE.test(contentType.trim())) return false;
	return !reportsError(fields, 0);
}

/** Fields that report an error in any letter case, `_` or `-` aside (`ErrorCode` is Apigee's, `error_code` others'). */
const ERROR_FIELDS = ['error', 'errors', 'fault', 'errorcode', 'errormessage'];
/** Objects an answer wraps its content in (Subscribe reads its ID under `data`): the service's error document there
 * is one too. */
const WRAPPERS = ['data', 'result', 'response', 'payload', 'listing', 'subscription', 'webhook'];

/** Every value of a field so named (any letter case, `_` or `-` aside), at the top of an answer or in a wrapper
 * (an object, or each entry of a list). */
export function namedValues(body: unknown, name: string, depth = 0): unknown[] {
	const fields = asRecord(body) ?? {};
	return Object.entries(fields).flatMap(([field, value]) => {
		if (fieldName(field) === name) return [value];
		return depth < 2 && WRAPPERS.includes(fieldName(field))
			? [value].flat().flatMap((entry) => namedValues(entry, name, depth + 1))
			: [];
	});
}

/** How deep an answer is searched for a reported error (a hostile answer may nest without end). */
const SEARCH_DEPTH = 8;
/** A status that says it failed: a failure word in it (`FAILED`, `VALIDATION_FAILED`, `Declined`) or an HTTP error. */
const FAILURE_WORD = /(?:^|[^a-z])(?:fail|error|reject|refus|declin)/i;
/** The answer's own status (at the top or in a wrapper) says so in more words; a nested one may be a ticket's
 * `NOT_DELIVERED` in a listing created before its PDFs. */
const OWN_FAILURE_WORD =
	/(?:^|[^a-z])(?:fail|error|reject|refus|declin|invalid|denied|unable|unsuccess|cancel|undeliver|forbidden|unauthori|unavailable|could[\s_-]?not|cannot|can['\u2019]t|bad[\s_-]?request|not[\s_-]?(?:found|deliver|accept|creat|process|complet|upload))/i;
/** An HTTP error number opening a status ("400 BAD_REQUEST", "HTTP/1.1 503 Service Unavailable"). */
const HTTP_ERROR = /^(?:https?(?:\/[\d.]+)?\s*)?[45]\d\d(?![\d.,])/i;

/** Fields whose false, 0 or "no" says it was not done: anywhere, and (`created: false`, `isCreated`) at the answer's
 * own level, where deeper in it may be a ticket's. */
const SAID_DONE = ['success', 'issuccess', 'succeeded', 'ok'];
const HTTP_STATUS_FIELDS = ['statuscode', 'httpstatus', 'httpstatuscode', 'httpcode'];
const SAID_OWN_DONE = ['created', 'subscribed', 'accepted'];
export const isNo = (value: unknown) => ['false', '0', 'no', 'n'].includes(textOf(value));

/** Anywhere in the answer: an error field, `success: false`, a failed status; at the top or in a wrapper (`wrapped`),
 * the service's error document. Whatever the API nests, an error in it is no evidence of success. */
function reportsError(value: unknown, depth: number, wrapped = true): boolean {
	if (depth > SEARCH_DEPTH || value === null || typeof value !== 'object') return false;
	if (Array.isArray(value)) return value.some((entry) => reportsError(entry, depth + 1, wrapped));
	const fields = Object.entries(value as Record<string, unknown>);
	const words = wrapped ? OWN_FAILURE_WORD : FAILURE_WORD;
	const reported = fields.some(([field, entry]) => {
		const name = fieldName(field);
		const done = name.replace(/^(?:is|was|has)(?=[a-z])/, '');
		if (ERROR_FIELDS.includes(name)) return !isEmpty(entry);
		if (SAID_DONE.includes(name) || (wrapped && SAID_OWN_DONE.includes(done))) return isNo(entry);
		if (/^(?:failed|rejected)/.test(name)) return !isEmpty(entry) && !isNo(entry);
		// Words of its own only at the answer's own level; a result may be a wrapper too: only its text is a status.
		if (!wrapped && ['message', 'detail', 'result', 'outcome'].includes(name)) return false;
		if (name === 'message') return typeof entry === 'string' && words.test(entry);
		if (name === 'detail') return typeof entry === 'string' && FAILURE_WORD.test(entry);
		if (name === 'result' || name === 'outcome')
			return typeof entry !== 'object' && (isNo(entry) || failedStatus(entry, depth, words));
		if (name === 'status' || name === 'state') return failedStatus(entry, depth, words);
		// An HTTP status (`statusCode`, `httpStatus`) in its reason phrase too; another status (`listingStatus`,
		// `statusText`) only with plain failures, as a ticket's may wait for its PDF.
		if (typeof entry === 'object') return false;
		if (HTTP_STATUS_FIELDS.includes(name)) return failedStatus(entry, depth);
		return /^status|status$/.test(name) && failedStatus(entry, depth, FAILURE_WORD);
	});
	if (reported || (wrapped && isErrorDocument(value as Record<string, unknown>))) return true;
	return fields.some(([field, entry]) =>
		reportsError(entry, depth + 1, wrapped && WRAPPERS.includes(fieldName(field))),
	);
}

/** The service's own error document: `{code: "inventory.listings.systemError"}`, or a code with its words. */
function isErrorDocument(fields: Record<string, unknown>): boolean {
	const found = fieldOf(fields, 'code');
	const code = typeof found === 'number' ? String(found) : found;
	const words = !isEmpty(fieldOf(fields, 'description')) || !isEmpty(fieldOf(fields, 'message'));
	return typeof code === 'string' && code !== '' && (/^inventory\./i.test(code) || words);
}

/** A status that says it failed (a text, an HTTP error number, or an object holding one); the answer's own words by
 * default. */
export function failedStatus(value: unknown, depth = 0, words = OWN_FAILURE_WORD): boolean {
	const text = textOf(value);
	if (/^\d+$/.test(text)) return Number(text) >= 400 && Number(text) < 600;
	if (text !== '') return HTTP_ERROR.test(text) || words.test(text);
	return depth < SEARCH_DEPTH && value !== null && typeof value === 'object'
		? Object.values(value).some((entry) => failedStatus(entry, depth + 1, words))
		: false;
}

/** A text or a number as trimmed text ('' for anything else). */
const textOf = (value: unknown) =>
	['string', 'number', 'boolean'].includes(typeof value) ? String(value).trim().toLowerCase() : '';

/** No error reported: absent, null, false, or an empty text, list or object. */
function isEmpty(value: unknown): boolean {
	if (value === undefined || value === null || value === false || value === '') return true;
	// A list too: JSON has no holes, so its keys are its entries.
	return typeof value === 'object' && Object.keys(value).length === 0;
}
