/** Why a change to the memory of sent listings is not known to stand (what the verified store returns). */
export type StoreFailure =
	/** The store threw at a call and its retry; `possiblyWritten`: a failed record may have written all the same. */
	| { kind: 'storeFailed'; error: unknown; possiblyWritten: boolean }
	/** Another run's stale writes undid the change at every attempt. */
	| { kind: 'contended'; attempts: number }
	/** The store did not answer whether the change stands. */
	| { kind: 'unconfirmed' };

/** Also a run needing more room than n8n's cap leaves (n8n would drop the oldest IDs, which would be sent again). */
export type MemoryFailure = StoreFailure | { kind: 'full'; held: number; needed: number };

/** A failure as thrown; the words come from memoryMessages.ts. */
export class MemoryFailureError extends Error {
	constructor(readonly failure: MemoryFailure) {
		super(`the memory of sent listings failed: ${failure.kind}`);
	}
}

/** The failure behind anything thrown: a store call that threw is n8n's failure. */
export function failureOf(error: unknown): MemoryFailure {
	return error instanceof MemoryFailureError
		? error.failure
		: { kind: 'storeFailed', error, possiblyWritten: false };
}
