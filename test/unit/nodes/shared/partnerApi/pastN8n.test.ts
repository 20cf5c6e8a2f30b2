/**
 * What the node and its credential hand each other past n8n: on the decrypted credential object and on the
 * credential's own error, as facts that are never copied, saved or shown, and never read back from words.
 */
import { NodeApiError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';

import {
	carriedCancelSignal,
	carryCancelSignal,
	failedTokenExchange,
	failedTokenExchangeOf,
	failTokenExchange,
	forgetTokenExchange,
	isLegacyRequest,
	renewalWanted,
	tokenForRequest,
} from '../../../../../nodes/shared/partnerApi/pastN8n';
import { withTokenIssued } from '../../../../../support/fakeN8n/issuedToken';

const diagnosis = {
	title: 'Login refused (HTTP 401)',
	description: 'Check the e-mail and password.',
};
/** As a credential test in n8n shows it. */
const DIAGNOSIS_TEXT = 'Login refused (HTTP 401). Check the e-mail and password.';

describe('pastN8n: the run cancel signal', () => {
	it('rides on the credential object, unseen by copies and JSON', () => {
		const credential = { baseUrl: 'https://api.example.com' };
		const signal = new AbortController().signal;
		carryCancelSignal(credential, signal);
		expect(carriedCancelSignal(credential)).toBe(signal);
		expect(carriedCancelSignal({ ...credential })).toBeUndefined();
		expect(JSON.stringify(credential)).toBe('{"baseUrl":"https://api.example.com"}');
	});

	it('is absent when none was carried', () => {
		const credential = {};
		carryCancelSignal(credential, undefined);
		expect(carriedCancelSignal(credential)).toBeUndefined();
	});
});

describe('pastN8n: a failed token exchange', () => {
	it('is noted on the credential object and on the error thrown, with the words a credential test shows', () => {
		const credential = { password: 'secret' };
		const error = failTokenExchange(credential, diagnosis, { status: 429, retryAfter: '3' });
		expect(error.message).toBe(DIAGNOSIS_TEXT);
		expect(failedTokenExchange(credential)).toEqual({
			diagnosis,
			answer: { status: 429, retryAfter: '3' },
			error,
		});
		expect(failedTokenExchangeOf(error)?.diagnosis).toEqual(diagnosis);
		expect(Object.keys(credential)).toEqual(['password']);
		expect(JSON.stringify(credential)).toBe('{"password":"secret"}');
	});

	it('is found as the cause of a wrapping error', () => {
		const error = failTokenExchange({}, diagnosis);
		const wrapped = new Error('wrapped', { cause: error });
		expect(failedTokenExchangeOf(wrapped)?.error).toBe(error);
	});

	it('is forgotten when an exchange begins', () => {
		const credential = {};
		failTokenExchange(credential, diagnosis);
		forgetTokenExchange(credential);
		expect(failedTokenExchange(credential)).toBeUndefined();
	});

	it('is never recognised by its words alone', () => {
		const node = { name: 'Ticket Marketplace', type: 'x', typeVersion: 1 } as INode;
		const wordsOnly = new NodeApiError(node, { message: DIAGNOSIS_TEXT });
		expect(failedTokenExchangeOf(wordsOnly)).toBeUndefined();
		expect(failedTokenExchangeOf(new Error(DIAGNOSIS_TEXT))).toBeUndefined();
	});
});

describe('pastN8n: what authenticate did with the last request', () => {
	const BASE = 'https://api.example.com';
	const stored = () =>
		withTokenIssued(
			{ baseUrl: BASE, consumerKey: 'k', consumerSecret: 's', email: 'e@x.test', password: 'p' },
			'tok-1',
		);
	const legacy = { method: 'POST', uri: `${BASE}/x`, resolveWithFullResponse: true };
	const newer = { method: 'POST', url: `${BASE}/x` };

	it('tells the HTTP Request node’s options from those of n8n’s newer helper', () => {
		expect(isLegacyRequest(legacy)).toBe(true);
		expect(isLegacyRequest({ ...newer, simple: false })).toBe(true);
		expect(isLegacyRequest(newer)).toBe(false);
	});

	it('before any request (and for a credential test), a renewal is wanted', () => {
		expect(renewalWanted(stored())).toBe(true);
	});

	it('after a request that went with the token through the legacy helper, none is wanted, once', () => {
		const credential = stored();
		expect(tokenForRequest(credential, legacy)).toBe('tok-1');
		expect(renewalWanted(credential)).toBe(false);
		// Used once: a later call of n8n's is another request's.
		expect(renewalWanted(credential)).toBe(true);
	});

	it('after a request through the newer helper (which asks after a 401 only), one is wanted', () => {
		const credential = stored();
		tokenForRequest(credential, newer);
		expect(renewalWanted(credential)).toBe(true);
	});

	it('after a refused request none is wanted; an empty token field always wants one', () => {
		const credential = stored();
		expect(() =>
			tokenForRequest(credential, { ...legacy, uri: 'https://elsewhere.test/x' }),
		).toThrow(/only sends its token to https:\/\/api\.example\.com/);
		expect(renewalWanted(credential)).toBe(false);
		tokenForRequest(credential, legacy);
		expect(renewalWanted({ ...credential, accessToken: '' })).toBe(true);
	});

	it('a legacy request with another login’s token is held back, and a renewal wanted', () => {
		const credential = { ...stored(), password: 'edited' };
		expect(() => tokenForRequest(credential, legacy)).toThrow(/was not sent/);
		expect(renewalWanted(credential)).toBe(true);
		// The newer helper sends it as before, without the token, and renews after the API's 401.
		expect(tokenForRequest(credential, newer)).toBe('');
	});

	it('rides unseen: not copied, not saved', () => {
		const credential = stored();
		tokenForRequest(credential, legacy);
		expect(Object.keys(credential)).toEqual(Object.keys(stored()));
		expect(renewalWanted({ ...credential })).toBe(true);
	});
});
