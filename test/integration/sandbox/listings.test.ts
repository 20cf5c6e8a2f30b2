import { startSandbox } from '../../../sandbox/index';
import type { Sandbox } from '../../../sandbox/index';
import {
	LISTINGS_PATH,
	TOKEN_PATH,
	createListing,
	getToken,
	listingHeaders,
	post,
	rawRequest,
	validListing,
} from '../../../support/sandboxRequests';

/** These tests pin the sandbox's own older answer shapes (`--answers spec`); service.test.ts covers the default. */
const SPEC = { shapes: 'spec' } as const;

describe('sandbox listing creation (spec 2.4, 4.3)', () => {
	let sandbox: Sandbox;
	let token: string;

	beforeEach(async () => {
		sandbox = await startSandbox({ answers: SPEC });
		token = await getToken(sandbox);
	});
	afterEach(() => sandbox.stop());

	it('stores a valid listing and answers 201 with the listing, an id, a status and eligibility', async () => {
		const body = validListing({ futureField: { kept: true } });
		const result = await createListing(sandbox, token, body);
		expect(result.status).toBe(201);
		expect(result.body).toEqual({
			...body,
			id: expect.stringMatching(/^lst_[0-9a-f]{16}$/),
			status: 'ACTIVE',
			createdAt: expect.any(String),
			eligibleForNotifications: false,
		});
		const [stored] = sandbox.state().listings;
		expect(stored).toMatchObject({
			id: result.body.id,
			externalListingId: body.externalListingId,
			eligibleForNotifications: false,
		});
		expect(stored.products.map((p) => [p.externalId, p.sold])).toEqual([
			['p-1', false],
			['p-2', false],
			['p-3', false],
		]);
	});

	it('gives every listing a unique id', async () => {
		const ids = new Set<unknown>();
		for (let i = 0; i < 5; i++) ids.add((await createListing(sandbox, token)).body.id);
		expect(ids.size).toBe(5);
	});

	describe('headers of 4.3', () => {
		it.each([
			['missing Accept', { Accept: undefined }],
			['Accept text/html', { Accept: 'text/html' }],
			['Accept */* only', { Accept: '*/*' }],
			['application/json with q=0', { Accept: 'text/html, application/json;q=0' }],
		])('answers 406 for %s', async (_name, headers) => {
			const result = await createListing(sandbox, token, validListing(), headers);
			expect(result.status).toBe(406);
			expect(result.body).toEqual({
				error: 'not_acceptable',
				message: expect.stringMatching(/Accept.*application\/json/),
			});
		});

		it('accepts application/json inside a longer Accept list', async () => {
			const result = await createListing(sandbox, token, validListing(), {
				Accept: 'text/html;q=0.9, application/json',
			});
			expect(result.status).toBe(201);
		});

		it.each([
			['text/plain', { 'Content-Type': 'text/plain' }],
			['form-urlencoded', { 'Content-Type': 'application/x-www-form-urlencoded' }],
		])('answers 415 for Content-Type %s', async (_name, headers) => {
			const result = await createListing(sandbox, token, validListing(), headers);
			expect(result.status).toBe(415);
			expect(result.body.error).toBe('unsupported_media_type');
			expect(result.body.message).toMatch(/Content-Type must be application\/json/);
		});

		it('accepts a charset parameter on the JSON content type', async () => {
			const result = await createListing(sandbox, token, validListing(), {
				'Content-Type': 'application/json; charset=utf-8',
			});
			expect(result.status).toBe(201);
		});

		it.each([
			['empty', ' ', /required/],
			['only the wildcard fetch sends by default', undefined, /not a well-formed/],
			['not a tag', 'english please', /not a well-formed/],
			['digits', '12-34', /not a well-formed/],
		])('answers 400 for an Accept-Language that is %s', async (_name, value, message) => {
			const result = await createListing(sandbox, token, validListing(), {
				'Accept-Language': value,
			});
			expect(result.status).toBe(400);
			expect(result.body.error).toBe('invalid_accept_language');
			expect(result.body.message).toMatch(message);
		});

		it('answers 400 when Accept-Language is absent altogether', async () => {
			const headers = listingHeaders(token);
			delete headers['Accept-Language'];
			const result = await rawRequest(`${sandbox.url}${LISTINGS_PATH}`, {
				headers,
				body: JSON.stringify(validListing()),
			});
			expect(result.status).toBe(400);
			expect(result.body).toEqual({
				error: 'invalid_accept_language',
				message: 'The Accept-Language header is required (a language tag such as en-US)',
			});
		});

		it.each(['de-DE', 'fr', 'en-US,en;q=0.8', 'es-419'])(
			'accepts the Accept-Language %s',
			async (value) => {
				expect(
					(await createListing(sandbox, token, validListing(), { 'Accept-Language': value }))
						.status,
				).toBe(201);
			},
		);
	});

	describe('body of 2.4', () => {
		const seated = { externalId: 'x-1', row: 'B', seat: '7', productType: 'TICKET', ga: false };
		const cases: Array<[string, (listing: Record<string, unknown>) => void, string]> = [
			['eventId missing', (l) => delete l.eventId, 'eventId'],
			['eventId a string', (l) => (l.eventId = '4242'), 'eventId'],
			['eventId fractional', (l) => (l.eventId = 1.5), 'eventId'],
			['pricePerProduct missing', (l) => delete l.pricePerProduct, 'pricePerProduct'],
			['pricePerProduct an array', (l) => (l.pricePerProduct = []), 'pricePerProduct'],
			[
				'amount zero',
				(l) => (l.pricePerProduct = { amount: 0, currency: 'EUR' }),
				'pricePerProduct.amount',
			],
			[
				'amount negative',
				(l) => (l.pricePerProduct = { amount: -1, currency: 'EUR' }),
				'pricePerProduct.amount',
			],
			[
				'amount a string',
				(l) => (l.pricePerProduct = { amount: '10', currency: 'EUR' }),
				'pricePerProduct.amount',
			],
			['currency missing', (l) => (l.pricePerProduct = { amount: 10 }), 'pricePerProduct.currency'],
			[
				'currency of four letters',
				(l) => (l.pricePerProduct = { amount: 10, currency: 'EURO' }),
				'pricePerProduct.currency',
			],
			['externalListingId missing', (l) => delete l.externalListingId, 'externalListingId'],
			['externalListingId a string', (l) => (l.externalListingId = 'abc'), 'externalListingId'],
			['products missing', (l) => delete l.products, 'products'],
			['products empty', (l) => (l.products = []), 'products'],
			['a product not an object', (l) => (l.products = ['ticket']), 'products[0]'],
			[
				'externalId empty',
				(l) => (l.products = [{ ...seated, externalId: '' }]),
				'products[0].externalId',
			],
			[
				'externalId a number',
				(l) => (l.products = [{ ...seated, externalId: 7 }]),
				'products[0].externalId',
			],
			[
				'productType missing',
				(l) => (l.products = [{ ...seated, productType: undefined }]),
				'products[0].productType',
			],
			['ga missing', (l) => (l.products = [{ ...seated, ga: undefined }]), 'products[0].ga'],
			['ga a string', (l) => (l.products = [{ ...seated, ga: 'false' }]), 'products[0].ga'],
			[
				'row missing on a seated product',
				(l) => (l.products = [seated, { ...seated, externalId: 'x-2', row: undefined }]),
				'products[1].row',
			],
			[
				'seat empty on a seated product',
				(l) =>
					(l.products = [
						seated,
						{ ...seated, externalId: 'x-2' },
						{ ...seated, externalId: 'x-3', seat: '' },
					]),
				'products[2].seat',
			],
			[
				'a repeated product externalId',
				(l) => (l.products = [seated, seated]),
				'products[1].externalId',
			],
			['stockType missing', (l) => delete l.stockType, 'stockType'],
			['stockType a string', (l) => (l.stockType = 'PDF'), 'stockType'],
			['stockType empty', (l) => (l.stockType = []), 'stockType'],
			['stockType with a number', (l) => (l.stockType = ['PDF', 3]), 'stockType[1]'],
			['paymentType missing', (l) => delete l.paymentType, 'paymentType'],
			['paymentType a string', (l) => (l.paymentType = '1'), 'paymentType'],
		];

		it.each(cases)('refuses %s with 400 naming the field', async (_name, mutate, path) => {
			const listing = validListing();
			mutate(listing);
			const result = await createListing(sandbox, token, listing);
			expect(result.status).toBe(400);
			expect(result.body.error).toBe('validation_failed');
			expect(result.body.details).toEqual(
				expect.arrayContaining([{ path, message: expect.stringContaining(path) }]),
			);
			expect(result.body.message).toContain(path);
			expect(sandbox.state().listings).toHaveLength(0);
		});

		it('reports every problem at once', async () => {
			const result = await createListing(sandbox, token, { eventId: 'x', products: [] });
			const paths = (result.body.details as Array<{ path: string }>).map((d) => d.path);
			expect(paths).toEqual([
				'eventId',
				'pricePerProduct',
				'externalListingId',
				'products',
				'stockType',
				'paymentType',
			]);
		});

		it.each([
			['a JSON array', [validListing()]],
			['a JSON string', 'listing'],
			['null', null],
		])('refuses %s as the body', async (_name, body) => {
			const result = await createListing(sandbox, token, body);
			expect(result.status).toBe(400);
			expect(result.body.error).toBe('validation_failed');
		});

		it('accepts general-admission products without row and seat, and lower-case currency codes', async () => {
			const listing = validListing({
				pricePerProduct: { amount: 12, currency: 'usd' },
				products: [{ externalId: 'ga-1', productType: 'TICKET', ga: true }],
			});
			expect((await createListing(sandbox, token, listing)).status).toBe(201);
		});
	});

	it('refuses a duplicate externalListingId for the same app with 409, and allows it for another app', async () => {
		const listing = validListing();
		expect((await createListing(sandbox, token, listing)).status).toBe(201);
		const duplicate = await createListing(sandbox, token, { ...listing, eventId: 9 });
		expect(duplicate.status).toBe(409);
		expect(duplicate.body.error).toBe('duplicate_external_listing_id');
		expect(duplicate.body.details).toEqual([
			{
				path: 'externalListingId',
				message: expect.stringContaining(String(listing.externalListingId)),
			},
		]);

		sandbox.registerApp({ consumerKey: 'second-app', consumerSecret: 'second-secret' });
		const other = await post(`${sandbox.url}${TOKEN_PATH}?grant_type=client_credentials`, {
			headers: {
				Authorization: 'Basic ' + Buffer.from('second-app:second-secret').toString('base64'),
				'Content-Type': 'application/json',
			},
			body: JSON.stringify({ username: 'seller@example.test', password: 'sandbox-password' }),
		});
		expect((await createListing(sandbox, other.body.access_token as string, listing)).status).toBe(
			201,
		);
	});

	it('checks the token before the headers and the body', async () => {
		const result = await post(`${sandbox.url}${LISTINGS_PATH}`, {
			headers: listingHeaders('bad-token', { Accept: 'text/html' }),
			body: '{not json',
		});
		expect(result.status).toBe(401);
	});
});
