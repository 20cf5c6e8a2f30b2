/** What the pacer's callers (transport/index.ts, execute) and the pacer exchange. */

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
	| { kind: 'rateLimited'; retryAfterMs?: number }
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
}
