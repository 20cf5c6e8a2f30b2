/**
 * How many requests may be in flight (the loss- and latency-based ideas of Netflix's concurrency-limits), as pure
 * functions of a `Level`:
 * - slow start from a few slots (like TCP's initial window): one more slot per success, so the limit doubles every
 *   round trip, up to the maximum; then one more slot a round trip;
 * - a 429 read as the concurrency lowers the limit just below the level that was refused and remembers that level;
 *   above it the pacer climbs only when enough work is left for one more slot to pay for a refusal;
 * - a round trip well above the API's quiet latency (queueing at the API) shrinks the limit.
 */
import { fuzzOf, LEVEL, SEND_LOG } from './pacingConfig';
import type { Send } from './pacingTypes';
import { queueing, type RoundTrips, typicalMs } from './roundTrips';

/** Slow start adds a slot per answer; after it, `credit` gathers 1/limit per answer, a slot per whole one. */
export type Climb = { kind: 'slowStart' } | { kind: 'additive'; credit: number };

const SLOW_START: Climb = { kind: 'slowStart' };

export interface Level {
	readonly maximum: number;
	readonly limit: number;
	readonly peakLimit: number;
	readonly decreases: number;
	readonly climb: Climb;
	/**
	 * The lowest in-flight level the API refused as its concurrency, raised past by answers above it; climbing to it
	 * is rationed (Infinity: none refused).
	 */
	readonly refusedLevel: number;
	/** Overshoots refused at refusedLevel (one overshoot's refusals count once): one alone may have been random. */
	readonly overshootsAtRefusedLevel: number;
	/** Slow start resumes at most once a run, when a level refused once is answered well above. */
	readonly resumed: boolean;
	readonly lastDecreaseAt: number;
	readonly lastRefusalAt: number;
	/**
	 * The 429s read as the concurrency: the lowest level refused (never raised: a request refused at one level and
	 * answered at a higher one is the client's count, not the API's) and when the first came back; forgotten after
	 * SEND_LOG.keepMs.
	 */
	readonly refusal?: { readonly level: number; readonly at: number };
}

export function newLevel(maximum: number): Level {
	return {
		maximum,
		limit: 1,
		peakLimit: 1,
		decreases: 0,
		climb: SLOW_START,
		refusedLevel: Number.POSITIVE_INFINITY,
		overshootsAtRefusedLevel: 0,
		resumed: false,
		lastDecreaseAt: Number.NEGATIVE_INFINITY,
		lastRefusalAt: Number.NEGATIVE_INFINITY,
	};
}

export function setLimit(level: Level, value: number): Level {
	const limit = Math.min(level.maximum, Math.max(1, Math.floor(value)));
	return { ...level, limit, peakLimit: Math.max(level.peakLimit, limit) };
}

/** The lowest level refused as the concurrency lately (SEND_LOG.keepMs), and when the first came back. */
export function recentRefusal(
	level: Level,
	now: number,
): { level: number; at: number } | undefined {
	const last = level.refusal;
	if (last === undefined || now - last.at > SEND_LOG.keepMs) return undefined;
	return last;
}

/** An accepted or refused (4xx) answer to `send`; `waiting` requests have no slot yet. */
export function levelAnswered(
	level: Level,
	trips: RoundTrips,
	send: Send,
	context: { waiting: number; retryAfterMs: number; now: number },
): Level {
	let next = level;
	// Answered above the refused level: the API takes more now. Well above a level refused once, that refusal was
	// random (an API refusing now and then), and slow start climbs again, once a run. (Just above may be the pacer's
	// count running ahead of the API's.)
	if (send.level >= next.refusedLevel) {
		if (send.level >= next.refusedLevel + fuzzOf(next.refusedLevel)) {
			const resume = next.overshootsAtRefusedLevel <= 1 && !next.resumed;
			next = {
				...next,
				overshootsAtRefusedLevel: 0,
				...(resume && { resumed: true, climb: SLOW_START }),
			};
		}
		next = { ...next, refusedLevel: send.level + 1 };
	}
	if (queueing(trips)) return backOff(next, trips, LEVEL.backoffFactor * next.limit, context.now);
	if (next.limit >= next.maximum) return next;
	if (next.limit + 1 >= next.refusedLevel && !climbPaysOff(next, trips, context)) return next;
	if (next.climb.kind === 'slowStart') return setLimit(next, next.limit + 1);
	const credit = next.climb.credit + 1 / next.limit;
	if (credit < 1) return { ...next, climb: { kind: 'additive', credit } };
	return setLimit({ ...next, climb: { kind: 'additive', credit: 0 } }, next.limit + 1);
}

