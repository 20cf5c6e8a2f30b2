/** The pacer's tuning, shared by its parts. Why: docs/pacing.md; the figures behind the values: bench/README.md. */

export const PACING = {
	/** A round trip this many times the quiet one means requests queue at the API. */
	latencyTolerance: 2,
	/** Accepted round trips observed before latency may lower the limit. */
	minSamples: 5,
	/** The quiet latency: this percentile of the recent accepted round trips. */
	baselinePercentile: 0.25,
	/** How many recent accepted round trips the quiet latency is taken from. */
	baselineWindow: 200,
	/** Smoothing of the round-trip average (exponential moving average weight of a new sample). */
	smoothing: 0.2,
	/** Multiplicative decrease on rising latency or a failure that is not a 429. */
	backoffFactor: 0.8,
	/** Slots once the first answer has settled the token: one round trip of ramp saved against starting at 2. */
	initialLimit: 4,
	/**
	 * Adaptive sends go at most this many times the level a round trip (slow start doubles it once a round trip). 1
	 * sends fewer into a per-second limit before its first 429 comes back, but then needs many more pauses to learn
	 * the rate.
	 */
	rampGain: 2,
	/**
	 * ... after a burst of at most this many once slow start is over. n8n reads its answers in batches, so a batch
	 * releases the whole burst at once: the larger the burst, the more a per-second limit refuses before its first
	 * 429 is read.
	 */
	rampBurst: 4,
	/**
	 * ... and of this many while slow start climbs: no catch-up after n8n's busy event loop served a wake-up late, so
	 * the sends slow down with it and the first 429 is read sooner.
	 */
	slowStartBurst: 1,
	/** Assumed Retry-After before the API has sent one. */
	defaultRetryAfterMs: 1000,
	/** The window a per-second limit counts in, and how long a pace holds before it may grow. */
	rateWindowMs: 1000,
	/** The pace after a refusal: this share of what the API accepted in the last window (jitter must not overshoot). */
	rateMargin: 1,
	/** A send leaves the pace's window this long after the API's second: its clock and arrival order differ. */
	rateGuardMs: 30,
	/** Within a window, sends go at most this many times the pace (not all at once after a pause). */
	rateBurst: 2,
	/** The first growth of the pace after a refusal; each further second without refusal doubles it, up to maxRateStep. */
	firstRateStep: 0.1,
	maxRateStep: 1,
	/** A refusal within this share of the rate last refused counts as the same limit: the next probe waits longer. */
	sameLimitTolerance: 0.2,
	/**
	 * A lone 429 is confirmed as a per-second limit by a second one at no more than this many requests above its count
	 * in the second before (a limit holds the count there; an API refusing at random lets it climb).
	 */
	confirmTolerance: 2,
	/**
	 * ... sent after its 429 was read, within this many sends: a limit refuses the sends that follow, random refusals
	 * are far apart. (Sends of the same burst do not count: random 429s fall together now and then, and two of one
	 * burst would set a crawling pace.)
	 */
	confirmWithinSends: 8,
	/**
	 * ... or this many refused of one burst in a run (at most PACING.burstGapShare of its sends not refused): a probe
	 * that goes as the window frees a slot can let a per-second limit refuse most of the next burst.
	 */
	burstRefusals: 3,
	burstGapShare: 0.25,
	/** The longest hold before probing a rate that was refused again and again. */
	maxRateHoldMs: 16000,
	/** A pace above this (requests per second) no longer limits anything: spacing is dropped. */
	maxRate: 1000,
	/** How far (share of the level) the pacer's in-flight count may run ahead of the API's: answers on their way back. */
	levelFuzz: 0.2,
	/** A refusal sent after the limit was lowered, within a round trip of the last, lowers it this far below its level. */
	lowerAgain: 3,
	/** How far back a 429 is compared with the seconds before it. */
	rateCheckMs: 3000,
	/** How long the send log (times and in-flight levels) is kept. */
	sendLogMs: 10000,
};

/** One send: when, at which in-flight level, and how it went so far. */
export interface SendRecord {
	at: number;
	/** The how-manieth send of the run. */
	index: number;
	level: number;
	state: 'inFlight' | 'answered' | 'refused' | 'failed';
}

/** How far the pacer's in-flight count may run ahead of the API's at `level` (answers on their way back). */
export function fuzzOf(level: number): number {
	return Math.max(1, Math.round(PACING.levelFuzz * level));
}
