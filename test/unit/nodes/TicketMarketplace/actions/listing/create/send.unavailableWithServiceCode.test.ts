/**
 * "Where the answer has a code, the code decides what it means" (docs/listing-create.md): the listing service's
 * `inventory.listings.systemError` "may or may not have created the listing", also when it comes with HTTP 503, so
 * it is outcome unknown and never sent again, not the gateway's "not handled".
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

it('a 503 carrying the listing service\'s systemError is sent once and stays "outcome unknown"', async () => {
	grantTokens('tok-r4-503-0001');
	const received: number[] = [];
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(10)
		.reply((_uri, body) => {
			received.push(Number((body as IDataObject).externalListingId));
			return [503, { code: 'inventory.listings.systemError', description: 'System error' }];
		});
	const { items, parameters } = oneSeatListings([1], { output: 'row' });
	const fake = fakeRun({
		parameters,
		items,
		continueOnFail: true,
		deduplication: new MemoryDeduplicationStore(),
	});
	const [item] = await execute.call(fake.context, items);
	expect(received).toEqual([1]);
	expect(item.json.listingStatus).toBe('unknown');
});