/**
 * A 429 read as the concurrency, `inFlight` requests still out. At once, not once per round trip: a 429 comes back
 * quickly, and a freed slot must not be handed straight to the next request at the refused level. Nor to a slot
 * another refusal just freed: until an answer comes back, no more requests than are in flight.
 */
export function levelRefused(
	level: Level,
	trips: RoundTrips,
	send: Send,
	context: { inFlight: number; now: number },
): Level {
	const { now } = context;
	const recent = recentRefusal(level, now);
	// A new overshoot (sent after the last refusal came back): at the refused level again, or a lower one.
	const overshootsAtRefusedLevel =
		send.at > level.lastRefusalAt
			? send.level >= level.refusedLevel - fuzzOf(level.refusedLevel)
				? level.overshootsAtRefusedLevel + 1
				: 1
			: level.overshootsAtRefusedLevel;
	// Refused although sent after the limit was lowered: lower it further, so that if the next refusal comes anyway
	// it is clearly below the level refused (a per-second limit), and an in-flight limit the pacer's count only met
	// early (its answers on their way back) costs a short dip, not a pause.
	const soon = now - level.lastRefusalAt <= Math.max(trips.smoothedMs ?? 0, LEVEL.soonMs);
	const below = recent && send.at > recent.at && soon ? LEVEL.lowerAgain : 1;
	// The refusals of one overshoot set the level; one sent after the limit was lowered lowers it by one at most (the
	// pacer's count running ahead), so that a run of them cannot walk it down to a per-second limit's levels.
	const refusal = !recent
		? { level: send.level, at: now }
		: send.at <= recent.at
			? { ...recent, level: Math.min(recent.level, send.level) }
			: { ...recent, level: Math.min(recent.level, Math.max(send.level, recent.level - 1)) };
	const next: Level = {
		...level,
		overshootsAtRefusedLevel,
		lastRefusalAt: now,
		refusal,
		refusedLevel: Math.min(level.refusedLevel, send.level),
		climb: { kind: 'additive', credit: 0 },
	};
	const target = Math.min(send.level - below, Math.max(1, context.inFlight));
	if (next.limit <= target) return next;
	return setLimit({ ...next, decreases: next.decreases + 1, lastDecreaseAt: now }, target);
}

/** Lowers the limit to `target`, at most once per round trip: the answers of one overshoot arrive together. */
export function backOff(level: Level, trips: RoundTrips, target: number, now: number): Level {
	if (now - level.lastDecreaseAt < (trips.smoothedMs ?? 0)) return level;
	return setLimit(
		{
			...level,
			lastDecreaseAt: now,
			climb: { kind: 'additive', credit: 0 },
			decreases: level.decreases + 1,
		},
		Math.min(level.limit, target),
	);
}

/**
 * One more slot saves about waiting/limit - waiting/(limit+1) round trips; a refusal costs one Retry-After. A level
 * refused once is tried again for free: one random 429 during slow start would otherwise hold a whole run there.
 */
function climbPaysOff(
	level: Level,
	trips: RoundTrips,
	{ waiting, retryAfterMs }: { waiting: number; retryAfterMs: number },
): boolean {
	const roundTripMs = typicalMs(trips);
	if (!Number.isFinite(roundTripMs) || roundTripMs <= 0) return false;
	if (level.overshootsAtRefusedLevel <= 1) return waiting > level.limit;
	const roundsSaved = waiting / level.limit - waiting / (level.limit + 1);
	return roundsSaved * roundTripMs > retryAfterMs;
}
