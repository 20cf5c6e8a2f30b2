/** The pacer's state and pure rules, after Go's x/time/rate: the shared pause, a per-second rate, the ramp, a gap. */
import { RETRY_POLICY } from './retryAfter';

/** The pacer's tuning; the reasons at length: docs/pacing.md, the figures behind them: bench/README.md. */
export const PACE = {
	rampGain: 2, // the ramp sends this many times the level a round trip, so slow start can double it
	burst: 4, // sends let go at once: the slots after the first answer, and after slow start (n8n reads in batches)
	windowMs: 1000, // a per-second limit's window; a rate holds at least this long before it grows
	guardMs: 30, // a send leaves the window this much later: clocks and arrival order differ
	memoryMs: 10_000, // sends remembered this long: levels answered, the second before a refusal, the gaps
	maxHoldMs: 16_000, // the longest a rate holds above one refused before it grows (each refusal doubles it)
	trips: 50, // accepted round trips kept
	tolerance: 0.2, // how far two readings may differ and agree; what a queueing API costs the limit
	spikeMargin: 0.08, // a spike arrest's gap above its interval: sends reach the gateway early or late
	lateSamples: 8, // wake-ups aim early by the least lateness of this many (a busy event loop fires timers late)
	maxEarlyMs: 4, // ...by at most this much: a timer that fires early waits once more
};

/** One request sent: when, the how-manieth of the run, at which in-flight level (itself included), how it went. */
export type Sent = Readonly<{ at: number; index: number; level: number; state: SendState }>;
export type SendState = 'inFlight' | 'answered' | 'refused' | 'failed';
export type PacingMode = 'adaptive' | 'fixed';

export const NEW_LIMITER = {
	pausedUntil: -Infinity, // the shared pause
	retryAfterMs: RETRY_POLICY.minRetryWaitMs, // what the next rate refusal costs
	rate: Infinity, // requests a second (Infinity: none shown)
	lowestRate: Infinity,
	refusedRate: Infinity, // accepted in the second before the last rate refusal: growth above is rationed
	refusedAt: -Infinity,
	refusals: 0,
	grownFrom: undefined as number | undefined, // the rate before it last grew: a refusal then went too far
	steps: 0,
	bestHeld: 0,
	since: -Infinity, // when the rate last changed
	holdMs: PACE.windowMs, // how long it holds above the rate refused before growing
	refusedGrowths: 0, // growths refused in a row: each asks the next to save one pause more
	trips: [] as readonly number[], // accepted round trips: the quiet one is their lower quartile
	smoothedMs: undefined as number | undefined,
	tokens: 1, // the ramp's bucket
	tokensAt: 0,
};
export type Limiter = Readonly<typeof NEW_LIMITER>;

/** A spike arrest's interval named by a fault (0: none), the gap kept, when it last changed. */
export const NO_SPIKE = { intervalMs: 0, gapMs: 0, changedAt: -Infinity, refusals: 0 };
export type Spike = Readonly<typeof NO_SPIKE>;

export function startPace(mode: PacingMode, maximum: number, opened = false) {
	const limit = opened ? openingLimit(mode, maximum) : 1;
	return {
		mode,
		maximum,
		opened,
		inFlight: 0,
		limit,
		slowStart: true,
		credit: 0, // slots gathered after slow start, 1/limit an answer
		ceiling: Infinity, // the lowest level refused as the concurrency, and the overshoots that met it
		ceilingHits: 0,
		resumed: false, // slow start climbed past the ceiling (once a run: its one refusal was random)
		refusal: undefined as Readonly<{ level: number; at: number }> | undefined,
		hold: undefined as Readonly<{ level: number; answered: boolean; probe?: number }> | undefined,
		proven: undefined as number | undefined, // a level a probe confirmed
		suspect: undefined as Readonly<{ accepted: number; index: number; read: number }> | undefined,
		log: [] as readonly Sent[],
		count: 0,
		lastDecreaseAt: -Infinity,
		limiter: NEW_LIMITER as Limiter,
		spike: NO_SPIKE as Spike,
		stats: { peakInFlight: 0, peakLimit: limit, decreases: 0, holds: 0, rateLimited: 0 },
	};
}
export type Pace = Readonly<ReturnType<typeof startPace>>;

