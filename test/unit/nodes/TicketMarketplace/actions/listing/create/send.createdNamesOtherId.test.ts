/**
 * A listing is created only on an answer that "names no other External Listing ID" (docs/listing-create.md):
 * wherever the answer names one (under a wrapper such as `data`, or spelt `external_listing_id`), else another
 * listing's answer would be remembered as this one created.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import {
	BASE,
	fakeRun,
	MemoryDeduplicationStore,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';
import { grantTokens } from '../../../../../../../support/partnerApiNock';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const ANSWERS: Array<[string, IDataObject]> = [
	['under `data`', { data: { id: 'L-999', externalListingId: 999 } }],
	['under `listing`', { listing: { id: 'L-999', externalListingId: 999 } }],
	['as external_listing_id', { id: 'L-999', external_listing_id: 999 }],
	['as ExternalListingId', { id: 'L-999', ExternalListingId: 999 }],
];

describe('a 201 naming another External Listing ID', () => {
	it.each(ANSWERS)('%s is outcome unknown, not created', async (_where, answer) => {
		grantTokens('tok-r4-other-0001');
		nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, answer);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const fake = fakeRun({
			parameters,
			items,
			continueOnFail: true,
			deduplication: new MemoryDeduplicationStore(),
		});
		const [item] = await execute.call(fake.context, items);
		expect(item.json.listingStatus).toBe('unknown');
	});

	it('holds: the same answer naming this listing at the top is created', async () => {
		grantTokens('tok-r4-other-0002');
		nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, { id: 'L-1', externalListingId: 1 });
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const fake = fakeRun({ parameters, items, deduplication: new MemoryDeduplicationStore() });
		const [item] = await execute.call(fake.context, items);
		expect(item.json.listingStatus).toBe('created');
	});
});
