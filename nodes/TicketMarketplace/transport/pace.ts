/**
 * The pacer's rules as one pure state and one `advance(state, event, now)`: a concurrency gate that finds the API's
 * in-flight limit, and the limiter (limiter.ts: the shared pause, a per-second rate, a spike arrest's gap, the ramp)
 * fed by the reading of each 429. The gate (pacing.ts) keeps the waiting requests and asks `nextAt(state, now)`.
 * - the first request goes alone (n8n fetches a missing token once per request: no single flight); its answer opens
 *   PACE.initialLimit slots (fixed mode: the maximum), then slow start adds one per answer;
 * - a 429 at a level the API never answered is its concurrency: the limit drops below that level, only the refused
 *   request waits, and nothing more goes until an answer comes back and one probe tells the kind: refused too, a rate;
 * - a 429 at a level it answered is alone (random) until another agrees; then it is a rate: every send pauses;
 * - a spike arrest is a gap between sends, no pause; fixed mode learns nothing but a gap the fault names.
 */
import {
	acceptedBefore,
	grown,
	type Limiter,
	NEW_LIMITER,
	PACE,
	paused,
	type Ramp,
	rateRefused,
	readyAt,
	type Sent,
	spikeAnswered,
	spikeRefused,
	taken,
} from './limiter';

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

export interface Pace {
	readonly mode: PacingMode;
	readonly maximum: number;
	readonly opened: boolean;
	readonly inFlight: number;
	readonly limit: number;
	readonly slowStart: boolean;
	/** Slots gathered after slow start, 1/limit an answer. */
	readonly credit: number;
	/** The lowest level refused as the concurrency (Infinity: none), how many overshoots met it, whether slow start
	 * resumed past it (once a run: the one refusal there was random). */
	readonly ceiling: number;
	readonly ceilingHits: number;
	readonly resumed: boolean;
	readonly highestAnswered: number;
	/** The last 429 read as the concurrency: the lowest level of its overshoot and when it came. */
	readonly refusal?: { readonly level: number; readonly at: number };
	/** Sends held after one: until an answer comes, then one probe (its index); `proven` a level a probe confirmed. */
	readonly hold?: { readonly level: number; readonly answered: boolean; readonly probe?: number };
	readonly proven?: number;
	/** A lone 429: what was accepted in the second before it, its index, and the sends made when it was read. */
	readonly suspect?: { readonly accepted: number; readonly index: number; readonly read: number };
	readonly log: readonly Sent[];
	readonly count: number;
	/** Accepted round trips: recent ones (the quiet latency is their lower quartile) and a smoothed one. */
	readonly trips: readonly number[];
	readonly smoothedMs?: number;
	readonly lastDecreaseAt: number;
	readonly limiter: Limiter;
	readonly stats: {
		peakInFlight: number;
		peakLimit: number;
		decreases: number;
		holds: number;
		refused: number;
	};
}

export function startPace(mode: PacingMode, maximum: number): Pace {
	return {
		mode,
		maximum,
		opened: false,
		inFlight: 0,
		limit: 1,
		slowStart: true,
		credit: 0,
		ceiling: Infinity,
		ceilingHits: 0,
		resumed: false,
		highestAnswered: 0,
		log: [],
		count: 0,
		trips: [],
		lastDecreaseAt: -Infinity,
		limiter: NEW_LIMITER,
		stats: { peakInFlight: 0, peakLimit: 1, decreases: 0, holds: 0, refused: 0 },
	};
}

/** The send that goes now: a new request, or (`again`) one sent again within its slot. */
export function sendOf(state: Pace, now: number, again = false): Sent {
	const level = again ? state.inFlight : state.inFlight + 1;
	return { at: now, index: state.count + 1, level, state: 'inFlight' };
}

