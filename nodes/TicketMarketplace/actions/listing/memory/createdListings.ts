/**
 * What Create created (when asked to remember it), for Pre-deliver to name a listing by its External Listing ID: the
 * marketplace's listing ID (text: its UTF-8 bytes and their count, as bits; keptBits.ts) and each seat as an entry.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { seatIdentity } from '../../../schemas/listing';
import { bitsNumber, everyBit, KeptBits, keysOf, numberBits } from './keptBits';
import { sentListingKey, type MemoryAccount } from './sentListings';

/** Longer marketplace IDs are not kept (each byte is up to 8 entries, and a look names all of them). */
export const MAX_ID_BYTES = 40;
const LENGTH_BITS = 6;
const ID_WIDTH = LENGTH_BITS + 8 * MAX_ID_BYTES;

export interface CreatedListing {
	externalListingId: number;
	marketplaceId: string;
	/** Its seats as seatName names them. */
	seats: string[];
}

const GA_SEAT = seatIdentity({ row: 'GA', seat: 'GA' });

/**
 * A ticket's seat as Create and Pre-deliver name it; undefined for a ticket with neither seat nor GA. Row and seat GA
 * is general admission too: the service names a general admission ticket so.
 */
export const seatName = (ticket: { ga?: unknown; row?: string; seat?: string }) => {
	const seat = seatIdentity(ticket);
	return ticket.ga || seat === GA_SEAT ? 'GA' : seat;
};

function textBits(text: string): boolean[] | undefined {
	const bytes = Buffer.from(text, 'utf8');
	if (bytes.length === 0 || bytes.length > MAX_ID_BYTES) return undefined;
	const padded = [...bytes, ...Array<number>(MAX_ID_BYTES - bytes.length).fill(0)];
	return [...numberBits(bytes.length, LENGTH_BITS), ...padded.flatMap((b) => numberBits(b, 8))];
}

/** The ID back from its bits; undefined for bits no ID has (a length out of range, stray bits, not UTF-8). */
function bitsText(bits: boolean[]): string | undefined {
	const length = bitsNumber(bits.slice(0, LENGTH_BITS));
	const bytes = Array.from({ length: MAX_ID_BYTES }, (_, i) =>
		bitsNumber(bits.slice(LENGTH_BITS + 8 * i, LENGTH_BITS + 8 * i + 8)),
	);
	if (length === 0 || length > MAX_ID_BYTES || bytes.slice(length).some(Boolean)) return undefined;
	try {
		return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(bytes.slice(0, length)));
	} catch {
		return undefined;
	}
}

const idEntry = (account: MemoryAccount, id: number) =>
	`${sentListingKey(account, id)} marketplace listing`;
/** Under the marketplace ID too: the seats of a listing forgotten and created again do not mix. */
const seatEntry =
	(account: MemoryAccount, { externalListingId, marketplaceId }: CreatedListing) =>
	(seat: string) =>
		`${idEntry(account, externalListingId)} ${JSON.stringify([marketplaceId, seat])}`;

/** The entries that keep the listing; none for an ID too long to keep (Pre-deliver then finds no record). */
export function createdKeys(account: MemoryAccount, listing: CreatedListing): string[] {
	const bits = textBits(listing.marketplaceId);
	if (!bits) return [];
	const entry = idEntry(account, listing.externalListingId);
	return [...keysOf({ entry, bits }), ...listing.seats.map(seatEntry(account, listing))];
}

/** Every entry of the listing's marketplace ID, as forgetting the listing takes them out. */
export const createdIdKeys = (account: MemoryAccount, id: number) => [
	idEntry(account, id),
	...everyBit(idEntry(account, id), ID_WIDTH),
];

/** The listings Create recorded among these, each with its marketplace ID and which of the seats asked it holds. */
export async function findCreated(
	context: IExecuteFunctions,
	account: MemoryAccount,
	asked: Map<number, string[]>,
): Promise<Map<number, CreatedListing>> {
	const kept = new KeptBits(context);
	const ids = await kept.held(
		new Map([...asked.keys()].map((id) => [idEntry(account, id), ID_WIDTH])),
	);
	const found = [...asked].flatMap(([externalListingId, seats]) => {
		const bits = ids.get(idEntry(account, externalListingId));
		const marketplaceId = bits && bitsText(bits);
		return marketplaceId ? [{ externalListingId, marketplaceId, seats }] : [];
	});
	const entries = found.flatMap((listing) => listing.seats.map(seatEntry(account, listing)));
	const seats = await kept.held(new Map(entries.map((entry) => [entry, 0])));
	return new Map(
		found.map((listing) => {
			const held = listing.seats.filter((seat) => seats.has(seatEntry(account, listing)(seat)));
			return [listing.externalListingId, { ...listing, seats: held }];
		}),
	);
}
