import type { IDeduplicationOutput, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, randomInt, randomString, sleep } from 'n8n-workflow';

import {
	ContendedMemoryError,
	idsOf,
	keysOf,
	nearCapNotice,
	SCOPE,
	SentListingsStoreError,
	STORE_OPTIONS,
	storeError,
} from './sentListings';

/** A run looks again no sooner than this after a write: longer than another run's store call takes. */
const SETTLE_MIN_MS = 50;
/** ...and no sooner than this many times its own slowest call (a large memory makes every call slower). */
const SETTLE_FACTOR = 3;
/** Writes tried before a run gives up with an error (another run kept rewriting the memory at the same moments). */
const WRITE_ATTEMPTS = 4;

export interface Recorded {
	/** IDs this workflow had sent already: left unsent. */
	alreadySent: Set<number>;
	/** How many IDs the memory holds now (undefined when the store could not count: only the notice depends on it). */
	count?: number;
}

export interface AfterSending {
	error?: SentListingsStoreError;
	/** IDs the API provably did not create that the memory could not forget: the next run would skip them. */
	notForgotten: number[];
}

/**
 * One run's use of the memory of listings sent. n8n's store has no lock: a write made while another run rewrites
 * the list from an older read is lost, and two runs can then both see an ID as new and both send it. So every write
 * carries a marker new to it; after a pause longer than a store call the run looks for that marker and, if it is
 * gone, writes again (now seeing the other run's IDs). A removal is checked the same way: a stale write that brings
 * back the removed IDs brings back the marker written with them. The markers leave the memory at the end of the run.
 */
