/** How a run uses the memory of listings sent; the protocol is verifiedStore.ts, the words memoryMessages.ts. */
import type { IExecuteFunctions } from 'n8n-workflow';

import { createdIdKeys, createdKeys, type CreatedListing } from './createdListings';
import { failureOf, MemoryFailureError } from './memoryFailure';
import {
	beforeSendingError,
	forgetError,
	forgetUnansweredError,
	memoryError,
	type SentListingsStoreError,
} from './memoryMessages';
import { MemoryKeys, type KeyKind, type MemoryAccount } from './sentListings';
import {
	LOOK_ROOM,
	MARKERS_PER_WRITE,
	nearCap,
	SENT_LISTINGS_CAP,
	VerifiedStore,
} from './verifiedStore';

/** What the memory knows of an ID sent before: the API created it, or its outcome was never known. */
export type EarlierOutcome = 'created' | 'unknown';

const RECORDED: KeyKind[] = ['sent', 'unknown'];

/** One run's use of the memory; an ID sent holds an "outcome unknown" entry until the API's answer says otherwise. */
export class RunMemory {
	private readonly store: VerifiedStore;

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly account: MemoryAccount,
	) {
		this.store = new VerifiedStore(context);
	}

	/** Records the IDs, outcome unknown; returns those sent before: held twice across a pause (a look writes too). */
	async recordBeforeSending(
		ids: number[],
	): Promise<{ alreadySent: Map<number, EarlierOutcome>; count?: number }> {
		const keys = new MemoryKeys(this.account, ids, RECORDED);
		const added: string[] = [];
		let forgottenAlthoughSent: number[] | undefined;
		try {
			const held = await this.ensureRoom(keys);
			const write = async (batch: string[]): Promise<string[]> => {
				const written = await this.store.record(batch);
				// Not a write a look proved erased: a key it found new and that is held now is another run's.
				added.push(...keys.of(written.unproven?.new ?? [], RECORDED));
				if (!written.ok) throw new MemoryFailureError(written.failure);
				return keys.of(written.stood.processed, RECORDED);
			};
			let seen = await write(keys.all());
			if (seen.length > 0) {
				await this.store.pause();
				seen = await write(seen);
			}
			const sentBefore = new Set(keys.ids(seen));
			const unknownBefore = new Set(keys.ids(keys.of(seen, ['unknown'])));
			// The "outcome unknown" entry this run added for an ID it skips was only a look: out at once.
			const lookedOnly = keys.of(added, ['unknown'], sentBefore);
			await this.store.forgetAhead(lookedOnly);
			// Counted from the start's count and what stayed, not read again (a count reads the whole list).
			const stays = new Set(added.filter((key) => !lookedOnly.includes(key)));
			const count = held === undefined ? undefined : held + stays.size;
			if (seen.length > 0 && nearCap(count)) {
				// IDs seen again become the most recent (n8n drops the oldest first): forgotten, recorded again.
				const removed = await this.store.removeOnce(seen);
				if (!removed.ok) throw new MemoryFailureError(removed.failure);
				const recorded = await this.store.recordOnce(seen);
				if (!recorded.ok) forgottenAlthoughSent = [...sentBefore];
				if (!recorded.ok) throw new MemoryFailureError(recorded.failure);
			}
			const alreadySent = new Map<number, EarlierOutcome>(
				[...sentBefore].map((id) => [id, unknownBefore.has(id) ? 'unknown' : 'created']),
			);
			return { alreadySent, count };
		} catch (error) {
			// Nothing was sent: what this run recorded is forgotten again, or said still remembered.
			const recorded = [...new Set([...added, ...this.store.lookedOnly])];
			const undone = await this.store.forget(recorded);
			const stillRemembered = undone.ok ? [] : keys.ids(keys.of(recorded, ['sent']));
			const left = { ids, forgottenAlthoughSent, stillRemembered };
			throw beforeSendingError(this.context, failureOf(error), left);
		}
	}

	/** Past its cap n8n drops the oldest IDs, which would be sent again: the run's keys must fit. Returns the count. */
	private async ensureRoom(keys: MemoryKeys): Promise<number | undefined> {
		const held = await this.store.count();
		if (held === undefined) return held;
		const room = SENT_LISTINGS_CAP - held;
		const needed = (keptHeld: number, writes: number) =>
			keys.all().length - keptHeld + (writes + 1) * MARKERS_PER_WRITE;
		if (needed(0, 0) <= room) return held;
		// Near the cap, a look tells how many of the IDs' keys are held already (a sheet run again); 0 if it cannot.
		const own = keys.of(keys.all(), ['sent']);
		let keptHeld = 0;
		if (own.length + 2 * MARKERS_PER_WRITE <= room) {
			const looked = await this.store.recordMarked(own);
			if (!looked.ok) throw new MemoryFailureError(looked.failure);
			const added = keys.of(looked.answer.new, ['sent']);
			// A key left here would be taken for a listing sent: the run is refused, and its record undone.
			if (await this.store.forgetAhead(added)) keptHeld = own.length - added.length;
			if (needed(keptHeld, 1) <= room) return held;
		}
		throw new MemoryFailureError({ kind: 'full', held, needed: needed(keptHeld, 0) });
	}

	/** Forgets the IDs on request; returns those held. The look writes with a marker, which the removal verifies. */
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
			throw forgetError(this.context, forgotten.failure, look !== undefined, left, held);
		}
		if (look === undefined) throw forgetUnansweredError(this.context, ids);
		return held;
	}

	/** After sending: the created and unknown kept (`withEvidence` for Pre-deliver), the not created forgotten. */
	async afterSending(
		created: number[],
		unknown: number[],
		notCreated: number[],
		withEvidence: CreatedListing[] = [],
	): Promise<{ error?: SentListingsStoreError; notForgotten: number[] }> {
		const keysOf = (ids: number[], kinds: KeyKind[]) =>
			new MemoryKeys(this.account, ids, kinds).all();
		const keep = [...keysOf(created, ['sent']), ...keysOf(unknown, RECORDED)];
		keep.push(...withEvidence.flatMap((listing) => createdKeys(this.account, listing)));
		const kept = keep.length ? await this.store.record(keep) : undefined;
		const error = kept?.ok === false ? memoryError(this.context, kept.failure, 'after') : undefined;
		const forgotten = await this.store.forget([
			...keysOf(notCreated, RECORDED),
			...keysOf(created, ['unknown']),
			...this.store.lookedOnly,
		]);
		if (forgotten.ok) return { error, notForgotten: [] };
		const failed = error ?? memoryError(this.context, forgotten.failure, 'after');
		return { error: failed, notForgotten: notCreated };
	}

	/** Whether the listings' record for Pre-deliver fits under the cap, with room left for its look (a look writes). */
	async fitsCreated(listings: CreatedListing[]): Promise<boolean> {
		const held = await this.store.count();
		const needed = listings.flatMap((listing) => createdKeys(this.account, listing)).length;
		return held !== undefined && held + needed + MARKERS_PER_WRITE + LOOK_ROOM <= SENT_LISTINGS_CAP;
	}

	/** A run that sent nothing takes out its markers and its looks. */
	async release(): Promise<void> {
		await this.store.forget(this.store.lookedOnly);
	}
}