/** The earliest moment the next request may go (Infinity: not until an answer comes). */
export function nextAt(state: Pace, now: number): number {
	const { hold } = state;
	if (state.inFlight >= state.limit) return Infinity;
	if (hold && (hold.probe !== undefined || (!hold.answered && state.inFlight > 0))) return Infinity;
	return readyAt(state.limiter, state.log, rampOf(state), now);
}

export function advance(state: Pace, event: PaceEvent, now: number): Pace {
	if (event.kind === 'pause') return { ...state, limiter: paused(state.limiter, event.until) };
	if (event.kind === 'sent') return sent(state, event.send, now, event.replaces);
	const { send } = event;
	const first = !state.opened;
	let next: Pace = {
		...state,
		inFlight: state.inFlight - 1,
		log: marked(state.log, send, event.kind),
	};
	// The first answer settles the token: from now on requests may overlap.
	if (first)
		next = setLimit(
			{ ...next, opened: true },
			next.mode === 'fixed' ? next.maximum : PACE.initialLimit,
		);
	if (event.kind === 'refused') next = refused(next, event, now);
	else if (event.kind === 'answered') next = answered(next, event, now, first);
	else {
		if (next.hold?.probe === send.index) next = { ...next, hold: undefined };
		if (!first && next.mode === 'adaptive')
			next = lowered(next, (1 - PACE.tolerance) * next.limit, now);
	}
	const left = event.kind === 'answered' ? event.left : 0;
	return { ...next, limiter: grown(next.limiter, now, left + next.inFlight) };
}

function sent(state: Pace, send: Sent, now: number, replaces?: Sent): Pace {
	const kept = state.log.filter((s) => now - s.at <= 1.5 * PACE.windowMs);
	const log = [...(replaces ? marked(kept, replaces, 'answered') : kept), send];
	const { hold } = state;
	if (replaces) {
		const probe = hold?.probe === replaces.index ? { hold: { ...hold, probe: send.index } } : {};
		return { ...state, log, count: send.index, ...probe };
	}
	const inFlight = state.inFlight + 1;
	return {
		...state,
		log,
		count: send.index,
		inFlight,
		limiter: taken(state.limiter, rampOf(state), now),
		...(hold && hold.probe === undefined && { hold: { ...hold, probe: send.index } }),
		stats: { ...state.stats, peakInFlight: Math.max(state.stats.peakInFlight, inFlight) },
	};
}

function answered(
	state: Pace,
	event: Extract<PaceEvent, { kind: 'answered' }>,
	now: number,
	first: boolean,
): Pace {
	const { send, roundTripMs } = event;
	let next: Pace = { ...state, highestAnswered: Math.max(state.highestAnswered, send.level) };
	const { hold } = next;
	if (hold?.probe === send.index)
		next = { ...next, hold: undefined, proven: Math.min(next.proven ?? Infinity, hold.level) };
	else if (hold && !hold.answered) next = { ...next, hold: { ...hold, answered: true } };
	if (event.accepted) {
		// The first answer waited for the token: a sample of the quiet latency, not of the smoothed one.
		const s = next.smoothedMs;
		const smoothedMs = first
			? s
			: s === undefined
				? roundTripMs
				: s + PACE.tolerance * (roundTripMs - s);
		const trips = [...next.trips, roundTripMs].slice(-50);
		next = { ...next, trips, smoothedMs, limiter: spikeAnswered(next.limiter) };
	}
	if (first || next.mode === 'fixed') return next;
	// Answered at or above the level refused: the API takes more now. Well above a level refused once, that refusal
	// was random, and slow start climbs again, once a run.
	if (send.level >= next.ceiling) {
		if (send.level >= next.ceiling + fuzz(next.ceiling)) {
			const resume = next.ceilingHits <= 1 && !next.resumed;
			next = { ...next, ceilingHits: 0, ...(resume && { resumed: true, slowStart: true }) };
		}
		next = { ...next, ceiling: send.level + 1 };
	}
	if (queueing(next)) return lowered(next, (1 - PACE.tolerance) * next.limit, now);
	if (next.limit >= next.maximum) return next;
	// A level refused once is tried again; one refused twice only when the work left pays for a refusal.
	if (next.limit + 1 >= next.ceiling && !climbPays(next, event.left)) return next;
	if (next.slowStart) return setLimit(next, next.limit + 1);
	const credit = next.credit + 1 / next.limit;
	return credit < 1 ? { ...next, credit } : setLimit({ ...next, credit: 0 }, next.limit + 1);
}

