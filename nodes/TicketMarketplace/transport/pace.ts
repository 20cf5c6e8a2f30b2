/** The pacer's rules as one state and a pure `advance(state, event, now)`; the gate (pacing.ts) asks `nextAt`. The
 * rules at length: docs/pacing.md. */
import type { Limiter, PacingMode, Ramp, Sent, SendState, Spike } from './limiter';
import {
	grown,
	NEW_LIMITER,
	NO_SPIKE,
	PACE,
	queueing,
	rateRefused,
	readyAt,
	spikeAnswered,
	spikeRefused,
	taken,
	timed,
	typicalMs,
} from './limiter';

/** What an attempt tells the pacer as it frees its slot; `final`: the request ends in an error (no retry follows). */
export type AttemptOutcome = (
	| { kind: 'answered'; roundTripMs: number; accepted?: boolean } // a 4xx (not accepted) tells no latency
	// A 429, or a spike arrest's refusal (500 or 429) naming the rate it allows where its fault does.
	| { kind: 'rateLimited'; retryAfterMs?: number; spikeArrest?: boolean; allowedPerSecond?: number }
	| { kind: 'failed' }
) & { final?: boolean };

/** `left`: the requests waiting for a slot. */
export type PaceEvent =
	| { kind: 'sent'; replaces?: Sent }
	| (AttemptOutcome & { send: Sent; left: number });

/** `opened`: no login to wait for (a token held), so the first sends go together as after the first answer. */
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

const openingLimit = (mode: PacingMode, maximum: number) =>
	mode === 'fixed' ? maximum : Math.min(maximum, PACE.initialLimit);

function marked(log: readonly Sent[], send: Sent, state: SendState): Sent[] {
	return log.map((s) => (s.index === send.index ? { ...s, state } : s));
}

/** The earliest moment the next request may go (Infinity: not until an answer comes). */
export function nextAt(state: Pace, now: number): number {
	const { hold, log } = state;
	if (state.inFlight >= state.limit) return Infinity;
	if (hold && (hold.probe !== undefined || (!hold.answered && state.inFlight > 0))) return Infinity;
	const spaced = (log.at(-1)?.at ?? -Infinity) + state.spike.gapMs;
	return Math.max(readyAt(state.limiter, log, rampOf(state), now), spaced);
}

/** PACE.rampGain times the level a round trip (none in fixed mode), one at a time in slow start or under a rate. */
function rampOf({ mode, limiter, limit, slowStart }: Pace): Ramp {
	const trip = typicalMs(limiter);
	if (mode === 'fixed' || !Number.isFinite(trip) || trip <= 0) return { burst: 1 };
	const burst = slowStart || Number.isFinite(limiter.rate) ? 1 : PACE.burst;
	return { perMs: (PACE.rampGain * limit) / trip, burst };
}

/** A request sent now, or (`replaces`: its send answered with a 401) the same one sent again within its slot. */
function sent(state: Pace, now: number, replaces?: Sent): Pace {
	const level = state.inFlight + (replaces ? 0 : 1);
	const send: Sent = { at: now, index: state.count + 1, level, state: 'inFlight' };
	const kept = state.log.filter((s) => now - s.at <= PACE.memoryMs);
	const log = [...(replaces ? marked(kept, replaces, 'answered') : kept), send];
	// The probe is the send after a hold, or the same request sent again.
	const { hold } = state;
	const probe = hold && hold.probe === replaces?.index && { hold: { ...hold, probe: send.index } };
	const next = { ...state, log, count: send.index, ...probe };
	if (replaces) return next;
	const inFlight = state.inFlight + 1;
	const stats = { ...state.stats, peakInFlight: Math.max(state.stats.peakInFlight, inFlight) };
	return { ...next, inFlight, limiter: taken(state.limiter, rampOf(state), now), stats };
}

export function advance(state: Pace, event: PaceEvent, now: number): Pace {
	if (event.kind === 'sent') return sent(state, now, event.replaces);
	const { send } = event;
	// The answer that opens the pace waited for the login; a pace started opened waited for none.
	const first = !state.opened;
	const log = marked(state.log, send, event.kind === 'rateLimited' ? 'refused' : event.kind);
	// However the probe went, the hold ends.
	const probe = state.hold?.probe === send.index ? state.hold : undefined;
	const hold = probe ? undefined : state.hold;
	let next: Pace = { ...state, inFlight: state.inFlight - 1, log, hold };
	if (first) next = setLimit({ ...next, opened: true }, openingLimit(next.mode, next.maximum));
	if (event.kind === 'rateLimited') next = refused(next, event, now, probe !== undefined);
	else if (event.kind === 'answered') next = answered(next, event, now, first, probe);
	else if (!first && next.mode === 'adaptive') next = lowered(next, now);
	const left = event.kind === 'answered' ? event.left : 0;
	return { ...next, limiter: grown(next.limiter, now, left + next.inFlight) };
}

