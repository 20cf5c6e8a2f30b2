import { RequestPacer } from '../../../../../nodes/TicketMarketplace/transport/pacing';
import { simulate } from '../../../../../support/simulatedApi';
import { useRealSleeps } from '../../../../setup/sleeps';

// The pacer's own wait (n8n's sleepWithAbort) as n8n has it, so that it runs on jest's fake clock below.
useRealSleeps();

/** A slot the test expects to get (the pacer answers null only once the run has stopped). */
async function take(pacer: RequestPacer, first = false) {
	const slot = await pacer.acquire(first);
	if (!slot) throw new Error('the pacer had stopped');
	return slot;
}

beforeEach(() => {
	jest.useFakeTimers({ now: 0 });
});

afterEach(() => {
	jest.useRealTimers();
});

describe('adaptive pacing', () => {
	it('sends the first request alone, then grows to the maximum on an API without limit', async () => {
		const pacer = new RequestPacer('adaptive', 16);
		const result = await simulate({ pacer, requests: 400, latencyMs: 100 });
		expect(result.limits[0]).toBe(1);
		expect(result.limits[1]).toBeGreaterThan(1);
		expect(result.peak).toBe(16);
		expect(result.refusals.length).toBe(0);
		// Slow start doubles every round trip: 1, 2, 4, 8, 16 takes about five rounds, well within the first second.
		const reachedMaxAt = result.limits.indexOf(16);
		expect(reachedMaxAt).toBeGreaterThan(0);
		expect(reachedMaxAt).toBeLessThan(40);
		// Latency floor: 400 / 16 rounds of 100 ms = 2.5 s, plus the ramp.
		expect(result.elapsedMs).toBeLessThan(3200);
	});

	it('never exceeds the maximum the user set', async () => {
		const pacer = new RequestPacer('adaptive', 4);
		const result = await simulate({ pacer, requests: 100, latencyMs: 50 });
		expect(result.peak).toBe(4);
		expect(Math.max(...result.limits)).toBe(4);
	});

	it('backs off on 429 to just below the refused level, honours Retry-After for the refused request only, and stays within 1.25 x the latency floor', async () => {
		const pacer = new RequestPacer('adaptive', 16);
		const result = await simulate({
			pacer,
			requests: 400,
			latencyMs: 100,
			capacity: 10,
			retryAfterMs: 1000,
		});
		expect(result.refusals.length).toBeGreaterThan(0);
		// After learning the ceiling it probes rarely: a handful of refusals, not one per round.
		expect(result.refusals.length).toBeLessThan(15);
		expect(result.stats.finalLimit).toBeLessThanOrEqual(10);
		expect(result.stats.finalLimit).toBeGreaterThanOrEqual(8);
		// Floor: 40 rounds of 100 ms at 10 in flight.
		expect(result.elapsedMs).toBeLessThanOrEqual(5000);
	});

	it('does not stall requests that are doing well while a refused one waits its Retry-After', async () => {
		const pacer = new RequestPacer('adaptive', 16);
		// A long Retry-After: if the wait held a slot or blocked the queue, 60 requests would take far longer.
		const result = await simulate({
			pacer,
			requests: 60,
			latencyMs: 100,
			capacity: 6,
			retryAfterMs: 5000,
		});
		expect(result.refusals.length).toBeGreaterThan(0);
		expect(result.elapsedMs).toBeLessThan(5000 + 1500);
	});

	it('shrinks the limit when round trips rise well above the quietest one (queueing at the API)', async () => {
		const pacer = new RequestPacer('adaptive', 16);
		// Quick while few are in flight, slow once more than 4 queue up.
		const result = await simulate({
			pacer,
			requests: 200,
			latencyMs: (inFlight) => (inFlight > 4 ? 400 : 50),
		});
		expect(result.stats.decreases).toBeGreaterThan(0);
		expect(result.stats.finalLimit).toBeLessThanOrEqual(8);
	});
});

describe('fixed pacing', () => {
	it('sends the first request alone, then exactly the maximum at once, and ignores 429 for the limit', async () => {
		const pacer = new RequestPacer('fixed', 5);
		const result = await simulate({
			pacer,
			requests: 50,
			latencyMs: 100,
			capacity: 4,
			retryAfterMs: 200,
		});
		expect(result.limits[0]).toBe(1);
		expect(new Set(result.limits.slice(1))).toEqual(new Set([5]));
		expect(result.refusals.length).toBeGreaterThan(0);
	});
});

describe('a request sent again in its slot (a 401 renewed)', () => {
	it('is timed from its last send: the wait for the new token is no latency of the API', async () => {
		const pacer = new RequestPacer('adaptive', 16);
		const slot = await take(pacer);
		jest.advanceTimersByTime(300);
		slot.sentAgain();
		jest.advanceTimersByTime(100);
		slot.release({ kind: 'answered', roundTripMs: 400 });
		expect(pacer['state'].limiter.trips).toEqual([100]);
	});
});

