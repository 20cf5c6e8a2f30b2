/**
 * How a run uses the memory of listings sent: what Listing → Create records before sending and settles after, and
 * what Clear Sent Listings History forgets. The protocol is verifiedStore.ts; the user's words, memoryMessages.ts.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { createdIdKeys, createdKeys, type CreatedListing } from './createdListings';
import { failureOf, MemoryFailureError } from './memoryFailure';
import type { MemoryFailure } from './memoryFailure';
import {
	beforeSendingError,
	forgetError,
	forgetUnansweredError,
	memoryError,
} from './memoryMessages';
import type { SentListingsStoreError } from './memoryMessages';
import { MemoryKeys, nearCap, SENT_LISTINGS_CAP } from './sentListings';
import type { KeyKind, MemoryAccount } from './sentListings';
import { MARKERS_PER_WRITE, VerifiedStore } from './verifiedStore';

/** Refreshing IDs seen again failed after they were forgotten: they are lost from the memory. */
class RefreshFailure extends MemoryFailureError {
	constructor(
		failure: MemoryFailure,
		readonly forgottenAlthoughSent: number[],
	) {
		super(failure);
	}
}

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
 * One run's use of the memory of listings sent, through verified writes (verifiedStore.ts).
 *
 * Each ID sent is held with an "outcome unknown" entry from its record before sending until the API's answer says
 * otherwise: a listing whose answer never came (a 5xx, a run that died) stays "unknown" for later runs, which say
 * so instead of "skipped". The store keeps values only (no time), and a look must name the exact value it looks
 * for, so the memory cannot also say when a listing was sent.
 */
