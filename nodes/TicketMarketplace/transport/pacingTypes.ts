/** What the pacer's callers (transport/index.ts, execute) and the pacer exchange, and what its parts exchange. */

export type PacingMode = 'adaptive' | 'fixed';

export type AttemptOutcome = (
	| {
			kind: 'answered';
			roundTripMs: number;
			/**
			 * A 2xx. A refusal (4xx) comes back without the work a listing costs the API, so only accepted answers
			 * tell its latency. Absent means accepted.
			 */
			accepted?: boolean;
	  }
	| {
			/** A rate refusal: a 429, or a spike arrest (answered 500 or 429). */
			kind: 'rateLimited';
			retryAfterMs?: number;
			/**
			 * The gateway's spike arrest refused it (a smoothed rate, answered 500 or 429 without Retry-After): the
			 * pacer keeps a gap between sends instead of pausing them.
			 */
			spikeArrest?: boolean;
			/** The rate the API allows, in requests per second, where its refusal names it ("Allowed rate : 40ps"). */
			allowedPerSecond?: number;
	  }
	| { kind: 'failed' }
) & {
	/** The request ends in an error (no retry follows). */
	final?: boolean;
};

export interface Slot {
	/**
	 * The request goes to the API once more within this slot (a 401, sent again so that n8n renews the token): an API
	 * that limits requests per second counts both.
	 */
	sentAgain(): void;
	/** Frees the slot and tells the pacer how the attempt went. Call exactly once. */
	release(outcome: AttemptOutcome): void;
}

export interface PacerStats {
	peakInFlight: number;
	peakLimit: number;
	finalLimit: number;
	rateLimited: number;
	decreases: number;
	/** 429s read as a per-second limit (every send paused), and the pace in requests per second (Infinity: none). */
	rateRefusals: number;
	finalRate: number;
	lowestRate: number;
	/** Holds: after a 429 at a level never answered, sends waited for an answer and one probe to tell the kind. */
	holds: number;
	/** Refusals by a spike arrest, and the gap kept between sends for it (ms; 0: none met). */
	spikeRefusals: number;
	spikeSpacingMs: number;
}

/** One request sent: when, the how-manieth of the run, at which in-flight level (itself included). */
export interface Send {
	readonly at: number;
	readonly index: number;
	readonly level: number;
}

/** A send in the log, and how it went so far. */
export interface SendRecord extends Send {
	readonly state: 'inFlight' | 'answered' | 'refused' | 'failed';
}

/** What the gate tells the controllers: the only way they learn anything. */
export type PacerEvent =
	| {
			kind: 'sent';
			send: Send;
			/** Sent again within the same slot (a 401, re-sent): the earlier send, which the API answered. */
			replaces?: Send;
	  }
	| {
			kind: 'answered';
			send: Send;
			roundTripMs: number;
			/** A 2xx (absent: accepted). */
			accepted?: boolean;
			final: boolean;
			/** Requests waiting for a slot when the answer came. */
			waiting: number;
	  }
	| {
			kind: 'refused';
			send: Send;
			retryAfterMs?: number;
			final: boolean;
			/** A spike arrest's refusal, and the rate its fault named. */
			spikeArrest?: boolean;
			allowedPerSecond?: number;
	  }
	| { kind: 'failed'; send: Send; final: boolean };

/** The event an attempt's outcome makes. */
export function eventOf(outcome: AttemptOutcome, send: Send, waiting: number): PacerEvent {
	const final = outcome.final === true;
	if (outcome.kind === 'rateLimited')
		return {
			kind: 'refused',
			send,
			retryAfterMs: outcome.retryAfterMs,
			final,
			...(outcome.spikeArrest === true && {
				spikeArrest: true,
				allowedPerSecond: outcome.allowedPerSecond,
			}),
		};
	if (outcome.kind === 'failed') return { kind: 'failed', send, final };
	return {
		kind: 'answered',
		send,
		roundTripMs: outcome.roundTripMs,
		accepted: outcome.accepted,
		final,
		waiting,
	};
}
