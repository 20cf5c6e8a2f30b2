/** The results stage of Listing → Create on its own: outcomes to output items and to the stop summary. */
import { NodeApiError } from 'n8n-workflow';

import type { Listing } from '../../../nodes/TicketMarketplace/actions/listing/create/listingInput';
import {
	listingItem,
	rowItems,
	stopSummary,
} from '../../../nodes/TicketMarketplace/actions/listing/create/listingResults';
import type { ListingReport } from '../../../nodes/TicketMarketplace/actions/listing/create/listingResults';

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
		request: { method: 'POST', path: '/x', headers: {} },
	};
}

const failure = (message: string) => new NodeApiError(NODE, {}, { message });

describe('Listing → Create results: one outcome per listing', () => {
	const reports: ListingReport[] = [
		{ listing: ready(1, [0]), outcome: { status: 'created', response: { id: 'L1' } } },
		{
			listing: ready(2, [1]),
			outcome: { status: 'failed', error: failure('refused'), outcome: 'refused' },
		},
		{
			listing: ready(3, [2]),
			outcome: { status: 'failed', error: failure('reset'), outcome: 'unknown' },
		},
		{ listing: ready(4, [3]), outcome: { status: 'notSent' } },
		{ listing: ready(5, [4]), outcome: { status: 'skipped', earlier: 'created' } },
	];

	it('names every listing in exactly one group of the stop summary', () => {
		const summary = stopSummary(reports, true);
		expect(summary).toContain('Created in this run: listing 1 (rows 1). Do not send these again.');
		expect(summary).toContain('Refused by the API, not created:\n  - listing 2 (rows 2): refused');
		expect(summary).toContain('may have been created');
		expect(summary).toContain('  - listing 3 (rows 3): reset');
		expect(summary).toContain('Not sent, the run stopped first: listing 4 (rows 4).');
		expect(summary).toContain('Skipped, already sent by this workflow: listing 5 (rows 5).');
		for (const id of [1, 2, 3, 4, 5]) {
			expect(summary.split(`listing ${id} `).length - 1).toBe(1);
		}
	});

	it('gives each row its listing status, paired with that row; a listing item pairs all its rows', () => {
		const items = [{ json: { seat: 'A1' } }, { json: { seat: 'A2' } }];
		const grouped: ListingReport = { listing: ready(7, [0, 1]), outcome: { status: 'notSent' } };
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
		const conflict: ListingReport = {
			listing: ready(6, [5]),
			outcome: { status: 'alreadyListed', error: failure('answered 409: taken') },
		};
		const summary = stopSummary([...reports, conflict], true);
		expect(summary).toContain(
			'Already listed (the API answered 409, a conflict: it holds a listing with this ID), not created again: listing 6 (rows 6).',
		);
		expect(summary).toContain('created, unknown and already listed ones are skipped');
		expect(summary.split('listing 6 ').length - 1).toBe(1);
		const item = listingItem(conflict, true);
		expect(item.json).toMatchObject({ status: 'alreadyListed', externalListingId: 6 });
		expect(String(item.json.message)).toContain('The API said: answered 409: taken.');
		const [[, row]] = rowItems(
			[{ json: {} }, {}, {}, {}, {}, { json: { seat: 'F6' } }] as never,
			conflict,
			true,
		);
		expect(row.json).toMatchObject({ seat: 'F6', listingStatus: 'alreadyListed' });
	});
});
