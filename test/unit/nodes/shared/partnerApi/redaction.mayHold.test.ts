/**
 * The quick test that lets most texts skip the matchers must never skip one they match: every spelling of a secret
 * an answer may hold (each character as is, percent-encoded, an HTML entity, a JSON escape, another case for an
 * e-mail; base64 at any offset and wrapped, hex with gaps, a byte list), inside any text, is generated here.
 */
import fc from 'fast-check';

import { redactSecrets, secretMatchers } from '../../../../../nodes/shared/partnerApi/redaction';

const hexCase = (hex: string, upper: boolean) => (upper ? hex.toUpperCase() : hex);

/** One character in a spelling the matchers read, chosen by `pick`. */
function spellChar(char: string, pick: number, upper: boolean, anyCase: boolean): string {
	const code = char.codePointAt(0)!;
	const bytes = [...Buffer.from(char, 'utf8')];
	const units = code > 0xffff ? [char.charCodeAt(0), char.charCodeAt(1)] : [code];
	const forms = [
		anyCase ? (upper ? char.toUpperCase() : char.toLowerCase()) : char,
		bytes.map((byte) => `%${hexCase(byte.toString(16).padStart(2, '0'), upper)}`).join(''),
		char === ' ' ? '+' : char,
		`&#${'0'.repeat(pick % 3)}${code}${pick % 2 ? ';' : ''}`,
		`&#${upper ? 'X' : 'x'}${hexCase(code.toString(16), upper)};`,
		(
			{ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' } as Record<
				string,
				string
			>
		)[char] ?? char,
		JSON.stringify(char).slice(1, -1),
		units.map((unit) => `\\u${hexCase(unit.toString(16).padStart(4, '0'), upper)}`).join(''),
	];
	return forms[pick % forms.length];
}

const wrap = (text: string, width: number, lineEnd: string) =>
	width === 0 ? text : (text.match(new RegExp(`.{1,${width}}`, 'gs')) ?? []).join(lineEnd);

/** The secret spelled as a whole: each character on its own, base64, hex or a byte list. */
const spelling = (secret: string, anyCase: boolean) =>
	fc
		.record({
			how: fc.constantFrom('characters', 'asWritten', 'base64', 'base64url', 'hex', 'bytes'),
			picks: fc.array(fc.nat(40), { minLength: 64, maxLength: 64 }),
			upper: fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
			around: fc.uint8Array({ maxLength: 2 }),
			width: fc.constantFrom(0, 0, 4, 76),
			lineEnd: fc.constantFrom('\n', '\r\n', '\\n', '\\r\\n'),
			gap: fc.constantFrom('', ' ', ':', '\n', ', ', ' , '),
		})
		.map(({ how, picks, upper, around, width, lineEnd, gap }) => {
			const bytes = Buffer.from(secret, 'utf8');
			// As written (an e-mail in any case, a space as +): the quick test's own path.
			if (how === 'asWritten')
				return [...secret]
					.map((c, i) => spellChar(c, 2 * (picks[i % 64] % 2), upper[i % 64], anyCase))
					.join('');
			if (how === 'characters')
				return [...secret]
					.map((c, i) => spellChar(c, picks[i % 64], upper[i % 64], anyCase))
					.join('');
			if (how === 'hex') {
				const pairs = [...bytes].map((b, i) =>
					hexCase(b.toString(16).padStart(2, '0'), upper[i % 64]),
				);
				return pairs.join(gap.includes(',') ? ' ' : gap);
			}
			if (how === 'bytes') return `[${[...bytes].join(gap.includes(',') ? gap : ',')}]`;
			const data = Buffer.concat([Buffer.from(around), bytes, Buffer.from(around)]);
			const encoded = data.toString(how === 'base64' ? 'base64' : 'base64url');
			return wrap(encoded, width, lineEnd);
		});

/** Characters that have spellings of their own (a space as +, entities, JSON escapes), and some that do not. */
const SPELLED = ['a', 'Z', '7', ' ', '%', '&', '+', '/', '"', '<', '\\', '\n', 'é', 'ß', '😀'];

const secretText = fc.oneof(
	fc.string({ minLength: 1, maxLength: 12 }),
	fc.string({ unit: fc.constantFrom(...SPELLED), minLength: 1, maxLength: 10 }),
	fc
		.array(fc.constantFrom('pass', 'Word', '42', 'ß'), { minLength: 2, maxLength: 3 })
		.map((words) => words.join(' ')),
	fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }),
	// E-mails, matched in any case (ß's other case is SS), as often as all the rest.
	{
		weight: 4,
		arbitrary: fc
			.tuple(
				fc.string({
					unit: fc.constantFrom('a', 'B', '.', '_', 'ß', '7'),
					minLength: 1,
					maxLength: 6,
				}),
				fc.constantFrom('Example.COM', 'exämple.de', 'x.io', 'Straße.DE'),
			)
			.map(([local, domain]) => `${local}@${domain}`),
	},
);

describe('redactSecrets: the quick test before the matchers', () => {
	it('never lets a text through that a matcher would redact', () => {
		let matched = 0;
		fc.assert(
			fc.property(
				fc.array(secretText, { minLength: 1, maxLength: 3 }).chain((secrets) =>
					fc.tuple(
						fc.constant(secrets),
						fc.array(
							fc.tuple(
								fc.string({ unit: 'binary', maxLength: 8 }),
								fc
									.nat(secrets.length - 1)
									.chain((i) => spelling(secrets[i], /^[^@\s]+@[^@\s]+$/.test(secrets[i]))),
								fc.string({ maxLength: 8 }),
							),
							{ minLength: 1, maxLength: 25 },
						),
					),
				),
				([secrets, texts]) => {
					const { mayHold, patterns } = secretMatchers(secrets);
					for (const parts of texts) {
						const text = parts.join('');
						const matches = patterns().some((pattern) => new RegExp(pattern.source).test(text));
						if (matches) matched++;
						expect({ text, secrets, mayHold: mayHold(text) || !matches }).toEqual({
							text,
							secrets,
							mayHold: true,
						});
						if (!mayHold(text)) expect(redactSecrets(text, secrets)).toBe(text);
					}
				},
			),
			{ numRuns: 100, seed: 4242 },
		);
		// The generators reach the matchers: most texts hold a secret they redact.
		expect(matched).toBeGreaterThan(500);
	});
});