export const openingLimit = (mode: PacingMode, maximum: number) =>
	mode === 'fixed' ? maximum : Math.min(maximum, PACE.burst);

export function marked(log: readonly Sent[], send: Sent, state: SendState): Sent[] {
	return log.map((s) => (s.index === send.index ? { ...s, state } : s));
}

/** The earliest moment the next request may go (Infinity: not until an answer comes). */
export function nextAt(state: Pace, now: number): number {
	const { hold, log, limiter } = state;
	if (state.inFlight >= state.limit) return Infinity;
	if (hold && (hold.probe !== undefined || (!hold.answered && state.inFlight > 0))) return Infinity;
	const { perMs, tokens } = ramp(state, now);
	const rampAt = perMs === undefined || tokens >= 1 ? now : now + (1 - tokens) / perMs;
	// A spike arrest's gap, and sends under a rate spread at most twice it.
	const gapMs = Math.max(state.spike.gapMs, PACE.windowMs / (2 * limiter.rate));
	const spaced = (log.at(-1)?.at ?? -Infinity) + gapMs;
	return Math.max(limiter.pausedUntil, rampAt, windowAt(limiter, log, now), spaced);
}

/** The sends of the last window (and its guard) the API did not refuse stay below the rate. */
function windowAt(limiter: Limiter, log: readonly Sent[], now: number): number {
	const windowMs = PACE.windowMs + PACE.guardMs;
	const counted = log.filter((s) => s.state !== 'refused' && s.at > now - windowMs);
	const allowed = Math.max(1, Math.floor(limiter.rate));
	return counted.length < allowed ? -Infinity : counted[counted.length - allowed].at + windowMs;
}

/** The ramp's tokens now: PACE.rampGain times the level a round trip, one at a time in slow start or under a rate. */
function ramp({ mode, limiter, limit, slowStart }: Pace, now: number) {
	const trip = typicalMs(limiter);
	if (mode === 'fixed' || !Number.isFinite(trip) || trip <= 0) return { tokens: 1 };
	const burst = slowStart || Number.isFinite(limiter.rate) ? 1 : PACE.burst;
	const perMs = (PACE.rampGain * limit) / trip;
	const tokens = Math.min(burst, limiter.tokens + Math.max(0, now - limiter.tokensAt) * perMs);
	return { perMs, tokens };
}

/** A request sent now, or (`replaces`: its send answered with a 401) the same one sent again within its slot. */
export function sent(state: Pace, now: number, replaces?: Sent): Pace {
	const level = state.inFlight + (replaces ? 0 : 1);
	const send: Sent = { at: now, index: state.count + 1, level, state: 'inFlight' };
	const kept = state.log.filter((s) => now - s.at <= PACE.memoryMs);
	const log = [...(replaces ? marked(kept, replaces, 'answered') : kept), send];
	// The probe is the send after a hold, or the same request sent again.
	const { hold } = state;
	const probe = hold && hold.probe === replaces?.index && { hold: { ...hold, probe: send.index } };
	const next = { ...state, log, count: send.index, ...probe };
	if (replaces) return next;
	const stats = { ...state.stats, peakInFlight: Math.max(state.stats.peakInFlight, level) };
	const { perMs, tokens } = ramp(state, now);
	const taken = { ...state.limiter, tokens: Math.max(0, tokens - 1), tokensAt: now };
	return { ...next, inFlight: level, limiter: perMs === undefined ? state.limiter : taken, stats };
}

