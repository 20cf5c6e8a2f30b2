/**
 * The per-second side of the pacer, as pure functions of a `Rate`: the pace in requests per second, and the pause a
 * 429 read as a rate imposes on every send.
 * - without a rate refusal there is no pace: only the concurrency paces;
 * - a rate refusal pauses every send until its Retry-After, and the pace becomes what the API accepted in the second
 *   before the refused request;
 * - a limit that falls is followed at the next refusal; one that rises is found by growing: after a second without
 *   refusal the pace grows by 10 %, then 20, 40, 80 %, 100 % a second, but above the rate last refused only while
 *   enough work is left for the gain to pay for a refusal, and the more often the same rate is refused, the longer
 *   the pacer holds before it grows again and the more work must be left (each growth refused in a row at the same
 *   rate adds one more Retry-After that the next must pay for).
 */
import { RATE } from './pacingConfig';
import type { Send } from './pacingTypes';
import { acceptedBefore, countedSince, type SendLog } from './sendLog';

export interface Rate {
	/** Requests per second; Infinity until a 429 shows a per-second limit. */
	readonly rate: number;
	readonly lowestRate: number;
	readonly refusals: number;
	readonly pausedUntilMs: number;
	/** What the API accepted in the second before its last rate refusal; growing above it is rationed. */
	readonly refusedRate: number;
	/** Growth steps since the last refusal or return to the best pace. */
	readonly steps: number;
	/** The pace before it last grew, when it grew since the last refusal. */
	readonly grownFrom?: number;
	readonly paceBeforeRefusal: number;
	/** The highest pace that held a whole hold without refusal. */
	readonly bestHeld: number;
	readonly holdMs: number;
	/** Growths refused in a row at the same limit. */
	readonly refusedGrowths: number;
	readonly lastChangeAt: number;
	readonly lastRefusalAt: number;
}

export const NO_RATE: Rate = {
	rate: Number.POSITIVE_INFINITY,
	lowestRate: Number.POSITIVE_INFINITY,
	refusals: 0,
	pausedUntilMs: Number.NEGATIVE_INFINITY,
	refusedRate: Number.POSITIVE_INFINITY,
	steps: 0,
	paceBeforeRefusal: Number.POSITIVE_INFINITY,
	bestHeld: 0,
	holdMs: RATE.windowMs,
	refusedGrowths: 0,
	lastChangeAt: Number.NEGATIVE_INFINITY,
	lastRefusalAt: Number.NEGATIVE_INFINITY,
};

/**
 * The earliest time the next request may go: after any pause; while the sends of the last window that the API did
 * not refuse stay below the pace (the API's own count); and spread, at most RATE.burst times the pace.
 */
export function rateReadyAt(rate: Rate, log: SendLog, now: number): number {
	if (!Number.isFinite(rate.rate)) return rate.pausedUntilMs;
	const windowMs = RATE.windowMs + RATE.guardMs;
	const counted = countedSince(log, now - windowMs);
	const allowed = allowance(rate.rate);
	const windowFreeAt =
		counted.length < allowed
			? Number.NEGATIVE_INFINITY
			: counted[counted.length - allowed].at + windowMs;
	const spacing = RATE.windowMs / (RATE.burst * rate.rate);
	return Math.max(rate.pausedUntilMs, windowFreeAt, log.lastSendAt + spacing);
}

export function pauseRate(rate: Rate, untilMs: number): Rate {
	return { ...rate, pausedUntilMs: Math.max(rate.pausedUntilMs, untilMs) };
}

/**
 * A 429 read as a per-second limit: everything waits for the Retry-After, then goes at what the API accepted in the
 * second before the refused request (the requests sent then and not refused, answered or not yet). `pauseMs` is
 * undefined when the request ends in an error: the others are not held for a wait too long to make.
 */
