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

/** What stands in for the parts of an answer past its bounds: a hostile or broken API must not crash the run. */
export const NESTED_TOO_DEEP = '[nested too deep]';
export const ANSWER_TOO_LARGE = '[answer too large]';
export const REDACTED = '[redacted]';

/** Bounds of an answer as kept (in outputs and errors): nesting, values (entries of arrays and objects), text. */
export const ANSWER_BOUNDS = { depth: 32, values: 10_000, characters: 1_000_000 };

const HTML_NAMED_ENTITIES: Record<string, string[]> = {
	'&': ['amp'],
	'<': ['lt'],
	'>': ['gt'],
	'"': ['quot'],
	"'": ['apos'],
};
/** The escapes JSON allows besides \uXXXX, as the text an answer carries. */
const JSON_SHORT_ESCAPES: Record<string, string> = {
	'"': '\\"',
	'\\': '\\\\',
	'/': '\\/',
	'\b': '\\b',
	'\f': '\\f',
	'\n': '\\n',
	'\r': '\\r',
	'\t': '\\t',
};

function escapeForRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Hex digits matched in either case (%3c and %3C, &#x3c; and &#X3C;). */
function hexPattern(hex: string): string {
	return [...hex]
		.map((digit) =>
			/[a-f]/i.test(digit) ? `[${digit.toLowerCase()}${digit.toUpperCase()}]` : digit,
		)
		.join('');
}

/**
 * One character of a secret in every way an answer may spell it: as is, percent-encoded (UTF-8, either case; +
 * for a space as forms encode it), as an HTML entity (named, decimal, hex) or as a JSON escape. Any mix of these
 * within one echo matches too. Letters and digits are never encoded (not by URLs, forms, HTML or JSON).
 */
function characterPattern(char: string): string {
	// No encoding touches letters and digits: matched as they are, which keeps the pattern small and fast.
	if (/^[A-Za-z0-9]$/.test(char)) return char;
	const code = char.codePointAt(0)!;
	const forms = [escapeForRegExp(char)];
	for (const byte of Buffer.from(char, 'utf8'))
		forms.push(`%${hexPattern(byte.toString(16).padStart(2, '0'))}`);
	if (char === ' ') forms.push('\\+');
	for (const name of HTML_NAMED_ENTITIES[char] ?? []) forms.push(`&${name};`);
	forms.push(`&#0*${code};`, `&#[xX]0*${hexPattern(code.toString(16))};`);
	if (JSON_SHORT_ESCAPES[char]) forms.push(escapeForRegExp(JSON_SHORT_ESCAPES[char]));
	const units = code > 0xffff ? [char.charCodeAt(0), char.charCodeAt(1)] : [code];
	forms.push(
		units.map((unit) => `\\\\u${hexPattern(unit.toString(16).padStart(4, '0'))}`).join(''),
	);
	return `(?:${forms.join('|')})`;
}

/** One form of a secret in an answer; `anyCase` when its letters may come back in either case. */
interface SecretForm {
	text: string;
	anyCase: boolean;
}

/**
 * An e-mail address (anything shaped like one) is matched in any case: mail systems and APIs change its case
 * freely. Other secrets (tokens, keys, passwords) are case-sensitive and matched exactly; a password shaped like an
 * e-mail is then matched in any case too, which only redacts more.
 */
function isEmailShaped(secret: string): boolean {
	return /^[^@\s]+@[^@\s]+$/.test(secret);
}

/**
 * The parts of base64 that encode `secret` wherever it sits in the encoded data: base64 turns every 3 bytes into 4
 * characters, so the secret's encoding depends on its offset modulo 3. For each offset, the secret is encoded after
 * 0, 1 or 2 bytes, and the characters that also depend on those bytes, or on the bytes after the secret, are
 * dropped. Standard and URL-safe alphabets, never padding.
 */
function base64Forms(secret: string): string[] {
	const bytes = Buffer.from(secret, 'utf8');
	const forms: string[] = [];
	for (const offset of [0, 1, 2]) {
		const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
			.toString('base64')
			.replace(/=+$/, '');
		// Characters carrying bits of the leading bytes: none, 2 (the 2nd mixes both), 3 (the 3rd mixes both).
		const start = [0, 2, 3][offset];
		// A last group that is not full: its last character mixes the secret's bits with whatever follows.
		const end = (offset + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 1;
		const form = encoded.slice(start, end);
		if (form.length > 0) forms.push(form, form.replace(/\+/g, '-').replace(/\//g, '_'));
	}
	return forms;
}

/** A secret as typed (in any case for an e-mail address) and inside base64 at any offset (always exact). */
function secretForms(secret: string): SecretForm[] {
	return [
		{ text: secret, anyCase: isEmailShaped(secret) },
		...base64Forms(secret).map((text) => ({ text, anyCase: false })),
	];
}

/** One character of a form: as characterPattern spells it, in both cases when the form matches in any case. */
function formCharacterPattern(char: string, anyCase: boolean): string {
	if (!anyCase) return characterPattern(char);
	const variants = [...new Set([char, char.toLowerCase(), char.toUpperCase()])];
	if (variants.length === 1) return characterPattern(char);
	return `(?:${variants.map((variant) => [...variant].map(characterPattern).join('')).join('|')})`;
}

let cachedMatcher: { key: string; pattern: RegExp } | undefined;

/** One pattern for every form of every secret, longest first so that a secret inside a longer one is not half-redacted. */
function secretMatcher(secrets: readonly string[]): RegExp {
	const key = secrets.join('\u0000');
	if (cachedMatcher?.key === key) return cachedMatcher.pattern;
	const forms = new Map<string, SecretForm>();
	for (const form of secrets.flatMap(secretForms)) {
		const seen = forms.get(form.text);
		if (!seen || (form.anyCase && !seen.anyCase)) forms.set(form.text, form);
	}
	const pattern = new RegExp(
		[...forms.values()]
			.sort((a, b) => b.text.length - a.text.length)
			.map(({ text, anyCase }) =>
				[...text].map((char) => formCharacterPattern(char, anyCase)).join(''),
			)
			.join('|'),
		'g',
	);
	cachedMatcher = { key, pattern };
	return pattern;
}

/**
 * A copy of an answer that is safe to keep: every form of each secret (see characterPattern), in every string and
 * every key, replaced with "[redacted]"; and bounded (ANSWER_BOUNDS), so that a body nested past any stack, or
 * simply huge, costs bounded work and comes out with placeholders where it was cut.
 */
export function redactSecrets<T>(value: T, secrets: readonly string[] | undefined): T {
	const active = (secrets ?? []).filter((secret) => secret.length > 0);
	const matcher = active.length ? secretMatcher(active) : undefined;
	let valuesLeft = ANSWER_BOUNDS.values;
	let charactersLeft = ANSWER_BOUNDS.characters;
	const redact = (text: string) => (matcher ? text.replace(matcher, REDACTED) : text);
	const keep = (text: string) => {
		const safe = redact(text);
		if (safe.length <= charactersLeft) {
			charactersLeft -= safe.length;
			return safe;
		}
		const cut = `${safe.slice(0, charactersLeft)} ${ANSWER_TOO_LARGE}`;
		charactersLeft = 0;
		return cut;
	};
	const ancestors = new Set<object>();
	const walk = (node: unknown, depth: number): unknown => {
		if (typeof node === 'string') return keep(node);
		if (Buffer.isBuffer(node)) return keep(node.toString('utf8'));
		if (!node || typeof node !== 'object') return node;
		if (depth >= ANSWER_BOUNDS.depth) return NESTED_TOO_DEEP;
		if (ancestors.has(node)) return '[circular]';
		ancestors.add(node);
		const entries = Object.entries(node);
		const kept = entries.slice(0, Math.max(0, valuesLeft));
		valuesLeft -= kept.length;
		const dropped = entries.length - kept.length;
		let copy: unknown;
		if (Array.isArray(node)) {
			const items = kept.map(([, entry]) => walk(entry, depth + 1));
			if (dropped) items.push(`${ANSWER_TOO_LARGE}: ${dropped} more`);
			copy = items;
		} else {
			const record: Record<string, unknown> = {};
			for (const [key, entry] of kept) {
				let safeKey = redact(key);
				for (let suffix = 2; Object.prototype.hasOwnProperty.call(record, safeKey); suffix++)
					safeKey = `${redact(key)} ${suffix}`;
				// Defined, not assigned: a "__proto__" key in an answer stays a key, never the copy's prototype.
				Object.defineProperty(record, safeKey, {
					value: walk(entry, depth + 1),
					enumerable: true,
					writable: true,
					configurable: true,
				});
			}
			if (dropped) record[ANSWER_TOO_LARGE] = `${dropped} more`;
			copy = record;
		}
		ancestors.delete(node);
		return copy;
	};
	return walk(value, 0) as T;
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
