/**
 * The pacer's rules as one pure state and one `step(state, event, now)`: the concurrency level, the per-second rate,
 * the first overshoot's hold, the ramp and the round trips, fed the gate's events (sent, answered, refused, failed),
 * and the queries the gate asks before it lets a request go (hasRoom, readyAt). The gate (pacing.ts) keeps the
 * waiters and the timer, and no rule.
 * - the first request goes alone, so that n8n fetches the access token once (it has no single flight); its answer
 *   opens LEVEL.initialLimit slots (fixed mode: the maximum);
 * - a 429 is classified (refusalKind.ts): the concurrency lowers the level (concurrencyLevel.ts) and, at a level not
 *   yet proven, holds sends for a probe (overshootHold.ts); a rate pauses every send and sets a pace
 *   (perSecondRate.ts); a lone one that only looks like a rate changes nothing but its own request's wait;
 * - a spike arrest's refusal is a smoothed rate (spikeArrest.ts): a gap between sends, read from the fault where it
 *   names the rate (in either mode), else searched (adaptive mode); no pause, the level and the pace untouched;
 * - fixed mode learns nothing from answers: it holds the maximum, and each refused request waits its own Retry-After.
 */
import {
	backOff,
	levelAnswered,
	levelRefused,
	type Level,
	newLevel,
	setLimit,
} from './concurrencyLevel';
import {
	isProbe,
	NO_OVERSHOOT,
	type Overshoot,
	overshootAnswered,
	overshootRefused,
	overshootSent,
	holdHasRoom,
	probeBack,
} from './overshootHold';
import { LEVEL, RAMP, RATE } from './pacingConfig';
import type { PacerEvent, PacerStats, PacingMode, Send } from './pacingTypes';
import { growRate, NO_RATE, pauseRate, type Rate, rateReadyAt, rateRefused } from './perSecondRate';
import {
	NEW_RAMP,
	type Ramp,
	type RampRate,
	rampPerMs,
	rampReadyAt,
	refillRamp,
	takeRamp,
} from './rampSpread';
import { classifyRefusal, type Suspect } from './refusalKind';
import { NO_SPIKE, type Spike, spikeAnswered, spikeReadyAt, spikeRefused } from './spikeArrest';
import { NO_ROUND_TRIPS, recordRoundTrip, type RoundTrips, typicalMs } from './roundTrips';
import { EMPTY_LOG, logSend, markSend, nextSend, type SendLog } from './sendLog';

export interface PacerState {
	readonly mode: PacingMode;
	readonly inFlight: number;
	readonly peakInFlight: number;
	/** 429s of the run. */
	readonly rateLimited: number;
	readonly answeredOnce: boolean;
	/** The last Retry-After the API sent with a request that waited for it: what the next refusal will cost. */
	readonly lastRetryAfterMs: number;
	readonly log: SendLog;
	readonly trips: RoundTrips;
	readonly level: Level;
	readonly rate: Rate;
	readonly ramp: Ramp;
	readonly overshoot: Overshoot;
	readonly spike: Spike;
	readonly suspect?: Suspect;
}

export function startPacing(mode: PacingMode, maximum: number): PacerState {
	return {
		mode,
		inFlight: 0,
		peakInFlight: 0,
		rateLimited: 0,
		answeredOnce: false,
		lastRetryAfterMs: RATE.assumedRetryAfterMs,
		log: EMPTY_LOG,
		trips: NO_ROUND_TRIPS,
		level: newLevel(maximum),
		rate: NO_RATE,
		ramp: NEW_RAMP,
		overshoot: NO_OVERSHOOT,
		spike: NO_SPIKE,
	};
}

/** The send that goes now: a new request, or (`again`) one sent again within its slot. */
export function sendNow(state: PacerState, now: number, again = false): Send {
	return nextSend(state.log, now, again ? state.inFlight : state.inFlight + 1);
}

export function step(state: PacerState, event: PacerEvent, now: number): PacerState {
	if (event.kind === 'sent') return sent(state, event.send, now, event.replaces);
	const first = !state.answeredOnce;
	let next: PacerState = {
		...state,
		inFlight: state.inFlight - 1,
		log: markSend(state.log, event.send, event.kind),
	};
	if (first) {
		// The first answer settles the token; from now on requests may overlap.
		const limit = next.mode === 'fixed' ? next.level.maximum : LEVEL.initialLimit;
		next = { ...next, answeredOnce: true, level: setLimit(next.level, limit) };
	}
	if (event.kind === 'refused') return refused(next, event, now);
	if (isProbe(next.overshoot, event.send))
		next = { ...next, overshoot: probeBack(next.overshoot, event.kind === 'answered') };
	// Fixed mode and the first answer (it waited for the token) teach the level nothing.
	const learns = !first && next.mode === 'adaptive';
	if (event.kind === 'failed') {
		if (!learns) return next;
		const target = LEVEL.backoffFactor * next.level.limit;
		return { ...next, level: backOff(next.level, next.trips, target, now) };
	}
	const trips = recordRoundTrip(next.trips, event.roundTripMs, event.accepted, first);
	next = { ...next, overshoot: overshootAnswered(next.overshoot), trips };
	if (event.accepted !== false) next = { ...next, spike: spikeAnswered(next.spike) };
	if (!learns) return next;
	const context = { waiting: event.waiting, retryAfterMs: next.lastRetryAfterMs, now };
	return { ...next, level: levelAnswered(next.level, trips, event.send, context) };
}

