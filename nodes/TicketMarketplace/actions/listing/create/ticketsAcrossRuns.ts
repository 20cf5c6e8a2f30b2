/**
 * As an AI Agent's tool, "one ticket in one listing" holds across runs: every tool call is a run of its own, so the
 * tickets of earlier calls are looked up in the memory (memory/ticketMemory.ts) before sending, the new ones are
 * recorded, and those of listings the API provably did not create are forgotten after.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { failureOf } from '../memory/memoryFailure';
import { beforeSendingError } from '../memory/memoryMessages';
import type { HeldTicket, TicketMemory } from '../memory/ticketMemory';
import { refused, ticketIdentity, ticketTaken } from './acrossListings';
import type { Listing, ReadyListing } from './nouns';

export function ticketsOf(listings: ReadyListing[]): HeldTicket[] {
	return listings.flatMap((listing) =>
		listing.products.map(({ product }) => ({
			ticket: ticketIdentity(listing.level.eventId, product),
			listingId: listing.externalListingId,
		})),
	);
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
				: [
						ticketTaken(
							listing.products[index],
							`already in listing ${holder} of event ${String(listing.level.eventId)}, which this workflow listed in an earlier run`,
						),
					];
		});
		return problems.length > 0 ? refused(listing, problems) : listing;
	});
}
