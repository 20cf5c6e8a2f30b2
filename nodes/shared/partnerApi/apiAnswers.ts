// Reading what the API answered, whatever shape it chose (its error bodies are undocumented, spec 7): `{code,
// description}` (the service), `{ErrorCode, Error}` (Apigee's OAuth), `{fault: {faultstring, detail: {errorcode}}}`
// (the gateway), OAuth's `{error, error_description}`; any other shape falls to the rows that read its status alone.
import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { redactSecrets } from './redaction';

export { redactSecrets } from './redaction';

/** A header in any letter case; several values joined. */
export function headerValue(headers: Record<string, unknown> | undefined, name: string): string {
	if (!headers) return '';
	const wanted = name.toLowerCase();
	const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === wanted);
	const value = key === undefined ? undefined : headers[key];
	if (value === undefined || value === null) return '';
	return Array.isArray(value) ? value.map(String).join(', ') : String(value);
}

const MESSAGE_KEYS =
	'error_description Error faultstring message errorMessage detail title description'.split(' ');
const NESTED_KEYS = ['error', 'errors', 'fault'];
const MESSAGE_SEARCH = { depth: 8, entries: 20 };

/** The API's words in an error body, redacted before the cut (a cut must not leave part of a secret). */
export function extractApiMessage(body: unknown, secrets?: readonly string[]): string | undefined {
	const found = findApiMessage(body, 0);
	return found === undefined ? undefined : redactSecrets(found, secrets).slice(0, 500);
}

function findApiMessage(body: unknown, depth: number): string | undefined {
	if (typeof body === 'string') return body.trim() || undefined;
	if (!body || typeof body !== 'object' || depth >= MESSAGE_SEARCH.depth) return undefined;
	if (Array.isArray(body)) {
		const parts = body
			.slice(0, MESSAGE_SEARCH.entries)
			.map((entry) => findApiMessage(entry, depth + 1))
			.filter((part): part is string => !!part);
		return parts.length ? parts.join('; ') : undefined;
	}
	const record = body as Record<string, unknown>;
	const said = firstText(...MESSAGE_KEYS.map((key) => record[key]));
	if (said) return said;
	for (const key of NESTED_KEYS) {
		const nested = findApiMessage(record[key], depth + 1);
		if (nested) return nested;
	}
	return undefined;
}

export interface ReadBody {
	/** The body when it is a JSON object (the only shape the API answers with). */
	json?: Record<string, unknown>;
	/** The body as parsed JSON, whatever its shape (undefined: not JSON). */
	value?: unknown;
	text: string;
	shape: 'object' | 'empty' | 'html' | 'json-not-object' | 'not-json';
}

/** A body as n8n hands it over (parsed, text or bytes), read as JSON where it is JSON, whatever its type. */
export function readBody(body: unknown, contentType = ''): ReadBody {
	const parsed = (value: unknown, text: string): ReadBody => {
		const json = asRecord(value);
		return { json, value, text, shape: json ? 'object' : 'json-not-object' };
	};
	// n8n parses a JSON answer itself; a literal `null` arrives as null (an empty body arrives as '').
	if (body === null) return parsed(body, 'null');
	if (typeof body === 'object' && !Buffer.isBuffer(body)) return parsed(body, '');
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : String(body ?? '');
	if (text.trim() === '') return { text, shape: 'empty' };
	try {
		return parsed(JSON.parse(text), text);
	} catch {
		return { text, shape: /html/i.test(contentType) || /^\s*</.test(text) ? 'html' : 'not-json' };
	}
}

function firstText(...values: unknown[]): string | undefined {
	for (const value of values)
		if (typeof value === 'string' && value.trim() !== '') return value.trim();
	return undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
	return value !== null && typeof value === 'object' && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: undefined;
}

/** The code of an error the answer nests (`{error: {code}}`) or lists (`{errors: [{code}]}`, or a list at the top). */
function nestedCode({ json, value }: ReadBody): string | undefined {
	// The list may come as JSON text inside the JSON (double-encoded).
	const list =
		(typeof json?.errors === 'string' ? readBody(json.errors).value : json?.errors) ?? value;
	const record = asRecord(json?.error) ?? asRecord(Array.isArray(list) ? list[0] : undefined);
	return firstText(record?.code, record?.errorCode);
}

