/**
 * When the next request may go, as pure functions of a `Limiter` (in the mould of Go's x/time/rate: a rate and a
 * burst): one shared pause for a Retry-After, a per-second pace learned from 429s, and the ramp that spreads sends
 * over the round trip; the round trips it plans with; and the pacer's vocabulary (its tuning, a send, an event). The
 * concurrency gate and the reading of a 429 are pace.ts's, a spike arrest's gap spikeArrest.ts's.
 */

/** The pacer's tuning; the reasons at length: docs/pacing.md, the figures behind them: bench/README.md. */
export const PACE = {
	/** Slots once the first answer has settled the token: one round trip of climb saved against starting at 2. */
	initialLimit: 4,
	/** The ramp sends at most this many times the level a round trip (so slow start can still double it). */
	rampGain: 2,
	/** Sends let go at once after slow start: n8n reads answers in batches, and a late batch goes out blind. */
	burst: 4,
	/** The window a per-second limit counts in; a pace holds at least this long before it grows. */
	windowMs: 1000,
	/** A send leaves the pace's window this long after the API's second: clocks and arrival order differ. */
	guardMs: 30,
	/** The first growth of a pace; each further one doubles, up to 100 %. */
	growth: 0.1,
	/** How far apart two readings may be and still agree (levels, rates), and what a queueing API costs the limit. */
	tolerance: 0.2,
	/** A lone 429 is confirmed by one of a send made within this many sends after it was read. */
	confirmWithinSends: 8,
	/** A round trip this many times the quiet one means requests queue at the API. */
	queueing: 2,
	/** A spike arrest's gap beyond the interval it names (its sends reach the gateway a little early or late); each
	 * refusal of a send that kept the gap widens it by half this, up to four times it. */
	spikeMargin: 0.08,
};

/** One request sent: when, the how-manieth of the run, at which in-flight level (itself included), how it went. */
export interface Sent {
	readonly at: number;
	readonly index: number;
	readonly level: number;
	readonly state: 'inFlight' | 'answered' | 'refused' | 'failed';
}

export type PacingMode = 'adaptive' | 'fixed';

export type PaceEvent =
	/** `replaces`: sent again within its slot (a 401 re-sent): the earlier send, which the API answered. */
	| { kind: 'sent'; send: Sent; replaces?: Sent }
	/** A 2xx (`accepted`) or 4xx answer; `left`: requests still waiting for a slot. */
	| { kind: 'answered'; send: Sent; roundTripMs: number; accepted: boolean; left: number }
	| {
			kind: 'refused';
			send: Sent;
			retryAfterMs?: number;
			/** The request ends in an error: its Retry-After (too long to wait) pauses nothing. */
			final: boolean;
			spikeArrest?: boolean;
			allowedPerSecond?: number;
	  }
	| { kind: 'failed'; send: Sent }
	| { kind: 'pause'; until: number };

export interface Limiter {
	/** The shared pause: no send before this moment. */
	readonly pausedUntil: number;
	/** The last Retry-After the API sent (not one too long to wait): what the next refusal will cost. */
	readonly retryAfterMs: number;
	/** Requests a second (Infinity: no per-second limit shown), and its lowest in the run. */
	readonly rate: number;
	readonly lowestRate: number;
	/** What the API accepted in the second before its last rate refusal: growing above it is rationed. */
	readonly refusedRate: number;
	readonly refusedAt: number;
	readonly refusals: number;
	/** The rate before it last grew (a refusal then went too far); growth steps since; the best rate that held. */
	readonly grownFrom?: number;
	readonly steps: number;
	readonly bestHeld: number;
	/** When the rate last changed; how long it holds above the rate refused (doubled by each refusal there). */
	readonly since: number;
	readonly holdMs: number;
	/** Growths refused in a row at the same rate: each asks the next to save one pause more. */
	readonly refusedGrowths: number;
	/** Accepted round trips: recent ones (the quiet latency is their lower quartile) and a smoothed one. */
	readonly trips: readonly number[];
	readonly smoothedMs?: number;
	/** The ramp's bucket: tokens, and when they were counted. */
	readonly tokens: number;
	readonly tokensAt: number;
}

export const NEW_LIMITER: Limiter = {
	pausedUntil: -Infinity,
	retryAfterMs: 1000,
	rate: Infinity,
	lowestRate: Infinity,
	refusedRate: Infinity,
	refusedAt: -Infinity,
	refusals: 0,
	steps: 0,
	bestHeld: 0,
	since: -Infinity,
	holdMs: PACE.windowMs,
	refusedGrowths: 0,
	trips: [],
	tokens: 1,
	tokensAt: 0,
};

