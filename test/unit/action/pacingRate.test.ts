import { DEFAULT_CONCURRENCY } from '../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { RequestPacer } from '../../../nodes/TicketMarketplace/transport/pacing';
import { answered, BusyClient, fakeWait, simulate } from './simulatedApi';

/**
 * Per-second limits on fake time (issue #20). The pacer gets the fake clock and a fake wait; the simulated API
 * (simulatedApi.ts) limits requests per second, in flight, or both. Pass/fail is on counts and learned rates, never
 * on how long anything took.
 */

/** The node's default Max Concurrency unless a test says otherwise; `wait` a busy client's (BusyClient.wait). */
function newPacer(maximum = DEFAULT_CONCURRENCY, wait = fakeWait) {
	return new RequestPacer('adaptive', maximum, false, () => Date.now(), wait);
}

beforeEach(() => {
	jest.useFakeTimers({ now: 0 });
});

afterEach(() => {
	jest.useRealTimers();
});

/** A slot the test expects to get, the clock moved on by what the ramp's spread makes it wait (a few ms). */
async function take(pacer: RequestPacer) {
	const pending = pacer.acquire();
	for (let waitedMs = 0; waitedMs < 100 && !(await settled(pending)); waitedMs++)
		await jest.advanceTimersByTimeAsync(1);
	const slot = await pending;
	if (!slot) throw new Error('the pacer had stopped');
	return slot;
}

