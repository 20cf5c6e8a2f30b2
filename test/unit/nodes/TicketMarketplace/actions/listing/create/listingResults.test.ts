/** The results stage of Listing → Create on its own: outcomes to output items and to the stop summary. */
import { NodeApiError } from 'n8n-workflow';

import type { Listing } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/validateListing';
import {
	listingItem,
	rowItems,
} from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/listingResults';
import { stopSummary } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/report';
import type { ListingOutcome } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/outcome';

const NODE = {
	id: '1',
	name: 'Create',
	type: 'test',
	typeVersion: 1,
	position: [0, 0] as [number, number],
	parameters: {},
};

function ready(id: number, rows: number[]): Listing {
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

const failure = (message: string) => new NodeApiError(NODE, {}, { message });

describe('Listing → Create results: one outcome per listing', () => {
	const reports: ListingOutcome[] = [
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

	it('names every listing in exactly one group of the stop summary', () => {
		const summary = stopSummary(reports, true);
		const lines = summary.split('\n');
		expect(lines).toEqual([
			'Created in this run: 1 listing (1).',
			'Not created: 1 listing (2): refused.',
			'Outcome unknown, may have been created: 1 listing (3): reset.',
			'  Look these up on the marketplace by External Listing ID before sending them again.',
			'Not sent, the run stopped first: 1 listing (4).',
			'Skipped, already sent by this workflow: 1 listing (5).',
			'Skip Listings Already Sent is on: once the cause is fixed, run the workflow again; it sends only the listings not created and not sent, and skips the others.',
		]);
		for (const id of [1, 2, 3, 4, 5]) {
			expect(summary.match(new RegExp(`\\(${id}\\)`, 'g'))).toHaveLength(1);
		}
	});

	it('counts each group and names its first listings, however many; several reasons get a line each', () => {
		const many: ListingOutcome[] = Array.from({ length: 400 }, (_, index) => ({
			listing: ready(index + 1, [index]),
			outcome:
				index === 0
					? { kind: 'notCreated', error: failure('Login refused') }
					: index < 5
						? { kind: 'notCreated', error: failure(`reason ${index}`) }
						: { kind: 'notSent' },
		}));
		const summary = stopSummary(many, false);
		expect(summary.split('\n')).toEqual([
			'No listing was created in this run.',
			'Not created: 5 listings:',
			'  - Login refused: 1',
			'  - reason 1: 2',
			'  - reason 2: 3',
			'  - for other reasons: 4 and 5',
			'Not sent, the run stopped first: 395 listings (6, 7, 8, 9, 10, 11, 12, 13, 14, 15 and 385 more).',
		]);
	});

	it('gives each row its listing status, paired with that row; a listing item pairs all its rows', () => {
		const items = [{ json: { seat: 'A1' } }, { json: { seat: 'A2' } }];
		const grouped: ListingOutcome = {
			listing: ready(7, [0, 1]),
			outcome: { kind: 'notSent' },
		};
		expect(rowItems(items, grouped)).toEqual([
			[
				0,
				expect.objectContaining({
					json: expect.objectContaining({
						seat: 'A1',
						listingStatus: 'failed',
						externalListingId: 7,
					}),
					pairedItem: { item: 0 },
				}),
			],
			[
				1,
				expect.objectContaining({
					json: expect.objectContaining({ seat: 'A2', listingStatus: 'failed' }),
					pairedItem: { item: 1 },
				}),
			],
		]);
		expect(listingItem(grouped).pairedItem).toEqual([{ item: 0 }, { item: 1 }]);
		expect(listingItem(reports[0])).toEqual({ json: { id: 'L1' }, pairedItem: [{ item: 0 }] });
	});

	it('names an already listed listing once in the stop summary and keeps it off the error output', () => {
		const conflict: ListingOutcome = {
			listing: ready(6, [5]),
			outcome: {
				kind: 'alreadyListed',
				error: new NodeApiError(
					NODE,
					{},
					{
						message:
							'Already listed: the API holds a listing with this External Listing ID (HTTP 409)',
						description: 'The API said: "taken". Nothing new was created.',
					},
				),
			},
		};
		const summary = stopSummary([...reports, conflict], true);
		expect(summary).toContain(
			'Already listed (the API holds a listing with this External Listing ID), not created again: 1 listing (6).',
		);
		expect(summary.match(/\(6\)/g)).toHaveLength(1);
		const item = listingItem(conflict, true);
		expect(item.json).toMatchObject({ status: 'alreadyListed', externalListingId: 6 });
		expect(String(item.json.message)).toContain('The API said: "taken".');
		const [[, row]] = rowItems(
			[{ json: {} }, {}, {}, {}, {}, { json: { seat: 'F6' } }] as never,
			conflict,
			true,
		);
		expect(row.json).toMatchObject({ seat: 'F6', listingStatus: 'alreadyListed' });
	});
});
