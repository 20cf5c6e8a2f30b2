import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute } from '../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { BASE, column, fakeRun } from '../../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';

const ITEMS = Array.from({ length: 6 }, (_, index) => ({
	json: { listing: String(9100 + index) },
}));
const PARAMETERS = {
	inputShape: 'listingPerItem',
	eventId: 123456,
	externalListingId: column('listing'),
	priceAmount: 49.9,
	priceCurrency: 'EUR',
	productsSource: 'defined',
	// One seat per listing: a seat in two listings of one event is refused before sending.
	products: (_itemIndex: number, json: Record<string, unknown>) => ({
		product: [
			{ externalId: 'A-1', row: 'A', seat: String(json.listing), ga: false, productType: 'TICKET' },
		],
	}),
	stockType: 'PDF',
	paymentType: 1,
	options: { concurrency: 1, skipAlreadySent: false },
};

describe('Listing → Create: the credential is read once per run', () => {
	it('hands n8n the credential read at the start, and a token renewed mid-run serves every later request', async () => {
		const authorizations: string[] = [];
		let tokensIssued = 0;
		nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query({ grant_type: 'client_credentials' })
			.times(5)
			.reply(() => [200, { access_token: `tok-${++tokensIssued}` }]);
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.times(20)
			.reply(function (_uri, body) {
				const authorization = String(this.req.headers.authorization);
				authorizations.push(authorization);
				// The marketplace expires the stored token after the third listing.
				const expired = authorization === 'Bearer stored-token' && authorizations.length > 3;
				return expired
					? [401, { message: 'expired' }]
					: [201, { id: (body as IDataObject).externalListingId }];
			});

		const fake = fakeRun({ parameters: PARAMETERS, items: ITEMS, accessToken: 'stored-token' });
		const output = await execute.call(fake.context, ITEMS);

		expect(output.map((item) => item.json.id)).toEqual([9100, 9101, 9102, 9103, 9104, 9105]);
		// One read for the run; n8n did not read it again for each of the requests.
		expect(fake.credentialReads).toEqual({ ticketMarketplaceApi: 1 });
		// One renewal (after the 401 the refused token is emptied, so n8n renews it before the re-send), then the new
		// token for the rest.
		expect(tokensIssued).toBe(1);
		expect(authorizations).toEqual([
			'Bearer stored-token',
			'Bearer stored-token',
			'Bearer stored-token',
			'Bearer stored-token',
			'Bearer tok-1',
			'Bearer tok-1',
			'Bearer tok-1',
		]);
		expect(fake.stored.accessToken).toBe('tok-1');
		expect(
			nock.pendingMocks().filter((mock) => mock.includes(PARTNER_API_PATHS.listings)),
		).toHaveLength(1);
	});
});
