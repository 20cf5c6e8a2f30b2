/**
 * Copies of the API's answers: a key named "__proto__" (JSON.parse keeps it as an ordinary key) stays a key of the
 * copy, never its prototype, so what the user sees is what the API said, and nothing is read from a hidden field.
 */
import { readAnswer } from '../../../../../nodes/shared/partnerApi/apiAnswers';
import { redactSecrets } from '../../../../../nodes/shared/partnerApi/redaction';
import { findSubscriptionId } from '../../../../../nodes/TicketMarketplace/actions/webhook/subscribe/execute';

const ANSWER = '{"__proto__": {"id": "HIDDEN-7", "polluted": true}, "status": "submitted"}';

describe('an answer with a "__proto__" key, copied and redacted', () => {
	it('keeps the key as a key and the copy a plain object', () => {
		const copy = redactSecrets(JSON.parse(ANSWER) as Record<string, unknown>, ['s3cret']);
		expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
		expect(Object.keys(copy)).toEqual(['__proto__', 'status']);
		expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({
			id: 'HIDDEN-7',
			polluted: true,
		});
		expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
		expect(JSON.stringify(copy)).toBe(JSON.stringify(JSON.parse(ANSWER)));
	});

	it('nested too, and a Subscribe answer shows no ID that no shown field holds', () => {
		const copy = redactSecrets(JSON.parse(`{"data": ${ANSWER}}`) as unknown, []);
		expect(findSubscriptionId(copy)).toBeUndefined();
		expect(JSON.stringify(copy)).toContain('"__proto__":{"id":"HIDDEN-7"');
	});
});

describe('an error code, whatever form n8n hands the body in', () => {
	const list = '[{"code":"inventory.listings.duplicateListing","description":"taken"}]';
	it.each([
		['parsed', JSON.parse(list) as unknown],
		['text', list],
		['text after a line break', `\n${list}`],
		['bytes', Buffer.from(list)],
	])('reads the code of a listed error from a body as %s', (_form, body) => {
		expect(readAnswer(400, { 'content-type': 'application/json' }, body).code).toBe(
			'inventory.listings.duplicateListing',
		);
	});
});

describe('an error code in an `errors` list sent as JSON text (double-encoded)', () => {
	const listAsText = JSON.stringify([
		{ code: 'inventory.listings.duplicateListing', description: 'taken' },
	]);

	it('is read from a parsed body', () => {
		const body = { errors: listAsText };
		expect(readAnswer(409, { 'content-type': 'application/json' }, body).code).toBe(
			'inventory.listings.duplicateListing',
		);
	});

	it('is read from a body in text', () => {
		const body = JSON.stringify({ errors: listAsText });
		expect(readAnswer(409, { 'content-type': 'text/plain' }, body).code).toBe(
			'inventory.listings.duplicateListing',
		);
	});
});
