import { DEFAULT_CONCURRENCY } from '../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { RequestPacer } from '../../../../../nodes/TicketMarketplace/transport/pacing';
import { answered, BusyClient, fakeWait, simulate } from '../../../../../support/simulatedApi';

/**
 * Per-second limits on fake time. The pacer gets the fake clock and a fake wait; the simulated API
 * (support/simulatedApi.ts) limits requests per second, in flight, or both. Pass/fail is on counts and learned rates, never
 * on how long anything took.
 */

/** The node's default Max Concurrency unless a test says otherwise; `wait` a busy client's (BusyClient.wait). */
function newPacer(maximum = DEFAULT_CONCURRENCY, wait = fakeWait) {
	return new RequestPacer('adaptive', maximum, false, false, () => Date.now(), wait);
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

	/** A per-second limit confirmed by a second 429: every send pauses `retryAfterMs` from now. */
	async function pausedByRateLimit(pacer: RequestPacer, retryAfterMs: number) {
		const { a } = await refuseBelowAnsweredLevel(pacer);
		const d = await take(pacer);
		await jest.advanceTimersByTimeAsync(20);
		d.release({ kind: 'rateLimited', retryAfterMs });
		expect(pacer.snapshot().rateRefusals).toBe(1);
		return a;
	}

	it('a lone 429 below a level the API answered pauses nothing: an API may refuse now and then at random', async () => {
		const pacer = newPacer();
		const { a } = await refuseBelowAnsweredLevel(pacer);
		expect(pacer.snapshot().rateRefusals).toBe(0);
		expect(pacer.snapshot().finalRate).toBe(Number.POSITIVE_INFINITY);
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
		expect(pacer.snapshot().finalRate).toBe(3);
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
		expect(pacer.snapshot().finalRate).toBe(4);
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

	it('reads a 429 at an in-flight level never answered as the concurrency: only the refused request waits', async () => {
		const pacer = newPacer();
		(await take(pacer)).release(answered(100));
		const slots = [await take(pacer), await take(pacer), await take(pacer), await take(pacer)];
		// The fourth request (level 4, never answered before) is refused.
		slots[3].release({ kind: 'rateLimited', retryAfterMs: 1000 });
		expect(pacer.snapshot().rateRefusals).toBe(0);
		expect(pacer.snapshot().finalRate).toBe(Number.POSITIVE_INFINITY);
		// The limit is now 3: the next request goes once one of the three comes back, without a pause (the ramp's
		// spread may hold it a few ms: 2 x 3 sends a 100 ms round trip).
		const next = pacer.acquire();
		slots[0].release(answered(100));
		await jest.advanceTimersByTimeAsync(50);
		expect(await settled(next)).toBe(true);
	});

	it('a run stopped during a pause: closeOn(the cancel signal) gives every waiting request null at once', async () => {
		const pacer = newPacer();
		const stop = new AbortController();
		const unsubscribe = pacer.closeOn(stop.signal);
		await pausedByRateLimit(pacer, 300_000);
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
		await pausedByRateLimit(pacer, 5000);
		const waiting = pacer.acquire();
		pacer.close();
		await expect(waiting).resolves.toBeNull();
	});
});

/** Bounds on a number, each one expectation; a bare number is the exact value. */
type Bounds = number | { above?: number; atLeast?: number; below?: number; atMost?: number };

/** What a simulated run must show; each field given is checked. */
interface Expected {
	created?: Bounds;
	/** The most requests in flight at once. */
	peak?: Bounds;
	/** All 429s. */
	refusals?: Bounds;
	/** The 429s that came back later than `ms` into the run (after the first overshoot: the probes). */
	refusalsAfter?: { ms: number; count: Bounds };
	/** Of the 429s from `ms` into the run on, how many came back before the pace was `rate` or less (-1: never). */
	refusalsUntilPace?: { ms: number; rate: number; count: Bounds };
	/** The highest pace of the sends from `ms` into the run on. */
	highestPaceFrom?: { ms: number; rate: Bounds };
	rateRefusals?: Bounds;
	finalRate?: Bounds;
	lowestRate?: Bounds;
	holds?: Bounds;
	peakLimit?: Bounds;
}

/** One run of the simulated API: the pacer it gets, the API it meets, what the run must show. */
interface SimulatedCase {
	name: string;
	/** The pacer's Max Concurrency (the node's default unless given). */
	maximum?: number;
	/** A busy client's work per send and per answer read (ms): the pacer waits on its loop. */
	busyClient?: [sendCostMs: number, readCostMs: number];
	api: Omit<Parameters<typeof simulate>[0], 'pacer' | 'client'>;
	expected: Expected;
}

function expectWithin(what: string, actual: number, bounds: Bounds | undefined): void {
	if (bounds === undefined) return;
	try {
		if (typeof bounds === 'number') expect(actual).toBe(bounds);
		else {
			if (bounds.above !== undefined) expect(actual).toBeGreaterThan(bounds.above);
			if (bounds.atLeast !== undefined) expect(actual).toBeGreaterThanOrEqual(bounds.atLeast);
			if (bounds.below !== undefined) expect(actual).toBeLessThan(bounds.below);
			if (bounds.atMost !== undefined) expect(actual).toBeLessThanOrEqual(bounds.atMost);
		}
	} catch (error) {
		if (error instanceof Error) error.message = `${what}:\n${error.message}`;
		throw error;
	}
}

async function runCase({ maximum, busyClient, api, expected }: SimulatedCase): Promise<void> {
	const client = busyClient && new BusyClient(...busyClient);
	const result = await simulate({
		pacer: newPacer(maximum, client?.wait),
		...api,
		...(client && { client }),
	});
	const { stats, refusals } = result;
	expectWithin('listings created', result.created, expected.created);
	expectWithin('peak in flight', result.peak, expected.peak);
	expectWithin('refusals', refusals.length, expected.refusals);
	const after = expected.refusalsAfter;
	if (after) {
		const later = refusals.filter((refusal) => refusal.at > after.ms);
		expectWithin(`refusals after ${after.ms} ms`, later.length, after.count);
	}
	const until = expected.refusalsUntilPace;
	if (until) {
		const from = refusals.filter((refusal) => refusal.at >= until.ms);
		const index = from.findIndex((refusal) => refusal.rateAfter <= until.rate);
		expectWithin(`refusals from ${until.ms} ms until a pace of ${until.rate}`, index, until.count);
	}
	const highest = expected.highestPaceFrom;
	if (highest) {
		const paces = result.rates.filter((send) => send.at >= highest.ms).map((send) => send.rate);
		expectWithin(`highest pace from ${highest.ms} ms`, Math.max(...paces), highest.rate);
	}
	expectWithin('rate refusals', stats.rateRefusals, expected.rateRefusals);
	expectWithin('final rate', stats.finalRate, expected.finalRate);
	expectWithin('lowest rate', stats.lowestRate, expected.lowestRate);
	expectWithin('holds', stats.holds, expected.holds);
	expectWithin('peak limit', stats.peakLimit, expected.peakLimit);
}

/** 40 per second, 10 from 3 s into the run, 40 again from 8 s. */
const dropsAndRises = (sinceStart: number) =>
	sinceStart < 3000 ? 40 : sinceStart < 8000 ? 10 : 40;

const PER_SECOND_LIMITS: SimulatedCase[] = [
	...[10, 40, 100].map((limit) => ({
		name: `learns a limit of ${limit} per second: a pace just below it, few refusals once learned`,
		api: { requests: 400, perSecond: () => limit, jitterMs: 5 },
		expected: {
			created: 400,
			rateRefusals: { above: 0 },
			finalRate: { atLeast: 0.85 * limit, atMost: limit },
			lowestRate: { atLeast: 0.85 * limit },
			// The first climb overshoots once; after that, refusals are rationed probes.
			refusalsAfter: { ms: 2000, count: { atMost: limit === 10 ? 5 : 2 } },
			// The first overshoot (sent before the first 429 came back) grows with the limit.
			refusals: { atMost: (limit >= 100 ? 0.15 : 0.08) * 400 },
		},
	})),
	{
		name: '10 per second: after two probes refused in a row at the same rate, the next must save more than two pauses, so 400 listings draw two probe refusals',
		api: { requests: 400, perSecond: () => 10, jitterMs: 5, refusalLagMs: 15 },
		expected: { created: 400, refusalsAfter: { ms: 2000, count: 2 }, finalRate: 10 },
	},
	{
		name: 'a pace read a little low (8 a second, then 10): climbing back through 10.56 a second (which lets 10 go, as 10 does) is no probe, so 11 is not probed every few seconds',
		api: {
			requests: 400,
			perSecond: (sinceStart) => (sinceStart < 1500 ? 8 : 10),
			jitterMs: 5,
			refusalLagMs: 15,
		},
		expected: {
			created: 400,
			// One probe of 11 after 6 s (its two refusals), not one every few seconds.
			refusalsAfter: { ms: 6000, count: { atMost: 2 } },
			finalRate: { atLeast: 10, below: 11 },
		},
	},
	{
		name: '2,000 listings at 40 a second, jitter up to 20 ms: a probe refused before its count reached the new pace still went too far, so the pace goes back below the limit',
		api: { requests: 2000, perSecond: () => 40, jitterMs: 20, refusalLagMs: 15 },
		expected: {
			created: 2000,
			// A growth refused at a count below its new pace still went too far: the pace goes back at once.
			refusals: { atMost: 0.025 * 2000 },
			finalRate: { atMost: 40 },
		},
	},
	{
		name: 'follows a limit that changes mid-run (40/s, 10/s from 3 s, 40/s again from 8 s) down within a few refusals and back up',
		api: { requests: 600, perSecond: dropsAndRises, jitterMs: 5 },
		expected: {
			created: 600,
			// Each step down takes two refusals that agree (one alone may be random) and at most halves the pace.
			refusalsUntilPace: { ms: 3000, rate: 10, count: { atLeast: 0, atMost: 6 } },
			// Back up: the pace later climbs past 30 per second again and ends just below 40.
			highestPaceFrom: { ms: 8000, rate: { atLeast: 30 } },
			finalRate: { atLeast: 30, atMost: 40 },
		},
	},
	{
		name: 'a limit that rises again (40, 10 from 3 s, 40 from 8 s): the pace climbs back to the best pace that held, then probes by 10 % (not from 33 to 66 a second at once)',
		api: { requests: 400, perSecond: dropsAndRises, jitterMs: 5 },
		expected: {
			created: 400,
			highestPaceFrom: { ms: 8000, rate: { atLeast: 40, atMost: 1.1 * 40 + 0.5 } },
		},
	},
	{
		name: 'both limits at once (10 in flight, 40 per second): the per-second one is learned',
		api: { requests: 400, perSecond: () => 40, capacity: 10, jitterMs: 5 },
		expected: { created: 400, peak: { atMost: 10 }, finalRate: { atLeast: 0.85 * 40, atMost: 40 } },
	},
	...[5, 20, 40].map((jitterMs) => ({
		name: `an API that limits only requests in flight is never paused: no per-second refusal, no rate (jitter up to ${jitterMs} ms, answers on their way back counted in flight)`,
		api: { requests: 400, capacity: 10, jitterMs },
		expected: {
			created: 400,
			refusals: { above: 0 },
			rateRefusals: 0,
			finalRate: Number.POSITIVE_INFINITY,
		},
	})),
	...[5, 20].map((jitterMs) => ({
		name: `an API that limits requests in flight holds sends for a probe once or twice, not at every climb back to its concurrency (jitter up to ${jitterMs} ms)`,
		api: { requests: 400, capacity: 10, jitterMs },
		expected: { created: 400, refusals: { above: 1 }, holds: { atMost: 2 } },
	})),
	...[
		[10, 3],
		[100, 5],
	].map(([latencyMs, jitterMs]) => ({
		name: `an API without a limit that refuses 3 % of requests at random (${latencyMs} ms latency, jitter up to ${jitterMs} ms): no pace falls to a crawl, few pauses`,
		api: { requests: 500, latencyMs, sporadic429: 0.03, jitterMs },
		expected: {
			created: 500,
			refusals: { above: 10 },
			// Each lone 429 makes only its own request wait.
			rateRefusals: { atMost: 2 },
			lowestRate: { atLeast: 100 },
		},
	})),
	{
		name: "the e2e fault run's mix of refusals (3 % at random with Retry-After, every 37th without one), 5 ms latency: no pace falls to a crawl",
		api: {
			requests: 500,
			latencyMs: 5,
			sporadic429: 0.03,
			every429WithoutRetryAfter: 37,
			jitterMs: 2,
		},
		expected: {
			created: 500,
			refusals: { above: 25 },
			lowestRate: { atLeast: 20 },
		},
	},
	{
		name: 'two random 429s in one burst (the 150th and 151st requests) on an API without a limit: no per-second limit is read, nothing pauses',
		api: { requests: 400, jitterMs: 5, refuseArrivals: [150, 151] },
		expected: {
			created: 400,
			refusals: 2,
			// The second was sent before the first came back: no evidence of a limit.
			rateRefusals: 0,
			lowestRate: Number.POSITIVE_INFINITY,
		},
	},
	{
		name: 'one random 429 while slow start climbs (the 10th request) on an API without a limit: the level refused once is tried again, answered well above it, and slow start climbs on',
		api: { requests: 400, jitterMs: 5, refuseArrivals: [10] },
		expected: {
			created: 400,
			refusals: 1,
			// A level refused once is tried again: one random 429 must not hold the whole run there.
			peak: { atLeast: 24 },
			rateRefusals: 0,
		},
	},
	{
		name: '10 in flight: a level refused twice is a ceiling, probed only when the work left pays for a refusal',
		api: { requests: 400, capacity: 10, jitterMs: 5 },
		expected: { created: 400, peak: 10, refusals: { atMost: 5 } },
	},
	{
		name: '40 per second and 3 % refused at random besides: the pace stays near the limit',
		api: { requests: 400, perSecond: () => 40, sporadic429: 0.03, jitterMs: 5 },
		expected: { created: 400, lowestRate: { atLeast: 0.7 * 40 }, finalRate: { atMost: 40 } },
	},
	{
		name: 'an API without stress: the pacer climbs to its maximum of 64 and learns no rate',
		maximum: 64,
		api: { requests: 400, jitterMs: 5 },
		expected: { peak: 64, refusals: 0, finalRate: Number.POSITIVE_INFINITY },
	},
];

const FIRST_OVERSHOOT: SimulatedCase[] = [
	// Refusals on their way back: up to 5 ms each way, then up to 20 ms each way.
	...[
		[40, 5],
		[40, 20],
		[100, 5],
		[100, 20],
	].map(([limit, jitterMs]) => ({
		name: `${limit} per second, jitter up to ${jitterMs} ms: at most 5 % refused, the pace ends at the limit`,
		api: { requests: 400, perSecond: () => limit, jitterMs },
		expected: {
			created: 400,
			refusals: { atMost: 0.05 * 400 },
			// One overshoot, one pause: the first 429s of a climb hold every send until a probe tells the kind. With
			// 20 ms of jitter the pacer's count of the second before (its send times) may run a few above the API's
			// (arrival times): 43 a second read at 40, and one more pause puts it right.
			rateRefusals: { atMost: jitterMs > 5 ? 2 : 1 },
			finalRate: limit,
		},
	})),
	...[40, 100].map((limit) => ({
		name: `${limit} per second read by a busy client (each 429 reaches the pacer 30 ms late, as in a real n8n): the same pace, every listing sent`,
		api: { requests: 400, perSecond: () => limit, jitterMs: 5, refusalLagMs: 30 },
		expected: {
			created: 400,
			finalRate: limit,
			// The first overshoot costs what is sent while its first 429 is on its way.
			refusals: { atMost: 0.08 * 400 },
		},
	})),
	{
		name: '40 per second read 15 ms late (a real n8n reads its first 429 15 to 40 ms after the sandbox sent it): the ramp lets few go at once, so few are sent blind',
		api: { requests: 400, perSecond: () => 40, jitterMs: 5, refusalLagMs: 15 },
		expected: { created: 400, refusals: { atMost: 14 } },
	},
	...[40, 100].map((limit) => ({
		name: `${limit} per second, a busy client (4 ms of work a listing, as a real n8n on a 2-core machine): while slow start climbs the spread lets one go at a time, so a late wake-up does not release a burst and the first 429 is read soon`,
		busyClient: [3, 1] as [number, number],
		api: { requests: 400, perSecond: () => limit, jitterMs: 5 },
		expected: {
			created: 400,
			finalRate: limit,
			refusals: { atMost: 8 },
		},
	})),
	{
		name: '10 in flight and a busy client: the probe after the first overshoot goes below the lowered limit, so an answer read late does not make it a rate',
		busyClient: [2, 1],
		api: { requests: 400, capacity: 10, jitterMs: 5 },
		expected: {
			created: 400,
			// A probe above the lowered limit would be refused by the limit in flight and read as a rate.
			rateRefusals: 0,
			lowestRate: Number.POSITIVE_INFINITY,
		},
	},
	{
		name: '100 per second at 200 ms latency, 429s read 40 ms late: the probe after the first overshoot goes as the window frees a slot, so the next burst is refused; a run of three refusals reads the limit, without waiting for a send after the first 429 was read',
		api: { requests: 400, latencyMs: 200, perSecond: () => 100, jitterMs: 5, refusalLagMs: 40 },
		expected: {
			created: 400,
			finalRate: 100,
			// The slow climb meets the limit after a second, when its first sends leave the window: the probe is
			// accepted and reads the refusals as the concurrency; the run of refusals of the next burst reads the rate.
			refusals: { atMost: 32 },
		},
	},
	{
		name: '40 -> 10 -> 40 per second mid-run: at most 5 % refused, down within a few refusals and back up',
		api: { requests: 400, perSecond: dropsAndRises, jitterMs: 5 },
		expected: {
			created: 400,
			refusals: { atMost: 0.05 * 400 },
			// Each step down takes two refusals that agree (one alone may be random) and at most halves the pace:
			// 40 -> 36 -> 18 -> 10 in six refusals.
			refusalsUntilPace: { ms: 3000, rate: 10, count: { atMost: 6 } },
			finalRate: { atLeast: 30 },
		},
	},
	{
		name: 'no limit: the ramp spreads its sends yet the level climbs to the ceiling, without a refusal',
		maximum: 64,
		api: { requests: 400, jitterMs: 5 },
		expected: { peak: 64, peakLimit: 64, refusals: 0 },
	},
];

describe('per-second limits on a simulated API (100 ms latency, jitter up to 5 ms each way)', () => {
	it.each(PER_SECOND_LIMITS)('$name', runCase);
});

describe('the first overshoot: 400 listings against a sliding-window API, 100 ms latency', () => {
	it.each(FIRST_OVERSHOOT)('$name', runCase);
});