function refused(state: Pace, event: Extract<PaceEvent, { kind: 'refused' }>, now: number): Pace {
	const { send } = event;
	const probe = state.hold?.probe === send.index;
	let next: Pace = { ...state, stats: { ...state.stats, refused: state.stats.refused + 1 } };
	if (probe) next = { ...next, hold: undefined };
	const learns = next.mode === 'adaptive';
	if (event.spikeArrest === true) {
		const limiter = spikeRefused(next.limiter, next.log, send, now, event.allowedPerSecond, learns);
		return { ...next, limiter };
	}
	// A Retry-After too long to wait ends its request: it must never become every send's pause.
	if (event.retryAfterMs !== undefined && !event.final)
		next = { ...next, limiter: { ...next.limiter, retryAfterMs: event.retryAfterMs } };
	if (!learns) return next;
	if (!probe && isConcurrency(next, send, now)) return concurrencyRefused(next, send, now);
	const accepted = acceptedBefore(next.log, send);
	const { suspect, limiter } = next;
	const agrees =
		probe ||
		(limiter.grownFrom !== undefined && accepted + 1 > limiter.grownFrom) ||
		(suspect !== undefined &&
			send.index > suspect.read &&
			send.index - suspect.read <= PACE.confirmWithinSends &&
			accepted <= suspect.accepted + 2);
	// Refused in the burst of a lone one: evidence only when nearly every send since was refused too (a limit refuses
	// a run of them; random 429s leave gaps).
	const sameBurst = suspect !== undefined && send.index <= suspect.read;
	if (!agrees && !sameBurst)
		return { ...next, suspect: { accepted, index: send.index, read: next.count } };
	if (!agrees && !refusedInARow(next.log, suspect!.index, send.index)) return next;
	const pauseMs = event.final ? undefined : (event.retryAfterMs ?? limiter.retryAfterMs);
	return {
		...next,
		suspect: undefined,
		limiter: rateRefused(limiter, send.at, accepted, now, pauseMs),
	};
}

/**
 * Whether a 429 is the API's concurrency: a request alone never is; one at a level never answered is; so is one sent
 * before the last such refusal came back (the same overshoot), or at a level close to it (the pacer counts a request
 * until its answer is read, the API a little less).
 */
function isConcurrency(state: Pace, send: Sent, now: number): boolean {
	if (send.level <= 1) return false;
	const recent = recentRefusal(state, now);
	if (recent === undefined) return send.level > state.highestAnswered;
	return send.at <= recent.at || send.level >= recent.level - fuzz(recent.level);
}

/**
 * The limit drops below the refused level (and to what is still in flight: a slot freed by a refusal is not handed
 * on); at a level not proven, sends are held for a probe, unless every send is paused.
 */
function concurrencyRefused(state: Pace, send: Sent, now: number): Pace {
	const recent = recentRefusal(state, now);
	const sameOvershoot = recent !== undefined && send.at <= recent.at;
	const hits = send.level >= state.ceiling - fuzz(state.ceiling) ? state.ceilingHits + 1 : 1;
	let next: Pace = {
		...state,
		refusal: sameOvershoot
			? { ...recent, level: Math.min(recent.level, send.level) }
			: { level: send.level, at: now },
		ceiling: Math.min(state.ceiling, send.level),
		ceilingHits: sameOvershoot ? state.ceilingHits : hits,
		slowStart: false,
		credit: 0,
	};
	const { proven } = next;
	const provenLevel = proven !== undefined && send.level >= proven - fuzz(proven);
	if (!provenLevel && next.hold === undefined && next.limiter.pausedUntil <= now)
		next = {
			...next,
			hold: { level: send.level, answered: false },
			stats: { ...next.stats, holds: next.stats.holds + 1 },
		};
	const target = Math.min(send.level - 1, Math.max(1, next.inFlight));
	if (next.limit <= target) return next;
	return setLimit(
		{ ...next, lastDecreaseAt: now, stats: { ...next.stats, decreases: next.stats.decreases + 1 } },
		target,
	);
}

