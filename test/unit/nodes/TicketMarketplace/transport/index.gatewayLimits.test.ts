/**
 * The gateway's limits read from what the gateway itself answers, never from words a service's own failure happens
 * to contain (that one may have created the listing); and a spike arrest slower than any wait of this node stops
 * the run instead of holding it for hours. Then the edges: codes in the other places Apigee and OAuth put them, a
 * rate of exactly one a minute, the token endpoint.
 */
import nock from 'nock';
import { sleepWithAbort } from 'n8n-workflow';

import {
	buildRequest,
	RequestPacer,
	sendRequest,
} from '../../../../../nodes/TicketMarketplace/transport';
import { BASE, fakeRun } from '../../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';

const sleepMock = sleepWithAbort as jest.MockedFunction<typeof sleepWithAbort>;
const BODY = { eventId: 1, externalListingId: 2 };

beforeEach(() => sleepMock.mockClear());
afterEach(() => nock.cleanAll());

async function postListing(pacer?: RequestPacer, accessToken = 'tok-0') {
	const run = fakeRun({ parameters: {}, accessToken });
	return await sendRequest.call(run.context, {
		request: buildRequest('POST', PARTNER_API_PATHS.listings, BODY, {}),
		itemIndex: 0,
		createsId: 2,
		pacer,
	});
}

/** A pacer on fake time: its waits advance the clock at once. */
function fakeTimePacer(mode: 'adaptive' | 'fixed' = 'adaptive') {
	let now = 0;
	const waits: number[] = [];
	const pacer = new RequestPacer(
		mode,
		4,
		false,
		false,
		() => now,
		async (ms) => {
			waits.push(ms);
			now += ms;
		},
	);
	return { pacer, waits, advance: (ms: number) => (now += ms) };
}

describe('a 500 that only mentions a spike arrest or a quota is no gateway refusal', () => {
	// The listing service's own failure (it may have created the listing) whose words mention a spike arrest (say, of
	// a service it called after saving): sent again, it could be listed twice.
	it('a 500 inventory.listings.systemError whose description mentions a spike arrest is not retried (outcome unknown)', async () => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(500, {
				code: 'inventory.listings.systemError',
				description: 'Listing saved, but the pricing service answered: Spike arrest violation',
			})
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 8 });
		const result = await postListing(new RequestPacer('adaptive', 4));
		expect(api.pendingMocks()).toHaveLength(1); // one POST only
		expect(result.kind).toBe('failed');
		if (result.kind === 'failed') expect(result.effect).toBe('unknown');
	});

	// An Apigee fault whose errorcode is not a spike arrest (a script step failed after the target answered) but whose
	// faultstring happens to say "spike arrest": the errorcode should decide, not the words.
	it('a 500 fault with another errorcode but "Spike arrest" in its faultstring is not retried', async () => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(500, {
				fault: {
					faultstring: 'Execution of JS-Spike Arrest headers failed after the target answered',
					detail: { errorcode: 'steps.javascript.ScriptExecutionFailed' },
				},
			})
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 8 });
		const result = await postListing(new RequestPacer('adaptive', 4));
		expect(api.pendingMocks()).toHaveLength(1);
		expect(result.kind === 'failed' && result.effect).toBe('unknown');
	});

	it('an HTML 500 page that mentions a spike arrest is not retried', async () => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(500, '<html><body><h1>Internal error</h1><p>spike arrest log: ok</p></body></html>', {
				'content-type': 'text/html',
			})
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 8 });
		const result = await postListing(new RequestPacer('adaptive', 4));
		expect(api.pendingMocks()).toHaveLength(1);
		expect(result.kind === 'failed' && result.effect).toBe('unknown');
	});

	// The service's own 500 whose words mention a quota is read as the plan's quota: "not created", so the memory
	// forgets the listing and the next run sends it again, though the service may have saved it.
	it('a 500 inventory.listings.systemError whose description mentions a quota keeps its outcome unknown', async () => {
		nock(BASE).post(PARTNER_API_PATHS.listings).reply(500, {
			code: 'inventory.listings.systemError',
			description: 'Listing stored; updating the seller quota counter failed',
		});
		const result = await postListing(new RequestPacer('adaptive', 4));
		expect(result.kind === 'failed' && result.effect).toBe('unknown');
	});
});