describe('stopping', () => {
	it('with stop-on-failure, a request that ends in an error closes the pacer before anything else starts', async () => {
		const pacer = new RequestPacer('fixed', 1, true);
		const first = await take(pacer);
		const waiting = pacer.acquire();
		first.release({ kind: 'answered', roundTripMs: 10, final: true });
		// No slot: the request is never sent.
		await expect(waiting).resolves.toBeNull();
		await expect(pacer.acquire()).resolves.toBeNull();
	});

	it('without stop-on-failure, an error frees the slot for the next request', async () => {
		const pacer = new RequestPacer('fixed', 1, false);
		const first = await take(pacer);
		const waiting = take(pacer);
		first.release({ kind: 'answered', roundTripMs: 10, final: true });
		await expect(waiting).resolves.not.toBeNull();
	});

	it('puts a retried request ahead of requests not yet sent', async () => {
		const pacer = new RequestPacer('fixed', 1);
		const order: string[] = [];
		const first = await take(pacer);
		const fresh = take(pacer).then((slot) => {
			order.push('fresh');
			return slot;
		});
		const retried = take(pacer, true).then((slot) => {
			order.push('retried');
			return slot;
		});
		first.release({ kind: 'answered', roundTripMs: 1 });
		(await retried).release({ kind: 'answered', roundTripMs: 1 });
		await fresh;
		expect(order).toEqual(['retried', 'fresh']);
	});
});

describe('RequestPacer: a latency baseline that fast refusals cannot drag down', () => {
	/** One round trip of `count` requests at once, each answered as given. */
	async function round(
		pacer: RequestPacer,
		count: number,
		answer: { roundTripMs: number; accepted: boolean },
	) {
		const slots = await Promise.all(Array.from({ length: count }, () => take(pacer)));
		for (const slot of slots) slot.release({ kind: 'answered', ...answer });
	}

	let now = 0;
	/** The ramp's spread waits within a round: the test's clock moves on by what it waited. */
	const advanceBy = async (ms: number) => {
		now += ms;
	};
	beforeEach(() => {
		now = 0;
	});

	it("the first answer's round trip, which in n8n includes the token fetch, does not hold up the climb", async () => {
		const pacer = new RequestPacer('adaptive', 16, false, false, () => now, advanceBy);
		// The first answer waited for the token fetch: 900 ms, the API itself 100 ms.
		await round(pacer, 1, { roundTripMs: 900, accepted: true });
		now += 900;
		await round(pacer, 4, { roundTripMs: 100, accepted: true });
		// Four 100 ms answers are no queueing.
		expect(pacer.snapshot().decreases).toBe(0);
		expect(pacer.snapshot().finalLimit).toBe(8);
		now += 100;
		const waveAt = now;
		await round(pacer, 8, { roundTripMs: 100, accepted: true });
		// One at a time, 2 x 8 a 100 ms round trip: 7 gaps of 6.25 ms.
		expect(now - waveAt).toBeLessThanOrEqual(50);
		for (let step = 0; step < 4; step++) {
			now += 100;
			await round(pacer, pacer.snapshot().finalLimit, { roundTripMs: 100, accepted: true });
		}
		expect(pacer.snapshot().decreases).toBe(0);
		expect(pacer.snapshot().finalLimit).toBe(16);
	});

	it('keeps climbing at 100 ms answers after a few 2 ms 4xx refusals', async () => {
		const pacer = new RequestPacer('adaptive', 16, false, false, () => now, advanceBy);
		await round(pacer, 1, { roundTripMs: 100, accepted: true });
		// Three listings the API refuses at once (a validation 400): 2 ms each.
		await round(pacer, 3, { roundTripMs: 2, accepted: false });
		for (let step = 0; step < 6; step++) {
			now += 100;
			await round(pacer, pacer.snapshot().finalLimit, { roundTripMs: 100, accepted: true });
		}
		expect(pacer.snapshot().finalLimit).toBe(16);
	});

	it('is not dragged down by one outlier either: a single 1 ms answer among 100 ms ones', async () => {
		const pacer = new RequestPacer('adaptive', 16, false, false, () => now, advanceBy);
		await round(pacer, 1, { roundTripMs: 1, accepted: true });
		for (let step = 0; step < 8; step++) {
			now += 100;
			await round(pacer, pacer.snapshot().finalLimit, { roundTripMs: 100, accepted: true });
		}
		expect(pacer.snapshot().finalLimit).toBe(16);
	});
});

describe('RequestPacer: wake-ups that fire late', () => {
	it("aims its wake-ups as early as they came late, so a spike arrest's gap is kept, not the gap and the lateness", async () => {
		let now = 0;
		// A timer that fires 3 ms after it was due, as on a busy event loop.
		const lateBy3 = async (ms: number) => {
			now += ms + 3;
		};
		const pacer = new RequestPacer('fixed', 1, false, false, () => now, lateBy3);
		const first = await take(pacer);
		first.release({ kind: 'rateLimited', spikeArrest: true, allowedPerSecond: 40 });
		const sentAt: number[] = [];
		for (let sends = 0; sends < 30; sends++) {
			const slot = await take(pacer);
			sentAt.push(now);
			slot.release({ kind: 'answered', roundTripMs: 0 });
		}
		const gaps = sentAt.slice(1).map((at, index) => at - sentAt[index]);
		const gapMs = pacer.snapshot().spikeSpacingMs;
		expect(gapMs).toBeGreaterThanOrEqual(25);
		// The first wake-ups learn the lateness; from then on no send goes sooner than the gap, nor a millisecond later.
		for (const gap of gaps.slice(10)) {
			expect(gap).toBeGreaterThanOrEqual(gapMs);
			expect(gap).toBeLessThanOrEqual(gapMs + 1);
		}
	});
});
