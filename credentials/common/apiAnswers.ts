/**
 * Reading what an API answered, whatever shape it chose: the credential's token diagnosis and the node's transport
 * both use these. The Partner API's error bodies are not documented (spec 7), so nothing here expects a shape.
 */

/** A header of a Node.js or n8n response, whatever the case of its name; several values are joined. */
export function headerValue(headers: Record<string, unknown> | undefined, name: string): string {
	if (!headers) return '';
	const wanted = name.toLowerCase();
	const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === wanted);
	const value = key === undefined ? undefined : headers[key];
	if (value === undefined || value === null) return '';
	return Array.isArray(value) ? value.map(String).join(', ') : String(value);
}

/** Replaces every occurrence of each secret, in every string of the value, with "[redacted]". */
export function redactSecrets<T>(value: T, secrets: readonly string[] | undefined): T {
	const active = (secrets ?? []).filter((secret) => secret.length > 0);
	if (!active.length) return value;
	const walk = (node: unknown): unknown => {
		if (typeof node === 'string') {
			return active.reduce((text, secret) => text.split(secret).join('[redacted]'), node);
		}
		if (Array.isArray(node)) return node.map(walk);
		if (node && typeof node === 'object') {
			return Object.fromEntries(Object.entries(node).map(([key, entry]) => [key, walk(entry)]));
		}
		return node;
	};
	return walk(value) as T;
}

const MESSAGE_KEYS = [
	'error_description',
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
	const found = findApiMessage(body);
	return found === undefined ? undefined : redactSecrets(found, secrets).slice(0, MAX_API_MESSAGE);
}

function findApiMessage(body: unknown): string | undefined {
	if (typeof body === 'string') return body.trim() ? body.trim() : undefined;
	if (!body || typeof body !== 'object') return undefined;
	if (Array.isArray(body)) {
		const parts = body
			.map((entry) => findApiMessage(entry))
			.filter((part): part is string => !!part);
		return parts.length ? parts.join('; ') : undefined;
	}
	const record = body as Record<string, unknown>;
	for (const key of MESSAGE_KEYS) {
		const value = record[key];
		if (typeof value === 'string' && value.trim()) return value.trim();
	}
	for (const key of NESTED_KEYS) {
		const nested = findApiMessage(record[key]);
		if (nested) return nested;
	}
	return undefined;
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
