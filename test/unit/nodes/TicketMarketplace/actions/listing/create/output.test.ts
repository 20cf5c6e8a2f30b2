/** The output of Listing → Create: each listing's outcome as output items, paired with their rows. */
import type { Outcome } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/nouns';
import type { Listing } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/nouns';
import {
	listingItem,
	outputItems,
} from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/output';

import { ALREADY_LISTED, OUTCOMES, ready } from '../../../../../../../support/listingOutcomes';

describe('Listing → Create output: one outcome per listing', () => {
	const reports = OUTCOMES;

	it('gives each row its listing status, paired with that row; a listing item pairs all its rows', () => {
		const items = [{ json: { seat: 'A1' } }, { json: { seat: 'A2' } }];
		const grouped: [Listing, Outcome] = [ready(7, [0, 1]), { kind: 'notSent' }];
		expect(outputItems(items, new Map([grouped]), [], true, false)).toEqual([
			expect.objectContaining({
				json: expect.objectContaining({
					seat: 'A1',
					listingStatus: 'failed',
					externalListingId: 7,
				}),
				pairedItem: { item: 0 },
			}),
			expect.objectContaining({
				json: expect.objectContaining({ seat: 'A2', listingStatus: 'failed' }),
				pairedItem: { item: 1 },
			}),
		]);
		expect(listingItem(...grouped).pairedItem).toEqual([{ item: 0 }, { item: 1 }]);
		expect(listingItem(...reports[0])).toEqual({ json: { id: 'L1' }, pairedItem: [{ item: 0 }] });
	});

	it('keeps an already listed listing off the error output, with its own status', () => {
		const conflict = ALREADY_LISTED;
		const item = listingItem(...conflict, true);
		expect(item.json).toMatchObject({ status: 'alreadyListed', externalListingId: 6 });
		expect(String(item.json.message)).toContain('The API said: "taken".');
		const row = outputItems(
			[{ json: {} }, {}, {}, {}, {}, { json: { seat: 'F6' } }] as never,
			new Map([conflict]),
			[],
			true,
			true,
		)[5];
		expect(row.json).toMatchObject({ seat: 'F6', listingStatus: 'alreadyListed' });
	});
});
