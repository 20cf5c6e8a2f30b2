/**
 * How many listing requests are in flight at once. The API's real limit is not documented, so in adaptive mode
 * the limit is found, not configured (the loss- and latency-based ideas of Netflix's concurrency-limits):
 * - the first request goes alone, so that n8n fetches the access token once (it has no single-flight);
 * - then slow start from a few slots (like TCP's initial window): one more slot per success, so the limit doubles
 *   every round trip, up to the maximum;
 * - a 429 lowers the limit just below the level that was refused and remembers that level as a ceiling; the
 *   refused request waits its Retry-After outside any slot, then goes first, so nothing else stalls;
 * - above the ceiling the pacer probes only when enough work is left for one more slot to pay for a refusal;
 * - a round trip well above the API's quiet latency (queueing at the API) shrinks the limit. The quiet latency is a
 *   low percentile of recent accepted answers: fast refusals, retries and a lone outlier cannot drag it down.
 * Fixed mode keeps the first-request-alone rule and then holds exactly the maximum.
 */

export type PacingMode = 'adaptive' | 'fixed';

export type AttemptOutcome = (
	| {
			kind: 'answered';
			roundTripMs: number;
			/**
			 * A 2xx. A refusal (4xx) comes back without the work a listing costs the API, so only accepted answers
			 * tell its latency. Absent means accepted.
			 */
			accepted?: boolean;
	  }
	| { kind: 'rateLimited'; retryAfterMs?: number }
	| { kind: 'failed' }
) & {
	/** The request ends in an error (no retry follows). */
	final?: boolean;
};

export interface Slot {
	/** Frees the slot and tells the pacer how the attempt went. Call exactly once. */
	release(outcome: AttemptOutcome): void;
}

export interface PacerStats {
	peakInFlight: number;
	peakLimit: number;
	finalLimit: number;
	rateLimited: number;
	decreases: number;
}

export const PACING = {
	/** A round trip this many times the quietest one means requests queue at the API. */
	latencyTolerance: 2,
	/** Round trips observed before latency may lower the limit. */
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
	/** Assumed Retry-After before the API has sent one. */
	defaultRetryAfterMs: 1000,
};

/** A request waiting for a slot: given one, or null when the run stops first (it is then never sent). */
type Waiter = (slot: Slot | null) => void;

export class RequestPacer {
	private limit = 1;
	private inFlight = 0;
	private answeredOnce = false;
	private readonly waiting: Waiter[] = [];
	private closed = false;
	private slowStart = true;
	private additive = 0;
	/** The lowest in-flight level at which the API answered 429; probing above it is rationed. */
	private ceiling = Number.POSITIVE_INFINITY;
	/** Recent accepted round trips, oldest first (at most PACING.baselineWindow). */
	private readonly recentRoundTrips: number[] = [];
	private smoothedRoundTripMs?: number;
	private samples = 0;
	private lastDecreaseAt = Number.NEGATIVE_INFINITY;
	private lastRetryAfterMs = PACING.defaultRetryAfterMs;
	private readonly stats: PacerStats = {
		peakInFlight: 0,
		peakLimit: 1,
		finalLimit: 1,
		rateLimited: 0,
		decreases: 0,
	};

	constructor(
		readonly mode: PacingMode,
		readonly maximum: number,
		/** Without Continue On Fail, the first request that ends in an error stops the run. */
		private readonly stopOnFailure = false,
		private readonly now: () => number = Date.now,
	) {
		if (!Number.isInteger(maximum) || maximum < 1)
			throw new Error('The maximum concurrency must be a whole number of 1 or more');
	}

	/**
	 * Waits for a slot: null once the run has stopped, so the request is never sent. `first` puts a retried
	 * request ahead of requests not yet sent.
	 */
	async acquire(first = false): Promise<Slot | null> {
		if (this.closed) return null;
		if (this.inFlight < this.limit && this.waiting.length === 0) return this.grant();
		return await new Promise<Slot | null>((resolve) => {
			if (first) this.waiting.unshift(resolve);
			else this.waiting.push(resolve);
		});
	}

	/** No new request starts; requests waiting for a slot get null. */
	close(): void {
		this.closed = true;
		for (const waiter of this.waiting.splice(0)) waiter(null);
	}

	get currentLimit(): number {
		return this.limit;
	}

	snapshot(): PacerStats {
		return { ...this.stats, finalLimit: this.limit };
	}

	private grant(): Slot {
		this.inFlight++;
		const levelAtSend = this.inFlight;
		this.stats.peakInFlight = Math.max(this.stats.peakInFlight, this.inFlight);
		let released = false;
		return {
			release: (outcome) => {
				if (released) return;
				released = true;
				this.inFlight--;
				if (outcome.final && this.stopOnFailure) this.close();
				this.learn(outcome, levelAtSend);
				this.admit();
			},
		};
	}

	private admit(): void {
		while (!this.closed && this.waiting.length > 0 && this.inFlight < this.limit) {
			this.waiting.shift()!(this.grant());
		}
	}