/** A level refused once is tried when more wait than are in flight; one refused twice when it saves a Retry-After. */
export function climbPays(state: Pace, left: number): boolean {
	if (state.ceilingHits <= 1) return left > state.limit;
	const roundsSaved = left / state.limit - left / (state.limit + 1);
	return roundsSaved * typicalMs(state.limiter) > state.limiter.retryAfterMs;
}

/** How far the pacer's in-flight count may run ahead of the API's at `level` (answers on their way back). */
export function fuzz(level: number): number {
	return Math.max(1, Math.round(PACE.tolerance * level));
}

export function acceptedBefore(log: readonly Sent[], send: Sent): number {
	const within = (s: Sent) => s.at < send.at && s.at >= send.at - PACE.windowMs;
	return log.filter((s) => s.index !== send.index && s.state !== 'refused' && within(s)).length;
}

/** Whether the sends from `from` to `to` were refused in a run: three at least, at most a quarter not refused. */
export function refusedInARow(log: readonly Sent[], from: number, to: number): boolean {
	const span = log.filter((s) => s.index >= from && s.index <= to);
	const refusedCount = span.filter((s) => s.state === 'refused').length;
	return refusedCount >= 3 && span.length - refusedCount <= span.length / 4;
}

/** A 429 read as a per-second limit: all wait `pauseMs` (none if its request ends in an error), then go at `accepted`
 * (in the second before), at most halved; the send that filled a held rate keeps it, one overshoot only lowers it. */
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
	const pausedUntil = Math.max(limiter.pausedUntil, now + (pauseMs ?? -Infinity));
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
			holdMs: sameLimit ? Math.min(PACE.maxHoldMs, 2 * limiter.holdMs) : PACE.windowMs,
			refusedGrowths: sameLimit && grownFrom !== undefined ? limiter.refusedGrowths + 1 : 0,
		}),
	};
}

/** A rate that held a window grows 10, 20, 40, 80, then 100 % a step, back to the best that held in one; above the rate
 * refused it holds longer, and grows only if the `left` requests save more than the pauses a refusal costs (one more
 * for each growth refused in a row there). */
export function grown(limiter: Limiter, now: number, left: number): Limiter {
	const { rate } = limiter;
	if (!Number.isFinite(rate) || now < limiter.pausedUntil) return limiter;
	// The first step is half the tolerance: its refusal still reads as the rate refused before.
	const step = Math.min(1, (PACE.tolerance / 2) * 2 ** limiter.steps);
	const stepped = rate * (1 + step);
	const holdMs = stepped > limiter.refusedRate ? limiter.holdMs : PACE.windowMs;
	if (now - limiter.since < holdMs) return limiter;
	let next: Limiter = { ...limiter, bestHeld: Math.max(limiter.bestHeld, rate) };
	// Held more whole requests a second than were refused: the limit has risen.
	if (Math.floor(rate) > Math.floor(next.refusedRate))
		next = { ...next, refusedRate: rate, refusedGrowths: 0, holdMs: PACE.windowMs };
	const savedMs = (1000 * (left / rate) * step) / (1 + step);
	const costMs = next.retryAfterMs * (1 + next.refusedGrowths);
	if (stepped > next.refusedRate && savedMs <= costMs) return next;
	const backToBest = rate < next.bestHeld && stepped > next.bestHeld;
	const grownTo = backToBest ? next.bestHeld : stepped;
	const steps = backToBest ? 0 : next.steps + 1;
	// Past a request a millisecond there is nothing left to pace.
	return { ...next, grownFrom: rate, since: now, steps, rate: grownTo > 1000 ? Infinity : grownTo };
}

/** An accepted round trip; the run's first waited for the token: a sample of the quiet latency only. */
export function timed(limiter: Limiter, roundTripMs: number, first: boolean): Limiter {
	const trips = [...limiter.trips, roundTripMs].slice(-PACE.trips);
	if (first) return { ...limiter, trips };
	const smoothed = limiter.smoothedMs ?? roundTripMs;
	return { ...limiter, trips, smoothedMs: smoothed + PACE.tolerance * (roundTripMs - smoothed) };
}

