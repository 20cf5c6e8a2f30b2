/** Listings of Listing → Create and what became of them, as the tests of its output and stop summary use them. */
import { NodeApiError } from 'n8n-workflow';

import type { Outcome } from '../nodes/TicketMarketplace/actions/listing/create/nouns';
import type { Listing } from '../nodes/TicketMarketplace/actions/listing/create/nouns';

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
export const OUTCOMES: Array<[Listing, Outcome]> = [
	[ready(1, [0]), { kind: 'created', body: { id: 'L1' } }],
	[ready(2, [1]), { kind: 'notCreated', error: failure('refused') }],
	[ready(3, [2]), { kind: 'unknown', error: failure('reset') }],
	[ready(4, [3]), { kind: 'notSent' }],
	[ready(5, [4]), { kind: 'skipped', earlier: 'created' }],
];

/** Listing 6 on row 6, refused as already listed (HTTP 409). */
export const ALREADY_LISTED: [Listing, Outcome] = [
	ready(6, [5]),
	{
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
];
