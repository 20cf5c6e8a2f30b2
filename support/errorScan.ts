/**
 * For unit tests: every text a value carries (keys, values, and every own property of an error, the ones JSON
 * leaves out included: message, stack, cause, errorResponse, context), and the forms a secret can be echoed in,
 * computed here independently of the code under test.
 */

/** The forms an API could echo a secret in, by name. */
export function echoedForms(secret: string): Record<string, string> {
	const html = (escape: (char: string) => string) =>
		[...secret].map((char) => ('&<>"\''.includes(char) ? escape(char) : char)).join('');
	const named: Record<string, string> = {
		'&': '&amp;',
		'<': '&lt;',
		'>': '&gt;',
		'"': '&quot;',
		"'": '&#39;',
	};
	return {
		'as typed': secret,
		encodeURIComponent: encodeURIComponent(secret),
		'form-encoded': new URLSearchParams({ x: secret }).toString().slice('x='.length),
		'encodeURIComponent, + for a space': encodeURIComponent(secret).replace(/%20/g, '+'),
		'HTML named entities': html((char) => named[char]),
		'HTML decimal entities': html((char) => `&#${char.charCodeAt(0)};`),
		'HTML hex entities': html((char) => `&#x${char.charCodeAt(0).toString(16)};`),
		'JSON-escaped': JSON.stringify(secret).slice(1, -1),
		base64: Buffer.from(secret, 'utf8').toString('base64'),
	};
}

/** Every string in a value: keys and values, own properties enumerable or not, iteratively and without cycles. */
export function everyText(value: unknown): string[] {
	const texts: string[] = [];
	const seen = new Set<object>();
	const stack: unknown[] = [value];
	while (stack.length > 0) {
		const node = stack.pop();
		if (typeof node === 'string') texts.push(node);
		else if (typeof node === 'number' || typeof node === 'bigint') texts.push(String(node));
		else if ((typeof node === 'object' || typeof node === 'function') && node !== null) {
			if (seen.has(node)) continue;
			seen.add(node);
			if (Buffer.isBuffer(node)) {
				texts.push(node.toString('utf8'));
				continue;
			}
			for (const key of Object.getOwnPropertyNames(node)) {
				texts.push(key);
				const descriptor = Object.getOwnPropertyDescriptor(node, key);
				stack.push(descriptor && 'value' in descriptor ? descriptor.value : undefined);
			}
		}
	}
	return texts;
}

export interface Echo {
	secret: string;
	form: string;
	/** The text it was found in, cut around it. */
	around: string;
}

/** Every form of every secret found in any text of the value. */
export function findEchoes(value: unknown, secrets: Record<string, string>): Echo[] {
	const echoes: Echo[] = [];
	const texts = everyText(value);
	for (const [name, secret] of Object.entries(secrets)) {
		for (const [form, text] of Object.entries(echoedForms(secret))) {
			for (const candidate of texts) {
				const at = candidate.indexOf(text);
				if (at < 0) continue;
				echoes.push({
					secret: name,
					form,
					around: candidate.slice(Math.max(0, at - 40), at + text.length + 40),
				});
				break;
			}
		}
	}
	return echoes;
}
