/**
 * The API's latency as the pacer sees it: a smoothed round trip beside the quiet one. The quiet latency is a low
 * percentile of recent accepted answers: fast refusals, retries and a lone outlier cannot drag
 * it down and make every normal answer look like queueing.
 */
import { PACING } from './pacingConfig';

export class RoundTrips {
	/** Recent accepted round trips, oldest first (at most PACING.baselineWindow). */
	private readonly recent: number[] = [];
	private samples = 0;
	/** The smoothed round trip; undefined before the first accepted answer. */
	smoothedMs?: number;

	/**
	 * Only a 2xx: a refusal comes back without the work a listing costs the API. Absent `accepted` means accepted.
	 * The run's first answer (`first`) waited for n8n's token fetch (several times the API's own latency): a
	 * sample of the quiet latency, where a low percentile shrugs it off, not of the smoothed one, which it would hold
	 * up for several round trips (the ramp would spread its sends, and normal answers would look like queueing).
	 */
	record(
		{ roundTripMs, accepted }: { roundTripMs: number; accepted?: boolean },
		first = false,
	): void {
		if (accepted === false || !Number.isFinite(roundTripMs) || roundTripMs < 0) return;
		this.samples++;
		this.recent.push(roundTripMs);
		if (this.recent.length > PACING.baselineWindow) this.recent.shift();
		if (first) return;
		this.smoothedMs =
			this.smoothedMs === undefined
				? roundTripMs
				: this.smoothedMs + PACING.smoothing * (roundTripMs - this.smoothedMs);
	}

	/** The API's latency without queueing: a low percentile of recent accepted answers, not their minimum. */
	quietMs(): number {
		if (this.recent.length === 0) return Number.POSITIVE_INFINITY;
		const sorted = [...this.recent].sort((a, b) => a - b);
		return sorted[Math.floor(PACING.baselinePercentile * (sorted.length - 1))];
	}

	/** The round trip to plan with: the smoothed one, else the quiet one (Infinity before any answer). */
	typicalMs(): number {
		return this.smoothedMs ?? this.quietMs();
	}

	/** Answers well above the quiet latency: requests queue at the API. */
	queueing(): boolean {
		if (this.samples < PACING.minSamples || this.smoothedMs === undefined) return false;
		// A floor of a few milliseconds keeps loopback jitter on a near-zero round trip from looking like queueing.
		const quiet = Math.max(this.quietMs(), 5);
		return this.smoothedMs > PACING.latencyTolerance * quiet;
	}
}
