/** What Create created, for Pre-deliver: the marketplace ID (its UTF-8 bytes as bits: verifiedStore.ts), an entry a seat. */
import { createHash } from 'node:crypto';
import type { IExecuteFunctions } from 'n8n-workflow';

import { seatIdentity } from '../../../schemas/listing';
import { bitsNumber, keysOf, numberBits, SMALL_LOOK_ENTRIES, VerifiedStore } from './verifiedStore';
import { sentListingKey, type MemoryAccount } from './sentListings';

/** Longer marketplace IDs are not kept (each byte is up to 8 entries, and a look names all of them). */
export const MAX_ID_BYTES = 40;
const LENGTH_BITS = 6;
/** Bits of a hash of the ID beside it: a copy a look left wrong, or another look's bits, read as no ID. */
const CHECK_BITS = 16;
const ID_WIDTH = LENGTH_BITS + 8 * MAX_ID_BYTES + CHECK_BITS;
/** The ID is kept twice, each looked at in its own writes: a look that spoils one, the next repairs from the other. */
const copies = [1, 2];

export interface CreatedListing {
	externalListingId: number;
	marketplaceId: string;
	/** Its seats as seatName names them. */
	seats: string[];
}

const GA_SEAT = seatIdentity({ row: 'GA', seat: 'GA' });

/** A ticket's seat as Create and Pre-deliver name it (row and seat GA is general admission too); else undefined. */
export const seatName = (ticket: { ga?: unknown; row?: string; seat?: string }) => {
	const seat = seatIdentity(ticket);
	return ticket.ga || seat === GA_SEAT ? 'GA' : seat;
};

function textBits(text: string): boolean[] | undefined {
	const bytes = Buffer.from(text, 'utf8');
	if (bytes.length === 0 || bytes.length > MAX_ID_BYTES) return undefined;
	const padded = [...bytes, ...Array<number>(MAX_ID_BYTES - bytes.length).fill(0)];
	return [
		...numberBits(bytes.length, LENGTH_BITS),
		...padded.flatMap((b) => numberBits(b, 8)),
		...numberBits(createHash('sha256').update(bytes).digest().readUInt16BE(0), CHECK_BITS),
	];
}

/** The ID back from its bits; undefined for bits no ID has (a length out of range, stray bits, a wrong check). */
function bitsText(bits: boolean[]): string | undefined {
	const length = bitsNumber(bits.slice(0, LENGTH_BITS));
	const byte = (i: number) => bitsNumber(bits.slice(LENGTH_BITS + 8 * i, LENGTH_BITS + 8 * i + 8));
	const text = Buffer.from(Array.from({ length }, (_, i) => byte(i))).toString('utf8');
	// Only bits that the text read would write again are its bits (bytes not UTF-8 read as other text).
	return String(textBits(text)) === String(bits) ? text : undefined;
}

const idEntry = (account: MemoryAccount, id: number) =>
	`${sentListingKey(account, id)} marketplace listing`;
const copyEntry = (account: MemoryAccount, id: number, copy: number) =>
	`${idEntry(account, id)} copy ${copy}`;
const copyKeys = (account: MemoryAccount, id: number, bits: boolean[]) =>
	copies.flatMap((copy) => keysOf(copyEntry(account, id, copy), bits));
/** Under the marketplace ID too: the seats of a listing forgotten and created again do not mix. */
const seatEntry =
	(account: MemoryAccount, { externalListingId, marketplaceId }: CreatedListing) =>
	(seat: string) =>
		`${idEntry(account, externalListingId)} ${JSON.stringify([marketplaceId, seat])}`;

/** The entries that keep the listing; none for an ID too long to keep (Pre-deliver then finds no record). */
export function createdKeys(account: MemoryAccount, listing: CreatedListing): string[] {
	const bits = textBits(listing.marketplaceId);
	if (!bits) return [];
	const kept = copyKeys(account, listing.externalListingId, bits);
	return [...kept, ...listing.seats.map(seatEntry(account, listing))];
}

