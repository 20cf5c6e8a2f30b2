/**
 * Reading what an API answered, whatever shape it chose: the credential's token diagnosis and the node's transport
 * both use these. The Partner API's error bodies are not documented (spec 7), so nothing here expects a shape.
 */
import { redactSecrets } from './redaction';

export { redactSecrets } from './redaction';

/** A header of a Node.js or n8n response, whatever the case of its name; several values are joined. */
export function headerValue(headers: Record<string, unknown> | undefined, name: string): string {
	if (!headers) return '';
	const wanted = name.toLowerCase();
	const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === wanted);
	const value = key === undefined ? undefined : headers[key];
	if (value === undefined || value === null) return '';
	return Array.isArray(value) ? value.map(String).join(', ') : String(value);
}

const MESSAGE_KEYS = [
	'error_description',
	// Apigee's own answers: its OAuth errors ({"ErrorCode", "Error"}) and its faults ({"fault": {"faultstring"}}).
	'Error',
	'faultstring',
	'message',
	'errorMessage',
	'detail',
	'title',
	'description',
];
const NESTED_KEYS = ['error', 'errors', 'fault'];

/** The longest API message quoted in an error. */
const MAX_API_MESSAGE = 500;

/**
 * The API's own words in an error body, looked for in the usual places (OAuth's error_description first), never
 * failing while looking. Secrets are redacted before the text is cut, so that a cut cannot leave part of one.
 */
export function extractApiMessage(body: unknown, secrets?: readonly string[]): string | undefined {
	const found = findApiMessage(body, 0);
	return found === undefined ? undefined : redactSecrets(found, secrets).slice(0, MAX_API_MESSAGE);
}

/** How deep, and among how many entries of a list, the API's words are looked for. */
const MESSAGE_SEARCH = { depth: 8, entries: 20 };

function findApiMessage(body: unknown, depth: number): string | undefined {
	if (typeof body === 'string') return body.trim() ? body.trim() : undefined;
	if (!body || typeof body !== 'object' || depth >= MESSAGE_SEARCH.depth) return undefined;
	if (Array.isArray(body)) {
		const parts = body
			.slice(0, MESSAGE_SEARCH.entries)
			.map((entry) => findApiMessage(entry, depth + 1))
			.filter((part): part is string => !!part);
		return parts.length ? parts.join('; ') : undefined;
	}
	const record = body as Record<string, unknown>;
	for (const key of MESSAGE_KEYS) {
		const value = record[key];
		if (typeof value === 'string' && value.trim()) return value.trim();
	}
	for (const key of NESTED_KEYS) {
		const nested = findApiMessage(record[key], depth + 1);
		if (nested) return nested;
	}
	return undefined;
}

export interface ReadBody {
	/** The body when it is a JSON object (the only shape the API answers with). */
	json?: Record<string, unknown>;
	text: string;
	/** What the body is, in words, when it is not a JSON object. */
	shape: 'object' | 'empty' | 'html' | 'json-not-object' | 'not-json';
}

/** A body as n8n hands it over (parsed, text or bytes), read as JSON where it is JSON, whatever its media type. */
export function readBody(body: unknown, contentType = ''): ReadBody {
	// n8n parses a JSON answer itself; a literal `null` arrives as null (an empty body arrives as '').
	if (body === null) return { text: 'null', shape: 'json-not-object' };
	if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body)) {
		return Array.isArray(body)
			? { text: '', shape: 'json-not-object' }
			: { json: body as Record<string, unknown>, text: '', shape: 'object' };
	}
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : String(body ?? '');
	if (text.trim() === '') return { text, shape: 'empty' };
	try {
		const parsed: unknown = JSON.parse(text);
		if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
			return { json: parsed as Record<string, unknown>, text, shape: 'object' };
		}
		return { text, shape: 'json-not-object' };
	} catch {
		// Not JSON: the caller reports the body as "not the API".
	}
	return { text, shape: /html/i.test(contentType) || /^\s*</.test(text) ? 'html' : 'not-json' };
}

/**
 * Network failures in plain words. n8n replaces any error message that contains a raw code such as ECONNREFUSED
 * or ENOTFOUND with a generic text of its own that names neither the credential nor the address, so messages
 * carry these words instead of the code.
 */
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
};

export function networkFailureInWords(code: unknown): string {
	if (typeof code !== 'string' || code === '') return 'no answer';
	return NETWORK_FAILURES[code] ?? 'network error';
}

/**
 * Where a redirect points, as origin and path only (its query is the server's, and may carry anything), with every
 * secret redacted: a path or host may carry one too. Redacted before parsing as well, since parsing changes the
 * spelling (a host in lower case, a path percent-encoded), and again after; cut only then. Undefined without a
 * Location, or for one that is not a URL.
 */
export function redirectTarget(
	location: string,
	from: string,
	secrets: readonly string[] | undefined,
): string | undefined {
	if (location === '') return undefined;
	try {
		const target = new URL(redactSecrets(location, secrets), from || undefined);
		return redactSecrets(`${target.origin}${target.pathname}`, secrets).slice(0, 200);
	} catch {
		return undefined;
	}
}
