/**
 * Runs of both node versions: 1.1 reads its listing values from Options, one product type for every ticket, sheet
 * rows when no Input Shape is stored, and sends Subscribe's fixed values; version 1 reads exactly where it always
 * did, whatever else a workflow holds.
 */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute as create } from '../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { execute as subscribe } from '../../../../../nodes/TicketMarketplace/actions/webhook/subscribe/execute';
import type { ParameterValue } from '../../../../../support/fakeN8n/actionContext';
import { BASE, CALLBACK_CREDENTIALS, fakeRun } from '../../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';

afterEach(() => {
	nock.cleanAll();
});

const SHEET: INodeExecutionData[] = [
	{ listing: 7001, seat: '1' },
	{ listing: 7001, seat: '2' },
].map((json) => ({ json }));

/** Maps every field to a constant or the rows' own columns, without choosing an Input Shape. */
const SHEET_FIELDS: Record<string, ParameterValue> = {
	eventId: 123456,
	externalListingId: Object.assign((_: number, json: Record<string, unknown>) => json.listing, {
		expression: '={{ $json.listing }}',
	}),
	priceAmount: 49.9,
	priceCurrency: 'EUR',
	productExternalId: Object.assign(
		(_: number, json: Record<string, unknown>) => `${String(json.listing)}-A-${String(json.seat)}`,
		{ expression: '={{ $json.listing }}-A-{{ $json.seat }}' },
	),
	productRow: 'A',
	productSeat: Object.assign((_: number, json: Record<string, unknown>) => json.seat, {
		expression: '={{ $json.seat }}',
	}),
};

/** What Validate Only shows for each listing: nothing is sent. */
async function validated(
	typeVersion: number,
	parameters: Record<string, ParameterValue>,
	items: INodeExecutionData[] = SHEET,
): Promise<IDataObject[]> {
	const fake = fakeRun({ parameters, items, typeVersion });
	const output = await create.call(fake.context, items);
	return output.map((item) => item.json);
}

describe('Listing → Create in version 1.1', () => {
	it('groups sheet rows when no Input Shape is stored, and reads the listing values from Options', async () => {
		const [listing, ...others] = await validated(1.1, {
			...SHEET_FIELDS,
			// Left from version 1 in a hand-edited workflow: n8n would drop these; 1.1 does not read them either.
			stockType: 'PAPER',
			paymentType: 9,
			acceptLanguage: 'fr-FR',
			productType: 'PARKING',
			options: {
				validateOnly: true,
				stockType: 'PDF, MOBILE',
				paymentType: 2,
				acceptLanguage: 'de-DE',
				productType: 'VIP',
			},
		});
		expect(others).toEqual([]);
		expect(listing).toMatchObject({
			validateOnly: true,
			headers: { 'Accept-Language': 'de-DE' },
			body: {
				externalListingId: 7001,
				stockType: ['PDF', 'MOBILE'],
				paymentType: 2,
				products: [
					{ externalId: '7001-A-1', row: 'A', seat: '1', productType: 'VIP', ga: false },
					{ externalId: '7001-A-2', row: 'A', seat: '2', productType: 'VIP', ga: false },
				],
			},
		});
	});

	it('uses the documented values when Options leaves them out', async () => {
		const [listing] = await validated(1.1, { ...SHEET_FIELDS, options: { validateOnly: true } });
		expect(listing).toMatchObject({
			headers: { 'Accept-Language': 'en-US' },
			body: { stockType: ['PDF'], paymentType: 1 },
		});
		expect((listing.body as { products: IDataObject[] }).products[0].productType).toBe('TICKET');
	});

	it("gives every ticket Options' product type, unless a JSON ticket sets its own", async () => {
		const perItem = {
			inputShape: 'listingPerItem',
			eventId: 123456,
			externalListingId: 7001,
			priceAmount: 49.9,
			priceCurrency: 'EUR',
			options: { validateOnly: true, productType: 'VIP' },
		};
		const types = async (parameters: Record<string, ParameterValue>) => {
			const [listing] = await validated(1.1, { ...perItem, ...parameters }, [{ json: {} }]);
			return (listing.body as { products: IDataObject[] }).products.map((product) => [
				product.externalId,
				product.productType,
			]);
		};
		expect(
			await types({
				productsSource: 'seatRange',
				seatRanges: {
					range: [
						{ firstSeat: 1, lastSeat: 2, row: 'A', externalIdPattern: '{listing}-{row}-{seat}' },
					],
				},
			}),
		).toEqual([
			['7001-A-1', 'VIP'],
			['7001-A-2', 'VIP'],
		]);
		expect(
			await types({
				productsSource: 'defined',
				products: { product: [{ externalId: 'T-1', row: 'A', seat: '1', ga: false }] },
			}),
		).toEqual([['T-1', 'VIP']]);
		expect(
			await types({
				productsSource: 'json',
				productsJson: JSON.stringify([
					{ externalId: 'P-1', ga: true, productType: 'PARKING' },
					{ externalId: 'T-1', row: 'A', seat: '1' },
				]),
			}),
		).toEqual([
			['P-1', 'PARKING'],
			['T-1', 'VIP'],
		]);
	});

	it("Map Automatically: a sheet's product_type column decides, otherwise Options' product type", async () => {
		const row = { listing_id: 7001, event_id: 1, price: 10, currency: 'EUR', ga: true };
		const types = async (rows: IDataObject[]) => {
			const [listing] = await validated(
				1.1,
				{ columnMapping: 'auto', options: { validateOnly: true, productType: 'VIP' } },
				rows.map((json) => ({ json })),
			);
			return (listing.body as { products: IDataObject[] }).products.map(
				(product) => product.productType,
			);
		};
		expect(await types([{ ...row, ticket_id: 'A' }])).toEqual(['VIP']);
		// With the column, an empty cell is the documented TICKET, as in version 1.
		expect(
			await types([
				{ ...row, ticket_id: 'A', product_type: '' },
				{ ...row, ticket_id: 'B', product_type: 'PARKING' },
			]),
		).toEqual(['TICKET', 'PARKING']);
	});
});