/** Whether a promise has settled by now (after the microtasks already queued). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
	let done = false;
	void promise.then(() => (done = true));
	await jest.advanceTimersByTimeAsync(0);
	return done;
}

describe('pausing on Retry-After', () => {
	/**
	 * Three in flight; the API answers the one at level 3, then refuses the one at level 2: not the concurrency (it
	 * answered more in flight). Returns the two slots still open and the refused send's time.
	 */
	async function refuseBelowAnsweredLevel(pacer: RequestPacer, firstSentTwice = false) {
		const first = await take(pacer);
		if (firstSentTwice) first.sentAgain();
		first.release(answered(100));
		const a = await take(pacer);
		await jest.advanceTimersByTimeAsync(10);
		const b = await take(pacer);
		await jest.advanceTimersByTimeAsync(10);
		const c = await take(pacer);
		await jest.advanceTimersByTimeAsync(100);
		c.release(answered(100));
		b.release({ kind: 'rateLimited', retryAfterMs: 1000 });
		return { a };
	}

	it('a lone 429 below a level the API answered pauses nothing: an API may refuse now and then at random', async () => {
		const pacer = newPacer();
		const { a } = await refuseBelowAnsweredLevel(pacer);
		expect(pacer.snapshot().rateRefusals).toBe(0);
		expect(pacer.currentRate).toBe(Number.POSITIVE_INFINITY);
		// Only the refused request waits (in the transport); a fresh one goes at once.
		expect(await settled(pacer.acquire())).toBe(true);
		a.release(answered(100));
	});

	it('a second 429 at no more accepted in the second before confirms a per-second limit: every send pauses until its Retry-After', async () => {
		const pacer = newPacer();
		const { a } = await refuseBelowAnsweredLevel(pacer);
		// 3 accepted in the second before (the first, a and c), 2 before the first refusal: the count held.
		const d = await take(pacer);
		await jest.advanceTimersByTimeAsync(20);
		d.release({ kind: 'rateLimited', retryAfterMs: 1000 });
		const refusedAt = Date.now();
		expect(pacer.snapshot().rateRefusals).toBe(1);
		expect(pacer.currentRate).toBe(3);
		// A fresh request (not the refused one) has free slots but must wait for the Retry-After.
		const fresh = pacer.acquire();
		await jest.advanceTimersByTimeAsync(999);
		expect(await settled(fresh)).toBe(false);
		await jest.advanceTimersByTimeAsync(1);
		expect(await settled(fresh)).toBe(true);
		expect(Date.now() - refusedAt).toBe(1000);
		a.release(answered(100));
	});

	it('a request sent twice within its slot (a 401, re-sent with a renewed token) counts twice in the pace: the API counted both', async () => {
		const pacer = newPacer();
		const { a } = await refuseBelowAnsweredLevel(pacer, true);
		const d = await take(pacer);
		await jest.advanceTimersByTimeAsync(20);
		d.release({ kind: 'rateLimited', retryAfterMs: 1000 });
		expect(pacer.snapshot().rateRefusals).toBe(1);
		// 4 accepted in the second before: the first (twice), a and c. (3 without sentAgain: see the test above.)
		expect(pacer.currentRate).toBe(4);
		a.release(answered(100));
	});

	it('a 429 at clearly more accepted in the second before than a lone one before it is alone too: the count climbed, not a limit', async () => {
		const pacer = newPacer();
		const { a } = await refuseBelowAnsweredLevel(pacer);
		// Four more accepted one after another: the last went with 6 accepted in the second before it (2 + 2 < 6).
		for (let index = 0; index < 4; index++) {
			const slot = await take(pacer);
			await jest.advanceTimersByTimeAsync(20);
			slot.release(answered(20));
		}
		const d = await take(pacer);
		await jest.advanceTimersByTimeAsync(20);
		d.release({ kind: 'rateLimited', retryAfterMs: 1000 });
		expect(pacer.snapshot().rateRefusals).toBe(0);
		expect(await settled(pacer.acquire())).toBe(true);
		a.release(answered(100));
	});

	it('a Retry-After too long to wait (its request ends in an error) is not the pause of a later 429 without one', async () => {
		const pacer = newPacer();
		(await take(pacer)).release(answered(100));
		(await take(pacer)).release({ kind: 'rateLimited', retryAfterMs: 86_400_000, final: true });
		// A second 429, without Retry-After, agrees: a per-second limit, every send pauses for the assumed 1 s.
		(await take(pacer)).release({ kind: 'rateLimited' });
		expect(pacer.snapshot().rateRefusals).toBe(1);
		// (The pace of 1 a second then spaces it a little more than the pause.)
		const fresh = pacer.acquire();
		await jest.advanceTimersByTimeAsync(2000);
		expect(await settled(fresh)).toBe(true);
	});

	it('pauseUntil holds every acquire until that time', async () => {
		const pacer = newPacer();
		(await take(pacer)).release(answered(10));
		pacer.pauseUntil(Date.now() + 500);
		const first = pacer.acquire();
		const second = pacer.acquire();
		await jest.advanceTimersByTimeAsync(499);
		expect(await settled(first)).toBe(false);
		expect(await settled(second)).toBe(false);
		await jest.advanceTimersByTimeAsync(1);
		expect(await settled(first)).toBe(true);
		// While slow start climbs, the ramp's spread lets one go at a time: the second follows a few ms later.
		await jest.advanceTimersByTimeAsync(20);
		expect(await settled(second)).toBe(true);
	});

	it('reads a 429 at an in-flight level never answered as the concurrency: only the refused request waits', async () => {
		const pacer = newPacer();
		(await take(pacer)).release(answered(100));
		const slots = [await take(pacer), await take(pacer), await take(pacer), await take(pacer)];
		// The fourth request (level 4, never answered before) is refused.
		slots[3].release({ kind: 'rateLimited', retryAfterMs: 1000 });
		expect(pacer.snapshot().rateRefusals).toBe(0);
		expect(pacer.currentRate).toBe(Number.POSITIVE_INFINITY);
		// The limit is now 3: the next request goes once one of the three comes back, without a pause (the ramp's
		// spread may hold it a few ms: 2 x 3 sends a 100 ms round trip).
		const next = pacer.acquire();
		slots[0].release(answered(100));
		await jest.advanceTimersByTimeAsync(50);
		expect(await settled(next)).toBe(true);
	});

	it('a run stopped during a pause: closeOn(the cancel signal) gives every waiting request null at once', async () => {
		const pacer = newPacer();
		(await take(pacer)).release(answered(10));
		const stop = new AbortController();
		const unsubscribe = pacer.closeOn(stop.signal);
		pacer.pauseUntil(Date.now() + 300_000);
		const waiting = [pacer.acquire(), pacer.acquire()];
		await jest.advanceTimersByTimeAsync(10);
		expect(await settled(waiting[0])).toBe(false);
		stop.abort();
		await expect(Promise.all(waiting)).resolves.toEqual([null, null]);
		unsubscribe();
	});

	it('closeOn an already stopped run closes at once; unsubscribed, a later stop leaves the pacer open', async () => {
		const stopped = new AbortController();
		stopped.abort();
		const closed = newPacer();
		closed.closeOn(stopped.signal);
		await expect(closed.acquire()).resolves.toBeNull();
		const stop = new AbortController();
		const open = newPacer();
		open.closeOn(stop.signal)();
		stop.abort();
		expect(await open.acquire()).not.toBeNull();
	});

	it('a request waiting out a pause gets null when the run stops', async () => {
		const pacer = newPacer();
		(await take(pacer)).release(answered(10));
		pacer.pauseUntil(Date.now() + 5000);
		const waiting = pacer.acquire();
		pacer.close();
		await expect(waiting).resolves.toBeNull();
	});
});

