/**
 * The pacer's tuning, one group per controller, one line of why each. The reasons at length: docs/pacing.md; the
 * figures behind the values: bench/README.md.
 */

/** The concurrency level (concurrencyLevel.ts). */
export const LEVEL = {
	/** Slots once the first answer has settled the token: one round trip of climb saved against starting at 2. */
	initialLimit: 4,
	/** Decrease on rising latency or a failure that is not a 429: gentle, as one slow answer is weak evidence. */
	backoffFactor: 0.8,
	/** A refusal soon after the limit was lowered lowers it this far below its level, so a rate shows clearly below. */
	lowerAgain: 3,
	/** How far (share of the level) the pacer's in-flight count may run ahead of the API's: answers on their way. */
	levelFuzz: 0.2,
	/** "Soon" after a refusal: within a round trip, and at least this long, as one overshoot's 429s straggle. */
	soonMs: 100,
};

/** The API's latency (roundTrips.ts). */
export const ROUND_TRIPS = {
	/** A round trip this many times the quiet one means requests queue at the API. */
	latencyTolerance: 2,
	/** Accepted round trips observed before latency may lower the limit: one slow answer is no trend. */
	minSamples: 5,
	/** The quiet latency is this percentile of recent accepted round trips: outliers cannot drag it down. */
	baselinePercentile: 0.25,
	/** How many recent accepted round trips the quiet latency is taken from. */
	baselineWindow: 200,
	/** Weight of a new sample in the smoothed round trip: a few answers move it, one does not. */
	smoothing: 0.2,
	/** A floor under the quiet latency: loopback jitter on a near-zero round trip is no queueing. */
	quietFloorMs: 5,
};

/** The ramp that spreads sends over the round trip (rampSpread.ts). */
export const RAMP = {
	/** Sends go at most this many times the level a round trip: slow start can still double it once a round trip. */
	gain: 2,
	/** The burst once slow start is over: a batch of answers read late releases at most this many at once. */
	burst: 4,
	/** The burst while slow start climbs: no catch-up after a late wake-up, so the first 429 is read sooner. */
	slowStartBurst: 1,
};

/** The per-second rate (perSecondRate.ts). */
export const RATE = {
	/** The window a per-second limit counts in, and how long a pace holds before it may grow. */
	windowMs: 1000,
	/** The pace after a refusal: this share of what the API accepted in the last window. */
	margin: 1,
	/** A send leaves the pace's window this long after the API's second: its clock and arrival order differ. */
	guardMs: 30,
	/** Within a window, sends go at most this many times the pace: not all at once after a pause. */
	burst: 2,
	/** The first growth of the pace after a refusal; each further second without refusal doubles it... */
	firstStep: 0.1,
	/** ... up to this: a limit that rose far is found in a few seconds. */
	maxStep: 1,
	/** A refusal within this share of the rate last refused counts as the same limit: the next probe waits longer. */
	sameLimitTolerance: 0.2,
	/** The longest hold before probing a rate that was refused again and again. */
	maxHoldMs: 16000,
	/** A pace above this (requests per second) no longer limits anything: spacing is dropped. */
	maxRate: 1000,
	/** The slowest pace: a pace is never zero. */
	minRate: 0.1,
	/** Assumed Retry-After before the API has sent one: what a refusal costs, for the level and the rate. */
	assumedRetryAfterMs: 1000,
};

/** The gateway's spike arrest (spikeArrest.ts): a smoothed rate, one request per interval. */
export const SPIKE = {
	/** The gap kept beyond the interval the fault names: our sends reach the gateway a few ms earlier or later. */
	margin: 0.08,
	/** Each refusal of a send that kept the gap widens it by this share of the interval ... */
	widen: 0.04,
	/** ... up to this margin: a refusal costs one request sent again, a wider gap every request. */
	maxMargin: 0.3,
	/**
	 * Each accepted answer narrows it a little, down to the interval itself, so that the share refused settles near
	 * this: one refusal costs one gap, a gap 1 ms wider costs a millisecond per listing left.
	 */
	targetRefusedShare: 0.025,
	/** Without a named rate, each refusal of a send that kept the gap widens it this much: searched from below. */
	learnStep: 0.25,
	/** The smallest gap a refusal without a named rate is read as (two sends at once tell no interval). */
	minGapMs: 2,
};

/** Telling a 429's kind (refusalKind.ts): a rate, the concurrency, or random. */
export const CLASSIFY = {
	/** A second 429 at no more than this many accepted above the first one's count agrees: a limit holds the count. */
	confirmTolerance: 2,
	/** ... sent within this many sends after the first 429 was read: a limit refuses the sends that follow. */
	confirmWithinSends: 8,
	/** Refused of one burst in a run, this many at least, confirm a rate without waiting for a later send... */
	burstRefusals: 3,
	/** ... with at most this share of the burst's sends not refused: random 429s leave gaps. */
	burstGapShare: 0.25,
	/** A second with this share more accepted than before a refusal shows it was no per-second limit (at least 2). */
	windowTolerance: 0.2,
	/** How far back a 429 is compared with the seconds before it. */
	rateCheckMs: 3000,
};

/** The send log both the rate and the classifier read. */
export const SEND_LOG = {
	/** How long sends (times, in-flight levels, how they went) and a refusal read as the concurrency are kept. */
	keepMs: 10000,
};

/** How far the pacer's in-flight count may run ahead of the API's at `level` (answers on their way back). */
export function fuzzOf(level: number): number {
	return Math.max(1, Math.round(LEVEL.levelFuzz * level));
}
