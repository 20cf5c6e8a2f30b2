// A copy of an answer with every form of each secret replaced, and bounded (a hostile API must not crash the run).
const ANSWER_TOO_LARGE = '[answer too large]';
const REDACTED = '[redacted]';
/** Nesting, values (entries of arrays and objects), text. */
const ANSWER_BOUNDS = { depth: 32, values: 10_000, characters: 1_000_000 };

const ENTITY: Record<string, string> = {
	'&': 'amp',
	'<': 'lt',
	'>': 'gt',
	'"': 'quot',
	"'": 'apos',
};

export function escapeForRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `value` in hex, at least `digits` long, matched in either case (%3c and %3C, &#x3c; and &#X3C;). */
function hexPattern(value: number, digits = 1): string {
	const hex = value.toString(16).padStart(digits, '0');
	return hex.replace(/[a-f]/g, (digit) => `[${digit}${digit.toUpperCase()}]`);
}

// One character of a secret in every way an answer may spell it (any mix within one echo): as is, percent-encoded
// (+ for a space), as an HTML entity or a JSON escape; letters and digits too (a page may spell each as `&#99;`).
function characterPattern(char: string): string {
	const code = char.codePointAt(0)!;
	const forms = [escapeForRegExp(char)];
	forms.push([...Buffer.from(char, 'utf8')].map((byte) => `%${hexPattern(byte, 2)}`).join(''));
	if (char === ' ') forms.push('\\+');
	if (ENTITY[char]) forms.push(`&${ENTITY[char]};`);
	// The `;` may be left out: HTML still reads `&#115` as an s.
	forms.push(`&#0*${code};?`, `&#[xX]0*${hexPattern(code)};?`);
	// JSON's short escapes (\n, \", \/); \uXXXX below.
	const short = char === '/' ? '\\/' : JSON.stringify(char).slice(1, -1);
	if (short.length === 2) forms.push(escapeForRegExp(short));
	const units = code > 0xffff ? [char.charCodeAt(0), char.charCodeAt(1)] : [code];
	forms.push(units.map((unit) => `\\\\u${hexPattern(unit, 4)}`).join(''));
	return `(?:${forms.join('|')})`;
}

// The base64 of `secret` at each offset modulo 3 in the encoded data, without the characters that also carry bits of
// the bytes around it; standard and URL-safe alphabets, never padding.
function base64Forms(secret: string): string[] {
	const bytes = Buffer.from(secret, 'utf8');
	return [0, 1, 2].flatMap((offset) => {
		const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
			.toString('base64')
			.replace(/=+$/, '');
		const start = [0, 2, 3][offset];
		const end = (offset + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 1;
		const form = encoded.slice(start, end);
		return form.length > 0 ? [form, form.replace(/\+/g, '-').replace(/\//g, '_')] : [];
	});
}

/** Between hex byte pairs: a space, a colon or a line end. */
const HEX_GAP = '(?:[ :]|\\r?\\n|(?:\\\\r)?\\\\n)?';
/** A line end inside wrapped base64, as is or JSON-escaped. */
const LINE_BREAK = '(?:\\r?\\n|(?:\\\\r)?\\\\n)?';

function formCharacterPattern(char: string, anyCase: boolean): string {
	const variants = anyCase ? [...new Set([char, char.toLowerCase(), char.toUpperCase()])] : [char];
	if (variants.length === 1) return characterPattern(char);
	return `(?:${variants.map((variant) => [...variant].map(characterPattern).join('')).join('|')})`;
}

/** Characters each escaped spelling above starts with: without them a secret shows only as written, or wrapped. */
const SPELLING_MARKS = /[%&\\+]/;

/** Whether `text` may hold a secret: false only where no matcher below can match (as written, in any case where the
 * matcher allows it; base64, hex and byte lists without their line ends and gaps), so few texts take the matchers. */
function mayHoldTest(forms: Map<string, boolean>, bytes: Buffer[]): (text: string) => boolean {
	const exact = [...forms].filter(([, anyCase]) => !anyCase).map(([text]) => text);
	const inAnyCase = [...forms].filter(([, anyCase]) => anyCase).map(([text]) => text);
	const anyCase = inAnyCase.map((text) => text.toLowerCase());
	const hex = bytes.map((data) => data.toString('hex'));
	const lists = bytes.map((data) => [...data].join(','));
	// Outside ASCII, a letter's other case may be longer or map back elsewhere: those texts take the matchers.
	const simple = inAnyCase.every((text) => [...text].every((char) => char.charCodeAt(0) < 0x80));
	return (text) => {
		if (!simple || SPELLING_MARKS.test(text)) return true;
		const lower = text.toLowerCase();
		const unwrapped = text.replace(/[\r\n]/g, '');
		const bare = lower.replace(/[ :\r\n]/g, '');
		const listed = text.replace(/\s/g, '');
		return (
			exact.some((form) => text.includes(form) || unwrapped.includes(form)) ||
			anyCase.some((form) => lower.includes(form)) ||
			hex.some((form) => bare.includes(form)) ||
			lists.some((form) => listed.includes(form))
		);
	};
}

type Matchers = { mayHold: (text: string) => boolean; patterns: () => RegExp[] };
/** A few sets of secrets (a renewed token, a second account) each keep their matchers: building them is costly. */
const cachedMatchers = new Map<string, Matchers>();

/** Every form of every secret, longest first: a secret inside a longer one is not half-redacted. */
export function secretMatchers(secrets: readonly string[]): Matchers {
	// Not joined: a secret holding the separator would share a key with another set.
	const key = JSON.stringify(secrets);
	const cached = cachedMatchers.get(key);
	if (cached) return cached;
	// Each form, and whether its letters may come back in either case: mail systems change an e-mail's case freely;
	// other secrets, and base64, are matched exactly.
	const forms = new Map<string, boolean>();
	for (const secret of secrets) {
		forms.set(secret, /^[^@\s]+@[^@\s]+$/.test(secret) || forms.get(secret) === true);
		for (const text of base64Forms(secret)) forms.set(text, forms.get(text) === true);
	}
	// Longest first here too, so a secret that starts another does not leave the rest of that one.
	const bytes = secrets
		.map((secret) => Buffer.from(secret, 'utf8'))
		.sort((a, b) => b.length - a.length);
	let patterns: RegExp[] | undefined;
	const matchers = {
		mayHold: mayHoldTest(forms, bytes),
		patterns: () => (patterns ??= buildPatterns(forms, bytes)),
	};
	if (cachedMatchers.size >= 4) cachedMatchers.delete(cachedMatchers.keys().next().value!);
	cachedMatchers.set(key, matchers);
	return matchers;
}

function buildPatterns(forms: Map<string, boolean>, bytes: Buffer[]): RegExp[] {
	const spelled = [...forms]
		.sort(([a], [b]) => b.length - a.length)
		.map(([text, anyCase]) =>
			[...text].map((char) => formCharacterPattern(char, anyCase)).join(''),
		);
	// Apart and spelt as they are, so the escapes above do not multiply: base64 wrapped in lines (MIME), hex in
	// either case and wrapped too, the bytes as a list of numbers (a Node Buffer as JSON: `{"data":[99,115,…]}`).
	const inLines = (text: string, anyCase: boolean) =>
		[...text]
			.map((char) => (anyCase ? `[${char}${char.toUpperCase()}]` : escapeForRegExp(char)))
			.join(LINE_BREAK);
	const wrapped = [
		...bytes
			.flatMap((data) => base64Forms(data.toString('utf8')))
			.map((text) => inLines(text, false)),
		// Hex also as byte pairs apart (`63 61`, `63:61`, Node's `<Buffer 63 61 …>`).
		...bytes.map((data) =>
			[...data].map((byte) => inLines(byte.toString(16).padStart(2, '0'), true)).join(HEX_GAP),
		),
		...bytes.map((data) => `${[...data].join('\\s*,\\s*')}(?!\\d)`),
	];
	return [spelled, wrapped].map((list) => new RegExp(list.join('|'), 'g'));
}

/** The numbers of a list of bytes, or of an object keyed 0, 1, 2… (a Uint8Array as JSON); else undefined. */
function byteValues(node: unknown): number[] | undefined {
	if (!node || typeof node !== 'object' || Buffer.isBuffer(node)) return undefined;
	const values = Object.values(node);
	const listed = Array.isArray(node) || Object.keys(node).every((key, i) => key === String(i));
	const bytes = values.every((value) => Number.isInteger(value) && value >= 0 && value < 256);
	return listed && bytes && values.length > 0 ? (values as number[]) : undefined;
}

/** A copy safe to keep: secrets in every string and key redacted, and bounded (placeholders where it was cut). */
export function redactSecrets<T>(value: T, secrets: readonly string[] | undefined): T {
	const active = (secrets ?? []).filter((secret) => secret.length > 0);
	const matchers = active.length ? secretMatchers(active) : undefined;
	let valuesLeft = ANSWER_BOUNDS.values;
	let charactersLeft = ANSWER_BOUNDS.characters;
	const redact = (text: string) =>
		matchers?.mayHold(text)
			? matchers.patterns().reduce((safe, matcher) => safe.replace(matcher, REDACTED), text)
			: text;
	const keep = (text: string) => {
		const safe = redact(text);
		const shown =
			safe.length <= charactersLeft ? safe : `${safe.slice(0, charactersLeft)} ${ANSWER_TOO_LARGE}`;
		charactersLeft = Math.max(0, charactersLeft - safe.length);
		return shown;
	};
	const ancestors = new Set<object>();
	const walk = (node: unknown, depth: number): unknown => {
		if (typeof node === 'string') return keep(node);
		const bytes = byteValues(node)?.join(',');
		if (bytes !== undefined && redact(bytes) !== bytes) return REDACTED;
		if (Buffer.isBuffer(node)) return keep(node.toString('utf8'));
		if (!node || typeof node !== 'object') return node;
		if (depth >= ANSWER_BOUNDS.depth) return '[nested too deep]';
		if (ancestors.has(node)) return '[circular]';
		ancestors.add(node);
		const entries = Object.entries(node);
		const kept = entries.slice(0, Math.max(0, valuesLeft));
		valuesLeft -= kept.length;
		const dropped = entries.length - kept.length;
		try {
			if (Array.isArray(node)) {
				const items = kept.map(([, entry]) => walk(entry, depth + 1));
				if (dropped) items.push(`${ANSWER_TOO_LARGE}: ${dropped} more`);
				return items;
			}
			const keys = new Set<string>();
			const pairs = kept.map(([key, entry]): [string, unknown] => {
				let safeKey = redact(key);
				for (let suffix = 2; keys.has(safeKey); suffix++) safeKey = `${redact(key)} ${suffix}`;
				keys.add(safeKey);
				return [safeKey, walk(entry, depth + 1)];
			});
			if (dropped) pairs.push([ANSWER_TOO_LARGE, `${dropped} more`]);
			// fromEntries defines each key: a "__proto__" key in an answer stays a key, never the copy's prototype.
			return Object.fromEntries(pairs);
		} finally {
			ancestors.delete(node);
		}
	};
	return walk(value, 0) as T;
}

/** Where a redirect points, as origin and path, redacted before parsing (which respells a host or path) and after. */
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
