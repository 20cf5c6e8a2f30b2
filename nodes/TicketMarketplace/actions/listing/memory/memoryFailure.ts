/** Why a change to the memory of sent listings is not known to stand (what the verified store returns). */
export type StoreFailure =
	/**
	 * n8n's store threw at a call and at its retry (`error` as the run saw it). `possiblyWritten`: a record that
	 * failed may have written all the same (its marker was found, or no look could tell), and what it found is lost.
	 */
	| { kind: 'storeFailed'; error: unknown; possiblyWritten: boolean }
	/** Another run's stale writes undid the change at every attempt. */
	| { kind: 'contended'; attempts: number }
	/** The store did not answer whether the change stands, at every attempt. */
	| { kind: 'unconfirmed' };

/**
 * Every way the memory can fail a run: the store's, and a run that needs more room than n8n's cap leaves (writing
 * anyway would make n8n drop the oldest IDs, which later runs would send again).
 */
export type MemoryFailure =
	| StoreFailure
	| { kind: 'full'; held: number; needed: number; cap: number };

/** A failure as thrown, for code that stops at the first one; the words come from memoryMessages.ts. */
export class MemoryFailureError extends Error {
	constructor(readonly failure: MemoryFailure) {
		super(`the memory of sent listings failed: ${failure.kind}`);
	}
}

/** Another run's stale writes undid this run's change to the memory at every attempt. */
export class ContendedMemoryError extends MemoryFailureError {
	constructor(attempts: number) {
		super({ kind: 'contended', attempts });
	}
}

/** The failure behind anything thrown: a store call that threw is n8n's failure. */
export function failureOf(error: unknown): MemoryFailure {
	return error instanceof MemoryFailureError
		? error.failure
		: { kind: 'storeFailed', error, possiblyWritten: false };
}