/** Every entry of the listing's marketplace ID, as forgetting the listing takes them out. */
export const createdIdKeys = (account: MemoryAccount, id: number) =>
	copyKeys(account, id, Array<boolean>(ID_WIDTH).fill(true));

/** Reads copies into `ids` and `spoiled`; returns the IDs held (valid or not), `stuck` once a look stayed behind. */
async function readCopies(
	store: VerifiedStore,
	account: MemoryAccount,
	asked: number[],
	{ ids, spoiled }: { ids: Map<number, string>; spoiled: Set<number> },
): Promise<{ held: Set<number>; stuck: boolean }> {
	const look = async (widths: Map<string, number>) =>
		await store.lookOnce(widths, SMALL_LOOK_ENTRIES);
	const leftBefore = store.leftovers.length;
	const stayed = () => store.leftovers.length > leftBefore;
	// The second copy's entries first, apart from its look: a record landing in one look spoils one copy.
	const second = await look(new Map(asked.map((id) => [copyEntry(account, id, 2), 0])));
	if (stayed()) return { held: new Set(asked), stuck: true };
	const held = new Set(asked.filter((id) => second.has(copyEntry(account, id, 2))));
	asked.filter((id) => !held.has(id)).forEach((id) => spoiled.add(id));
	const inSecond = [...held];
	for (const copy of copies) {
		const entryOf = (id: number) => copyEntry(account, id, copy);
		const wanted = (copy === 1 ? asked : inSecond).filter((id) => !ids.has(id));
		const found = await look(new Map(wanted.map((id) => [entryOf(id), ID_WIDTH])));
		for (const id of wanted) {
			const bits = found.get(entryOf(id));
			const marketplaceId = bits && bitsText(bits);
			if (bits) held.add(id);
			if (marketplaceId) ids.set(id, marketplaceId);
			else spoiled.add(id);
		}
		if (!stayed()) continue;
		// What the look left reads as bits set here (mended from the ID read, if any); another look would spoil more.
		wanted.forEach((id) => spoiled.add(id));
		return { held, stuck: true };
	}
	return { held, stuck: false };
}

/** Reads before saying a record held is unreadable: another run's look may have crossed this one. */
const READS = 3;

/** The listings Create recorded among these (marketplace ID, which seats asked it holds), and those held unreadable. */
export async function findCreated(
	context: IExecuteFunctions,
	account: MemoryAccount,
	asked: Map<number, string[]>,
): Promise<{ found: Map<number, CreatedListing>; unreadable: Set<number> }> {
	const store = new VerifiedStore(context);
	const ids = new Map<number, string>();
	let unreadable = new Set<number>();
	const spoiled = new Set<number>();
	let toRead = [...asked.keys()];
	for (let read = 1; read <= READS && toRead.length > 0; read++) {
		if (read > 1) await store.pause();
		const { held, stuck } = await readCopies(store, account, toRead, { ids, spoiled });
		unreadable = new Set([...held].filter((id) => !ids.has(id)));
		toRead = stuck ? [] : [...unreadable];
	}
	// A spoiled copy is rewritten from the ID read, unverified: one that fails stays as it was, the other still reads.
	for (const [id, marketplaceId] of ids) {
		if (!spoiled.has(id)) continue;
		const keep = copyKeys(account, id, textBits(marketplaceId)!);
		// Neither is ever empty: each copy has its entry, and no length up to MAX_ID_BYTES sets all its bits.
		await store.removeOnce(createdIdKeys(account, id).filter((key) => !keep.includes(key)));
		await store.recordOnce(keep);
	}
	const found = [...asked].flatMap(([externalListingId, seats]) => {
		const marketplaceId = ids.get(externalListingId);
		return marketplaceId ? [{ externalListingId, marketplaceId, seats }] : [];
	});
	const entries = found.flatMap((listing) => listing.seats.map(seatEntry(account, listing)));
	const held = await store.held(new Map(entries.map((entry) => [entry, 0])));
	const listings = found.map((listing) => {
		const seats = listing.seats.filter((seat) => held.has(seatEntry(account, listing)(seat)));
		return [listing.externalListingId, { ...listing, seats }] as const;
	});
	return { found: new Map(listings), unreadable };
}
