/**
 * The gateway's limits read from what the gateway itself answers, never from words a service's own failure happens
 * to contain (that one may have created the listing); and a spike arrest slower than any wait of this node stops
 * the run instead of holding it for hours.
 */
import nock from 'nock';
import { sleepWithAbort } from 'n8n-workflow';

import {
	buildRequest,
	RequestPacer,
	sendRequest,
} from '../../../../../nodes/TicketMarketplace/transport';
import { BASE, fakeRun } from '../../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../../credentials/common/partnerApi';

const sleepMock = sleepWithAbort as jest.MockedFunction<typeof sleepWithAbort>;
const BODY = { eventId: 1, externalListingId: 2 };

beforeEach(() => sleepMock.mockClear());
afterEach(() => nock.cleanAll());

async function postListing(pacer?: RequestPacer) {
	const run = fakeRun({ parameters: {}, accessToken: 'tok-0' });
	return await sendRequest.call(run.context, {
		request: buildRequest('POST', PARTNER_API_PATHS.listings, BODY, {}),
		itemIndex: 0,
		createsId: 2,
		pacer,
	});
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
	function fakeTimePacer() {
		let now = 0;
		const waits: number[] = [];
		const pacer = new RequestPacer(
			'adaptive',
			4,
			false,
			() => now,
			async (ms) => {
				waits.push(ms);
				now += ms;
			},
		);
		return { pacer, waits, advance: (ms: number) => (now += ms) };
	}

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
		['429, the service words', 429, { message: 'Too many requests: daily quota exceeded' }],
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