export class RunMemory {
	private readonly store: VerifiedStore;
	/**
	 * Keys this run added only to look for them ("outcome unknown" of an ID it skips, its own keys near the cap):
	 * taken out at once, and again with the run's last removal, which is verified.
	 */
	private lookedOnly: string[] = [];

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly account: MemoryAccount,
	) {
		this.store = new VerifiedStore(context);
	}

	/**
	 * Records the IDs as sent and of unknown outcome, before sending; returns those an earlier (or concurrent) run sent
	 * already, with what the memory knows of them.
	 *
	 * n8n's store only looks by writing, so a key held may be another run's look, there for a moment (Clear Sent
	 * Listings History, or a run near the cap counting what it holds): what is held is looked at again after a pause,
	 * and only what is still held counts as sent. This run's own looks leave again at once.
	 */
	async recordBeforeSending(ids: number[]): Promise<Recorded> {
		const kinds: KeyKind[] = ['sent', 'unknown'];
		const keys = new MemoryKeys(this.account, ids, kinds);
		const added: string[] = [];
		try {
			// Past its cap n8n drops the oldest IDs, which later runs would send again: the run's keys must fit. The
			// run's only count.
			const held = await this.store.count();
			const room = held === undefined ? Number.POSITIVE_INFINITY : SENT_LISTINGS_CAP - held;
			const kept = keys.all();
			let writes = 0;
			/** Keys of `kept` provably held already: they take no room. */
			let keptHeld = 0;
			const roomLeft = () => room - (kept.length - keptHeld) - (writes + 1) * MARKERS_PER_WRITE;
			if (roomLeft() < 0) keptHeld = await this.heldAlready(keys, room, () => writes++);
			if (roomLeft() < 0)
				throw new MemoryFailureError({
					kind: 'full',
					held: held!,
					needed: kept.length - keptHeld + MARKERS_PER_WRITE,
					cap: SENT_LISTINGS_CAP,
				});
			/** One verified write; returns what it found held. */
			const write = async (batch: string[]): Promise<string[]> => {
				const written = await this.store.record(batch);
				for (const answer of written.answers) added.push(...keys.of(answer.new, kinds));
				if (!written.ok) throw new MemoryFailureError(written.failure);
				writes++;
				return keys.of(written.stood.processed, kinds);
			};
			let seen = await write(kept);
			if (seen.length > 0) {
				await this.store.pause();
				seen = await write(seen);
			}
			const sentBefore = new Set(keys.ids(seen));
			const unknownBefore = new Set(keys.ids(keys.of(seen, ['unknown'])));
			// The "outcome unknown" entry this run added for an ID it skips was only a look.
			const lookedOnly = keys.of(added, ['unknown'], sentBefore);
			await this.forgetNow(lookedOnly);
			// Counted from the start's count and what this run added, rather than read again whole (a count reads
			// the whole list, like any store call): only the near-cap notice and the refresh depend on it.
			const stays = new Set(keys.of(added, ['sent', 'unknown']));
			for (const key of lookedOnly) stays.delete(key);
			const count = held === undefined ? undefined : held + stays.size;
			if (seen.length > 0 && nearCap(count)) await this.refresh(seen, [...sentBefore]);
			const alreadySent = new Map<number, EarlierOutcome>(
				[...sentBefore].map((id) => [id, unknownBefore.has(id) ? 'unknown' : 'created']),
			);
			return { alreadySent, count };
		} catch (error) {
			throw beforeSendingError(this.context, failureOf(error), {
				ids,
				forgottenAlthoughSent:
					error instanceof RefreshFailure ? error.forgottenAlthoughSent : undefined,
				stillRemembered: await this.undoRecord(keys, added),
			});
		}
	}

	/**
	 * Near the cap, how many of the IDs' own keys the memory holds already (a sheet run again): counted as new, they
	 * would refuse a run that adds little. Looked at by a write where the room allows it, its new keys out again
	 * at once, verified; 0 when the room does not allow it or the look did not provably leave. Like the count, a
	 * moment's answer: another run may change the memory before this run writes.
	 */
	private async heldAlready(keys: MemoryKeys, room: number, wrote: () => void): Promise<number> {
		const own = keys.of(keys.all(), ['sent']);
		if (own.length + 2 * MARKERS_PER_WRITE > room) return 0;
		const looked = await this.store.recordMarked(own);
		if (!looked.ok) throw new MemoryFailureError(looked.failure);
		wrote();
		const added = keys.of(looked.answer.new, ['sent']);
		await this.forgetNow(added);
		// A key still here would be taken for a listing sent: the run is refused, and its record undone.
		if (added.some((key) => this.lookedOnly.includes(key))) return 0;
		return own.length - added.length;
	}

	/**
	 * Takes out at once keys this run wrote only to look, so that no other run takes them for sent listings. Left
	 * unverified, they go again with the run's last removal.
	 */
	private async forgetNow(keys: string[]): Promise<void> {
		if (keys.length === 0) return;
		this.lookedOnly.push(...keys);
		if (await this.store.forgetAhead(keys))
			this.lookedOnly = this.lookedOnly.filter((key) => !keys.includes(key));
	}

	/**
	 * Forgets IDs on request (Listing → Clear Sent Listings History) and says which the memory held (under this account's
	 * key, or an earlier version's). The look writes the keys it does not find, with a marker; the removal of every
	 * key of the IDs is then verified like any other, so a stale write of another run that brings the look's keys
	 * back brings the marker back too, and they are removed again.
	 */
	async forgetOnRequest(ids: number[]): Promise<Set<number>> {
		if (ids.length === 0) return new Set();
		const keys = new MemoryKeys(this.account, ids, ['sent', 'old', 'unknown']);
		const looked = await this.store.recordMarked(keys.of(keys.all(), ['sent', 'old']));
		const look = looked.ok ? looked.answer : undefined;
		const held = new Set(look ? keys.ids(keys.of(look.processed, ['sent', 'old'])) : []);
		const createdIds = ids.flatMap((id) => createdIdKeys(this.account, id));
		const forgotten = await this.store.forget([...keys.all(), ...createdIds]);
		if (!forgotten.ok) {
			const left = look ? keys.ids(keys.of(look.new, ['sent', 'old'])) : ids;
			throw forgetError(this.context, forgotten.failure, {
				looked: look !== undefined,
				added: left.filter((id) => !held.has(id)),
				alsoOld: left.filter((id) => held.has(id)),
				left,
			});
		}
		if (look === undefined) throw forgetUnansweredError(this.context, ids);
		return held;
	}

	/** Nothing was sent: what this run recorded is forgotten again; returns the IDs still remembered if it cannot be. */
	private async undoRecord(keys: MemoryKeys, added: string[]): Promise<number[]> {
		const recorded = [...new Set([...added, ...this.lookedOnly])];
		const undone = await this.store.forget(recorded);
		return undone.ok ? [] : keys.ids(keys.of(recorded, ['sent']));
	}

	/**
	 * Near the cap, marks IDs seen again as the most recent ones (n8n drops the oldest first): forgotten, then
	 * recorded again.
	 */
	private async refresh(keys: string[], ids: number[]): Promise<void> {
		const removed = await this.store.removeOnce(keys);
		if (!removed.ok) throw new MemoryFailureError(removed.failure);
		const recorded = await this.store.recordOnce(keys);
		if (!recorded.ok) throw new RefreshFailure(recorded.failure, ids);
	}

	/**
	 * After sending: created IDs recorded again if another run's write erased them, and those of unknown outcome with
	 * their "outcome unknown" entry; IDs the API provably did not create forgotten, and the "outcome unknown" entry
	 * of created ones and whatever the run added only to look. Both are tried whatever the other did. The listings
	 * created with evidence are kept with their marketplace ID and seats, in the same write (createdListings.ts).
	 */
	async afterSending(
		created: number[],
		unknown: number[],
		notCreated: number[],
		withEvidence: CreatedListing[] = [],
	): Promise<AfterSending> {
		const keysOf = (ids: number[], kinds: Array<'sent' | 'unknown'>) =>
			new MemoryKeys(this.account, ids, kinds).all();
		const keep = [...keysOf(created, ['sent']), ...keysOf(unknown, ['sent', 'unknown'])];
		keep.push(...withEvidence.flatMap((listing) => createdKeys(this.account, listing)));
		const kept = keep.length ? await this.store.record(keep) : undefined;
		const error = kept?.ok === false ? memoryError(this.context, kept.failure, 'after') : undefined;
		const forgotten = await this.store.forget([
			...keysOf(notCreated, ['sent', 'unknown']),
			...keysOf(created, ['unknown']),
			...this.lookedOnly,
		]);
		if (forgotten.ok) return { error, notForgotten: [] };
		return {
			error: error ?? memoryError(this.context, forgotten.failure, 'after'),
			notForgotten: notCreated,
		};
	}

	/**
	 * A run that sent nothing takes out its markers and what it added only to look (a leftover marker only takes
	 * one entry; a leftover "outcome unknown" makes a later run say unknown rather than skipped).
	 */
	async release(): Promise<void> {
		await this.store.forget(this.lookedOnly);
	}
}