describe('a spike arrest too slow to send at', () => {
	// A fault naming one message a day would hold every later listing a day apart, with no word to the user.
	it('the pacer never keeps sends further apart than the longest wait of the transport', async () => {
		const { pacer, waits, advance } = fakeTimePacer();
		const first = await pacer.acquire();
		advance(10);
		first!.release({ kind: 'answered', roundTripMs: 10 });
		const second = await pacer.acquire();
		advance(10);
		second!.release({ kind: 'rateLimited', spikeArrest: true, allowedPerSecond: 1 / 86400 });
		const third = pacer.acquire(true);
		await third;
		expect(Math.max(0, ...waits)).toBeLessThanOrEqual(60_000);
	});

	it('a fault naming one message a day stops the run at once, saying the rate, with nothing sent again', async () => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(500, {
				fault: {
					faultstring:
						'Spike arrest violation. Allowed rate : MessageRate{messagesPerPeriod=1, periodInMicroseconds=86400000000, maxBurstMessages=1.0}',
					detail: { errorcode: 'policies.ratelimit.SpikeArrestViolation' },
				},
			});
		const pacer = new RequestPacer('adaptive', 4);
		const result = await postListing(pacer);
		expect(api.isDone()).toBe(true);
		expect(result.kind).toBe('failed');
		if (result.kind !== 'failed') return;
		expect(result.effect).toBe('notCreated');
		expect(result.error.message).toContain('admits one request every');
		expect(result.error.description).toContain('nothing more is sent in this run');
		// Closed: no further listing is sent.
		expect(await pacer.acquire()).toBeNull();
		expect(sleepMock).not.toHaveBeenCalledWith(expect.any(Number) as number, undefined);
	});
});

describe("the gateway's own faults are still read as its limits", () => {
	it.each([
		[
			'500, errorcode and rate',
			500,
			{
				fault: {
					faultstring: 'Spike arrest violation. Allowed rate : 40ps',
					detail: { errorcode: 'policies.ratelimit.SpikeArrestViolation' },
				},
			},
		],
		[
			'500, the fault without an errorcode',
			500,
			{ fault: { faultstring: 'Spike arrest violation. Allowed rate : 40ps' } },
		],
		[
			'429, errorcode and rate',
			429,
			{
				fault: {
					faultstring: 'Spike arrest violation. Allowed rate : 40ps',
					detail: { errorcode: 'policies.ratelimit.SpikeArrestViolation' },
				},
			},
		],
	])(
		'a spike arrest (%s) is sent again after one interval and created once',
		async (_name, status, body) => {
			const api = nock(BASE)
				.post(PARTNER_API_PATHS.listings)
				.reply(status, body)
				.post(PARTNER_API_PATHS.listings)
				.reply(201, { id: 8 });
			const result = await postListing(new RequestPacer('adaptive', 4));
			expect(api.isDone()).toBe(true);
			expect(result).toEqual({ kind: 'answered', body: { id: 8 }, effect: 'created' });
		},
	);

	it.each([
		[
			'500, errorcode',
			500,
			{
				fault: {
					faultstring: 'Rate limit quota violation. Quota limit  exceeded. Identifier : _default',
					detail: { errorcode: 'policies.ratelimit.QuotaViolation' },
				},
			},
		],
		[
			'500, the fault without an errorcode',
			500,
			{
				fault: {
					faultstring: 'Rate limit quota violation. Quota limit  exceeded. Identifier : _default',
				},
			},
		],
		[
			'429, the fault without an errorcode',
			429,
			{ fault: { faultstring: 'Rate limit quota violation' } },
		],
	])('a quota (%s) stops the run: not created, sent once', async (_name, status, body) => {
		const api = nock(BASE).post(PARTNER_API_PATHS.listings).reply(status, body);
		const pacer = new RequestPacer('adaptive', 4);
		const result = await postListing(pacer);
		expect(api.isDone()).toBe(true);
		expect(result.kind === 'failed' && result.effect).toBe('notCreated');
		expect(await pacer.acquire()).toBeNull();
	});

	it('a spike arrest whose faultstring mentions a quota is the spike arrest its code names', async () => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(429, {
				fault: {
					faultstring: 'Spike arrest violation (not your quota). Allowed rate : 40ps',
					detail: { errorcode: 'policies.ratelimit.SpikeArrestViolation' },
				},
			})
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 8 });
		const result = await postListing(new RequestPacer('adaptive', 4));
		expect(api.isDone()).toBe(true);
		expect(result.kind).toBe('answered');
	});
});

const spike = (rate: string, status = 500) =>
	[
		status,
		{
			fault: {
				faultstring: `Spike arrest violation. Allowed rate : ${rate}`,
				detail: { errorcode: 'policies.ratelimit.SpikeArrestViolation' },
			},
		},
	] as const;

