/**
 * A simple pacer, to weigh today's (pacing.ts) against: the level of requests in flight grows by one a round trip
 * and halves on a 429 (additive increase, multiplicative decrease), and a 429 pauses every send until its
 * Retry-After. No rate is learned and no 429 is classified. The controller is the pure `step` below; the waiters
 * and the timer are the gate's (simpleGate.ts).
 */

/** What happens to a request, as the gate tells the controller. */
export type PacerEvent =
	| { kind: 'sent' }
	/** Any answer but a 429 (a 2xx, a 4xx, a 5xx): the API had room for the request. */
	| { kind: 'answered' }
	/** A 429. `final`: the request ends in an error (a Retry-After too long to wait, or no retry left). */
	| { kind: 'refused'; retryAfterMs?: number; final?: boolean }
	/** No answer (a connection error, a time-out), or never sent. */
	| { kind: 'failed' };

/** Whether sends wait: `paused` until the instant a 429's Retry-After names. */
export type Hold = { kind: 'none' } | { kind: 'paused'; untilMs: number };

export interface SimpleState {
	/** Requests allowed in flight at once: 1 until the first answer, then between 1 and `maximum`. */
	level: number;
	maximum: number;
	inFlight: number;
	/** Answers since the level last grew: it grows by one after `level` of them, about once a round trip. */
	credit: number;
	answeredOnce: boolean;
	hold: Hold;
	/** What the run saw, for the pacer's snapshot. */
	peakLevel: number;
	peakInFlight: number;
	refusals: number;
	decreases: number;
}

export const SIMPLE_PACING = {
	/** The level once the first answer has settled the token (the first request goes alone): today's pacer's too. */
	initialLevel: 4,
	/** A 429 multiplies the level by this (the first of a pause only: its other 429s are the same overshoot). */
	decreaseFactor: 0.5,
	/** The pause after a 429 that names no Retry-After. */
	defaultRetryAfterMs: 1000,
};

export function initialState(maximum: number): SimpleState {
	return {
		level: 1,
		maximum,
		inFlight: 0,
		credit: 0,
		answeredOnce: false,
		hold: { kind: 'none' },
		peakLevel: 1,
		peakInFlight: 0,
		refusals: 0,
		decreases: 0,
	};
}

/** The earliest instant a send may go, given room in flight; `now` when nothing holds it. */
export function readyAt(state: SimpleState, now: number): number {
	return state.hold.kind === 'paused' ? Math.max(now, state.hold.untilMs) : now;
}

/** Whether a request may be sent at `now`. */
export function canSend(state: SimpleState, now: number): boolean {
	return state.inFlight < state.level && readyAt(state, now) <= now;
}

function withLevel(state: SimpleState, level: number): SimpleState {
	const bounded = Math.min(state.maximum, Math.max(1, Math.floor(level)));
	return { ...state, level: bounded, peakLevel: Math.max(state.peakLevel, bounded) };
}

/** A pause that has run out holds nothing. */
function expire(hold: Hold, now: number): Hold {
	return hold.kind === 'paused' && hold.untilMs <= now ? { kind: 'none' } : hold;
}

/** The first answer of the run, whatever it says, opens the level: the token is settled. */
function afterFirstAnswer(state: SimpleState): SimpleState {
	if (state.answeredOnce) return state;
	return { ...withLevel(state, SIMPLE_PACING.initialLevel), answeredOnce: true, credit: 0 };
}

/** The controller: the state after `event` at `now`. Pure: no clock, no timer, no I/O. */
export function step(state: SimpleState, event: PacerEvent, now: number): SimpleState {
	const current = { ...state, hold: expire(state.hold, now) };
	if (event.kind === 'sent') {
		const inFlight = current.inFlight + 1;
		return { ...current, inFlight, peakInFlight: Math.max(current.peakInFlight, inFlight) };
	}
	const back = { ...current, inFlight: Math.max(0, current.inFlight - 1) };
	if (event.kind === 'failed') return afterFirstAnswer(back);
	if (event.kind === 'answered') {
		if (!back.answeredOnce) return afterFirstAnswer(back);
		if (back.level >= back.maximum) return { ...back, credit: 0 };
		// One more a round trip: after `level` answers.
		const credit = back.credit + 1;
		if (credit < back.level) return { ...back, credit };
		return { ...withLevel(back, back.level + 1), credit: 0 };
	}
	const opened = { ...afterFirstAnswer(back), refusals: back.refusals + 1 };
	// Within a pause, a 429 is one more of the overshoot that started it: the level halves once per pause.
	const overshoot = back.hold.kind === 'paused';
	const lowered = overshoot
		? opened
		: {
				...withLevel(opened, opened.level * SIMPLE_PACING.decreaseFactor),
				credit: 0,
				decreases: opened.decreases + 1,
			};
	// A request that ends on this 429 holds nobody: its Retry-After is too long, or it is out of retries.
	if (event.final) return lowered;
	const untilMs = now + (event.retryAfterMs ?? SIMPLE_PACING.defaultRetryAfterMs);
	const hold: Hold =
		lowered.hold.kind === 'paused' && lowered.hold.untilMs >= untilMs
			? lowered.hold
			: { kind: 'paused', untilMs };
	return { ...lowered, hold };
}
