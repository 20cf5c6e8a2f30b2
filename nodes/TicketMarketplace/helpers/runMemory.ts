import type { IDeduplicationOutput, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, randomInt, randomString, sleep } from 'n8n-workflow';

import {
	ContendedMemoryError,
	lookAt,
	MemoryKeys,
	nearCapNotice,
	SCOPE,
	SentListingsStoreError,
	STORE_OPTIONS,
	storeError,
} from './sentListings';
import type { MemoryAccount } from './sentListings';

/** A run looks again no sooner than this after a write: longer than another run's store call takes. */
const SETTLE_MIN_MS = 50;
/** ...and no sooner than this many times its own slowest call (a large memory makes every call slower). */
const SETTLE_FACTOR = 3;
/** Writes tried before a run gives up with an error (another run kept rewriting the memory at the same moments). */
const WRITE_ATTEMPTS = 4;

/** What the memory knows of an ID sent before: the API created it, or its outcome was never known. */
export type EarlierOutcome = 'created' | 'unknown';

export interface Recorded {
	/** IDs this workflow had sent already (left unsent), with what the memory knows of each. */
	alreadySent: Map<number, EarlierOutcome>;
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
 *
 * Each ID sent is held with an "outcome unknown" entry from its record before sending until the API's answer says
 * otherwise: a listing whose answer never came (a 5xx, a run that died) stays "unknown" for later runs, which say
 * so instead of "skipped". The store keeps values only (no time), and a look must name the exact value it looks
 * for, so the memory cannot also say when a listing was sent.
 */
export class RunMemory {
	private readonly markerPrefix: string;
	/** Every marker this run wrote, oldest first. */
	private readonly markers: string[] = [];
	private slowestCallMs = 0;
	/** A store call failed, and its retry showed that it wrote after all: what it found already there is lost. */
	private wroteDespiteFailure = false;
	/** The last look at a marker failed: the write was not confirmed, whatever other runs did. */
	private lookFailed = false;
	/**
	 * Keys this run's record added only to look for them (an earlier version's key; "outcome unknown" of an ID it
	 * skips): they leave the memory with the run's last removal.
	 */
	private lookedOnly: string[] = [];

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly account: MemoryAccount,
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
	): Promise<{ tokens: string[]; answer: IDeduplicationOutput }> {
		const marker = this.newMarker();
		// One token per look the write may need: a look that fails may have put its token back, so the next look
		// looks for another of the write's tokens, which no look has touched.
		const tokens = [marker];
		for (let look = 2; look <= WRITE_ATTEMPTS; look++) tokens.push(`${marker} look ${look}`);
		this.markers.push(...tokens.slice(1));
		const answer = await this.once(
			async () => await this.storeRecord([...tokens, ...keys]),
			(retried) => !retried.processed.map(String).includes(marker),
		);
		return { tokens, answer };
	}

	/**
	 * After the pause, which of the markers are in the memory: a look, which takes the markers it added out again.
	 * Undefined when the store failed to answer (a retry would find what the failed call put back). The pause has a
	 * random length, up to twice the least, so that two runs that collided once do not collide again in step.
	 */
	private async markersPresent(markers: string[]): Promise<Set<string> | undefined> {
		const least = Math.max(SETTLE_MIN_MS, SETTLE_FACTOR * this.slowestCallMs);
		await sleep(least + randomInt(least));
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
			? new Error('it failed to answer whether a write stands')
			: new ContendedMemoryError(WRITE_ATTEMPTS);
	}