describe('a spike arrest at the edge of the longest wait', () => {
	it.each([
		['adaptive', 'adaptive' as const],
		['fixed', 'fixed' as const],
	])(
		'one request a minute (%s) is waited for, not a stopped run: created once',
		async (_n, mode) => {
			const api = nock(BASE)
				.post(PARTNER_API_PATHS.listings)
				.reply(...spike('1pm'))
				.post(PARTNER_API_PATHS.listings)
				.reply(201, { id: 8 });
			const { pacer, waits } = fakeTimePacer(mode);
			const result = await postListing(pacer);
			expect(api.isDone()).toBe(true);
			expect(Math.max(0, ...waits)).toBeLessThanOrEqual(60_000);
			expect(result).toEqual({ kind: 'answered', body: { id: 8 }, effect: 'created' });
			expect(await pacer.acquire()).not.toBeNull();
		},
	);

	it.each([
		['adaptive', 'adaptive' as const],
		['fixed', 'fixed' as const],
	])('0.9 a minute (%s) stops the run, sent once, not created', async (_n, mode) => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(...spike('0.9pm'));
		const pacer = new RequestPacer(mode, 4);
		const result = await postListing(pacer);
		expect(api.isDone()).toBe(true);
		expect(result.kind === 'failed' && result.effect).toBe('notCreated');
		if (result.kind === 'failed')
			expect(result.error.message).toContain('admits one request every');
		expect(await pacer.acquire()).toBeNull();
	});

	it('a 429 of the service whose code is another, naming 0.5pm in its words, is a 429: paced and sent again', async () => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(429, { code: 'rate', description: 'spike arrest: Allowed rate : 0.5pm' })
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 8 });
		const pacer = new RequestPacer('adaptive', 4);
		const result = await postListing(pacer);
		expect(api.isDone()).toBe(true);
		expect(result).toEqual({ kind: 'answered', body: { id: 8 }, effect: 'created' });
		expect(await pacer.acquire()).not.toBeNull();
	});
});

describe("the gateway's codes in the other places Apigee and OAuth put them", () => {
	it.each([
		[
			'ErrorCode',
			{ ErrorCode: 'policies.ratelimit.SpikeArrestViolation', Error: 'Spike arrest violation' },
		],
		[
			'errorCode',
			{ errorCode: 'policies.ratelimit.SpikeArrestViolation', message: 'Spike arrest violation' },
		],
		['error', { error: 'policies.ratelimit.SpikeArrestViolation' }],
		[
			'a fault with an empty errorcode',
			{
				fault: {
					faultstring: 'Spike arrest violation. Allowed rate : 40ps',
					detail: { errorcode: '' },
				},
			},
		],
	])('a 500 spike arrest coded in %s is sent again and created once', async (_n, body) => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(500, body)
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 8 });
		const result = await postListing(new RequestPacer('adaptive', 4));
		expect(api.isDone()).toBe(true);
		expect(result.kind).toBe('answered');
	});

	it('a 503 fault of the gateway saying "Rate limit quota violation" without a code stops the run', async () => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(503, {
				fault: {
					faultstring: 'Rate limit quota violation. Quota limit exceeded. Identifier : _default',
				},
			});
		const pacer = new RequestPacer('adaptive', 4);
		const result = await postListing(pacer);
		expect(api.isDone()).toBe(true);
		expect(result.kind === 'failed' && result.effect).toBe('notCreated');
		expect(await pacer.acquire()).toBeNull();
	});

	// RFC 9110: a 503 was not handled. Nothing was created; it is paced and sent again like a 429.
	it('a 503 fault of the gateway about its target (ServiceUnavailable) is not created: sent again, then created', async () => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(503, {
				fault: {
					faultstring: 'The Service is temporarily unavailable',
					detail: { errorcode: 'messaging.adaptors.http.flow.ServiceUnavailable' },
				},
			})
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 8 });
		const result = await postListing(new RequestPacer('adaptive', 4));
		expect(api.isDone()).toBe(true);
		expect(result).toEqual({ kind: 'answered', body: { id: 8 }, effect: 'created' });
	});

	it.each([
		[
			'an HTML maintenance page',
			'text/html',
			'<html><body><h1>Down for maintenance</h1></body></html>',
		],
		['an empty body', 'text/plain', ''],
	])('a 503 with %s is not created: sent again, then created', async (_name, type, page) => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(503, page, { 'Content-Type': type, 'Retry-After': '2' })
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 8 });
		const result = await postListing(new RequestPacer('adaptive', 4));
		expect(api.isDone()).toBe(true);
		expect(result).toEqual({ kind: 'answered', body: { id: 8 }, effect: 'created' });
		expect(sleepMock.mock.calls.map(([ms]) => ms)).toContain(2000);
	});

	it('a 503 every time ends not created, after the bounded retries, saying the marketplace was unavailable', async () => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.times(7)
			.reply(503, '<html>Maintenance</html>', { 'Content-Type': 'text/html' });
		const result = await postListing(new RequestPacer('adaptive', 4));
		expect(api.isDone()).toBe(true);
		expect(result.kind === 'failed' && result.effect).toBe('notCreated');
		if (result.kind === 'failed') {
			expect(result.error.message).toMatch(/^Unavailable: .* 7 times \(HTTP 503\)$/);
			expect(result.error.description).toContain('nothing was created');
		}
	});

	it('a 503 asking to wait longer than this node waits is not created, and says the service was unavailable', async () => {
		const api = nock(BASE).post(PARTNER_API_PATHS.listings).reply(503, '<html>Maintenance</html>', {
			'Content-Type': 'text/html',
			'Retry-After': '7200',
		});
		const result = await postListing(new RequestPacer('adaptive', 4));
		expect(api.isDone()).toBe(true);
		expect(result.kind === 'failed' && result.effect).toBe('notCreated');
		if (result.kind === 'failed')
			expect(result.error.message).toBe(
				'The Partner API asked to wait 2 h (service unavailable), longer than this node waits',
			);
	});

	it.each([500, 502, 504])('a %s stays outcome unknown, sent once', async (status) => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(status, '<html>Bad gateway</html>', { 'Content-Type': 'text/html' })
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 8 });
		const result = await postListing(new RequestPacer('adaptive', 4));
		expect(api.pendingMocks()).toHaveLength(1);
		expect(result.kind === 'failed' && result.effect).toBe('unknown');
	});
});