/** One request's answer as the rows read it, or what kept an answer from coming. */
export interface AnswerFacts {
	/** 0 when no answer came (see `failure`). */
	status: number;
	code?: string;
	/** The API's own words (secrets redacted, bounded). */
	words?: string;
	wwwAuthenticate?: string;
	/** The body is the gateway's own fault (`{"fault": {...}}`). */
	gatewayFault?: boolean;
	/** No answer: a Node.js network code, `unreadableFile`, `tokenExchange` (nothing sent), '' (unknown). */
	failure?: string;
	/** A 2xx that shows the request was done (the caller's evidence rule). */
	evidence?: boolean;
	renewal?: 'freshTokenRefused' | 'renewalsExhausted';
	/** A rate refusal asks for a longer wait than this node takes. */
	tooLong?: 'retryAfter' | 'spikeInterval';
}

/** Reads an answer once, as n8n hands it over; `secrets` never reach the words. */
export function readAnswer(
	status: number,
	headers: Record<string, unknown> | undefined,
	body: unknown,
	secrets?: readonly string[],
): AnswerFacts {
	const read = readBody(body, headerValue(headers, 'content-type'));
	const { json } = read;
	const fault = asRecord(json?.fault);
	const detail = asRecord(fault?.detail);
	const code =
		firstText(
			fieldOf(json, 'code'),
			fieldOf(json, 'errorcode'),
			fieldOf(detail, 'errorcode'),
			json?.error,
		) ?? nestedCode(read);
	const said = firstText(
		json?.description,
		json?.Error,
		fault?.faultstring,
		json?.error_description,
	);
	// extractApiMessage redacts and bounds them.
	const words = extractApiMessage(said ?? json ?? body, secrets)
		?.replace(/\s+/g, ' ')
		.slice(0, 300);
	return {
		status,
		code: code === undefined ? undefined : (extractApiMessage(code, secrets) ?? '').slice(0, 200),
		words: words === code ? undefined : words,
		wwwAuthenticate: headerValue(headers, 'www-authenticate'),
		gatewayFault: fault !== undefined,
	};
}

/** Network failures in words: n8n swaps a message holding a raw code (ECONNREFUSED) for a generic text. */
const NETWORK_FAILURES: Record<string, string> = {
	ECONNREFUSED: 'connection refused',
	ENOTFOUND: 'host name not found',
	EAI_AGAIN: 'host name lookup failed',
	ETIMEDOUT: 'timed out',
	ECONNABORTED: 'timed out',
	ECONNRESET: 'connection closed unexpectedly',
	EPIPE: 'connection closed unexpectedly',
	EHOSTUNREACH: 'host unreachable',
	ENETUNREACH: 'network unreachable',
	EADDRNOTAVAIL: 'address not available',
	ERR_INVALID_URL: 'not a valid URL',
	ERR_INVALID_CHAR: 'a header value with a character HTTP cannot carry',
	ERR_HTTP_INVALID_HEADER_VALUE: 'a header value HTTP cannot carry',
	ERR_INVALID_HTTP_TOKEN: 'a header name HTTP cannot carry',
	ERR_UNESCAPED_CHARACTERS: 'a path with characters that must be escaped',
	CERT_HAS_EXPIRED: 'TLS certificate expired',
	DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
	SELF_SIGNED_CERT_IN_CHAIN: 'self-signed TLS certificate',
	UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
	ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host name',
	// Pre-deliver's own: a ticket file failed while its upload streamed.
	ERR_TICKET_FILE_FAILED: 'a ticket file failed while it was sent',
};

export function networkFailureInWords(code: unknown): string {
	if (typeof code !== 'string' || code === '') return 'no answer';
	return NETWORK_FAILURES[code] ?? 'network error';
}

/** The request never left this machine: a retry is safe. */
export const CONNECTION_FAILED_BEFORE_SEND = new Set(
	'ECONNREFUSED ENOTFOUND EAI_AGAIN EHOSTUNREACH ENETUNREACH EADDRNOTAVAIL'.split(' '),
);

/** Node.js refused to build the request (a header with a line break): nothing sent, and a retry fails alike. */
export const REQUEST_NOT_BUILT = new Set(
	'ERR_INVALID_CHAR ERR_HTTP_INVALID_HEADER_VALUE ERR_INVALID_HTTP_TOKEN ERR_UNESCAPED_CHARACTERS'.split(
		' ',
	),
);