function sent(state: PacerState, send: Send, now: number, replaces?: Send): PacerState {
	const overshoot = overshootSent(state.overshoot, send, replaces);
	if (replaces !== undefined) {
		// The earlier send was answered (a 401): it stays in the log as a request the API counted.
		const log = logSend(markSend(state.log, replaces, 'answered'), send);
		return { ...state, log, overshoot };
	}
	const inFlight = state.inFlight + 1;
	return {
		...state,
		inFlight,
		peakInFlight: Math.max(state.peakInFlight, inFlight),
		ramp: takeRamp(state.ramp, now, rampRate(state)),
		log: logSend(state.log, send),
		overshoot,
	};
}

function refused(
	state: PacerState,
	event: Extract<PacerEvent, { kind: 'refused' }>,
	now: number,
): PacerState {
	const { send } = event;
	if (event.spikeArrest === true) {
		// A smoothed rate that counts only what it admits: a gap between sends, no pause, nothing to classify. (A probe
		// refused by it says nothing about the concurrency: the hold ends.)
		const overshoot = isProbe(state.overshoot, send)
			? probeBack(state.overshoot, false)
			: state.overshoot;
		const learns = state.mode === 'adaptive';
		const spike = spikeRefused(state.spike, state.log, send, now, event.allowedPerSecond, learns);
		return { ...state, rateLimited: state.rateLimited + 1, overshoot, spike };
	}
	const probe = isProbe(state.overshoot, send);
	const verdict = state.mode === 'adaptive' ? classifyRefusal(state, send, now) : undefined;
	let next: PacerState = { ...state, rateLimited: state.rateLimited + 1 };
	if (probe) next = { ...next, overshoot: probeBack(next.overshoot, false) };
	// A Retry-After too long to wait ends the request (final): it must not become the pause of the next 429 without
	// one, which would then pause every send that long. (The probe's is not kept either.)
	else if (event.retryAfterMs !== undefined && !event.final)
		next = { ...next, lastRetryAfterMs: event.retryAfterMs };
	if (verdict === undefined) return next;
	next = { ...next, suspect: verdict.suspect };
	if (verdict.kind === 'random') return next;
	if (verdict.kind === 'rate') {
		// A Retry-After too long to wait ends the request in an error; the others are not held for it.
		const pauseMs = event.final ? undefined : (event.retryAfterMs ?? next.lastRetryAfterMs);
		return { ...next, rate: rateRefused(next.rate, next.log, send, now, pauseMs) };
	}
	const level = levelRefused(next.level, next.trips, send, { inFlight: next.inFlight, now });
	const paused = next.rate.pausedUntilMs > now;
	return { ...next, level, overshoot: overshootRefused(next.overshoot, send, paused) };
}

/** Whether the level and the hold let one more request go now. */
export function hasRoom(state: PacerState): boolean {
	return holdHasRoom(state.overshoot.hold, state.inFlight, state.level.limit);
}

/**
 * The earliest time the next request may go: the per-second pace, and the ramp's spread. Also the state with the
 * ramp's bucket filled up to `now` (filled at each look, as the level and round trip that fill it change).
 */
export function readyAt(state: PacerState, now: number): { at: number; state: PacerState } {
	const spread = rampRate(state);
	const ramp = refillRamp(state.ramp, now, spread);
	const at = Math.max(
		rateReadyAt(state.rate, state.log, now),
		rampReadyAt(ramp, now, spread),
		spikeReadyAt(state.spike, state.log),
	);
	return { at, state: { ...state, ramp } };
}

/** Before a waiting request goes: the pace may grow, when the `waiting` requests pay for it. */
export function beforeAdmit(state: PacerState, now: number, waiting: number): PacerState {
	return { ...state, rate: growRate(state.rate, now, waiting, state.lastRetryAfterMs) };
}

/** No request goes before `epochMs`: the API asked every client to wait. */
export function pauseUntil(state: PacerState, epochMs: number): PacerState {
	return { ...state, rate: pauseRate(state.rate, epochMs) };
}

/** The ramp's fill: none in fixed mode; one at a time while slow start climbs into levels never tried. */
function rampRate({ mode, level, trips }: PacerState): RampRate {
	if (mode === 'fixed') return { perMs: undefined, burst: RAMP.burst };
	const burst = level.climb.kind === 'slowStart' ? RAMP.slowStartBurst : RAMP.burst;
	return { perMs: rampPerMs(level.limit, typicalMs(trips)), burst };
}

export function statsOf(state: PacerState): PacerStats {
	return {
		peakInFlight: state.peakInFlight,
		peakLimit: state.level.peakLimit,
		finalLimit: state.level.limit,
		rateLimited: state.rateLimited,
		decreases: state.level.decreases,
		rateRefusals: state.rate.refusals,
		finalRate: state.rate.rate,
		lowestRate: state.rate.lowestRate,
		holds: state.overshoot.holds,
		spikeRefusals: state.spike.refusals,
		spikeSpacingMs: state.spike.spacingMs,
	};
}