function answered(state: Pace, event: Answered, now: number, first: boolean, probe: Pace['hold']) {
	const { send } = event;
	const { hold } = state;
	let next = state;
	if (probe) next = { ...next, proven: Math.min(next.proven ?? Infinity, probe.level) };
	if (hold && !hold.answered) next = { ...next, hold: { ...hold, answered: true } };
	if (event.accepted !== false) {
		const limiter = timed(next.limiter, event.roundTripMs, first);
		next = { ...next, limiter, spike: spikeAnswered(next.spike) };
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
	if (queueing(next.limiter)) return lowered(next, now);
	if (next.limit >= next.maximum) return next;
	if (next.limit + 1 >= next.ceiling && !climbPays(next, event.left)) return next;
	if (next.slowStart) return setLimit(next, next.limit + 1);
	const credit = next.credit + 1 / next.limit;
	return credit < 1 ? { ...next, credit } : setLimit({ ...next, credit: 0 }, next.limit + 1);
}
type Answered = Extract<PaceEvent, { kind: 'answered' }>;
type Refused = Extract<PaceEvent, { kind: 'rateLimited' }>;

function refused(state: Pace, event: Refused, now: number, probe: boolean): Pace {
	const { send } = event;
	const stats = { ...state.stats, rateLimited: state.stats.rateLimited + 1 };
	let next: Pace = { ...state, stats };
	const learns = next.mode === 'adaptive';
	if (event.spikeArrest === true) {
		const spike = spikeRefused(next.spike, next.log, send, now, event.allowedPerSecond, learns);
		return { ...next, spike };
	}
	// A Retry-After too long to wait ends its request: it must never become every send's pause.
	if (event.retryAfterMs !== undefined && !event.final)
		next = { ...next, limiter: { ...next.limiter, retryAfterMs: event.retryAfterMs } };
	if (!learns) return next;
	const concurrency = probe ? undefined : concurrencyRefused(next, send, now);
	if (concurrency) return concurrency;
	const accepted = acceptedBefore(next.log, send);
	const { suspect, limiter } = next;
	const agrees =
		probe ||
		(limiter.grownFrom !== undefined && accepted + 1 > limiter.grownFrom) ||
		(suspect !== undefined &&
			send.index > suspect.read &&
			send.index - suspect.read <= PACE.confirmWithinSends &&
			accepted <= suspect.accepted + 2);
	// In the burst of a lone one: evidence only when nearly every send since was refused (random 429s leave gaps).
	if (!agrees && (suspect === undefined || send.index > suspect.read))
		return { ...next, suspect: { accepted, index: send.index, read: next.count } };
	if (!agrees && !refusedInARow(next.log, suspect!.index, send.index)) return next;
	const pauseMs = event.final ? undefined : (event.retryAfterMs ?? limiter.retryAfterMs);
	const rate = rateRefused(limiter, send.at, accepted, now, pauseMs);
	return { ...next, suspect: undefined, limiter: rate };
}

/** A 429 alone is never the concurrency; one at a level never answered is, and so is one sent before the last such
 * refusal came back or at a level close to it (the pacer counts a request until its answer is read). The limit then
 * drops below the refused level (a slot freed by a refusal is not handed on); sends at a level not proven are held
 * for a probe, unless every send is paused. Undefined: not the concurrency. */
function concurrencyRefused(state: Pace, send: Sent, now: number): Pace | undefined {
	if (send.level <= 1) return undefined;
	const { refusal } = state;
	const recent = refusal && now - refusal.at <= PACE.memoryMs ? refusal : undefined;
	const sameOvershoot = recent !== undefined && send.at <= recent.at;
	const concurrency = recent
		? sameOvershoot || send.level >= recent.level - fuzz(recent.level)
		: !state.log.some((s) => s.state === 'answered' && s.level >= send.level);
	if (!concurrency) return undefined;
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
	const { proven, stats } = next;
	const unproven = proven === undefined || send.level < proven - fuzz(proven);
	if (unproven && !next.hold && next.limiter.pausedUntil <= now) {
		const hold = { level: send.level, answered: false };
		next = { ...next, hold, stats: { ...stats, holds: stats.holds + 1 } };
	}
	const target = Math.min(send.level - 1, Math.max(1, next.inFlight));
	return next.limit <= target ? next : decreased(next, target, now);
}

/** A level refused once is tried when more wait than are in flight; one refused twice when it saves a Retry-After. */
function climbPays(state: Pace, left: number): boolean {
	if (state.ceilingHits <= 1) return left > state.limit;
	const roundsSaved = left / state.limit - left / (state.limit + 1);
	return roundsSaved * typicalMs(state.limiter) > state.limiter.retryAfterMs;
}

/** Queueing or failing, the limit gives up PACE.tolerance, at most once a round trip (an overshoot answers at once). */
function lowered(state: Pace, now: number): Pace {
	if (now - state.lastDecreaseAt < (state.limiter.smoothedMs ?? 0)) return state;
	const target = (1 - PACE.tolerance) * state.limit;
	return decreased({ ...state, slowStart: false, credit: 0 }, target, now);
}

function decreased(state: Pace, target: number, now: number): Pace {
	const stats = { ...state.stats, decreases: state.stats.decreases + 1 };
	return setLimit({ ...state, lastDecreaseAt: now, stats }, Math.min(state.limit, target));
}

function setLimit(state: Pace, value: number): Pace {
	const limit = Math.min(state.maximum, Math.max(1, Math.floor(value)));
	const stats = { ...state.stats, peakLimit: Math.max(state.stats.peakLimit, limit) };
	return { ...state, limit, stats };
}

/** How far the pacer's in-flight count may run ahead of the API's at `level` (answers on their way back). */
function fuzz(level: number): number {
	return Math.max(1, Math.round(PACE.tolerance * level));
}

function acceptedBefore(log: readonly Sent[], send: Sent): number {
	const within = (s: Sent) => s.at < send.at && s.at >= send.at - PACE.windowMs;
	return log.filter((s) => s.index !== send.index && s.state !== 'refused' && within(s)).length;
}

/** Whether the sends from `from` to `to` were refused in a run: three at least, at most a quarter not refused. */
function refusedInARow(log: readonly Sent[], from: number, to: number): boolean {
	const span = log.filter((s) => s.index >= from && s.index <= to);
	const refusedCount = span.filter((s) => s.state === 'refused').length;
	return refusedCount >= 3 && span.length - refusedCount <= span.length / 4;
}