	/**
	 * Records the keys with a new marker until the write provably stands (a look that failed proves nothing: the
	 * next look, after another pause, looks for another of the write's tokens). Erased every time, the record may be gone: before sending, nothing is sent; after,
	 * the caller says what was created.
	 */
	private async recordVerified(keys: string[], onAnswer: (answer: IDeduplicationOutput) => void) {
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
	private async forgetVerified(keys: string[]): Promise<void> {
		for (let attempt = 1; ; attempt++) {
			await this.remove([...this.markers, ...keys]);
			if (keys.length === 0) return;
			if ((await this.markersPresent(this.markers))?.size === 0) return;
			if (attempt === WRITE_ATTEMPTS) throw this.gaveUp();
		}
	}

	/**
	 * Records the IDs as sent and of unknown outcome, before sending, and looks for an earlier version's key of each;
	 * returns those an earlier (or concurrent) run sent already, with what the memory knows of them.
	 */
	async recordBeforeSending(ids: number[]): Promise<Recorded> {
		const keys = new MemoryKeys(this.account, ids, ['sent', 'old', 'unknown']);
		let last: IDeduplicationOutput | undefined;
		try {
			await this.recordVerified(keys.all(), (answer) => (last = answer));
			const seen = keys.of(last!.processed, ['sent', 'old', 'unknown']);
			const sentBefore = new Set(keys.ids(seen));
			const unknownBefore = new Set(keys.ids(keys.of(seen, ['unknown'])));
			this.lookedOnly = [
				...keys.of(last!.new, ['old']),
				...keys.of(last!.new, ['unknown'], sentBefore),
			];
			const count = await this.context.helpers
				.getProcessedDataCount(SCOPE, STORE_OPTIONS)
				.catch(() => undefined);
			if (seen.length > 0 && nearCapNotice(count) !== undefined)
				await this.refresh(seen, [...sentBefore]);
			const alreadySent = new Map<number, EarlierOutcome>(
				[...sentBefore].map((id) => [id, unknownBefore.has(id) ? 'unknown' : 'created']),
			);
			return { alreadySent, count };
		} catch (error) {
			const failure =
				error instanceof SentListingsStoreError ? error : storeError(this.context, error, 'before');
			if (this.wroteDespiteFailure)
				failure.description = `${failure.description}\nNot sent, but possibly remembered as sent (the next run may skip them): ${ids.join(', ')}. Those this workflow never sent before: forget them with Listing → Forget Sent Listings before running again.`;
			throw await this.undoRecord(failure, keys, last);
		}
	}

	/** Nothing was sent: what this run recorded is forgotten again, or the IDs are named if it cannot be. */
	private async undoRecord(
		failure: SentListingsStoreError,
		keys: MemoryKeys,
		last: IDeduplicationOutput | undefined,
	): Promise<SentListingsStoreError> {
		const recorded = keys.of(last?.new ?? [], ['sent', 'old', 'unknown']);
		try {
			await this.forgetVerified(recorded);
		} catch {
			const named = keys.ids(keys.of(recorded, ['sent']));
			if (named.length)
				failure.description = `${failure.description}\nNot sent, but still remembered as sent (the next run would skip them): ${named.join(', ')}. Forget them with Listing → Forget Sent Listings before running again.`;
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
	 * After sending: created IDs recorded again if another run's write erased them, and those of unknown outcome with
	 * their "outcome unknown" entry; IDs the API provably did not create forgotten, and the "outcome unknown" entry
	 * of created ones and whatever the run added only to look. Both are tried whatever the other did.
	 */
	async afterSending(
		created: number[],
		unknown: number[],
		notCreated: number[],
	): Promise<AfterSending> {
		const keysOf = (ids: number[], kinds: Array<'sent' | 'unknown'>) =>
			new MemoryKeys(this.account, ids, kinds).all();
		let error: SentListingsStoreError | undefined;
		const keep = [...keysOf(created, ['sent']), ...keysOf(unknown, ['sent', 'unknown'])];
		try {
			if (keep.length) await this.recordVerified(keep, () => {});
		} catch (caught) {
			error = storeError(this.context, caught, 'after');
		}
		try {
			await this.forgetVerified([
				...keysOf(notCreated, ['sent', 'unknown']),
				...keysOf(created, ['unknown']),
				...this.lookedOnly,
			]);
			return { error, notForgotten: [] };
		} catch (caught) {
			return {
				error: error ?? storeError(this.context, caught, 'after'),
				notForgotten: notCreated,
			};
		}
	}

	/**
	 * A run that sent nothing takes out its markers and what it added only to look (a leftover marker only takes
	 * one entry; a leftover "outcome unknown" makes a later run say unknown rather than skipped).
	 */
	async release(): Promise<void> {
		await this.forgetVerified(this.lookedOnly).catch(() => undefined);
	}
}
