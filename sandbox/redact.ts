/** Redaction for everything the sandbox shows (request log, state): secrets never leave it. */

export const REDACTED = '[redacted]';

const SECRET_KEYS = new Set(
	[
		'password',
		'clientsecret',
		'client_secret',
		'consumersecret',
		'consumer_secret',
		'access_token',
		'accesstoken',
		'refresh_token',
		'token',
		'secret',
	].map((key) => key.toLowerCase()),
);
const SECRET_HEADERS = new Set(['cookie', 'set-cookie', 'x-api-key', 'x-n8n-api-key']);

export function isSecretKey(key: string): boolean {
	return SECRET_KEYS.has(key.toLowerCase());
}

/** Keeps the scheme of an Authorization header (useful when debugging) and drops its credentials. */
function redactAuthorization(value: string): string {
	const scheme = value.trim().split(/\s+/)[0] ?? '';
	return /^(basic|bearer)$/i.test(scheme) ? `${scheme} ${REDACTED}` : REDACTED;
}

export function redactHeaders(
	headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [name, raw] of Object.entries(headers)) {
		if (raw === undefined) continue;
		const value = Array.isArray(raw) ? raw.join(', ') : raw;
		const lower = name.toLowerCase();
		if (lower === 'authorization' || lower === 'proxy-authorization')
			out[lower] = redactAuthorization(value);
		else if (SECRET_HEADERS.has(lower)) out[lower] = REDACTED;
		else out[lower] = value;
	}
	return out;
}

/** Deep copy of a JSON value with every secret-named field replaced. */
export function redactJson(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(redactJson);
	if (typeof value === 'object' && value !== null) {
		// fromEntries defines each key: a "__proto__" key stays a key, never the copy's prototype.
		return Object.fromEntries(
			Object.entries(value).map(([key, inner]) => [
				key,
				isSecretKey(key) ? REDACTED : redactJson(inner),
			]),
		);
	}
	return value;
}

export function redactQuery(params: URLSearchParams): Record<string, string> {
	return Object.fromEntries(
		[...params].map(([key, value]) => [key, isSecretKey(key) ? REDACTED : value]),
	);
}
