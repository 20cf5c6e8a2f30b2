import {
	grown,
	type Limiter,
	NEW_LIMITER,
	nextAt,
	PACE,
	type Pace,
	rateRefused,
	type Sent,
	startPace,
} from '../../../../../nodes/TicketMarketplace/transport/limiter';
import { advance } from '../../../../../nodes/TicketMarketplace/transport/pacing';

/** The limiter's rules on fake time: pure functions, no clock, no pacer. */

const logOf = (...records: Array<[number, number, Sent['state']]>): Sent[] =>
	records.map(([index, at, state]) => ({ index, at, level: 1, state }));
/** A pace holding `limiter` and `log`; in fixed mode, so no ramp. */
const paceOf = (limiter: Limiter, log: Sent[] = []): Pace => ({
	...startPace('fixed', 1),
	limiter,
	log,
});

describe('the shared pause', () => {
	it('holds every send until its end, and a shorter pause never shortens it', () => {
		// Two rate refusals at 0: the first asks 5 s, the second 2 s.
		const limiter = rateRefused(rateRefused(NEW_LIMITER, 0, 40, 0, 5000), 0, 40, 0, 2000);
		expect(nextAt(paceOf(limiter), 0)).toBe(5000);
		expect(nextAt(paceOf(limiter), 6000)).toBe(6000);
	});

	it('a rate refusal whose request ends in an error (a Retry-After too long to wait) pauses nothing', () => {
		const log = logOf([1, 0, 'answered'], [2, 10, 'refused']);
		const limiter = rateRefused(NEW_LIMITER, 10, 40, 20, undefined);
		expect(limiter.pausedUntil).toBe(NEW_LIMITER.pausedUntil);
		expect(nextAt(paceOf(limiter, log), 20)).toBeLessThan(1000);
	});
});

describe('a per-second rate', () => {
	it('pauses every send for the Retry-After, then keeps what the API accepted in the second before the refusal', () => {
		const limiter = rateRefused(NEW_LIMITER, 900, 10, 1000, 1000);
		expect(limiter.rate).toBe(10);
		expect(limiter.pausedUntil).toBe(2000);
		// Ten sends of the last second (and its guard) the API did not refuse: the next goes when the oldest leaves.
		const log = logOf(
			...Array.from({ length: 10 }, (_, i): [number, number, Sent['state']] => [
				i + 1,
				2000 + 50 * i,
				'answered',
			]),
		);
		expect(nextAt(paceOf(limiter, log), 2500)).toBe(2000 + PACE.windowMs + PACE.guardMs);
	});

	it('one refusal at most halves it (a 429 after a pause, few sent in the second before, is not a crawl)', () => {
		const forty = rateRefused(NEW_LIMITER, 900, 40, 1000, 1000);
		expect(rateRefused({ ...forty, grownFrom: 36 }, 5000, 3, 5010, 1000).rate).toBe(20);
	});

	it('refused as the send that filled a rate that held, the rate stays; the refusals of one overshoot only lower it', () => {
		const ten = rateRefused(NEW_LIMITER, 900, 10, 1000, 1000);
		expect(rateRefused(ten, 3000, 9, 3010, 1000).rate).toBe(10);
		expect(rateRefused(ten, 950, 8, 1005, 1000).rate).toBe(8);
	});

	it('grows after a window without refusal, back up to the best rate that held, and above the rate refused only when the work left pays for a pause', () => {
		let limiter: Limiter = { ...rateRefused(NEW_LIMITER, 900, 20, 1000, 1000), bestHeld: 40 };
		// Paused until 2000, then held a window: 22 a second (10 %).
		expect(grown(limiter, 2500, 1000).rate).toBe(20);
		limiter = grown(limiter, 3000, 1000);
		expect(limiter.rate).toBeCloseTo(22);
		// 22 is above the 20 refused: a growth to 26.4 saves 1 s only with enough work left.
		expect(grown(limiter, 4000, 10).rate).toBeCloseTo(22);
		limiter = grown(limiter, 4000, 1000);
		expect(limiter.rate).toBeCloseTo(26.4);
		limiter = grown(grown(limiter, 5000, 1000), 6000, 1000);
		// 26.4 -> 36.96 -> 40 (the best that held), no further in one step.
		expect(limiter.rate).toBe(40);
	});

	it('each growth refused in a row at the same rate makes the next hold twice as long and pay one pause more', () => {
		let limiter = rateRefused(NEW_LIMITER, 900, 10, 1000, 1000);
		limiter = grown({ ...limiter, refusedRate: 9 }, 3000, 1000);
		expect(limiter.grownFrom).toBe(10);
		limiter = rateRefused(limiter, 3500, 10, 3600, 1000);
		expect(limiter.refusedGrowths).toBe(1);
		expect(limiter.holdMs).toBe(2 * PACE.windowMs);
		// Paused until 4600: a window later it holds still, two later it may grow, if 1,000 listings pay two pauses.
		expect(grown(limiter, 5700, 1000).rate).toBe(10);
		expect(grown(limiter, 6700, 200).rate).toBe(10);
		expect(grown(limiter, 6700, 1000).rate).toBeCloseTo(11);
	});
});

describe('the ramp', () => {
	it('lets a burst go at once, then one send a token, refilled at its rate', () => {
		// After slow start, 8 in flight over a round trip of 160 ms: 2 × 8 / 160 = 0.1 sends a millisecond.
		const limiter = { ...NEW_LIMITER, smoothedMs: 160, tokens: PACE.burst, tokensAt: 0 };
		let state: Pace = { ...startPace('adaptive', 16, true), slowStart: false, limit: 8, limiter };
		for (let i = 0; i < PACE.burst; i++) {
			expect(nextAt(state, 0)).toBe(0);
			state = advance(state, { kind: 'sent' }, 0);
		}
		expect(nextAt(state, 0)).toBeCloseTo(10);
		expect(nextAt(state, 10)).toBe(10);
	});
});
