/** What the sandbox shows of a request: a "__proto__" key stays a key of the copy, never its prototype. */
import { redactJson, redactQuery } from '../../../sandbox/redact';

describe("the sandbox's redacted copies", () => {
	it('keep a "__proto__" key of a JSON body as a key, and still redact inside it', () => {
		const copy = redactJson(
			JSON.parse('{"__proto__": {"password": "p", "id": 7}, "a": 1}'),
		) as Record<string, unknown>;
		expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
		expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
		expect(JSON.stringify(copy)).toBe('{"__proto__":{"password":"[redacted]","id":7},"a":1}');
	});

	it('keep a "__proto__" query parameter as a key', () => {
		const copy = redactQuery(new URLSearchParams('__proto__=x&token=t'));
		expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
		expect(JSON.stringify(copy)).toBe('{"__proto__":"x","token":"[redacted]"}');
	});
});
