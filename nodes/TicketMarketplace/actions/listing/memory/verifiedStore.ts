/**
 * The memory's protocol over n8n's deduplication store: record and forget, each verified against other runs' writes,
 * and look without leaving anything; failures are returned, typed. What the memory keeps is sentListings.ts; how a
 * run uses it, runMemory.ts.
 */
import type { ICheckProcessedOptions, IDeduplicationOutput, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, randomInt, randomString, sleep } from 'n8n-workflow';

import type { StoreFailure } from './memoryFailure';

/** The memory is the workflow's: one list per workflow, of values. */
export const SCOPE = 'workflow';
/** n8n's store drops the oldest entries beyond this. */
export const SENT_LISTINGS_CAP = 100_000;
export const STORE_OPTIONS: ICheckProcessedOptions = {
	mode: 'entries',
	maxEntries: SENT_LISTINGS_CAP,
};

/** A run looks again no sooner than this after a write: longer than another run's store call takes. */
const SETTLE_MIN_MS = 50;
/** ...and no sooner than this many times its own slowest call (a large memory makes every call slower). */
const SETTLE_FACTOR = 3;
/** Writes tried before a run gives up with an error (another run kept rewriting the memory at the same moments). */
const WRITE_ATTEMPTS = 4;
/** Entries a write adds beside its keys: a marker, a token per further look, a guard. */
export const MARKERS_PER_WRITE = WRITE_ATTEMPTS + 1;

/** A change that did not provably stand, and why. */
export interface Failed {
	ok: false;
	failure: StoreFailure;
}
/** A change made (verified or not, as the method says), or why not. */
export type Done = { ok: true } | Failed;
/** A record's answer (which of the keys were new, which held), or why there is none. */
export type Answered = { ok: true; answer: IDeduplicationOutput } | Failed;
/**
 * A verified record: the answer of every write it made (a write another run erased is made again), and on success
 * the answer of the write that stood.
 */
export type RecordOutcome = { answers: IDeduplicationOutput[] } & (
	| { ok: true; stood: IDeduplicationOutput }
	| Failed
);

const DONE: Done = { ok: true };

/** One store call, and its retry's answer with the first call's failure when the first call failed. */
interface Twice<T> {
	answer: T;
	firstFailure?: { error: unknown };
}

/**
 * Verified writes to n8n's deduplication store, which has no lock: a write made while another run rewrites the list
 * from an older read is lost, and two runs can then both see an ID as new and both send it. So every write carries
 * a marker new to it; after a pause longer than a store call the run looks for that marker and, if it is gone,
 * writes again (now seeing the other run's entries). A removal is checked the same way: a stale write that brings
 * back the removed keys brings back the marker written with them. The markers leave with the run's last removal.
 *
 * Every method returns its failure, typed (memoryFailure.ts); none throws for the store's sake.
 */
export class VerifiedStore {
	private readonly markerPrefix: string;
	/** Every marker this run wrote, oldest first. */
	private readonly markers: string[] = [];
	/** One per write, beside its markers: removed with the keys written only to look (forgetAhead). */
	private guards: string[] = [];
	private slowestCallMs = 0;
	/** Keys a look added and could not remove again: the caller's last removal takes them (TicketMemory.forget). */
	readonly leftovers: string[] = [];
	constructor(private readonly context: IExecuteFunctions) {
		this.markerPrefix = `ticket-marketplace run ${String(context.getExecutionId?.() ?? '')} ${randomString(12)}`;
	}

	private newMarker(): string {
		const marker = `${this.markerPrefix} write ${this.markers.length + 1}`;
		this.markers.push(marker);
		return marker;
	}

	private async timed<T>(call: () => Promise<T>): Promise<T> {
		const started = Date.now();
		try {
			return await call();
		} finally {
			this.slowestCallMs = Math.max(this.slowestCallMs, Date.now() - started);
		}
	}