describe("a service's own 5xx code is no gateway policy", () => {
	// A service code that merely contains "QuotaViolation" (its own rule, failing after the listing was saved) is no
	// plan's quota: read as one, the memory would forget it and the next run send it again.
	it('a 500 inventory.listings.sellerQuotaViolation keeps its outcome unknown', async () => {
		nock(BASE).post(PARTNER_API_PATHS.listings).reply(500, {
			code: 'inventory.listings.sellerQuotaViolation',
			description: 'Listing stored; the seller listing quota check failed afterwards',
		});
		const result = await postListing(new RequestPacer('adaptive', 4));
		expect(result.kind === 'failed' && result.effect).toBe('unknown');
	});

	it('a 500 inventory.listings.pricingSpikeArrestViolation is not sent again', async () => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(500, {
				code: 'inventory.listings.pricingSpikeArrestViolation',
				description: 'Listing saved; the pricing service refused the follow-up call',
			})
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 8 });
		const result = await postListing(new RequestPacer('adaptive', 4));
		expect(api.pendingMocks()).toHaveLength(1);
		expect(result.kind === 'failed' && result.effect).toBe('unknown');
	});
});

describe('the quota ends every wait of the run', () => {
	it("a listing waiting out another 429's Retry-After stops waiting at the quota, and keeps its 429", async () => {
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(429, { message: 'too many requests' }, { 'Retry-After': '120' })
			.post(PARTNER_API_PATHS.listings)
			.reply(500, {
				fault: {
					faultstring: 'Rate limit quota violation. Quota limit  exceeded. Identifier : _default',
					detail: { errorcode: 'policies.ratelimit.QuotaViolation' },
				},
			});
		// The Retry-After wait ends only when its signal aborts (or when the test lets it go, not to hang).
		let waitSignal: AbortSignal | undefined;
		let letGo = () => {};
		let waiting = () => {};
		const isWaiting = new Promise<void>((resolve) => (waiting = resolve));
		sleepMock.mockImplementation(async (ms, signal) => {
			if (ms !== 120_000) return;
			waitSignal = signal;
			await new Promise<void>((resolve, reject) => {
				letGo = resolve;
				signal?.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
				waiting();
			});
		});
		try {
			const pacer = new RequestPacer('fixed', 4);
			const first = postListing(pacer);
			await isWaiting;
			const quota = await postListing(pacer);
			expect(quota.kind === 'failed' && quota.error.message).toMatch(/^Quota used up/);
			const stoppedWaiting = waitSignal?.aborted === true;
			letGo();
			expect(stoppedWaiting).toBe(true);
			const waited = await first;
			expect(api.isDone()).toBe(true);
			expect(waited.kind === 'failed' && waited.effect).toBe('notCreated');
			if (waited.kind === 'failed') expect(waited.error.message).toMatch(/too many requests/);
		} finally {
			sleepMock.mockImplementation(async () => undefined);
		}
	});
});