/** The round trip to plan with: the smoothed one, else the quiet one (Infinity before any answer). */
export function typicalMs(limiter: Limiter): number {
	return limiter.smoothedMs ?? quietMs(limiter);
}

/** Round trips PACE.rampGain times the quiet one (a round trip of climb too far), loopback jitter aside: queueing. */
export function queueing(limiter: Limiter): boolean {
	if (limiter.trips.length < 5 || limiter.smoothedMs === undefined) return false;
	return limiter.smoothedMs > PACE.rampGain * Math.max(quietMs(limiter), 5);
}

/** The lower quartile of recent accepted answers: fast refusals and one outlier cannot drag it down. */
function quietMs(limiter: Limiter): number {
	const sorted = [...limiter.trips].sort((a, b) => a - b);
	return sorted.length === 0 ? Infinity : sorted[Math.floor((sorted.length - 1) / 4)];
}

/** A spike arrest refused `send`: a named rate sets the gap (interval and margin), widened up to a bound by each
 * refusal of a send that kept it; else `search` (adaptive mode) widens it from below, never past a gap the gateway
 * admitted. Never longer than the longest wait: a slower rate stops the run. */
export function spikeRefused(
	spike: Spike,
	log: readonly Sent[],
	send: Sent,
	now: number,
	allowedPerSecond: number | undefined,
	search: boolean,
): Spike {
	const named =
		allowedPerSecond !== undefined && allowedPerSecond > 0 ? 1000 / allowedPerSecond : 0;
	const interval = named || spike.intervalMs;
	// Sent before the gap last changed: the same overshoot, nothing new about the gap.
	const keptGap = send.at > spike.changedAt;
	const margin = PACE.spikeMargin;
	let gap = spike.gapMs;
	if (interval > 0 && interval !== spike.intervalMs) gap = interval * (1 + margin);
	else if (interval > 0 && keptGap)
		gap = Math.min(interval * (1 + 4 * margin), gap + (interval * margin) / 2);
	else if (interval === 0 && search && (keptGap || gap === 0)) {
		const refusedGap = Math.max(2, gap, gapBefore(log, send));
		gap = Math.min(refusedGap * 1.25, smallestAdmittedGap(log, refusedGap) * (1 + margin));
	}
	gap = Math.min(gap, RETRY_POLICY.maxWaitMs);
	const changedAt = gap !== spike.gapMs || interval !== spike.intervalMs ? now : spike.changedAt;
	return { intervalMs: interval, gapMs: gap, changedAt, refusals: spike.refusals + 1 };
}

/** An accepted answer narrows a named gap a little, down to the interval: refusals settle near 2.5 % of sends. */
export function spikeAnswered(spike: Spike): Spike {
	const interval = spike.intervalMs;
	if (interval <= 0 || spike.gapMs <= interval) return spike;
	const gapMs = Math.max(interval, spike.gapMs - (interval * PACE.spikeMargin) / 2 / 39);
	return { ...spike, gapMs };
}

/** How long after the last send before it that the gateway did not refuse `send` went (0: none). */
function gapBefore(log: readonly Sent[], send: Sent): number {
	const before = log.filter((s) => s.index < send.index && s.state !== 'refused');
	return before.length > 0 ? send.at - before[before.length - 1].at : 0;
}

/** The smallest gap of at least `atLeast` between two answered sends in a row: one the gateway admitted. */
function smallestAdmittedGap(log: readonly Sent[], atLeast: number): number {
	let smallest = Infinity;
	let previous: number | undefined;
	for (const s of log) {
		if (s.state === 'refused') continue;
		if (s.state === 'answered' && previous !== undefined && s.at - previous >= atLeast)
			smallest = Math.min(smallest, s.at - previous);
		previous = s.state === 'answered' ? s.at : undefined;
	}
	return smallest;
}
