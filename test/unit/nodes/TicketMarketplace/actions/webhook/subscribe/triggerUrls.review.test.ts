/**
 * Hostile review of Subscribe's URL checks: spellings of one origin that must pass, other origins that must not,
 * and what counts as this machine for plain http.
 */
import {
	isLoopbackUrl,
	triggerUrlProblems,
	urlOriginProblems,
} from '../../../../../../../nodes/TicketMarketplace/actions/webhook/subscribe/triggerUrls';

const ID = '0f3c2f8e-5b7a-4f6e-9a43-1d2c3b4a5e6f';
const CALLBACK = `https://n8n.example.test/webhook/${ID}/notifications`;

function problems(tokenUrl: string, callbackUrl = CALLBACK, plainHttpAllowed = false): string[] {
	return [
		...triggerUrlProblems(callbackUrl, tokenUrl),
		...urlOriginProblems(callbackUrl, tokenUrl, plainHttpAllowed),
	].map((problem) => problem.text);
}

describe('review: one origin however it is spelled', () => {
	it.each([
		`https://n8n.example.test:443/webhook/${ID}/token`,
		`https://N8N.EXAMPLE.TEST/webhook/${ID}/token`,
		`https://n8n.example.test/webhook/${ID}/token?source=marketplace`,
	])('accepts %s beside the Callback URL', (tokenUrl) => {
		expect(problems(tokenUrl)).toEqual([]);
	});

	it('reads an IDN host and its punycode as one server', () => {
		expect(
			problems(
				`https://xn--bcher-kva.example/webhook/${ID}/token`,
				`https://bücher.example/webhook/${ID}/notifications`,
			),
		).toEqual([]);
	});

	it.each([
		`https://n8n.example.test@evil.example/webhook/${ID}/token`,
		`https://n8n.example.test:8443/webhook/${ID}/token`,
		`https://evil.example/webhook/${ID}/token`,
		`http://n8n.example.test/webhook/${ID}/token`,
		`https://[::1]/webhook/${ID}/token`,
	])('refuses a Token URL on another server or scheme: %s', (tokenUrl) => {
		expect(problems(tokenUrl).join(' ')).toMatch(/another server|unencrypted/);
	});
});

describe('review: this machine, for plain http', () => {
	it.each([
		['http://localhost:3000', true],
		['http://LOCALHOST', true],
		['http://127.1', true],
		['http://0x7f.0.0.1', true],
		['http://[::1]:8080', true],
		['http://localhost.', false],
		['http://127.0.0.1.nip.io', false],
		['http://[::ffff:127.0.0.1]', false],
		['http://127.0.0.1@public.example', false],
		['http://0.0.0.0', false],
	])('%s is loopback: %s', (url, loopback) => {
		expect(isLoopbackUrl(url)).toBe(loopback);
	});
});