	/**
	 * One store call, tried once more after a short pause when it fails: two runs that write a workflow's memory
	 * for the first time at once both insert its row, and n8n's database refuses the second insert. The retry's
	 * failure is thrown as it came; a retry's answer comes with the first call's failure, for the caller to judge.
	 */
	private async callTwice<T>(call: () => Promise<T>): Promise<Twice<T>> {
		try {
			return { answer: await this.timed(call) };
		} catch (error) {
			await sleep(SETTLE_MIN_MS + randomInt(SETTLE_MIN_MS));
			return { answer: await this.timed(call), firstFailure: { error } };
		}
	}

	private async storeRecord(keys: string[]): Promise<IDeduplicationOutput> {
		return await this.context.helpers.checkProcessedAndRecord(keys, SCOPE, STORE_OPTIONS);
	}

	private async remove(keys: string[]): Promise<void> {
		await this.callTwice(
			async () => await this.context.helpers.removeProcessed(keys, SCOPE, STORE_OPTIONS),
		);
	}

	private asNodeError(error: unknown): NodeOperationError {
		return error instanceof NodeOperationError
			? error
			: new NodeOperationError(this.context.getNode(), error as Error);
	}

	/** How many entries the memory holds; undefined when the store could not count. */
	async count(): Promise<number | undefined> {
		return await this.context.helpers
			.getProcessedDataCount(SCOPE, STORE_OPTIONS)
			.catch(() => undefined);
	}

	/** Records the keys once, unverified: another run's write may take them out again. */
	async recordOnce(keys: string[]): Promise<Answered> {
		try {
			return {
				ok: true,
				answer: (await this.callTwice(async () => await this.storeRecord(keys))).answer,
			};
		} catch (error) {
			return storeFailed(error);
		}
	}

	/** Removes the keys once, unverified: another run's stale write may bring them back. */
	async removeOnce(keys: string[]): Promise<Done> {
		try {
			await this.remove(keys);
			return DONE;
		} catch (error) {
			return storeFailed(error);
		}
	}

	/**
	 * Records the keys with a new marker, unverified (a verified removal of the keys, `forget`, takes the marker
	 * too). A retry that finds the failed call's marker means that call wrote after all, and its answer (which keys
	 * were new) is lost: the first failure stands.
	 */
	async recordMarked(keys: string[]): Promise<Answered> {
		const written = await this.writeMarked(keys);
		return written.ok ? { ok: true, answer: written.answer } : written;
	}

	private async writeMarked(
		keys: string[],
	): Promise<{ ok: true; tokens: string[]; answer: IDeduplicationOutput } | Failed> {
		const marker = this.newMarker();
		// One token per look the write may need: a look that fails may have put its token back, so the next look
		// looks for another of the write's tokens, which no look has touched.
		const tokens = [marker];
		for (let look = 2; look <= WRITE_ATTEMPTS; look++) tokens.push(`${marker} look ${look}`);
		this.markers.push(...tokens.slice(1));
		// A guard for the keys this run writes only to look, which leave before the others (forgetAhead).
		const guard = `${marker} guard`;
		this.guards.push(guard);
		let written: Twice<IDeduplicationOutput>;
		try {
			written = await this.callTwice(
				async () => await this.storeRecord([...tokens, guard, ...keys]),
			);
		} catch (error) {
			// The call and its retry both failed: the first may have written all the same. Its marker tells.
			const wrote = (await this.markersPresent([marker]))?.has(marker) ?? true;
			return storeFailed(this.asNodeError(error), wrote);
		}
		const { answer, firstFailure } = written;
		if (firstFailure && answer.processed.map(String).includes(marker))
			return storeFailed(this.asNodeError(firstFailure.error), true);
		return { ok: true, tokens, answer };
	}

	/** Longer than another run's store call takes, of a random length (up to twice the least). */
	async pause(): Promise<void> {
		const least = Math.max(SETTLE_MIN_MS, SETTLE_FACTOR * this.slowestCallMs);
		await sleep(least + randomInt(least));
	}

