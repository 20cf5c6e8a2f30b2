/**
 * As an AI Agent's tool, "one ticket in one listing" holds across runs: every tool call is a run of its own, so the
 * tickets of earlier calls are looked up in the memory (memory/ticketMemory.ts) before sending, the new ones are
 * recorded, and those of listings the API provably did not create are forgotten after.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { failureOf } from '../memory/memoryFailure';
import { beforeSendingError } from '../memory/memoryMessages';
import type { MemoryAccount } from '../memory/sentListings';
import { TicketMemory, type HeldTicket } from '../memory/ticketMemory';
import { refused, ticketIdentity } from './read';
import type { Problem } from './problems';
import type { Listing, ReadyListing } from './validateListing';

export { TicketMemory };

export function ticketsOf(listings: ReadyListing[]): HeldTicket[] {
	return listings.flatMap((listing) =>
		listing.products.map(({ product }) => ({
			ticket: ticketIdentity(listing.level.eventId, product),
			listingId: listing.externalListingId,
		})),
	);
}

export function openTicketMemory(context: IExecuteFunctions, account: MemoryAccount): TicketMemory {
	return new TicketMemory(context, account);
}

/** A ticket held by another listing that an earlier run listed, as a problem of the listing that repeats it. */
function problemOf(listing: ReadyListing, index: number, holder: number): Problem {
	const { product, itemIndex, seatField, externalIdField } = listing.products[index];
	const { eventId } = listing.level;
	const where = `listing ${holder} of event ${String(eventId)}, which this workflow listed in an earlier run`;
	return product.ga || product.seat === undefined
		? {
				field: externalIdField,
				text: `"${product.externalId}" (General Admission) is already in ${where}: a ticket can be sold only once`,
				itemIndexes: [itemIndex],
			}
		: {
				field: seatField,
				text: `row "${String(product.row)}" seat "${String(product.seat)}" is already in ${where}: a seat can be sold only once`,
				itemIndexes: [itemIndex],
			};
}

/**
 * Refuses, before anything is sent, a listing with a ticket that another listing of an earlier run holds (the same
 * listing sent again is the memory of sent listings' to skip). Nothing is sent when the memory cannot be read.
 */
export async function refuseTicketsOfEarlierRuns(
	context: IExecuteFunctions,
	memory: TicketMemory,
	listings: Listing[],
): Promise<Listing[]> {
	const ready = listings.filter((listing): listing is ReadyListing => listing.kind === 'ready');
	let holders: Map<string, number>;
	try {
		holders = await memory.listedBefore([...new Set(ticketsOf(ready).map((held) => held.ticket))]);
	} catch (error) {
		const ids = ready.map((listing) => listing.externalListingId);
		throw beforeSendingError(context, failureOf(error), { ids, stillRemembered: [] });
	}
	return listings.map((listing) => {
		if (listing.kind !== 'ready') return listing;
		const problems = ticketsOf([listing]).flatMap(({ ticket }, index) => {
			const holder = holders.get(ticket);
			return holder === undefined || holder === listing.externalListingId
				? []
				: [problemOf(listing, index, holder)];
		});
		return problems.length > 0 ? refused(listing, problems) : listing;
	});
}
