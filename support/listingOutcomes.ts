/** Listings of Listing → Create and what became of them, as the tests of its output and stop summary use them. */
import { NodeApiError } from 'n8n-workflow';

import type { ListingOutcome } from '../nodes/TicketMarketplace/actions/listing/create/outcome';
import type { Listing } from '../nodes/TicketMarketplace/actions/listing/create/validateListing';

const NODE = {
	id: '1',
	name: 'Create',
	type: 'test',
	typeVersion: 1,
	position: [0, 0] as [number, number],
	parameters: {},
};

export function ready(id: number, rows: number[]): Listing {
	return {
		kind: 'ready',
		rows,
		label: `listing ${id} (rows ${rows.map((row) => row + 1).join(' and ')})`,
		externalListingId: id,
		level: {
			eventId: 1,
			pricePerProduct: { amount: 1, currency: 'EUR' },
			externalListingId: id,
			stockType: ['PDF'],
			paymentType: 1,
			acceptLanguage: 'en-US',
		},
		products: [],
	};
}

export const failure = (message: string) => new NodeApiError(NODE, {}, { message });

/** One listing of each outcome but alreadyListed, listings 1 to 5 on rows 1 to 5. */
export const OUTCOMES: ListingOutcome[] = [
	{
		listing: ready(1, [0]),
		outcome: { kind: 'created', body: { id: 'L1' } },
	},
	{
		listing: ready(2, [1]),
		outcome: { kind: 'notCreated', error: failure('refused') },
	},
	{
		listing: ready(3, [2]),
		outcome: { kind: 'unknown', error: failure('reset') },
	},
	{ listing: ready(4, [3]), outcome: { kind: 'notSent' } },
	{ listing: ready(5, [4]), outcome: { kind: 'skipped', earlier: 'created' } },
];

/** Listing 6 on row 6, refused as already listed (HTTP 409). */
export const ALREADY_LISTED: ListingOutcome = {
	listing: ready(6, [5]),
	outcome: {
		kind: 'alreadyListed',
		error: new NodeApiError(
			NODE,
			{},
			{
				message: 'Already listed: the API holds a listing with this External Listing ID (HTTP 409)',
				description: 'The API said: "taken". Nothing new was created.',
			},
		),
	},
};
