// Reading what the API answered, whatever shape it chose (its error bodies are undocumented, spec 7): `{code,
// description}` (the service), `{ErrorCode, Error}` (Apigee's OAuth), `{fault: {faultstring, detail: {errorcode}}}`
// (the gateway), OAuth's `{error, error_description}`; any other shape falls to the rows that read its status alone.
import { redactSecrets } from './redaction';

/** A header in any letter case; several values joined. */
export function headerValue(headers: Record<string, unknown> | undefined, name: string): string {
	const wanted = name.toLowerCase();
	const value = Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === wanted)?.[1];
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
	shape: 'object' | 'empty' | 'html' | 'json-not-object' | 'not-json';
}

/** A body as n8n hands it over (parsed, text or bytes), read as JSON where it is JSON, whatever its type. */
export function readBody(body: unknown, contentType = ''): ReadBody {
	const parsed = (value: unknown): ReadBody => {
		const json = asRecord(value);
		return { json, value, shape: json ? 'object' : 'json-not-object' };
	};
	// n8n parses a JSON answer itself; a literal `null` arrives as null (an empty body arrives as '').
	if (typeof body === 'object' && !Buffer.isBuffer(body)) return parsed(body);
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : String(body ?? '');
	if (text.trim() === '') return { shape: 'empty' };
	try {
		return parsed(JSON.parse(text));
	} catch {
		return { shape: /html/i.test(contentType) || /^\s*</.test(text) ? 'html' : 'not-json' };
	}
}

function firstText(...values: unknown[]): string | undefined {
	for (const value of values)
		if (typeof value === 'string' && value.trim() !== '') return value.trim();
	return undefined;
}

export function asRecord(value: unknown): Record<string, unknown> | undefined {
	return value !== null && typeof value === 'object' && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: undefined;
}

/** The code of an error the answer nests (`{error: {code}}`) or lists (`{errors: [{code}]}`, or a list at the top). */
function nestedCode({ json, value }: ReadBody): string | undefined {
	// The list may come as JSON text inside the JSON (double-encoded).
	const list =
		(typeof json?.errors === 'string' ? readBody(json.errors).value : json?.errors) ?? value;
	return codeIn(asRecord(json?.error) ?? asRecord(Array.isArray(list) ? list[0] : undefined));
}

/** `code`, else `errorcode` (Apigee's `ErrorCode`), in any letter case. */
const codeIn = (fields: Record<string, unknown> | undefined) =>
	firstText(fieldOf(fields, 'code'), fieldOf(fields, 'errorcode'));

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
	/** The External Listing ID a refusal names in a field of its own (`externalListingId: 7`). */
	listingId?: string;
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
		codeIn(json) ?? firstText(fieldOf(detail, 'errorcode'), json?.error) ?? nestedCode(read);
	const said = firstText(
		fieldOf(json, 'description'),
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
		listingId: String(fieldOf(json, 'externallistingid') ?? '').trim() || undefined,
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

export const fieldName = (field: string) => field.toLowerCase().replace(/[_-]/g, '');
/** A field in any letter case, `_` or `-` aside (`Code`, `error_code`), the first in the answer's order. */
export const fieldOf = (fields: Record<string, unknown> | undefined, name: string) =>
	Object.entries(fields ?? {}).find(([field]) => fieldName(field) === name)?.[1];
