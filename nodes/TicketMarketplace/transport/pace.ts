/**
 * The pacer's rules as one pure state and `advance(state, event, now)`: a concurrency gate that finds the API's
 * in-flight limit, a reading of each 429, and the limiter (limiter.ts) and spike arrest (spikeArrest.ts) it feeds. The
 * gate (pacing.ts) keeps the waiting requests and asks `nextAt(state, now)`.
 * - the first request goes alone (n8n has no single flight for a missing token); its answer opens PACE.initialLimit
 *   slots (fixed mode: the maximum, and nothing learned but a gap a fault names), then slow start adds one an answer;
 * - a 429 at a level never answered is the concurrency: the limit drops below it, only that request waits, and nothing
 *   more goes until an answer comes back and one probe tells the kind (refused too: a rate);
 * - a 429 at a level answered is alone (random) until another agrees; then it is a rate: every send pauses.
 */
import {
	acceptedBefore,
	grown,
	highestAnswered,
	type Limiter,
	marked,
	NEW_LIMITER,
	PACE,
	type PaceEvent,
	type PacingMode,
	paused,
	queueing,
	type Ramp,
	rampOf,
	rateRefused,
	readyAt,
	refusedInARow,
	type Sent,
	taken,
	timed,
	typicalMs,
} from './limiter';
import { NO_SPIKE, type Spike, spikeAnswered, spikeRefused } from './spikeArrest';

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
	/** The last 429 read as the concurrency: the lowest level of its overshoot and when it came. */
	readonly refusal?: { readonly level: number; readonly at: number };
	/** Sends held after one: until an answer comes, then one probe (its index); `proven` a level a probe confirmed. */
	readonly hold?: { readonly level: number; readonly answered: boolean; readonly probe?: number };
	readonly proven?: number;
	/** A lone 429: what was accepted in the second before it, its index, and the sends made when it was read. */
	readonly suspect?: { readonly accepted: number; readonly index: number; readonly read: number };
	readonly log: readonly Sent[];
	readonly count: number;
	readonly lastDecreaseAt: number;
	readonly limiter: Limiter;
	readonly spike: Spike;
	readonly stats: Readonly<Record<Counted, number>>;
}

type Counted = 'peakInFlight' | 'peakLimit' | 'decreases' | 'holds' | 'refused';

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
		log: [],
		count: 0,
		lastDecreaseAt: -Infinity,
		limiter: NEW_LIMITER,
		spike: NO_SPIKE,
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
	const last = state.log.length > 0 ? state.log[state.log.length - 1].at : -Infinity;
	const limiterAt = readyAt(state.limiter, state.log, rampFor(state), now);
	return Math.max(limiterAt, last + state.spike.gapMs);
}

export function advance(state: Pace, event: PaceEvent, now: number): Pace {
	if (event.kind === 'pause') return { ...state, limiter: paused(state.limiter, event.until) };
	if (event.kind === 'sent') return sent(state, event.send, now, event.replaces);
	const { send } = event;
	const first = !state.opened;
	const log = marked(state.log, send, event.kind);
	let next: Pace = { ...state, inFlight: state.inFlight - 1, log };
	// The first answer settles the token: from now on requests may overlap.
	const opening = next.mode === 'fixed' ? next.maximum : PACE.initialLimit;
	if (first) next = setLimit({ ...next, opened: true }, opening);
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
	// Ten windows: the levels the API answered lately, the sends of the second before a refusal, and the gaps.
	const kept = state.log.filter((s) => now - s.at <= 10 * PACE.windowMs);
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
		limiter: taken(state.limiter, rampFor(state), now),
		...(hold && hold.probe === undefined && { hold: { ...hold, probe: send.index } }),
		stats: { ...state.stats, peakInFlight: Math.max(state.stats.peakInFlight, inFlight) },
	};
}

type Answered = Extract<PaceEvent, { kind: 'answered' }>;
type Refused = Extract<PaceEvent, { kind: 'refused' }>;

