import nock from 'nock';
import { NodeApiError, sleepWithAbort } from 'n8n-workflow';

import {
	apiRequest,
	buildRequest,
	parseRetryAfter,
	RequestPacer,
	RETRY_POLICY,
	sendRequest,
} from '../../../../../nodes/TicketMarketplace/transport';
import { API_CREDENTIALS, BASE, fakeRun } from '../../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';

// Retries wait through n8n-workflow's sleepWithAbort; here it returns at once and records what it was asked to wait.
const sleepMock = sleepWithAbort as jest.MockedFunction<typeof sleepWithAbort>;

const BODY = { eventId: 1, externalListingId: 2 };

function networkError(code: string, message: string) {
	return Object.assign(new Error(message), { code });
}

function tokenEndpoint(token = 'tok-1') {
	return nock(BASE)
		.post(PARTNER_API_PATHS.grant)
		.query({ grant_type: 'client_credentials' })
		.reply(200, { access_token: token });
}

/** The listing endpoint answers the stored token tok-0 with a 401 (this body), then the renewed tok-1 as given. */
function staleThenRenewed(refusal: object, renewed: [number, object]) {
	return nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.matchHeader('authorization', 'Bearer tok-0')
		.reply(401, refusal)
		.post(PARTNER_API_PATHS.listings)
		.matchHeader('authorization', 'Bearer tok-1')
		.reply(...renewed);
}

async function send(run = fakeRun({ parameters: {}, accessToken: 'tok-0' })) {
	return await apiRequest.call(run.context, {
		request: buildRequest('POST', PARTNER_API_PATHS.listings, BODY, { 'Accept-Language': 'en-US' }),
		itemIndex: 3,
	});
}

/** The same request through sendRequest: what became of it, with what the failure means for the listing. */
async function sendFailing(run = fakeRun({ parameters: {}, accessToken: 'tok-0' })) {
	const result = await sendRequest.call(run.context, {
		request: buildRequest('POST', PARTNER_API_PATHS.listings, BODY, { 'Accept-Language': 'en-US' }),
		itemIndex: 3,
	});
	if (result.kind !== 'failed') throw new Error(`expected the request to fail, got ${result.kind}`);
	expect(result.error).toBeInstanceOf(NodeApiError);
	return result;
}

async function failure(promise: Promise<unknown>): Promise<NodeApiError> {
	try {
		await promise;
	} catch (error) {
		expect(error).toBeInstanceOf(NodeApiError);
		return error as NodeApiError;
	}
	throw new Error('expected the request to fail');
}

function expectNoSecrets(error: unknown) {
	const text =
		JSON.stringify(error) +
		String((error as Error).message) +
		String((error as NodeApiError).description);
	for (const secret of [
		'tok-0',
		'tok-1',
		API_CREDENTIALS.consumerSecret,
		API_CREDENTIALS.password,
		'Bearer',
	]) {
		expect(text).not.toContain(secret);
	}
}

beforeEach(() => {
	sleepMock.mockClear();
});
afterEach(() => {
	nock.cleanAll();
});