export function rateRefused(
	before: Rate,
	log: SendLog,
	send: Send,
	now: number,
	pauseMs: number | undefined,
): Rate {
	let rate: Rate = { ...before, refusals: before.refusals + 1 };
	if (pauseMs !== undefined) rate = pauseRate(rate, now + pauseMs);
	const limit = Math.max(1, acceptedBefore(log, send));
	// Refusals of one overshoot (sent before the first of them came back) say the same: only ever lower.
	const sameOvershoot = send.at <= rate.lastRefusalAt;
	if (!sameOvershoot) {
		const sameLimit =
			Number.isFinite(rate.refusedRate) &&
			Math.abs(limit - rate.refusedRate) <= RATE.sameLimitTolerance * rate.refusedRate;
		rate = {
			...rate,
			holdMs: sameLimit ? Math.min(RATE.maxHoldMs, rate.holdMs * 2) : RATE.windowMs,
			refusedGrowths: sameLimit && rate.grownFrom !== undefined ? rate.refusedGrowths + 1 : 0,
		};
	}
	const refusedRate = sameOvershoot ? Math.min(rate.refusedRate, limit) : limit;
	// Refused as the request that filled a pace that held since the last refusal: the limit is at the pace (or the API
	// refused at random), so the pace stays; one that just grew went too far, and goes back.
	const atHeldPace = limit + 1 >= rate.rate && rate.grownFrom === undefined && !sameOvershoot;
	const paceBeforeRefusal = sameOvershoot ? rate.paceBeforeRefusal : rate.rate;
	// At most halved by one refusal: a 429 at random after a pause (few sent in the second before) is not a crawl.
	if (!atHeldPace)
		rate = setPace(
			rate,
			Math.min(rate.rate, Math.max(limit * RATE.margin, halfOf(paceBeforeRefusal))),
		);
	return {
		...rate,
		refusedRate,
		paceBeforeRefusal,
		grownFrom: undefined,
		steps: 0,
		lastRefusalAt: now,
		// The pace holds from the end of the pause.
		lastChangeAt: Math.max(now, rate.pausedUntilMs),
	};
}

/**
 * After a pace held without refusal (a second, longer when the same rate was refused again and again), it grows;
 * above the rate last refused only when the `waiting` requests pay for a refusal's `retryAfterMs`.
 */
export function growRate(rate: Rate, now: number, waiting: number, retryAfterMs: number): Rate {
	if (!Number.isFinite(rate.rate) || now < rate.pausedUntilMs) return rate;
	const hold = rate.rate * (1 + nextStep(rate)) > rate.refusedRate ? rate.holdMs : RATE.windowMs;
	if (now - rate.lastChangeAt < hold) return rate;
	// The pace held without refusal: the API takes at least this much now ...
	let next: Rate = { ...rate, bestHeld: Math.max(rate.bestHeld, rate.rate) };
	// ... and more than it refused before: the limit has risen, so growing need not wait longer any more. (More
	// requests a second, not a fraction more: a fractional pace lets go only as many as the whole number below it,
	// holds whenever that does, and would keep the pacer growing into the rate above, each refusal pausing every send.)
	if (allowance(next.rate) > allowance(next.refusedRate))
		next = { ...next, refusedRate: next.rate, holdMs: RATE.windowMs, refusedGrowths: 0 };
	const step = nextStep(next);
	if (
		next.rate * (1 + step) > next.refusedRate &&
		!growthPaysOff(next, step, waiting, retryAfterMs)
	)
		return next;
	next = { ...next, grownFrom: next.rate, lastChangeAt: now };
	// Back up to the best pace that ever held, no further in one step; beyond it, the steps start small again.
	if (next.rate < next.bestHeld && next.rate * (1 + step) > next.bestHeld)
		return setPace({ ...next, steps: 0 }, next.bestHeld);
	return setPace({ ...next, steps: next.steps + 1 }, next.rate * (1 + step));
}

function setPace(rate: Rate, value: number): Rate {
	const pace = value > RATE.maxRate ? Number.POSITIVE_INFINITY : Math.max(value, RATE.minRate);
	return { ...rate, rate: pace, lowestRate: Math.min(rate.lowestRate, pace) };
}

function nextStep(rate: Rate): number {
	return Math.min(RATE.maxStep, RATE.firstStep * 2 ** rate.steps);
}

/**
 * The waiting requests go `step` faster: worth a refusal's Retry-After (everything paused) if they save more; after
 * growths refused in a row at the same rate, more: each of those refusals paused every send.
 */
function growthPaysOff(rate: Rate, step: number, waiting: number, retryAfterMs: number): boolean {
	const secondsLeft = waiting / rate.rate;
	const savedMs = (1000 * secondsLeft * step) / (1 + step);
	return savedMs > retryAfterMs * (1 + rate.refusedGrowths);
}

/** How many requests a pace lets go in one second. */
export function allowance(rate: number): number {
	return Math.max(1, Math.floor(rate));
}

/** Half a pace; no floor at all while there is none. */
function halfOf(rate: number): number {
	return Number.isFinite(rate) ? rate / 2 : 0;
}
