import type { IDeduplicationOutput, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, randomInt, randomString, sleep } from 'n8n-workflow';

import {
	ContendedMemoryError,
	lookAt,
	SCOPE,
	STORE_OPTIONS,
	UnconfirmedMemoryError,
} from './sentListings';

/** A run looks again no sooner than this after a write: longer than another run's store call takes. */
const SETTLE_MIN_MS = 50;
/** ...and no sooner than this many times its own slowest call (a large memory makes every call slower). */
const SETTLE_FACTOR = 3;
/** Writes tried before a run gives up with an error (another run kept rewriting the memory at the same moments). */
const WRITE_ATTEMPTS = 4;
/** Entries a write adds beside its keys: a marker, a token per further look, a guard. */
export const MARKERS_PER_WRITE = WRITE_ATTEMPTS + 1;

/**
 * Verified writes to n8n's deduplication store, which has no lock: a write made while another run rewrites the list
 * from an older read is lost, and two runs can then both see an ID as new and both send it. So every write carries
 * a marker new to it; after a pause longer than a store call the run looks for that marker and, if it is gone,
 * writes again (now seeing the other run's entries). A removal is checked the same way: a stale write that brings
 * back the removed keys brings back the marker written with them. The markers leave with the run's last removal.
 */
export class VerifiedStore {
	private readonly markerPrefix: string;
	/** Every marker this run wrote, oldest first. */
	private readonly markers: string[] = [];
	/** One per write, beside its markers: removed with the keys written only to look (forgetNow). */
	private guards: string[] = [];
	private slowestCallMs = 0;
	/**
	 * A record failed, and a retry or a look showed that it wrote after all (or could not tell): what it found
	 * already there is lost.
	 */
	wroteDespiteFailure = false;
	/** The last look at a marker failed: the write was not confirmed, whatever other runs did. */
	private lookFailed = false;
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
	 * for the first time at once both insert its row, and n8n's database refuses the second insert. `retryStands`
	 * may refuse the retry's answer: the first failure then stands.
	 */
	private async once<T>(
		call: () => Promise<T>,
		retryStands: (answer: T) => boolean = () => true,
	): Promise<T> {
		try {
			return await this.timed(call);
		} catch (error) {
			await sleep(SETTLE_MIN_MS + randomInt(SETTLE_MIN_MS));
			const answer = await this.timed(call);
			if (retryStands(answer)) return answer;
			this.wroteDespiteFailure = true;
			throw new NodeOperationError(this.context.getNode(), error as Error);
		}
	}

	private async storeRecord(keys: string[]): Promise<IDeduplicationOutput> {
		return await this.context.helpers.checkProcessedAndRecord(keys, SCOPE, STORE_OPTIONS);
	}

	async record(keys: string[]): Promise<IDeduplicationOutput> {
		return await this.once(async () => await this.storeRecord(keys));
	}

	async remove(keys: string[]): Promise<void> {
		await this.once(
			async () => await this.context.helpers.removeProcessed(keys, SCOPE, STORE_OPTIONS),
		);
	}

	/**
	 * Records the keys with a new marker. A retry that finds the failed call's marker means that call wrote after
	 * all, and its answer (which keys were new) is lost: the failure stands.
	 */
	async recordWithMarker(
		keys: string[],
	): Promise<{ tokens: string[]; answer: IDeduplicationOutput }> {
		const marker = this.newMarker();
		// One token per look the write may need: a look that fails may have put its token back, so the next look
		// looks for another of the write's tokens, which no look has touched.
		const tokens = [marker];
		for (let look = 2; look <= WRITE_ATTEMPTS; look++) tokens.push(`${marker} look ${look}`);
		this.markers.push(...tokens.slice(1));
		// A guard for the keys this run writes only to look, which leave before the others (forgetAhead).
		const guard = `${marker} guard`;
		this.guards.push(guard);
		try {
			const answer = await this.once(
				async () => await this.storeRecord([...tokens, guard, ...keys]),
				(retried) => !retried.processed.map(String).includes(marker),
			);
			return { tokens, answer };
		} catch (error) {
			// The call and its retry both failed: the first may have written all the same. Its marker tells.
			if (!this.wroteDespiteFailure)
				this.wroteDespiteFailure = (await this.markersPresent([marker]))?.has(marker) ?? true;
			throw error instanceof NodeOperationError
				? error
				: new NodeOperationError(this.context.getNode(), error as Error);
		}
	}

	/** Longer than another run's store call takes, of a random length (up to twice the least). */
	async pause(): Promise<void> {
		const least = Math.max(SETTLE_MIN_MS, SETTLE_FACTOR * this.slowestCallMs);
		await sleep(least + randomInt(least));
	}

	/**
	 * After the pause, which of the markers are in the memory: a look, which takes the markers it added out again.
	 * Undefined when the store failed to answer (a retry would find what the failed call put back). The pause has a
	 * random length, up to twice the least, so that two runs that collided once do not collide again in step.
	 */
	private async markersPresent(markers: string[]): Promise<Set<string> | undefined> {
		await this.pause();
		// A marker the look could not take out again leaves with the run's last removal.
		const look = await lookAt(
			async (keys) => await this.timed(async () => await this.storeRecord(keys)),
			async (keys) => await this.remove(keys),
			markers,
		);
		this.lookFailed = look === undefined;
		return look?.held;
	}

	/** After the last attempt: another run kept undoing the write, or the store kept failing to confirm it. */
	private gaveUp(): Error {
		return this.lookFailed
			? new UnconfirmedMemoryError()
			: new ContendedMemoryError(WRITE_ATTEMPTS);
	}

	/**
	 * Records the keys with a new marker until the write provably stands (a look that failed proves nothing: the
	 * next look, after another pause, looks for another of the write's tokens). Erased every time, the record may be gone: before sending, nothing is sent; after,
	 * the caller says what was created.
	 */
	async recordVerified(keys: string[], onAnswer: (answer: IDeduplicationOutput) => void) {
		let looks = 0;
		for (;;) {
			const { tokens, answer } = await this.recordWithMarker(keys);
			onAnswer(answer);
			// Written again only once a look proved the write erased: a write after a failed look could bring back
			// keys another run removed meanwhile, and would find this run's own keys and take them for another's.
			for (const token of tokens) {
				const present = await this.markersPresent([token]);
				if (present?.has(token)) return;
				if (++looks === WRITE_ATTEMPTS) throw this.gaveUp();
				if (present !== undefined) break;
			}
		}
	}

	/**
	 * Removes the keys and every marker; any marker back after the pause means a stale write brought the keys back,
	 * and a look that failed proves nothing: the keys are removed again. Brought back every time, the keys may still
	 * be there: the caller names them rather than promise a resend.
	 */
	async forgetVerified(keys: string[], markers = [...this.markers, ...this.guards]): Promise<void> {
		for (let attempt = 1; ; attempt++) {
			await this.remove([...markers, ...keys]);
			if (keys.length === 0) return;
			if ((await this.markersPresent(markers))?.size === 0) return;
			if (attempt === WRITE_ATTEMPTS) throw this.gaveUp();
		}
	}

	/**
	 * Removes keys written only to look ahead of the others, verified with the guards written beside them (the
	 * markers of those writes stay, for the keys that leave later). False when the removal could not be verified.
	 */
	async forgetAhead(keys: string[]): Promise<boolean> {
		const guards = [...this.guards];
		try {
			await this.forgetVerified(keys, guards);
		} catch {
			return false;
		}
		this.guards = this.guards.filter((guard) => !guards.includes(guard));
		return true;
	}
}