	private setLimit(value: number): void {
		this.limit = Math.min(this.maximum, Math.max(1, Math.floor(value)));
		this.stats.peakLimit = Math.max(this.stats.peakLimit, this.limit);
	}

	private learn(outcome: AttemptOutcome, levelAtSend: number): void {
		if (!this.answeredOnce) {
			// The first answer settles the token; from now on requests may overlap.
			this.answeredOnce = true;
			this.setLimit(this.mode === 'fixed' ? this.maximum : PACING.initialLimit);
			if (outcome.kind === 'rateLimited') this.onRateLimited(outcome, levelAtSend);
			else if (outcome.kind === 'answered') this.recordRoundTrip(outcome);
			return;
		}
		if (outcome.kind === 'rateLimited') this.onRateLimited(outcome, levelAtSend);
		else if (outcome.kind === 'answered') this.onAnswered(outcome, levelAtSend);
		else if (this.mode === 'adaptive') this.decrease(PACING.backoffFactor * this.limit);
	}

	private onRateLimited(outcome: { retryAfterMs?: number }, levelAtSend: number): void {
		this.stats.rateLimited++;
		if (outcome.retryAfterMs !== undefined) this.lastRetryAfterMs = outcome.retryAfterMs;
		if (this.mode === 'fixed') return;
		this.ceiling = Math.min(this.ceiling, levelAtSend);
		this.slowStart = false;
		this.additive = 0;
		// At once, not once per round trip: a 429 comes back quickly, and a freed slot must not be handed straight
		// to the next request at the refused level. Refusals of one overshoot only ever lower it to their level.
		if (this.limit >= levelAtSend) {
			this.stats.decreases++;
			this.lastDecreaseAt = this.now();
			this.setLimit(levelAtSend - 1);
		}
	}

	private onAnswered(
		outcome: { roundTripMs: number; accepted?: boolean },
		levelAtSend: number,
	): void {
		this.recordRoundTrip(outcome);
		if (this.mode === 'fixed') return;
		// A request answered above the remembered ceiling shows the API takes more now.
		if (levelAtSend >= this.ceiling) this.ceiling = levelAtSend + 1;
		if (this.isQueueing()) {
			this.decrease(PACING.backoffFactor * this.limit);
			return;
		}
		if (this.limit >= this.maximum) return;
		if (this.limit + 1 >= this.ceiling && !this.probeWorthIt()) return;
		if (this.slowStart) {
			this.setLimit(this.limit + 1);
			return;
		}
		this.additive += 1 / this.limit;
		if (this.additive >= 1) {
			this.additive = 0;
			this.setLimit(this.limit + 1);
		}
	}

	/** One more slot saves about waiting/limit - waiting/(limit+1) round trips; a refusal costs one Retry-After. */
	private probeWorthIt(): boolean {
		const roundTripMs = this.smoothedRoundTripMs ?? this.quietRoundTripMs();
		if (!Number.isFinite(roundTripMs) || roundTripMs <= 0) return false;
		const roundsSaved = this.waiting.length / this.limit - this.waiting.length / (this.limit + 1);
		return roundsSaved * roundTripMs > this.lastRetryAfterMs;
	}

	private recordRoundTrip({
		roundTripMs,
		accepted,
	}: {
		roundTripMs: number;
		accepted?: boolean;
	}): void {
		if (accepted === false || !Number.isFinite(roundTripMs) || roundTripMs < 0) return;
		this.samples++;
		this.recentRoundTrips.push(roundTripMs);
		if (this.recentRoundTrips.length > PACING.baselineWindow) this.recentRoundTrips.shift();
		this.smoothedRoundTripMs =
			this.smoothedRoundTripMs === undefined
				? roundTripMs
				: this.smoothedRoundTripMs + PACING.smoothing * (roundTripMs - this.smoothedRoundTripMs);
	}

	/** The API's latency without queueing: a low percentile of recent accepted answers, not their minimum. */
	private quietRoundTripMs(): number {
		if (this.recentRoundTrips.length === 0) return Number.POSITIVE_INFINITY;
		const sorted = [...this.recentRoundTrips].sort((a, b) => a - b);
		return sorted[Math.floor(PACING.baselinePercentile * (sorted.length - 1))];
	}

	private isQueueing(): boolean {
		if (this.samples < PACING.minSamples || this.smoothedRoundTripMs === undefined) return false;
		// A floor of a few milliseconds keeps loopback jitter on a near-zero round trip from looking like queueing.
		const quiet = Math.max(this.quietRoundTripMs(), 5);
		return this.smoothedRoundTripMs > PACING.latencyTolerance * quiet;
	}

	/** At most one decrease per round trip: the answers of one overshoot arrive together. */
	private decrease(target: number): void {
		const now = this.now();
		const window = this.smoothedRoundTripMs ?? 0;
		if (now - this.lastDecreaseAt < window) return;
		this.lastDecreaseAt = now;
		this.slowStart = false;
		this.additive = 0;
		this.stats.decreases++;
		this.setLimit(Math.min(this.limit, target));
	}
}
