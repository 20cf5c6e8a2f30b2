/** An Input Shape outside the panel's two choices (a workflow written by hand or by a tool) reads each item as a
 * listing: grouping rows is asked for by name, never by default. */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute as createListings } from '../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';
import { BASE, fakeRun, type ParameterValue } from '../../../support/fakeN8n/actionContext';
import { grantTokens } from '../../../support/partnerApiNock';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

function listingsReceived(): IDataObject[] {
	const received: IDataObject[] = [];
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(20)
		.reply((_uri, body) => {
			received.push(body as IDataObject);
			return [201, { id: `L-${received.length}` }, { 'Content-Type': 'application/json' }];
		});
	return received;
}

describe('Input Shape other than its two choices (a workflow written by hand or by a tool)', () => {
	it('reads each item as a listing (any value but ticketPerItem): a repeated ID is refused, not merged', async () => {
		grantTokens('tok-path-shape-0001');
		const received = listingsReceived();
		const items: INodeExecutionData[] = [{ json: { seat: '1' } }, { json: { seat: '2' } }];
		const parameters: Record<string, ParameterValue> = {
			inputShape: 'listingsPerItem',
			eventId: 55,
			externalListingId: 9001,
			priceAmount: 10,
			priceCurrency: 'EUR',
			productsSource: 'defined',
			products: (itemIndex: number) => ({
				product: [{ externalId: `A-${itemIndex}`, row: 'A', seat: String(itemIndex + 1) }],
			}),
			options: { concurrencyMode: 'fixed', concurrency: 1, output: 'row' },
		};
		const fake = fakeRun({ parameters, items, continueOnFail: true });
		const out = await createListings.call(fake.context, items);
		// One listing sent, with its own item's ticket only; the second item, repeating its ID, is refused.
		expect(received).toHaveLength(1);
		expect(received[0].products).toEqual([expect.objectContaining({ externalId: 'A-0' })]);
		expect(out.map((item) => item.json.listingStatus)).toEqual(['created', 'invalid']);
		expect(JSON.stringify(out[1].json.listingError)).toContain('is already used by row 1');
	});
});