/** application/json or a JSON-based type (application/problem+json). */
export const isJsonMediaType = (contentType: string) =>
	/^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i.test(contentType.trim());

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
const fieldName = (field: string) => field.toLowerCase().replace(/[_-]/g, '');
/** A field in any letter case, `_` or `-` aside (`Code`, `error_code`), the first in the answer's order. */
const fieldOf = (fields: Record<string, unknown> | undefined, name: string) =>
	Object.entries(fields ?? {}).find(([field]) => fieldName(field) === name)?.[1];

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
	/(?:^|[^a-z])(?:fail|error|reject|refus|declin|invalid|denied|unable|unsuccess|cancel|undeliver|forbidden|unauthori|unavailable|could[\s_-]?not|cannot|can'?t|bad[\s_-]?request|not[\s_-]?(?:found|deliver|accept|creat|process|complet|upload))/i;

/** Anywhere in the answer: an error field, `success: false`, a failed status; at the top or in a wrapper (`wrapped`),
 * the service's error document. Whatever the API nests, an error in it is no evidence of success. */
function reportsError(value: unknown, depth: number, wrapped = true): boolean {
	if (depth > SEARCH_DEPTH || value === null || typeof value !== 'object') return false;
	if (Array.isArray(value)) return value.some((entry) => reportsError(entry, depth + 1, wrapped));
	const fields = Object.entries(value as Record<string, unknown>);
	const words = wrapped ? OWN_FAILURE_WORD : FAILURE_WORD;
	const reported = fields.some(([field, entry]) => {
		const name = fieldName(field);
		if (ERROR_FIELDS.includes(name)) return !isEmpty(entry);
		if (SAID_DONE.includes(name) || (wrapped && SAID_OWN_DONE.includes(name))) return isNo(entry);
		if (/^(?:failed|rejected)/.test(name)) return !isEmpty(entry) && !isNo(entry);
		// A result may be a wrapper too: only its text is a status. A message only at the answer's own level.
		if (wrapped && name === 'message') return typeof entry === 'string' && words.test(entry);
		if (name === 'result' || name === 'outcome')
			return typeof entry !== 'object' && failedStatus(entry, depth, words);
		return (name === 'status' || name === 'state') && failedStatus(entry, depth, words);
	});
	if (reported || (wrapped && isErrorDocument(value as Record<string, unknown>))) return true;
	return fields.some(([field, entry]) =>
		reportsError(entry, depth + 1, wrapped && WRAPPERS.includes(fieldName(field))),
	);
}

/** The service's own error document: `{code: "inventory.listings.systemError"}`, or a code with its words. */
function isErrorDocument(fields: Record<string, unknown>): boolean {
	const code = typeof fields.code === 'number' ? String(fields.code) : fields.code;
	const words = !isEmpty(fields.description) || !isEmpty(fields.message);
	return typeof code === 'string' && code !== '' && (/^inventory\./i.test(code) || words);
}

/** A status that says it failed (a text, an HTTP error number, or an object holding one); the answer's own words by
 * default. */
export function failedStatus(value: unknown, depth = 0, words = OWN_FAILURE_WORD): boolean {
	const text = textOf(value);
	// An HTTP error number, alone or in words ("400 BAD_REQUEST", "HTTP 503 Service Unavailable").
	if (/(?:^|\D)[45]\d\d(?:\D|$)/.test(text)) return true;
	if (/^\d+$/.test(text)) return false;
	if (text !== '') return words.test(text);
	return depth < SEARCH_DEPTH && value !== null && typeof value === 'object'
		? Object.values(value).some((entry) => failedStatus(entry, depth + 1, words))
		: false;
}

/** Fields whose false, 0 or "no" says it was not done: anywhere, and (`created: false`) at the answer's own level,
 * where deeper in it may be a ticket's. */
const SAID_DONE = ['success', 'issuccess', 'succeeded', 'ok'];
const SAID_OWN_DONE = ['created', 'subscribed', 'accepted', 'delivered', 'uploaded'];
export const isNo = (value: unknown) => ['false', '0', 'no', 'n'].includes(textOf(value));

/** A text or a number as trimmed text ('' for anything else). */
const textOf = (value: unknown) =>
	['string', 'number', 'boolean'].includes(typeof value) ? String(value).trim().toLowerCase() : '';

/** No error reported: absent, null, false, or an empty text, list or object. */
function isEmpty(value: unknown): boolean {
	if (value === undefined || value === null || value === false || value === '') return true;
	// A list too: JSON has no holes, so its keys are its entries.
	return typeof value === 'object' && Object.keys(value).length === 0;
}