export class RunMemory {
	private readonly markerPrefix: string;
	/** Every marker this run wrote, oldest first. */
	private readonly markers: string[] = [];
	private slowestCallMs = 0;
	/** A store call failed, and its retry showed that it wrote after all: what it found already there is lost. */
	private wroteDespiteFailure = false;

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly baseUrl: string,
	) {
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

	private async record(keys: string[]): Promise<IDeduplicationOutput> {
		return await this.once(async () => await this.storeRecord(keys));
	}

	private async remove(keys: string[]): Promise<void> {
		await this.once(
			async () => await this.context.helpers.removeProcessed(keys, SCOPE, STORE_OPTIONS),
		);
	}

	/**
	 * Records the keys with a new marker. A retry that finds the failed call's marker means that call wrote after
	 * all, and its answer (which keys were new) is lost: the failure stands.
	 */
	private async recordWithMarker(
		keys: string[],
	): Promise<{ marker: string; answer: IDeduplicationOutput }> {
		const marker = this.newMarker();
		const answer = await this.once(
			async () => await this.storeRecord([marker, ...keys]),
			(retried) => !retried.processed.map(String).includes(marker),
		);
		return { marker, answer };
	}

	/**
	 * After the pause, which of the markers are in the memory (looking records them: all are there afterwards).
	 * The pause has a random length, up to twice the least, so that two runs that collided once do not collide
	 * again in step.
	 */
	private async markersPresent(markers: string[]): Promise<string[]> {
		const least = Math.max(SETTLE_MIN_MS, SETTLE_FACTOR * this.slowestCallMs);
		await sleep(least + randomInt(least));
		return (await this.record(markers)).processed.map(String);
	}

	/**
	 * Records the keys with a new marker until the write provably stands. Erased every time, the record may be gone:
	 * before sending, nothing is sent; after, the caller says what was created.
	 */
	private async recordVerified(keys: string[], onAnswer: (answer: IDeduplicationOutput) => void) {
		for (let attempt = 1; ; attempt++) {
			const { marker, answer } = await this.recordWithMarker(keys);
			onAnswer(answer);
			if ((await this.markersPresent([marker])).length > 0) return;
			if (attempt === WRITE_ATTEMPTS) throw new ContendedMemoryError(WRITE_ATTEMPTS);
		}
	}

	/**
	 * Removes the keys and every marker; any marker back after the pause means a stale write brought the keys back.
	 * Brought back every time, the keys may still be there: the caller names them rather than promise a resend.
	 */
	private async forgetVerified(keys: string[]): Promise<void> {
		for (let attempt = 1; ; attempt++) {
			await this.remove([...this.markers, ...keys]);
			if (keys.length === 0) return;
			if ((await this.markersPresent(this.markers)).length === 0)
				return await this.remove(this.markers);
			if (attempt === WRITE_ATTEMPTS) throw new ContendedMemoryError(WRITE_ATTEMPTS);
		}
	}

	/** Records the IDs as sent, before sending; returns those an earlier (or concurrent) run sent already. */
	async recordBeforeSending(ids: number[]): Promise<Recorded> {
		const byKey = keysOf(this.baseUrl, ids);
		let last: IDeduplicationOutput | undefined;
		try {
			await this.recordVerified([...byKey.keys()], (answer) => (last = answer));
			const seen = last!.processed.map(String).filter((key) => byKey.has(key));
			const count = await this.context.helpers
				.getProcessedDataCount(SCOPE, STORE_OPTIONS)
				.catch(() => undefined);
			if (seen.length > 0 && nearCapNotice(count) !== undefined)
				await this.refresh(seen, idsOf(byKey, seen));
			return { alreadySent: new Set(idsOf(byKey, seen)), count };
		} catch (error) {
			const failure =
				error instanceof SentListingsStoreError ? error : storeError(this.context, error, 'before');
			if (this.wroteDespiteFailure)
				failure.description = `${failure.description}\nNot sent, but possibly remembered as sent (the next run may skip them): ${ids.join(', ')}. Those this workflow never sent before: forget them with Listing → Forget Sent Listings before running again.`;
			throw await this.undoRecord(failure, byKey, last);
		}
	}

	/** Nothing was sent: the IDs this run recorded are forgotten again, or named if they cannot be. */
	private async undoRecord(
		failure: SentListingsStoreError,
		byKey: Map<string, number>,
		last: IDeduplicationOutput | undefined,
	): Promise<SentListingsStoreError> {
		const recorded = (last?.new ?? []).map(String).filter((key) => byKey.has(key));
		try {
			await this.forgetVerified(recorded);
		} catch {
			if (recorded.length)
				failure.description = `${failure.description}\nNot sent, but still remembered as sent (the next run would skip them): ${idsOf(byKey, recorded).join(', ')}. Forget them with Listing → Forget Sent Listings before running again.`;
		}
		return failure;
	}

	/**
	 * Near the cap, moves IDs seen again to the young end: forgotten, then recorded again.
	 */
	private async refresh(keys: string[], ids: number[]): Promise<void> {
		await this.remove(keys);
		try {
			await this.record(keys);
		} catch (error) {
			const failure = storeError(this.context, error, 'before');
			failure.description = `IDs sent by earlier runs were forgotten while being moved to the young end of the memory, and the next run would send them again: ${ids.join(', ')}. Take them out of the input before running again. ${failure.description}`;
			throw failure;
		}
	}

	/**
	 * After sending: created or possibly created IDs recorded again if another run's write erased them, and IDs the
	 * API provably did not create forgotten (with the marker). Both are tried whatever the other did.
	 */
	async afterSending(kept: number[], notCreated: number[]): Promise<AfterSending> {
		let error: SentListingsStoreError | undefined;
		try {
			if (kept.length) await this.recordVerified([...keysOf(this.baseUrl, kept).keys()], () => {});
		} catch (caught) {
			error = storeError(this.context, caught, 'after');
		}
		try {
			await this.forgetVerified([...keysOf(this.baseUrl, notCreated).keys()]);
			return { error, notForgotten: [] };
		} catch (caught) {
			return {
				error: error ?? storeError(this.context, caught, 'after'),
				notForgotten: notCreated,
			};
		}
	}

	/** A run that sent nothing takes its marker out of the memory (a leftover marker only takes one entry). */
	async release(): Promise<void> {
		await this.remove(this.markers).catch(() => undefined);
	}
}
