import { RequestPacer } from '../../../../../nodes/TicketMarketplace/transport/pacing';
import { BusyClient, simulate } from '../../../../../support/simulatedApi';
import { useRealSleeps } from '../../../../setup/sleeps';

/**
 * The gateway's spike arrest and quota on fake time (support/simulatedApi.ts plays them as the sandbox does, and reads
 * their answers with the answer table, as the transport does). The gap's rule itself: limiter.spikeArrest.test.ts. Pass/fail on counts and the gap kept, never on time.
 */

// The pacer's own wait (n8n's sleepWithAbort) as n8n has it, so that it runs on jest's fake clock below.
useRealSleeps();

beforeEach(() => {
	jest.useFakeTimers({ now: 0 });
});

afterEach(() => {
	jest.useRealTimers();
});

const LISTINGS = 400;

describe('a spike arrest (smoothed: 40ps is one request every 25 ms)', () => {
	const cases: Array<{ status: 500 | 429; namesRate: boolean }> = [
		{ status: 500, namesRate: true },
		{ status: 429, namesRate: true },
		{ status: 500, namesRate: false },
		{ status: 429, namesRate: false },
	];
	it.each(cases)(
		'answered $status, rate named in the fault: $namesRate: settles at the interval, at most 5 % refused, every listing created once',
		async ({ status, namesRate }) => {
			const pacer = new RequestPacer('adaptive', 48);
			const result = await simulate({
				pacer,
				requests: LISTINGS,
				latencyMs: 100,
				jitterMs: 2,
				spikeArrest: { perSecond: 40, status, namesRate },
			});
			expect(result.created).toBe(LISTINGS);
			expect(result.notCreated).toBe(0);
			// Every refusal was sent again in the same run; none lost, none created twice.
			expect(result.arrivals).toBe(LISTINGS + result.refusals.length);
			expect(result.refusals.length).toBeGreaterThan(0);
			expect(result.refusals.length).toBeLessThanOrEqual(0.05 * result.arrivals);
			// The gap settles at the interval (25 ms) and a margin, not a pause or a crawl.
			expect(result.stats.spikeSpacingMs).toBeGreaterThanOrEqual(25);
			expect(result.stats.spikeSpacingMs).toBeLessThanOrEqual(25 * 1.3);
			// Nothing read as a per-second limit or the concurrency: no pause, no hold.
			expect(result.stats.rateRefusals).toBe(0);
			expect(result.stats.holds).toBe(0);
			expect(result.stats.decreases).toBe(0);
		},
	);

	it('reads the rate from the fault at the first refusal, whatever was learnt before', async () => {
		const pacer = new RequestPacer('adaptive', 48);
		const result = await simulate({
			pacer,
			requests: 100,
			latencyMs: 100,
			spikeArrest: { perSecond: 10, status: 500, namesRate: true },
		});
		expect(result.created).toBe(100);
		// The interval and its margin at first; accepted answers narrow it towards the interval, never below.
		expect(result.stats.spikeSpacingMs).toBeGreaterThanOrEqual(100);
		expect(result.stats.spikeSpacingMs).toBeLessThanOrEqual(100 * 1.08);
		// The sends sent before the first refusal came back are the only ones refused.
		expect(result.refusals.length).toBeLessThanOrEqual(3);
	});

	it('a busy client (n8n reading answers late) still settles without a pause', async () => {
		const client = new BusyClient(2, 2);
		const pacer = new RequestPacer('adaptive', 48, false, false, () => Date.now(), client.wait);
		const result = await simulate({
			pacer,
			client,
			requests: LISTINGS,
			latencyMs: 100,
			spikeArrest: { perSecond: 40, status: 500, namesRate: true },
		});
		expect(result.created).toBe(LISTINGS);
		expect(result.refusals.length).toBeLessThanOrEqual(0.05 * result.arrivals);
		expect(result.stats.rateRefusals).toBe(0);
	});

	it('fixed mode keeps the gap the fault names too (it learns nothing, but reads the rate)', async () => {
		const pacer = new RequestPacer('fixed', 10);
		const result = await simulate({
			pacer,
			requests: 200,
			latencyMs: 100,
			jitterMs: 2,
			spikeArrest: { perSecond: 40, status: 500, namesRate: true },
		});
		expect(result.created).toBe(200);
		// The first burst of 10 at once meets the arrest before its first fault is read; then 5 % at most.
		expect(result.refusals.length).toBeLessThanOrEqual(9 + 0.05 * result.arrivals);
		expect(result.stats.spikeSpacingMs).toBeGreaterThanOrEqual(25);
		expect(result.stats.rateRefusals).toBe(0);
	});
});

describe('a quota used up', () => {
	it.each([500, 429] as const)(
		'answered %s: stops sending at once; requests in flight end, nothing new starts, no listing spends a second request on it',
		async (status) => {
			const pacer = new RequestPacer('adaptive', 48);
			const result = await simulate({
				pacer,
				requests: LISTINGS,
				latencyMs: 100,
				quota: { limit: 150, status },
			});
			expect(result.created).toBe(150);
			// Only requests already in flight when the first quota answer was read met the quota; none was sent after.
			expect(result.sentAfterQuota).toBe(0);
			expect(result.quotaRefused).toBeGreaterThan(0);
			expect(result.quotaRefused).toBeLessThanOrEqual(48);
			expect(result.arrivals).toBe(150 + result.quotaRefused);
			expect(result.notCreated).toBe(LISTINGS - 150);
		},
	);

	it('also under a spike arrest: a listing waiting to be sent again is not sent once the quota is used up', async () => {
		const pacer = new RequestPacer('adaptive', 48);
		const result = await simulate({
			pacer,
			requests: 200,
			latencyMs: 100,
			jitterMs: 2,
			spikeArrest: { perSecond: 40, status: 500, namesRate: true },
			quota: { limit: 100, status: 500 },
		});
		expect(result.created).toBe(100);
		expect(result.sentAfterQuota).toBe(0);
		expect(result.notCreated).toBe(100);
	});
});