describe('Listing → Create in version 1 reads as before', () => {
	it('one listing per item when no Input Shape is stored, the listing values from the main panel', async () => {
		const [listing] = await validated(
			1,
			{
				eventId: 123456,
				externalListingId: 7001,
				priceAmount: 49.9,
				priceCurrency: 'EUR',
				products: {
					product: [{ externalId: 'T-1', row: 'A', seat: '1', ga: false, productType: 'VIP' }],
				},
				stockType: 'PAPER',
				acceptLanguage: 'fr-FR',
				options: { validateOnly: true, stockType: 'MOBILE', productType: 'PARKING' },
			},
			[{ json: {} }],
		);
		expect(listing).toMatchObject({
			headers: { 'Accept-Language': 'fr-FR' },
			body: {
				externalListingId: 7001,
				stockType: ['PAPER'],
				paymentType: 1,
				products: [{ externalId: 'T-1', productType: 'VIP' }],
			},
		});
	});
});

describe('Webhook → Subscribe in both versions', () => {
	async function sent(typeVersion: number, parameters: Record<string, ParameterValue>) {
		nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: 'tok' });
		let body: IDataObject | undefined;
		nock(BASE)
			.post(PARTNER_API_PATHS.webhooks)
			.reply(201, (_uri, received) => {
				body = received as IDataObject;
				return { subscriptionId: 'sub-1' };
			});
		const fake = fakeRun({
			parameters: {
				callbackUrl: 'https://n8n.example.test/webhook/abc/notifications',
				callbackAuthUrl: 'https://n8n.example.test/webhook/abc/token',
				...parameters,
			},
			callbackCredentials: CALLBACK_CREDENTIALS,
			typeVersion,
		});
		await subscribe.call(fake.context, [{ json: {} }]);
		const { callback, subscription } = body as {
			callback: { auth: { authType: string; oauthRequest: { grantType: string } } };
			subscription: { listing: string[] };
		};
		return {
			authType: callback.auth.authType,
			grantType: callback.auth.oauthRequest.grantType,
			kinds: subscription.listing,
		};
	}

	it('1.1 sends the one valid auth and grant type, and the kinds under Options', async () => {
		expect(
			await sent(1.1, {
				subscriptionKinds: ['stale'],
				options: {
					authType: 'typed',
					grantType: 'typed',
					subscriptionKinds: ['listing_sale', 'listing_update'],
				},
			}),
		).toEqual({
			authType: 'oauth',
			grantType: 'client_credentials',
			kinds: ['listing_sale', 'listing_update'],
		});
		expect(await sent(1.1, { options: {} })).toEqual({
			authType: 'oauth',
			grantType: 'client_credentials',
			kinds: ['listing_sale'],
		});
	});

	it('1 sends what its fields hold, as before', async () => {
		expect(
			await sent(1, {
				subscriptionKinds: ['listing_sale'],
				options: { authType: 'oauth2', grantType: 'password', subscriptionKinds: ['ignored'] },
			}),
		).toEqual({ authType: 'oauth2', grantType: 'password', kinds: ['listing_sale'] });
	});
});
