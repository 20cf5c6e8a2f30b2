/** What listings must not share (an ID, a ticket), in one run or across runs; rows whose listing is unknown. */
import type { IExecuteFunctions } from 'n8n-workflow';

import { seatIdentity } from '../../../schemas/listing';
import { failureOf } from '../memory/memoryFailure';
import { beforeSendingError } from '../memory/memoryMessages';
import type { HeldTicket, TicketMemory } from '../memory/ticketMemory';
import { labelOf, rowsText } from './fields';
import type {
	InvalidListing,
	ListedProduct,
	Listing,
	ListingRow,
	Problem,
	Product,
	ReadyListing,
} from './nouns';

function refused(listing: Listing, problems: Problem[]): InvalidListing {
	const { rows, label, externalListingId } = listing;
	return { kind: 'invalid', rows, label, externalListingId, problems };
}

/** A row whose External Listing ID cannot be read may belong to any listing of its event (of the run, without an
 * Event ID): each is held back, naming the row, since it could never get that seat added later. */
export function holdBackForUnknownRows(listings: Listing[], rows: ListingRow[]): Listing[] {
	const unknown = rows.filter((row) => row.unknownListing !== undefined);
	return listings.map((listing) => {
		if (listing.kind !== 'ready') return listing;
		const problems = unknown.flatMap(({ unknownListing, itemIndex }): Problem[] => {
			const { error, eventId } = unknownListing ?? { error: '' };
			if (eventId !== undefined && eventId !== listing.level.eventId) return [];
			const text =
				eventId !== undefined
					? `could not be read (${error}): the row may belong to any listing of event ${eventId}, and none is sent without it`
					: `could not be read (${error}), and the row has no usable Event ID either: it may belong to any listing of this run, and none is sent without it`;
			return [{ field: labelOf('externalListingId'), text, itemIndexes: [itemIndex] }];
		});
		return problems.length === 0 ? listing : refused(listing, problems);
	});
}

/** "listing 7001 (rows 1–2)", also for a listing per item ("row 3" alone does not name its ID). */
function listingName(listing: Listing): string {
	return listing.label.startsWith('listing ') || listing.externalListingId === undefined
		? listing.label
		: `listing ${listing.externalListingId} (${listing.label})`;
}

/** A ticket across listings: its seat, or a General Admission ticket's External ID; under another event, another. */
function ticketIdentity(eventId: unknown, product: Product): string {
	const seat = seatIdentity(product);
	const ticket = seat !== undefined ? `seat\u0000${seat}` : `id\u0000${product.externalId}`;
	return `${String(eventId)}\u0000${ticket}`;
}

/** A ticket another listing has already, as a problem of the listing that repeats it: `where` says which. */
function ticketTaken(listed: ListedProduct, where: string): Problem {
	const { product, itemIndex, label } = listed;
	const seated = seatIdentity(product) !== undefined;
	return {
		field: label([seated ? 'seat' : 'externalId']),
		text: seated
			? `row "${String(product.row)}" seat "${String(product.seat)}" is ${where}: a seat can be sold only once`
			: `"${product.externalId}" (General Admission) is ${where}: a ticket can be sold only once`,
		itemIndexes: [itemIndex],
	};
}

/** A ticket in two listings of one event could be sold twice: the later one is refused, naming the earlier. */
export function refuseTicketsListedBefore(listings: Listing[]): Listing[] {
	const firstListing = new Map<string, Listing>();
	return listings.map((listing) => {
		if (listing.kind !== 'ready') return listing;
		const { eventId } = listing.level;
		const problems: Problem[] = [];
		const tickets: string[] = [];
		for (const listed of listing.products) {
			const key = ticketIdentity(eventId, listed.product);
			const earlier = firstListing.get(key);
			if (earlier === undefined) tickets.push(key);
			else
				problems.push(ticketTaken(listed, `also in ${listingName(earlier)} of event ${eventId}`));
		}
		if (problems.length > 0) return refused(listing, problems);
		for (const key of tickets) firstListing.set(key, listing);
		return listing;
	});
}

/** Two items with one External Listing ID would create the listing twice (or be refused the second time). */
export function refuseRepeatedIds(listings: Listing[]): Listing[] {
	const firstRowById = new Map<number, number>();
	return listings.map((listing) => {
		const id = listing.externalListingId;
		if (id === undefined) return listing;
		const first = firstRowById.get(id);
		if (first === undefined) {
			firstRowById.set(id, listing.rows[0]);
			return listing;
		}
		const problem: Problem = {
			field: labelOf('externalListingId'),
			text: `${id} is already used by ${rowsText([first])}; to combine rows into one listing, choose Input Shape → Each Item Is a Ticket`,
			itemIndexes: listing.rows,
		};
		const earlier = listing.kind === 'invalid' ? listing.problems : [];
		return refused(listing, [...earlier, problem]);
	});
}

/** An AI Agent's tool runs once per call: the memory holds the tickets of earlier calls' listings. */
export function ticketsOf(listings: ReadyListing[]): HeldTicket[] {
	return listings.flatMap((listing) =>
		listing.products.map(({ product }) => ({
			ticket: ticketIdentity(listing.level.eventId, product),
			listingId: listing.externalListingId,
		})),
	);
}

/** Refuses a listing with a ticket another listing of an earlier run holds; nothing is sent if that is unknown. */
export async function refuseTicketsOfEarlierRuns(
	context: IExecuteFunctions,
	memory: TicketMemory,
	listings: Listing[],
): Promise<Listing[]> {
	const ready = listings.filter((listing): listing is ReadyListing => listing.kind === 'ready');
	const tickets = [...new Set(ticketsOf(ready).map((held) => held.ticket))];
	const holders = await memory.listedBefore(tickets).catch((error: unknown) => {
		const ids = ready.map((listing) => listing.externalListingId);
		throw beforeSendingError(context, failureOf(error), { ids, stillRemembered: [] });
	});
	return listings.map((listing) => {
		if (listing.kind !== 'ready') return listing;
		const problems = ticketsOf([listing]).flatMap(({ ticket }, index) => {
			const holder = holders.get(ticket);
			if (holder === undefined || holder === listing.externalListingId) return [];
			const where = `already in listing ${holder} of event ${String(listing.level.eventId)}, which this workflow listed in an earlier run`;
			return [ticketTaken(listing.products[index], where)];
		});
		return problems.length > 0 ? refused(listing, problems) : listing;
	});
}
