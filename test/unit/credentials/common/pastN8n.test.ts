/**
 * What the node and its credential hand each other past n8n: on the decrypted credential object and on the
 * credential's own error, as facts that are never copied, saved or shown, and never read back from words.
 */
import { NodeApiError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';

import {
	carriedCancelSignal,
	carryCancelSignal,
	diagnosisText,
	failedTokenExchange,
	failedTokenExchangeOf,
	failTokenExchange,
	forgetTokenExchange,
} from '../../../../credentials/common/pastN8n';

const diagnosis = {
	title: 'Login refused (HTTP 401)',
	description: 'Check the e-mail and password.',
};

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
		expect(error.message).toBe(diagnosisText(diagnosis));
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
		const wordsOnly = new NodeApiError(node, { message: diagnosisText(diagnosis) });
		expect(failedTokenExchangeOf(wordsOnly)).toBeUndefined();
		expect(failedTokenExchangeOf(new Error(diagnosisText(diagnosis)))).toBeUndefined();
	});
});