	/**
	 * A look at the memory, which n8n's store only offers as a record: the keys it finds held, having removed again
	 * the keys the look added (a key it could not remove leaves with the run's last removal). Its answer is trusted
	 * only when the store answered at once: a failed call may have written, and a retry would find that call's keys
	 * and call them held. Undefined when the store failed (nothing known).
	 */
	async look(keys: string[]): Promise<Set<string> | undefined> {
		let answer: IDeduplicationOutput;
		try {
			answer = await this.timed(async () => await this.storeRecord(keys));
		} catch {
			return undefined;
		}
		const added = answer.new.map(String);
		if (added.length > 0)
			await this.remove(added).catch(() => {
				this.leftovers.push(...added);
			});
		return new Set(answer.processed.map(String));
	}

	/**
	 * After the pause, which of the markers are in the memory. The pause has a random length, up to twice the least,
	 * so that two runs that collided once do not collide again in step.
	 */
	private async markersPresent(markers: string[]): Promise<Set<string> | undefined> {
		await this.pause();
		return await this.look(markers);
	}

	/**
	 * Records the keys with a new marker until the write provably stands (a look that failed proves nothing: the
	 * next look, after another pause, looks for another of the write's tokens). Erased every time, the record may be
	 * gone: before sending, nothing is sent; after, the caller says what was created.
	 */
	async record(keys: string[]): Promise<RecordOutcome> {
		const answers: IDeduplicationOutput[] = [];
		let looks = 0;
		for (;;) {
			const written = await this.writeMarked(keys);
			if (!written.ok) return { ...written, answers };
			answers.push(written.answer);
			// Written again only once a look proved the write erased: a write after a failed look could bring back
			// keys another run removed meanwhile, and would find this run's own keys and take them for another's.
			for (const token of written.tokens) {
				const present = await this.markersPresent([token]);
				if (present?.has(token)) return { ok: true, answers, stood: written.answer };
				if (++looks === WRITE_ATTEMPTS) return { ok: false, answers, failure: gaveUp(present) };
				if (present !== undefined) break;
			}
		}
	}

	/**
	 * Removes the keys and every marker; any marker back after the pause means a stale write brought the keys back,
	 * and a look that failed proves nothing: the keys are removed again. Brought back every time, the keys may still
	 * be there: the caller names them rather than promise a resend.
	 */
	async forget(keys: string[]): Promise<Done> {
		return await this.forgetWith(keys, [...this.markers, ...this.guards]);
	}

	private async forgetWith(keys: string[], markers: string[]): Promise<Done> {
		for (let attempt = 1; ; attempt++) {
			const removed = await this.removeOnce([...markers, ...keys]);
			if (!removed.ok) return removed;
			if (keys.length === 0) return DONE;
			const present = await this.markersPresent(markers);
			if (present?.size === 0) return DONE;
			if (attempt === WRITE_ATTEMPTS) return { ok: false, failure: gaveUp(present) };
		}
	}

	/**
	 * Removes keys written only to look ahead of the others, verified with the guards written beside them (the
	 * markers of those writes stay, for the keys that leave later). False when the removal could not be verified.
	 */
	async forgetAhead(keys: string[]): Promise<boolean> {
		const guards = [...this.guards];
		if (!(await this.forgetWith(keys, guards)).ok) return false;
		this.guards = this.guards.filter((guard) => !guards.includes(guard));
		return true;
	}
}

function storeFailed(error: unknown, possiblyWritten = false): Failed {
	return { ok: false, failure: { kind: 'storeFailed', error, possiblyWritten } };
}

/**
 * After the last attempt, given the last look: another run kept undoing the change, or the store failed to confirm
 * it (the last look failed).
 */
function gaveUp(lastLook: Set<string> | undefined): StoreFailure {
	return lastLook === undefined
		? { kind: 'unconfirmed' }
		: { kind: 'contended', attempts: WRITE_ATTEMPTS };
}