describe('transport: the one request path', () => {
	it('fetches a token first, then sends the exact request with the Bearer token (trailing slash of the base URL stripped)', async () => {
		const token = tokenEndpoint('tok-1');
		let seen: { headers: Record<string, unknown>; body: unknown } | undefined;
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(function (_uri, body) {
				seen = { headers: this.req.headers, body };
				return [201, { listingId: 99 }];
			});
		const run = fakeRun({ parameters: {} });

		await expect(send(run)).resolves.toEqual({ listingId: 99 });

		expect(token.isDone() && api.isDone()).toBe(true);
		expect(seen?.body).toEqual(BODY);
		expect(seen?.headers).toMatchObject({
			authorization: 'Bearer tok-1',
			accept: 'application/json',
			'content-type': 'application/json',
			'accept-language': 'en-US',
		});
		expect(run.stored.accessToken).toBe('tok-1');
		expect(sleepMock).not.toHaveBeenCalled();
	});

	it('after a 401 renews the token before re-sending, once, then returns the answer', async () => {
		// The 401 is seen by us (full-response mode); the token it refused is emptied so that n8n fetches a new one
		// before the re-send (it used to re-send with the refused token first: three listing requests for one stale
		// token). The API refused the first try, so nothing is created twice.
		const api = staleThenRenewed({ message: 'expired' }, [201, { ok: true }]);
		const token = tokenEndpoint('tok-1');
		const run = fakeRun({ parameters: {}, accessToken: 'tok-0' });

		await expect(send(run)).resolves.toEqual({ ok: true });
		expect(api.isDone() && token.isDone()).toBe(true);
		expect(run.tokenRequests()).toBe(1);
	});

	it('reports a 401 that survives the renewal as the app lacking the API product, not as a wrong login', async () => {
		const api = staleThenRenewed({ message: 'not allowed' }, [401, { message: 'not allowed' }]);
		const token = tokenEndpoint('tok-1');
		const run = fakeRun({ parameters: {}, accessToken: 'tok-0' });

		const error = await failure(send(run));
		expect(api.isDone() && token.isDone()).toBe(true);
		expect(run.tokenRequests()).toBe(1);
		expect(error.httpCode).toBe('401');
		expect(error.message).toBe(
			'The Partner API refused an access token it had just issued (HTTP 401)',
		);
		expect(error.description).toContain('The API said: "not allowed".');
		expect(error.description).toContain('add the API product it needs to your app');
		expect(error.description).not.toContain('Check the Ticket Marketplace API credential');
		expectNoSecrets(error);
	});

	it("passes the credential's own diagnosis of a refused token exchange, without claiming anything was sent", async () => {
		nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(401, { error: 'invalid_grant', error_description: 'bad login' });
		const api = nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, {});

		const error = await failure(send(fakeRun({ parameters: {} })));
		expect(api.isDone()).toBe(false);
		// n8n's NodeApiError keeps only the credential's words: they are recognised, and the login is named.
		// The title says what happened, the description what to do.
		expect(error.message).toBe(
			'Login refused: the token endpoint refused the marketplace e-mail and password (HTTP 401)',
		);
		expect(error.description).toBe(
			'The API said: "bad login" (code invalid_grant). Check Marketplace Account E-Mail and Password in the credential: they are the login of your marketplace account (where tickets are bought and sold), not your developer-portal login. This listing was not created: it needs a login that works.',
		);
		expectNoSecrets(error);
	});

	it('refuses a token answer whose access_token no header can carry: nothing sent, no token kept', async () => {
		nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(200, { access_token: 'tok-1\r\nX-Injected: 1' });
		const api = nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, {});
		const run = fakeRun({ parameters: {} });

		const { error, effect } = await sendFailing(run);
		expect(api.isDone()).toBe(false);
		expect(effect).toBe('notCreated');
		expect(error.message).toContain('answered with an access token that cannot be used');
		expect(error.message).not.toContain('X-Injected');
		expect(error.description).toContain('Nothing was sent with it.');
		expect(error.description).not.toContain('X-Injected');
		// n8n saves a token the credential returns: none was.
		expect(run.tokenRequests()).toBe(0);
		expectNoSecrets(error);
	});

	it.each([['tok-1.a_b~c+d/e=='], ['123456|app-token:v2']])(
		'keeps accepting a printable token such as %s',
		async (token) => {
			nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: token });
			const api = nock(BASE)
				.post(PARTNER_API_PATHS.listings)
				.matchHeader('authorization', `Bearer ${token}`)
				.reply(201, { ok: true });

			await expect(send(fakeRun({ parameters: {} }))).resolves.toEqual({ ok: true });
			expect(api.isDone()).toBe(true);
		},
	);

	it('says "not sent" when Node refuses to build the request (a stored token with a line break)', async () => {
		const api = nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, {});

		const { error, effect } = await sendFailing(
			fakeRun({ parameters: {}, accessToken: 'tok-0\r\nX-Injected: 1' }),
		);
		expect(api.isDone()).toBe(false);
		expect(effect).toBe('notCreated');
		expect(error.message).toBe(
			'The request to the Partner API could not be built (a header value with a character HTTP cannot carry)',
		);
		expect(error.description).toContain('Nothing was sent.');
		expect(error.description).not.toContain('may or may not');
		expectNoSecrets(error);
	});

	it('retries a 429 after the Retry-After seconds, then returns the answer', async () => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(429, { message: 'slow down' }, { 'Retry-After': '7' })
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { created: true });

		await expect(send()).resolves.toEqual({ created: true });
		expect(api.isDone()).toBe(true);
		expect(sleepMock.mock.calls).toEqual([[7000]]);
	});

	it('honours a Retry-After HTTP date, and a long Retry-After in full up to the stated bound', async () => {
		const now = Date.parse('2026-01-01T00:00:00Z');
		const dateNow = jest.spyOn(Date, 'now').mockReturnValue(now);
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(429, '', { 'Retry-After': 'Thu, 01 Jan 2026 00:00:05 GMT' })
			.post(PARTNER_API_PATHS.listings)
			.reply(429, '', { 'Retry-After': '120' })
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { created: true });
		try {
			await expect(send()).resolves.toEqual({ created: true });
		} finally {
			dateNow.mockRestore();
		}
		expect(api.isDone()).toBe(true);
		// Two minutes is above the old 60 s cap, which retried early and used up the retries.
		expect(sleepMock.mock.calls).toEqual([[5000], [120_000]]);
	});

	it('does not wait for a Retry-After beyond the bound, and says how long the API asked to wait', async () => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(429, '', { 'Retry-After': '86400' });
		const extra = nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, {});
		const { error, effect } = await sendFailing();
		expect(api.isDone()).toBe(true);
		expect(extra.isDone()).toBe(false);
		expect(sleepMock).not.toHaveBeenCalled();
		expect(error.message).toBe(
			'The Partner API asked to wait 24 h (rate limit), longer than this node waits',
		);
		expect(error.description).toContain(
			`Run the workflow again in 24 h or later; this node waits at most ${RETRY_POLICY.maxRetryAfterMs / 60_000} min.`,
		);
		expect(error.description).toContain('Nothing was created');
		expect(effect).toBe('notCreated');
	});

	it('backs off exponentially on 429 without Retry-After and gives up after the bounded retries with a clear error', async () => {
		const attempts = RETRY_POLICY.maxRateLimitRetries + 1;
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.times(attempts)
			.reply(429, { message: 'rate limited' });
		const extra = nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, {});

		const { error, effect } = await sendFailing();

		expect(api.isDone()).toBe(true);
		expect(extra.isDone()).toBe(false);
		const backoff = Array.from({ length: RETRY_POLICY.maxRateLimitRetries }, (_, retry) => [
			Math.min(1000 * 2 ** retry, RETRY_POLICY.maxWaitMs),
		]);
		expect(sleepMock.mock.calls).toEqual(backoff);
		expect(error.httpCode).toBe('429');
		expect(error.message).toBe(
			`Rate limit: the Partner API answered "too many requests" ${RETRY_POLICY.maxRateLimitRetries + 1} times`,
		);
		expect(error.description).toContain('Lower Options → Max Listings at Once');
		expect(effect).toBe('notCreated');
		expect(error.context.itemIndex).toBe(3);
		expectNoSecrets(error);
	});

	it('retries a spike arrest answered 500 after one interval of the rate its fault names, and tells the pacer to keep that gap', async () => {
		const fault = {
			fault: {
				faultstring: 'Spike arrest violation. Allowed rate : 40ps',
				detail: { errorcode: 'policies.ratelimit.SpikeArrestViolation' },
			},
		};
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.times(2)
			.reply(500, fault)
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 7 });
		const pacer = new RequestPacer('adaptive', 4);
		const run = fakeRun({ parameters: {}, accessToken: 'tok-0' });
		const result = await sendRequest.call(run.context, {
			request: buildRequest('POST', PARTNER_API_PATHS.listings, BODY, {}),
			itemIndex: 0,
			pacer,
		});
		expect(result).toEqual({ kind: 'answered', body: { id: 7 }, effect: 'created' });
		expect(api.isDone()).toBe(true);
		// One interval (25 ms) each, not a backoff of seconds: the gateway admits the next request then. The pacer's
		// own spacing waits (with a wake-up signal of their own) come as often as the machine is slow to pass 25 ms:
		// not counted. A retry's wait ends when the pacer closes: it carries the pacer's signal.
		expect(
			sleepMock.mock.calls.filter(([ms, signal]) => ms === 25 && signal === pacer.closedSignal),
		).toHaveLength(2);
		expect(Math.max(...sleepMock.mock.calls.map(([ms]) => Number(ms)))).toBe(25);
		const stats = pacer.snapshot();
		expect(stats.spikeRefusals).toBe(2);
		expect(stats.spikeSpacingMs).toBeGreaterThanOrEqual(25);
		// A spike arrest is not a per-second limit's pause.
		expect(stats.rateRefusals).toBe(0);
	});

	it('stops every send at the first quota answer: requests in flight end, nothing new starts, one request per listing', async () => {
		const quota = {
			fault: {
				faultstring: 'Rate limit quota violation. Quota limit  exceeded. Identifier : _default',
				detail: { errorcode: 'policies.ratelimit.QuotaViolation' },
			},
		};
		// The first listing alone, then 3 at once, all refused for the quota; 3 more wait for a slot.
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 1 })
			.post(PARTNER_API_PATHS.listings)
			.times(3)
			.delay(20)
			.reply(500, quota);
		const extra = nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, {});
		const pacer = new RequestPacer('fixed', 3);
		const run = fakeRun({ parameters: {}, accessToken: 'tok-0' });
		const results = await Promise.all(
			Array.from({ length: 7 }, async (_, itemIndex) => {
				if (itemIndex > 0) await new Promise((resolve) => setImmediate(resolve));
				return await sendRequest.call(run.context, {
					request: buildRequest('POST', PARTNER_API_PATHS.listings, BODY, {}),
					itemIndex,
					pacer,
				});
			}),
		);
		expect(api.isDone()).toBe(true);
		expect(extra.isDone()).toBe(false);
		expect(results.map((result) => result.kind)).toEqual([
			'answered',
			'failed',
			'failed',
			'failed',
			'notSent',
			'notSent',
			'notSent',
		]);
		for (const result of results.slice(1, 4)) {
			if (result.kind !== 'failed') throw new Error('expected a failure');
			expect(result.effect).toBe('notCreated');
			expect(result.error.message).toContain('Quota used up');
		}
		// No wait for a retry: the quota is not retried.
		expect(sleepMock).not.toHaveBeenCalled();
	});

	it('retries a refused connection (nothing was sent) with backoff', async () => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.replyWithError(networkError('ECONNREFUSED', 'connect ECONNREFUSED'))
			.post(PARTNER_API_PATHS.listings)
			.replyWithError(networkError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN'))
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { created: true });

		await expect(send()).resolves.toEqual({ created: true });
		expect(api.isDone()).toBe(true);
		expect(sleepMock.mock.calls).toEqual([[1000], [2000]]);
	});

	it('gives up on refused connections after the bounded retries and says nothing was sent', async () => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.times(RETRY_POLICY.maxConnectionRetries + 1)
			.replyWithError(networkError('ECONNREFUSED', 'connect ECONNREFUSED'));

		const { error, effect } = await sendFailing();
		expect(api.isDone()).toBe(true);
		// In words: n8n replaces any message carrying ECONNREFUSED with a generic text naming neither URL nor credential.
		expect(error.message).toBe('Could not connect to the Partner API (connection refused)');
		expect(error.description).toContain(`Tried ${BASE} 4 times.`);
		expect(error.message).not.toMatch(/ECONNREFUSED/);
		expect(error.description).toContain('Base URL of the Ticket Marketplace API credential');
		expect(effect).toBe('notCreated');
		expect(error.description).toContain('Nothing was sent');
		expect(error.description).not.toContain('may or may not');
	});

	it.each([
		['a 502', (scope: nock.Interceptor) => scope.reply(502, { message: 'upstream broke' })],
		['a 500 without body', (scope: nock.Interceptor) => scope.reply(500)],
		[
			'a reset connection',
			(scope: nock.Interceptor) =>
				scope.replyWithError(networkError('ECONNRESET', 'socket hang up')),
		],
		[
			'a timeout',
			(scope: nock.Interceptor) =>
				scope.replyWithError(networkError('ECONNABORTED', 'timeout of 100ms exceeded')),
		],
		[
			'an error without a code, thrown after the request was handed on to be sent',
			(scope: nock.Interceptor) => scope.replyWithError(new Error('the response stream broke')),
		],
	])('never re-sends a POST after %s: it may have been created', async (_name, answer) => {
		const first = answer(nock(BASE).post(PARTNER_API_PATHS.listings));
		const second = nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, { duplicate: true });

		const error = await failure(send());

		expect(first.isDone()).toBe(true);
		expect(second.isDone()).toBe(false);
		expect(sleepMock).not.toHaveBeenCalled();
		expect(error.message).toMatch(/^Outcome unknown: /);
		expect(error.description).toContain(
			'the listing may or may not have been created. It was not sent again, so nothing was created twice. Look the listing up on the marketplace by its External Listing ID before sending it again.',
		);
		expect(error.context.itemIndex).toBe(3);
		expectNoSecrets(error);
	});

	it('says "not sent" for an error without a code only when n8n threw it before the credential handed the request on', async () => {
		const run = fakeRun({ parameters: {}, accessToken: 'tok-0' });
		jest
			.spyOn(run.context.helpers, 'httpRequestWithAuthentication')
			.mockRejectedValue(new Error('Node has no credentials'));

		const { error, effect } = await sendFailing(run);

		expect(error.message).toBe('The request to the Partner API could not be sent');
		expect(error.description).toContain('Nothing was sent');
		expect(effect).toBe('notCreated');
	});

	it("turns an API refusal into a NodeApiError with status, the API's own message and the item, without headers", async () => {
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(400, { error: 'invalid_request', error_description: 'eventId unknown' });

		const error = await failure(send());

		expect(error.httpCode).toBe('400');
		expect(error.message).toBe('The Partner API refused the listing (HTTP 400)');
		expect(error.description).toMatch(
			/^The API said: "eventId unknown" \(code invalid_request\)\. Nothing was created\. /,
		);
		expect(error.context.itemIndex).toBe(3);
		expect(error.description ?? '').not.toContain('may or may not');
		expectNoSecrets(error);
		expect(JSON.stringify(error)).not.toMatch(/authorization/i);
	});

	it.each([
		[{ message: 'Listing exists' }, 'Listing exists'],
		[{ error: { message: 'nested words' } }, 'nested words'],
		[{ errors: [{ detail: 'first' }, { message: 'second' }] }, 'first; second'],
		['plain text failure', 'plain text failure'],
	])('reads the API message defensively from %j', async (body, expected) => {
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(409, body as nock.Body);
		const error = await failure(send());
		// None names the External Listing ID: a conflict, not "already listed".
		expect(error.message).toBe('Conflict: the Partner API refused the listing (HTTP 409)');
		expect(error.description).toContain(`The API said: "${expected}".`);
	});
});

describe('parseRetryAfter', () => {
	const now = Date.parse('2026-01-01T00:00:00Z');
	it.each([
		['3', 3000],
		['0', 0],
		['Thu, 01 Jan 2026 00:00:10 GMT', 10_000],
		['Wed, 31 Dec 2025 23:59:00 GMT', 0],
		['soon', undefined],
		['', undefined],
		[undefined, undefined],
		['-5', undefined],
	])('%j gives %j ms', (value, expected) => {
		expect(parseRetryAfter(value, now)).toBe(expected);
	});
});