function answered(state: Pace, event: Answered, now: number, first: boolean): Pace {
	const { send, roundTripMs } = event;
	let next = state;
	const { hold } = state;
	if (hold?.probe === send.index)
		next = { ...next, hold: undefined, proven: Math.min(next.proven ?? Infinity, hold.level) };
	else if (hold && !hold.answered) next = { ...next, hold: { ...hold, answered: true } };
	const { limiter, spike } = next;
	if (event.accepted)
		next = { ...next, limiter: timed(limiter, roundTripMs, first), spike: spikeAnswered(spike) };
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
	if (queueing(next.limiter)) return lowered(next, (1 - PACE.tolerance) * next.limit, now);
	if (next.limit >= next.maximum) return next;
	// A level refused once is tried again; one refused twice only when the work left pays for a refusal.
	if (next.limit + 1 >= next.ceiling && !climbPays(next, event.left)) return next;
	if (next.slowStart) return setLimit(next, next.limit + 1);
	const credit = next.credit + 1 / next.limit;
	return credit < 1 ? { ...next, credit } : setLimit({ ...next, credit: 0 }, next.limit + 1);
}

function refused(state: Pace, event: Refused, now: number): Pace {
	const { send } = event;
	const probe = state.hold?.probe === send.index;
	let next: Pace = { ...state, stats: { ...state.stats, refused: state.stats.refused + 1 } };
	if (probe) next = { ...next, hold: undefined };
	const learns = next.mode === 'adaptive';
	const spike = () => spikeRefused(next.spike, next.log, send, now, event.allowedPerSecond, learns);
	if (event.spikeArrest === true) return { ...next, spike: spike() };
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
 * Whether a 429 is the API's concurrency: alone, never; at a level never answered, yes; so is one sent before the last
 * such refusal came back, or at a level close to it (the pacer counts a request until its answer is read).
 */
function isConcurrency(state: Pace, send: Sent, now: number): boolean {
	if (send.level <= 1) return false;
	const recent = recentRefusal(state, now);
	if (recent === undefined) return send.level > highestAnswered(state.log);
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
	const holds = next.stats.holds + 1;
	if (!provenLevel && next.hold === undefined && next.limiter.pausedUntil <= now)
		next = {
			...next,
			hold: { level: send.level, answered: false },
			stats: { ...next.stats, holds },
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

/** A level refused once is tried when more wait than are in flight; one refused twice when it saves a Retry-After. */
function climbPays(state: Pace, left: number): boolean {
	if (state.ceilingHits <= 1) return left > state.limit;
	const roundsSaved = left / state.limit - left / (state.limit + 1);
	return roundsSaved * typicalMs(state.limiter) > state.limiter.retryAfterMs;
}

/** Lowers the limit to `target`, at most once a round trip: the answers of one overshoot arrive together. */
function lowered(state: Pace, target: number, now: number): Pace {
	if (now - state.lastDecreaseAt < (state.limiter.smoothedMs ?? 0)) return state;
	const stats = { ...state.stats, decreases: state.stats.decreases + 1 };
	return setLimit(
		{ ...state, lastDecreaseAt: now, slowStart: false, credit: 0, stats },
		Math.min(state.limit, target),
	);
}

function setLimit(state: Pace, value: number): Pace {
	const limit = Math.min(state.maximum, Math.max(1, Math.floor(value)));
	const peakLimit = Math.max(state.stats.peakLimit, limit);
	return { ...state, limit, stats: { ...state.stats, peakLimit } };
}

/** How far the pacer's in-flight count may run ahead of the API's at `level` (answers on their way back). */
function fuzz(level: number): number {
	return Math.max(1, Math.round(PACE.tolerance * level));
}

/** The ramp: none in fixed mode. */
function rampFor(state: Pace): Ramp {
	return state.mode === 'fixed'
		? { burst: 1 }
		: rampOf(state.limiter, state.limit, state.slowStart);
}
