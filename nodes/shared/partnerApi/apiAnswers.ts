/** Reading what the API answered, whatever shape it chose: its error bodies are not documented (spec 7). */
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
	'error_description Error faultstring message errorMessage detail title description';
const NESTED_KEYS = ['error', 'errors', 'fault'];

const MAX_API_MESSAGE = 500;

/** The API's words in an error body, redacted before the cut (a cut must not leave part of a secret). */
export function extractApiMessage(body: unknown, secrets?: readonly string[]): string | undefined {
	const found = findApiMessage(body, 0);
	return found === undefined ? undefined : redactSecrets(found, secrets).slice(0, MAX_API_MESSAGE);
}

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
	for (const key of MESSAGE_KEYS.split(' ')) {
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
	shape: 'object' | 'empty' | 'html' | 'json-not-object' | 'not-json';
}

/** A body as n8n hands it over (parsed, text or bytes), read as JSON where it is JSON, whatever its type. */
export function readBody(body: unknown, contentType = ''): ReadBody {
	// n8n parses a JSON answer itself; a literal `null` arrives as null (an empty body arrives as '').
	if (body === null) return { text: 'null', shape: 'json-not-object' };
	if (typeof body === 'object' && !Buffer.isBuffer(body)) {
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
		// Not JSON.
	}
	return { text, shape: /html/i.test(contentType) || /^\s*</.test(text) ? 'html' : 'not-json' };
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
};

export function networkFailureInWords(code: unknown): string {
	if (typeof code !== 'string' || code === '') return 'no answer';
	return NETWORK_FAILURES[code] ?? 'network error';
}

/**
 * Where a redirect points, as origin and path only, redacted before parsing (which respells a host or path) and
 * after, then cut. Undefined without a Location, or for one that is not a URL.
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