/** The ramp: sends a millisecond (undefined: none), and how many may go at once. */
export interface Ramp {
	readonly perMs?: number;
	readonly burst: number;
}

/** The earliest time the next send may go, `log` the recent sends, oldest first. */
export function readyAt(limiter: Limiter, log: readonly Sent[], ramp: Ramp, now: number): number {
	const last = log.length > 0 ? log[log.length - 1].at : -Infinity;
	const tokens = refill(limiter, ramp, now);
	const rampAt = ramp.perMs === undefined || tokens >= 1 ? now : now + (1 - tokens) / ramp.perMs;
	return Math.max(limiter.pausedUntil, rampAt, paceAt(limiter, log, last, now));
}

/** A send goes now: one token less. */
export function taken(limiter: Limiter, ramp: Ramp, now: number): Limiter {
	if (ramp.perMs === undefined) return limiter;
	return { ...limiter, tokens: Math.max(0, refill(limiter, ramp, now) - 1), tokensAt: now };
}

export function paused(limiter: Limiter, until: number): Limiter {
	return { ...limiter, pausedUntil: Math.max(limiter.pausedUntil, until) };
}

/**
 * A 429 read as a per-second limit: everything waits for `pauseMs` (none when its request ends in an error), then goes
 * at `accepted` (what the API accepted in the second before the refused send), at most halved by one refusal. Refused
 * as the send that filled a rate that held, the rate stays; the refusals of one overshoot only ever lower it.
 */
export function rateRefused(
	limiter: Limiter,
	sentAt: number,
	accepted: number,
	now: number,
	pauseMs: number | undefined,
): Limiter {
	const limit = Math.max(1, accepted);
	const { rate, refusedRate, grownFrom } = limiter;
	const sameOvershoot = sentAt <= limiter.refusedAt;
	const sameLimit =
		Number.isFinite(refusedRate) && Math.abs(limit - refusedRate) <= PACE.tolerance * refusedRate;
	const atHeldRate = limit + 1 >= rate && grownFrom === undefined && !sameOvershoot;
	const halved = Number.isFinite(rate) ? rate / 2 : 0;
	const next = atHeldRate ? rate : Math.min(rate, Math.max(limit, halved));
	const pausedUntil =
		pauseMs === undefined ? limiter.pausedUntil : Math.max(limiter.pausedUntil, now + pauseMs);
	return {
		...limiter,
		pausedUntil,
		rate: next,
		lowestRate: Math.min(limiter.lowestRate, next),
		refusals: limiter.refusals + 1,
		refusedRate: sameOvershoot ? Math.min(refusedRate, limit) : limit,
		refusedAt: now,
		grownFrom: undefined,
		steps: 0,
		since: Math.max(now, pausedUntil),
		...(!sameOvershoot && {
			holdMs: sameLimit ? Math.min(16 * PACE.windowMs, 2 * limiter.holdMs) : PACE.windowMs,
			refusedGrowths: sameLimit && grownFrom !== undefined ? limiter.refusedGrowths + 1 : 0,
		}),
	};
}

/**
 * After a rate held without refusal it grows, by 10 %, then 20, 40, 80, 100 % a step; back up to the best rate that
 * held, no further in one step. Above the rate last refused it holds longer, and grows only when the `left` requests
 * save more than the pauses a refusal costs (one more for each growth refused in a row there).
 */
export function grown(limiter: Limiter, now: number, left: number): Limiter {
	const { rate } = limiter;
	if (!Number.isFinite(rate) || now < limiter.pausedUntil) return limiter;
	const step = Math.min(1, PACE.growth * 2 ** limiter.steps);
	const holdMs = rate * (1 + step) > limiter.refusedRate ? limiter.holdMs : PACE.windowMs;
	if (now - limiter.since < holdMs) return limiter;
	let next: Limiter = { ...limiter, bestHeld: Math.max(limiter.bestHeld, rate) };
	// Held more whole requests a second than were refused: the limit has risen.
	if (Math.floor(rate) > Math.floor(next.refusedRate))
		next = { ...next, refusedRate: rate, refusedGrowths: 0, holdMs: PACE.windowMs };
	const savedMs = (1000 * (left / rate) * step) / (1 + step);
	const cost = next.retryAfterMs * (1 + next.refusedGrowths);
	if (rate * (1 + step) > next.refusedRate && savedMs <= cost) return next;
	const backToBest = rate < next.bestHeld && rate * (1 + step) > next.bestHeld;
	const grownTo = backToBest ? next.bestHeld : rate * (1 + step);
	return {
		...next,
		grownFrom: rate,
		since: now,
		steps: backToBest ? 0 : next.steps + 1,
		rate: grownTo > 1000 ? Infinity : grownTo,
	};
}