describe('per-second limits on a simulated API (100 ms latency, jitter up to 5 ms each way)', () => {
	it.each([10, 40, 100])(
		'learns a limit of %i per second: a pace just below it, few refusals once learned',
		async (limit) => {
			const result = await simulate({
				pacer: newPacer(),
				requests: 400,
				perSecond: () => limit,
				jitterMs: 5,
			});
			expect(result.created).toBe(400);
			expect(result.stats.rateRefusals).toBeGreaterThan(0);
			expect(result.stats.finalRate).toBeGreaterThanOrEqual(0.85 * limit);
			expect(result.stats.finalRate).toBeLessThanOrEqual(limit);
			expect(result.stats.lowestRate).toBeGreaterThanOrEqual(0.85 * limit);
			// The first climb overshoots once; after that, refusals are rationed probes.
			const later = result.refusals.filter((refusal) => refusal.at > 2000);
			expect(later.length).toBeLessThanOrEqual(limit === 10 ? 5 : 2);
			// The first overshoot (sent before the first 429 came back) grows with the limit.
			expect(result.refusals.length).toBeLessThanOrEqual((limit >= 100 ? 0.15 : 0.08) * 400);
		},
	);

	it('10 per second: after two probes refused in a row at the same rate, the next must save more than two pauses, so 400 listings draw two probe refusals (four before)', async () => {
		const result = await simulate({
			pacer: newPacer(),
			requests: 400,
			perSecond: () => 10,
			jitterMs: 5,
			refusalLagMs: 15,
		});
		expect(result.created).toBe(400);
		const probesRefused = result.refusals.filter((refusal) => refusal.at > 2000);
		expect(probesRefused).toHaveLength(2);
		expect(result.stats.finalRate).toBe(10);
	});

	it('a pace read a little low (8 a second, then 10): climbing back through 10.56 a second (which lets 10 go, as 10 does) is no probe, so 11 is not probed every few seconds', async () => {
		const result = await simulate({
			pacer: newPacer(),
			requests: 400,
			perSecond: (sinceStart) => (sinceStart < 1500 ? 8 : 10),
			jitterMs: 5,
			refusalLagMs: 15,
		});
		expect(result.created).toBe(400);
		// One probe of 11 after 6 s (its two refusals); the hold was reset each time 10.56 "held": a real n8n probed
		// every 5.5 s, each refusal pausing every send for 1 s.
		expect(result.refusals.filter((refusal) => refusal.at > 6000).length).toBeLessThanOrEqual(2);
		expect(result.stats.finalRate).toBeGreaterThanOrEqual(10);
		expect(result.stats.finalRate).toBeLessThan(11);
	});

	it('2,000 listings at 40 a second, jitter up to 20 ms: a probe refused before its count reached the new pace still went too far, so the pace goes back below the limit', async () => {
		const result = await simulate({
			pacer: newPacer(),
			requests: 2000,
			perSecond: () => 40,
			jitterMs: 20,
			refusalLagMs: 15,
		});
		expect(result.created).toBe(2000);
		// The probe of 44 refused at 40 waited for a second refusal that agreed; the pace then stuck at 41, refused every
		// 1.5 s: 101 refusals (5 %), 73 s instead of 54.
		expect(result.refusals.length).toBeLessThanOrEqual(0.025 * 2000);
		expect(result.stats.finalRate).toBeLessThanOrEqual(40);
	});

	it('follows a limit that changes mid-run (40/s, 10/s from 3 s, 40/s again from 8 s) down within a few refusals and back up', async () => {
		const result = await simulate({
			pacer: newPacer(),
			requests: 600,
			perSecond: (now) => (now < 3000 ? 40 : now < 8000 ? 10 : 40),
			jitterMs: 5,
		});
		expect(result.created).toBe(600);
		const afterDrop = result.refusals.filter((refusal) => refusal.at >= 3000);
		const followed = afterDrop.findIndex((refusal) => refusal.rateAfter <= 10);
		expect(followed).toBeGreaterThanOrEqual(0);
		// Each step down takes two refusals that agree (one alone may be random) and at most halves the pace.
		expect(followed).toBeLessThanOrEqual(6);
		// Back up: the pace later climbs past 30 per second again and ends just below 40.
		const paceAfterRise = result.rates.filter((send) => send.at >= 8000).map((send) => send.rate);
		expect(Math.max(...paceAfterRise)).toBeGreaterThanOrEqual(30);
		expect(result.stats.finalRate).toBeGreaterThanOrEqual(30);
		expect(result.stats.finalRate).toBeLessThanOrEqual(40);
	});

	it('a limit that rises again (40, 10 from 3 s, 40 from 8 s): the pace climbs back to the best pace that held, then probes by 10 % (not from 33 to 66 a second at once)', async () => {
		const result = await simulate({
			pacer: newPacer(),
			requests: 400,
			perSecond: (now) => (now < 3000 ? 40 : now < 8000 ? 10 : 40),
			jitterMs: 5,
		});
		expect(result.created).toBe(400);
		const paceAfterRise = result.rates.filter((send) => send.at >= 8000).map((send) => send.rate);
		expect(Math.max(...paceAfterRise)).toBeGreaterThanOrEqual(40);
		expect(Math.max(...paceAfterRise)).toBeLessThanOrEqual(1.1 * 40 + 0.5);
	});

	it('both limits at once (10 in flight, 40 per second): the per-second one is learned', async () => {
		const result = await simulate({
			pacer: newPacer(),
			requests: 400,
			perSecond: () => 40,
			capacity: 10,
			jitterMs: 5,
		});
		expect(result.created).toBe(400);
		expect(result.peak).toBeLessThanOrEqual(10);
		expect(result.stats.finalRate).toBeGreaterThanOrEqual(0.85 * 40);
		expect(result.stats.finalRate).toBeLessThanOrEqual(40);
	});

	it.each([5, 20, 40])(
		'an API that limits only requests in flight is never paused: no per-second refusal, no rate (jitter up to %i ms, answers on their way back counted in flight)',
		async (jitterMs) => {
			const result = await simulate({ pacer: newPacer(), requests: 400, capacity: 10, jitterMs });
			expect(result.created).toBe(400);
			expect(result.refusals.length).toBeGreaterThan(0);
			expect(result.stats.rateRefusals).toBe(0);
			expect(result.stats.finalRate).toBe(Number.POSITIVE_INFINITY);
		},
	);

	it.each([5, 20])(
		'an API that limits requests in flight holds sends for a probe once or twice, not at every climb back to its concurrency (jitter up to %i ms)',
		async (jitterMs) => {
			const result = await simulate({ pacer: newPacer(), requests: 400, capacity: 10, jitterMs });
			expect(result.created).toBe(400);
			expect(result.refusals.length).toBeGreaterThan(1);
			expect(result.stats.holds).toBeLessThanOrEqual(2);
		},
	);

	it.each([
		[10, 3],
		[100, 5],
	])(
		'an API without a limit that refuses 3 %% of requests at random (%i ms latency, jitter up to %i ms): no pace falls to a crawl, few pauses',
		async (latencyMs, jitterMs) => {
			const result = await simulate({
				pacer: newPacer(),
				requests: 500,
				latencyMs,
				sporadic429: 0.03,
				jitterMs,
			});
			expect(result.created).toBe(500);
			expect(result.refusals.length).toBeGreaterThan(10);
			// Each lone 429 made only its own request wait; the branch before this rule fell to 1 request a second.
			expect(result.stats.rateRefusals).toBeLessThanOrEqual(2);
			expect(result.stats.lowestRate).toBeGreaterThanOrEqual(100);
		},
	);

	it("the e2e fault run's mix of refusals (3 % at random with Retry-After, every 37th without one), 5 ms latency: no pace falls to a crawl", async () => {
		const result = await simulate({
			pacer: newPacer(),
			requests: 500,
			latencyMs: 5,
			sporadic429: 0.03,
			every429WithoutRetryAfter: 37,
			jitterMs: 2,
		});
		expect(result.created).toBe(500);
		expect(result.refusals.length).toBeGreaterThan(25);
		// The branch before the rules for lone 429s fell to 3 requests a second here (and to 1 in the real n8n run).
		expect(result.stats.lowestRate).toBeGreaterThanOrEqual(20);
	});

	it('two random 429s in one burst (the 150th and 151st requests) on an API without a limit: no per-second limit is read, nothing pauses', async () => {
		const result = await simulate({
			pacer: newPacer(),
			requests: 400,
			jitterMs: 5,
			refuseArrivals: [150, 151],
		});
		expect(result.created).toBe(400);
		expect(result.refusals).toHaveLength(2);
		// Read as agreeing, they set a pace of 150 a second and paused every send for 1 s (the bench's API refusing 3 %
		// at random: 18 s instead of 7 in a real n8n). The second was sent before the first came back: no evidence.
		expect(result.stats.rateRefusals).toBe(0);
		expect(result.stats.lowestRate).toBe(Number.POSITIVE_INFINITY);
	});

	it('one random 429 while slow start climbs (the 10th request) on an API without a limit: the level refused once is tried again, answered well above it, and slow start climbs on', async () => {
		const result = await simulate({
			pacer: newPacer(),
			requests: 400,
			jitterMs: 5,
			refuseArrivals: [10],
		});
		expect(result.created).toBe(400);
		expect(result.refusals).toHaveLength(1);
		// Read as the concurrency, it held 400 listings at 6 in flight: a refusal's Retry-After never paid for a slot
		// more (7.5 s instead of 2 with a busy client).
		expect(result.peak).toBeGreaterThanOrEqual(24);
		expect(result.stats.rateRefusals).toBe(0);
	});

	it('10 in flight: a level refused twice is a ceiling, probed only when the work left pays for a refusal', async () => {
		const result = await simulate({ pacer: newPacer(), requests: 400, capacity: 10, jitterMs: 5 });
		expect(result.created).toBe(400);
		expect(result.peak).toBe(10);
		expect(result.refusals.length).toBeLessThanOrEqual(5);
	});

	it('40 per second and 3 % refused at random besides: the pace stays near the limit', async () => {
		const result = await simulate({
			pacer: newPacer(),
			requests: 400,
			perSecond: () => 40,
			sporadic429: 0.03,
			jitterMs: 5,
		});
		expect(result.created).toBe(400);
		expect(result.stats.lowestRate).toBeGreaterThanOrEqual(0.7 * 40);
		expect(result.stats.finalRate).toBeLessThanOrEqual(40);
	});

	it('an API without stress: the pacer climbs to its maximum of 64 and learns no rate', async () => {
		const result = await simulate({ pacer: newPacer(64), requests: 400, jitterMs: 5 });
		expect(result.peak).toBe(64);
		expect(result.refusals).toHaveLength(0);
		expect(result.stats.finalRate).toBe(Number.POSITIVE_INFINITY);
	});
});