function recentRefusal(state: Pace, now: number): Pace['refusal'] {
	const { refusal } = state;
	return refusal && now - refusal.at <= 10 * PACE.windowMs ? refusal : undefined;
}

/** Whether the sends from `from` to `to` were refused in a run: three at least, at most a quarter not refused. */
function refusedInARow(log: readonly Sent[], from: number, to: number): boolean {
	const span = log.filter((s) => s.index >= from && s.index <= to);
	const refusedCount = span.filter((s) => s.state === 'refused').length;
	return refusedCount >= 3 && span.length - refusedCount <= 0.25 * span.length;
}

/** One more slot below a level refused once pays when more wait than are in flight; above one refused twice, when it
 * saves more round trips than a refusal's Retry-After costs. */
function climbPays(state: Pace, left: number): boolean {
	if (state.ceilingHits <= 1) return left > state.limit;
	const roundsSaved = left / state.limit - left / (state.limit + 1);
	return roundsSaved * typicalMs(state) > state.limiter.retryAfterMs;
}

/** The ramp: none in fixed mode; in adaptive mode PACE.rampGain times the level a round trip, one at a time while
 * slow start climbs into levels never tried. */
function rampOf(state: Pace): Ramp {
	const trip = typicalMs(state);
	if (state.mode === 'fixed' || !Number.isFinite(trip) || trip <= 0) return { burst: 1 };
	const burst = state.slowStart || Number.isFinite(state.limiter.rate) ? 1 : PACE.burst;
	return { perMs: (PACE.rampGain * state.limit) / trip, burst };
}

function quietMs(state: Pace): number {
	const sorted = [...state.trips].sort((a, b) => a - b);
	return sorted.length === 0 ? Infinity : sorted[Math.floor(0.25 * (sorted.length - 1))];
}

function typicalMs(state: Pace): number {
	return state.smoothedMs ?? quietMs(state);
}

/** Round trips well above the quiet one (a floor of 5 ms: loopback jitter is no queueing): the API queues them. */
function queueing(state: Pace): boolean {
	if (state.trips.length < 5 || state.smoothedMs === undefined) return false;
	return state.smoothedMs > PACE.queueing * Math.max(quietMs(state), 5);
}

/** Lowers the limit to `target`, at most once a round trip: the answers of one overshoot arrive together. */
function lowered(state: Pace, target: number, now: number): Pace {
	if (now - state.lastDecreaseAt < (state.smoothedMs ?? 0)) return state;
	const stats = { ...state.stats, decreases: state.stats.decreases + 1 };
	return setLimit(
		{ ...state, lastDecreaseAt: now, slowStart: false, credit: 0, stats },
		Math.min(state.limit, target),
	);
}

function setLimit(state: Pace, value: number): Pace {
	const limit = Math.min(state.maximum, Math.max(1, Math.floor(value)));
	return {
		...state,
		limit,
		stats: { ...state.stats, peakLimit: Math.max(state.stats.peakLimit, limit) },
	};
}

/** How far the pacer's in-flight count may run ahead of the API's at `level` (answers on their way back). */
function fuzz(level: number): number {
	return Math.max(1, Math.round(PACE.tolerance * level));
}

function marked(log: readonly Sent[], send: Sent, kind: string): Sent[] {
	const state = kind === 'answered' ? 'answered' : kind === 'refused' ? 'refused' : 'failed';
	return log.map((s) => (s.index === send.index ? { ...s, state } : s));
}