/** The highest in-flight level of the logged sends the API answered (refusals are no answer). */
export function highestAnswered(log: readonly Sent[]): number {
	return Math.max(0, ...log.filter((s) => s.state === 'answered').map((s) => s.level));
}

/** Requests sent in the second before `send` and not refused (answered or still in flight), itself left out. */
export function acceptedBefore(log: readonly Sent[], send: Sent): number {
	const from = send.at - PACE.windowMs;
	return log.filter(
		(s) => s.index !== send.index && s.state !== 'refused' && s.at < send.at && s.at >= from,
	).length;
}

/**
 * A per-second rate: the sends of the last window (and its guard) the API did not refuse stay below it, spread at
 * most twice the rate.
 */
function paceAt(limiter: Limiter, log: readonly Sent[], last: number, now: number): number {
	if (!Number.isFinite(limiter.rate)) return -Infinity;
	const windowMs = PACE.windowMs + PACE.guardMs;
	const counted = log.filter((s) => s.state !== 'refused' && s.at > now - windowMs);
	const allowed = Math.max(1, Math.floor(limiter.rate));
	const free =
		counted.length < allowed ? -Infinity : counted[counted.length - allowed].at + windowMs;
	return Math.max(free, last + PACE.windowMs / (2 * limiter.rate));
}

function refill(limiter: Limiter, ramp: Ramp, now: number): number {
	if (ramp.perMs === undefined) return 1;
	const elapsed = Math.max(0, now - limiter.tokensAt);
	return Math.min(ramp.burst, limiter.tokens + elapsed * ramp.perMs);
}

/** An accepted round trip; the run's first waited for the token: a sample of the quiet latency only. */
export function timed(limiter: Limiter, roundTripMs: number, first: boolean): Limiter {
	const trips = [...limiter.trips, roundTripMs].slice(-50);
	const s = limiter.smoothedMs;
	if (first) return { ...limiter, trips };
	const smoothedMs = s === undefined ? roundTripMs : s + PACE.tolerance * (roundTripMs - s);
	return { ...limiter, trips, smoothedMs };
}

/** The round trip to plan with: the smoothed one, else the quiet one (Infinity before any answer). */
export function typicalMs(limiter: Limiter): number {
	return limiter.smoothedMs ?? quietMs(limiter);
}

/** Round trips well above the quiet one (a floor of 5 ms: loopback jitter is no queueing): the API queues them. */
export function queueing(limiter: Limiter): boolean {
	if (limiter.trips.length < 5 || limiter.smoothedMs === undefined) return false;
	return limiter.smoothedMs > PACE.queueing * Math.max(quietMs(limiter), 5);
}

/** A low percentile of recent accepted answers: fast refusals and one outlier cannot drag it down. */
function quietMs(limiter: Limiter): number {
	const sorted = [...limiter.trips].sort((a, b) => a - b);
	return sorted.length === 0 ? Infinity : sorted[Math.floor(0.25 * (sorted.length - 1))];
}

/** Whether the sends from `from` to `to` were refused in a run: three at least, at most a quarter not refused. */
export function refusedInARow(log: readonly Sent[], from: number, to: number): boolean {
	const span = log.filter((s) => s.index >= from && s.index <= to);
	const refusedCount = span.filter((s) => s.state === 'refused').length;
	return refusedCount >= 3 && span.length - refusedCount <= 0.25 * span.length;
}

export function marked(log: readonly Sent[], send: Sent, kind: string): Sent[] {
	const state = kind === 'answered' ? 'answered' : kind === 'refused' ? 'refused' : 'failed';
	return log.map((s) => (s.index === send.index ? { ...s, state } : s));
}

/** The ramp: none in fixed mode; in adaptive mode PACE.rampGain times the level a round trip, one at a time while
 * slow start climbs into levels never tried. */
export function rampOf(limiter: Limiter, limit: number, climbing: boolean): Ramp {
	const trip = typicalMs(limiter);
	if (!Number.isFinite(trip) || trip <= 0) return { burst: 1 };
	const burst = climbing || Number.isFinite(limiter.rate) ? 1 : PACE.burst;
	return { perMs: (PACE.rampGain * limit) / trip, burst };
}
