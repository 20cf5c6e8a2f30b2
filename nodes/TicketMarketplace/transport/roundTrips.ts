/**
 * The API's latency as the pacer sees it: a smoothed round trip beside the quiet one. The quiet latency is a low
 * percentile of recent accepted answers: fast refusals, retries and a lone outlier cannot drag it down and make every
 * normal answer look like queueing.
 */
import { ROUND_TRIPS } from './pacingConfig';

export interface RoundTrips {
	/** Recent accepted round trips, oldest first (at most ROUND_TRIPS.baselineWindow). */
	readonly recent: readonly number[];
	readonly samples: number;
	/** The smoothed round trip; undefined before the first accepted answer after the run's first. */
	readonly smoothedMs?: number;
}

export const NO_ROUND_TRIPS: RoundTrips = { recent: [], samples: 0 };

/**
 * Only a 2xx counts: a refusal comes back without the work a listing costs the API (absent `accepted`: accepted).
 * The run's first answer (`first`) waited for n8n's token fetch, several times the API's own latency: a sample of the
 * quiet latency, where a low percentile shrugs it off, not of the smoothed one, which it would hold up for several
 * round trips (the ramp would spread its sends, and normal answers would look like queueing).
 */
export function recordRoundTrip(
	trips: RoundTrips,
	roundTripMs: number,
	accepted: boolean | undefined,
	first: boolean,
): RoundTrips {
	if (accepted === false || !Number.isFinite(roundTripMs) || roundTripMs < 0) return trips;
	const recent = [...trips.recent, roundTripMs].slice(-ROUND_TRIPS.baselineWindow);
	const samples = trips.samples + 1;
	if (first) return { ...trips, recent, samples };
	const smoothedMs =
		trips.smoothedMs === undefined
			? roundTripMs
			: trips.smoothedMs + ROUND_TRIPS.smoothing * (roundTripMs - trips.smoothedMs);
	return { recent, samples, smoothedMs };
}

/** The API's latency without queueing: a low percentile of recent accepted answers, not their minimum. */
export function quietMs(trips: RoundTrips): number {
	if (trips.recent.length === 0) return Number.POSITIVE_INFINITY;
	const sorted = [...trips.recent].sort((a, b) => a - b);
	return sorted[Math.floor(ROUND_TRIPS.baselinePercentile * (sorted.length - 1))];
}

/** The round trip to plan with: the smoothed one, else the quiet one (Infinity before any answer). */
export function typicalMs(trips: RoundTrips): number {
	return trips.smoothedMs ?? quietMs(trips);
}

/** Answers well above the quiet latency: requests queue at the API. */
export function queueing(trips: RoundTrips): boolean {
	if (trips.samples < ROUND_TRIPS.minSamples || trips.smoothedMs === undefined) return false;
	const quiet = Math.max(quietMs(trips), ROUND_TRIPS.quietFloorMs);
	return trips.smoothedMs > ROUND_TRIPS.latencyTolerance * quiet;
}
