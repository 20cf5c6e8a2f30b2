/**
 * Tickets named by their listing's External Listing ID, mapped through what Create recorded in this workflow's
 * memory (memory/createdListings.ts): the marketplace's listing ID, and the seats the listing holds.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorText } from '../../../helpers/errors';
import { findCreated, seatName } from '../memory/createdListings';
import { failureOf } from '../memory/memoryFailure';
import type { MemoryAccount } from '../memory/sentListings';
import { notAListingId, refusal } from './tickets';
import type { Refusal, Ticket } from './tickets';

const NO_RECORD =
	'Create remembers a listing for Pre-Deliver only in this workflow, with its Options → Remember Listings for Pre-Deliver and Skip Listings Already Sent on: check the ID, turn that option on in Create for the listings it creates from now on, or choose Listing → By Marketplace Listing ID and map the id Create output.';
const BY_ID = 'choose Listing → By Marketplace Listing ID and map the id Create output';
const FULL = `Looking a listing up writes to the memory for a moment, and it has no room left: forget listings you no longer list with Listing → Clear Sent Listings History, or ${BY_ID}.`;
const RETRY = `Run the workflow again, or ${BY_ID}.`;
const BAD_RECORD =
	"The marketplace answered Create with an ID no upload address can hold: choose Listing → By Marketplace Listing ID and map the listing's ID as the marketplace shows it.";
const UNREADABLE = `Create's record of it is in the memory, but it read differently at each look (another run looking at the same moment, or n8n's database failing to take out what a look wrote): run the workflow again, or ${BY_ID}.`;
const NOT_A_SEAT =
	'Create recorded the seats of this listing and this is not one of them: check the row and seat.';
const seatOf = (ticket: Ticket) => seatName(ticket)!;

/**
 * Each ticket named by External Listing ID with its marketplace listing ID; refused (without Continue On Fail, the
 * first refusal stops the run) when Create recorded no such listing, or recorded its seats without this one.
 */
export async function mapExternalIds(
	context: IExecuteFunctions,
	tickets: Array<Ticket | Refusal>,
	account: MemoryAccount,
): Promise<Array<Ticket | Refusal>> {
	const asked = new Map<number, string[]>();
	for (const ticket of tickets) {
		const id = ticket instanceof Error ? undefined : ticket.externalListingId;
		if (id !== undefined) asked.set(id, [...(asked.get(id) ?? []), seatOf(ticket as Ticket)]);
	}
	if (asked.size === 0) return tickets;
	const { found, unreadable } = await findCreated(context, account, asked).catch((error) => {
		// Running again does not make room: only forgetting does, or not looking.
		const full = failureOf(error).kind === 'full';
		const message = `Could not read which listings Create created: ${full ? "n8n's memory of this workflow is full" : errorText(error)}`;
		const description = full ? `Nothing was sent. ${FULL}` : `Nothing was sent. ${RETRY}`;
		throw new NodeOperationError(context.getNode(), message, { description });
	});
	return tickets.map((ticket) => {
		const id = ticket instanceof Error ? undefined : ticket.externalListingId;
		if (id === undefined) return ticket;
		const { itemIndex, row, seat } = ticket as Ticket;
		const listing = found.get(id);
		const refuse = (message: string, what: string) => refusal(context, itemIndex, message, what);
		const wrongId = listing && notAListingId(listing.marketplaceId);
		const refused = unreadable.has(id)
			? refuse(`Create's record of External Listing ID ${id} could not be read`, UNREADABLE)
			: !listing
				? refuse(
						`this workflow's Listing → Create has no record of External Listing ID ${id}`,
						NO_RECORD,
					)
				: wrongId !== undefined
					? refuse(`listing ${id} was created as ${wrongId}`, BAD_RECORD)
					: !listing.seats.includes(seatOf(ticket as Ticket))
						? refuse(`listing ${id} holds no ticket at row ${row}, seat ${seat}`, NOT_A_SEAT)
						: undefined;
		if (refused && !context.continueOnFail()) throw refused;
		return refused ?? { ...(ticket as Ticket), listingId: listing!.marketplaceId };
	});
}