describe('the first overshoot (issue #20): 400 listings against a sliding-window API, 100 ms latency', () => {
	// Refusals on their way back: up to 5 ms each way, then up to 20 ms each way.
	it.each([
		[40, 5],
		[40, 20],
		[100, 5],
		[100, 20],
	])(
		'%i per second, jitter up to %i ms: at most 5 %% refused, the pace ends at the limit',
		async (limit, jitterMs) => {
			const result = await simulate({
				pacer: newPacer(),
				requests: 400,
				perSecond: () => limit,
				jitterMs,
			});
			expect(result.created).toBe(400);
			expect(result.refusals.length).toBeLessThanOrEqual(0.05 * 400);
			// One overshoot, one pause: the first 429s of a climb hold every send until a probe tells the kind. With 20 ms
			// of jitter the pacer's count of the second before (its send times) may run a few above the API's (arrival
			// times): 43 a second read at 40, and one more pause puts it right.
			expect(result.stats.rateRefusals).toBeLessThanOrEqual(jitterMs > 5 ? 2 : 1);
			expect(result.stats.finalRate).toBe(limit);
		},
	);

	it.each([40, 100])(
		'%i per second read by a busy client (each 429 reaches the pacer 30 ms late, as in a real n8n): the same pace, every listing sent',
		async (limit) => {
			const result = await simulate({
				pacer: newPacer(),
				requests: 400,
				perSecond: () => limit,
				jitterMs: 5,
				refusalLagMs: 30,
			});
			expect(result.created).toBe(400);
			expect(result.stats.finalRate).toBe(limit);
			// The first overshoot costs what is sent while its first 429 is on its way: about 6 % here (bench: 4.7 and
			// 6.5 % in a real n8n), against 1 to 2 % when 429s are read at once.
			expect(result.refusals.length).toBeLessThanOrEqual(0.08 * 400);
		},
	);

	it('40 per second read 15 ms late (a real n8n reads its first 429 15 to 40 ms after the sandbox sent it): the ramp lets few go at once, so few are sent blind', async () => {
		const result = await simulate({
			pacer: newPacer(),
			requests: 400,
			perSecond: () => 40,
			jitterMs: 5,
			refusalLagMs: 15,
		});
		expect(result.created).toBe(400);
		// A burst of 16 at once (the ramp before) drew 17 refusals here, and 22 to 24 a run in a real n8n; 4 draws 11.
		expect(result.refusals.length).toBeLessThanOrEqual(14);
	});

	it.each([40, 100])(
		'%i per second, a busy client (4 ms of work a listing, as a real n8n on a 2-core machine): while slow start climbs the spread lets one go at a time, so a late wake-up does not release a burst and the first 429 is read soon',
		async (limit) => {
			const client = new BusyClient(3, 1);
			const result = await simulate({
				pacer: newPacer(DEFAULT_CONCURRENCY, client.wait),
				requests: 400,
				perSecond: () => limit,
				jitterMs: 5,
				client,
			});
			expect(result.created).toBe(400);
			expect(result.stats.finalRate).toBe(limit);
			// A burst of 4 in slow start drew 17 (40 a second) and 23 (100 a second) here; real n8n runs, 2 to 19.
			expect(result.refusals.length).toBeLessThanOrEqual(8);
		},
	);

	it('10 in flight and a busy client: the probe after the first overshoot goes below the lowered limit, so an answer read late does not make it a rate', async () => {
		const client = new BusyClient(2, 1);
		const result = await simulate({
			pacer: newPacer(DEFAULT_CONCURRENCY, client.wait),
			requests: 400,
			capacity: 10,
			jitterMs: 5,
			client,
		});
		expect(result.created).toBe(400);
		// The probe went at 11 in flight (one answer back, read late) and was refused: a pace of 23 a second was set.
		expect(result.stats.rateRefusals).toBe(0);
		expect(result.stats.lowestRate).toBe(Number.POSITIVE_INFINITY);
	});

	it('100 per second at 200 ms latency, 429s read 40 ms late: the probe after the first overshoot goes as the window frees a slot, so the next burst is refused; a run of three refusals reads the limit, without waiting for a send after the first 429 was read', async () => {
		const result = await simulate({
			pacer: newPacer(),
			requests: 400,
			latencyMs: 200,
			perSecond: () => 100,
			jitterMs: 5,
			refusalLagMs: 40,
		});
		expect(result.created).toBe(400);
		expect(result.stats.finalRate).toBe(100);
		// The slow climb meets the limit after a second, when its first sends leave the window: the probe is accepted
		// and read the refusals as the concurrency. The burst after it drew 42 refusals in all before this rule, 29 now.
		expect(result.refusals.length).toBeLessThanOrEqual(32);
	});

	it('40 -> 10 -> 40 per second mid-run: at most 5 % refused, down within a few refusals and back up', async () => {
		const result = await simulate({
			pacer: newPacer(),
			requests: 400,
			perSecond: (sinceStart) => (sinceStart < 3000 ? 40 : sinceStart < 8000 ? 10 : 40),
			jitterMs: 5,
		});
		expect(result.created).toBe(400);
		expect(result.refusals.length).toBeLessThanOrEqual(0.05 * 400);
		const afterDrop = result.refusals.filter((refusal) => refusal.at >= 3000);
		// Each step down takes two refusals that agree (one alone may be random) and at most halves the pace:
		// 40 -> 36 -> 18 -> 10 in six refusals.
		expect(afterDrop.findIndex((refusal) => refusal.rateAfter <= 10)).toBeLessThanOrEqual(6);
		expect(result.stats.finalRate).toBeGreaterThanOrEqual(30);
	});

	it('no limit: the ramp spreads its sends yet the level climbs to the ceiling, without a refusal', async () => {
		const result = await simulate({ pacer: newPacer(64), requests: 400, jitterMs: 5 });
		expect(result.peak).toBe(64);
		expect(result.stats.peakLimit).toBe(64);
		expect(result.refusals).toHaveLength(0);
	});
});
