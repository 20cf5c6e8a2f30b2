import nock from 'nock';
import { NodeOperationError, sleepWithAbort } from 'n8n-workflow';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import type { ParameterValue } from '../../../../../../../support/fakeN8n/actionContext';
import { listingBody, listingRequest } from '../../../../../../../support/listingBody';
import {
	BASE,
	column,
	fakeRun,
	GROUPED_SHEET_PARAMETERS,
	sheetRows,
} from '../../../../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';

const TOKEN = 'tok-listing';

interface Seen {
	body: IDataObject;
	headers: Record<string, unknown>;
}

/** Accepts every listing POST, records it, and answers with an id derived from the listing. */
function listingApi(
	options: {
		delayFor?: (body: IDataObject) => number;
		status?: (body: IDataObject) => number;
	} = {},
) {
	const seen: Seen[] = [];
	const scope = nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(100)
		.delay(0)
		.reply(function (_uri, body) {
			const listing = body as IDataObject;
			seen.push({ body: listing, headers: this.req.headers });
			const status = options.status?.(listing) ?? 201;
			return [
				status,
				status < 300
					? { listingId: `L-${String(listing.externalListingId)}` }
					: { message: 'refused' },
			];
		});
	return { seen, scope };
}

function tokenApi() {
	return nock(BASE)
		.post(PARTNER_API_PATHS.grant)
		.query({ grant_type: 'client_credentials' })
		.times(10)
		.reply(200, { access_token: TOKEN });
}

async function run(
	parameters: Record<string, ParameterValue>,
	items: INodeExecutionData[] = [{ json: {} }],
	continueOnFail = false,
) {
	const fake = fakeRun({ parameters, items, continueOnFail });
	const output = await execute.call(fake.context, items);
	return { output, tokenRequests: fake.tokenRequests() };
}

async function validationError(
	parameters: Record<string, ParameterValue>,
	items?: INodeExecutionData[],
) {
	const api = listingApi();
	const token = tokenApi();
	try {
		await run(parameters, items);
	} catch (error) {
		expect(error).toBeInstanceOf(NodeOperationError);
		// Nothing was sent: neither the token exchange nor any listing.
		expect(api.seen).toEqual([]);
		expect(token.isDone()).toBe(false);
		const failure = error as NodeOperationError;
		return {
			message: failure.message,
			lines: String(failure.description).split('\n'),
			error: failure,
		};
	}
	throw new Error('expected a validation error');
}

const PER_ITEM: Record<string, ParameterValue> = {
	inputShape: 'listingPerItem',
	eventId: 123456,
	externalListingId: 7001,
	priceAmount: 49.9,
	priceCurrency: 'EUR',
	productsSource: 'defined',
	products: {
		product: [
			{ externalId: '7001-A-1', row: 'A', seat: '1', ga: false, productType: 'TICKET' },
			{ externalId: '7001-GA-1', row: '', seat: '', ga: true, productType: 'TICKET' },
		],
	},
	stockType: 'PDF',
	paymentType: 1,
	acceptLanguage: 'en-US',
	options: {},
};

const GROUPED = GROUPED_SHEET_PARAMETERS;

const SHEET = [
	{
		event: '123456',
		listing: '7001',
		price: '49.90',
		currency: 'eur',
		ticket: 'T1',
		row: 'A',
		seat: '1',
		ga: 'false',
	},
	{
		event: '123456',
		listing: '7002',
		price: '30',
		currency: 'EUR',
		ticket: 'T2',
		row: '',
		seat: '',
		ga: 'TRUE',
	},
	{
		event: '123456',
		listing: '7001',
		price: '49.9',
		currency: 'EUR',
		ticket: 'T3',
		row: 'A',
		seat: '2',
		ga: '',
	},
	{
		event: '123456',
		listing: '7002',
		price: '30.00',
		currency: 'EUR',
		ticket: 'T4',
		row: '',
		seat: '',
		ga: 'true',
	},
	{
		event: '123456',
		listing: '7001',
		price: '49.90',
		currency: 'EUR',
		ticket: 'T5',
		row: 'B',
		seat: '7',
		ga: 'false',
	},
];

beforeEach(() => {
	(sleepWithAbort as jest.Mock).mockClear();
});
afterEach(() => {
	nock.cleanAll();
});

describe('Listing → Create: requests per input mode', () => {
	it('sends the exact documented request for products defined in the UI', async () => {
		const api = listingApi();
		tokenApi();
		const { output } = await run(PER_ITEM);

		expect(api.seen).toHaveLength(1);
		expect(api.seen[0].body).toEqual({
			eventId: 123456,
			pricePerProduct: { amount: 49.9, currency: 'EUR' },
			externalListingId: 7001,
			products: [
				{ externalId: '7001-A-1', row: 'A', seat: '1', productType: 'TICKET', ga: false },
				{ externalId: '7001-GA-1', productType: 'TICKET', ga: true },
			],
			stockType: ['PDF'],
			paymentType: 1,
		});
		expect(api.seen[0].headers).toMatchObject({
			authorization: `Bearer ${TOKEN}`,
			accept: 'application/json',
			'content-type': 'application/json',
			'accept-language': 'en-US',
		});
		expect(output).toEqual([{ json: { listingId: 'L-7001' }, pairedItem: [{ item: 0 }] }]);
	});

	it('takes products as a JSON array from an expression, or as JSON text, and several stock types', async () => {
		const api = listingApi();
		tokenApi();
		// One seat and one General Admission ID per listing: either in two listings of one event is refused.
		const products = (itemIndex: number) => [
			{ externalId: 'J-1', row: 'C', seat: 3 + itemIndex },
			{ externalId: `J-2-${itemIndex}`, ga: 'true', productType: 'PARKING' },
		];
		await run(
			{
				...PER_ITEM,
				productsSource: 'json',
				productsJson: (itemIndex: number) =>
					itemIndex === 0 ? products(0) : JSON.stringify(products(itemIndex)),
				externalListingId: (itemIndex: number) => 8000 + itemIndex,
				stockType: 'PDF, MOBILE',
				acceptLanguage: 'de-DE',
			},
			[{ json: {} }, { json: {} }],
		);

		expect(api.seen.map((entry) => entry.body.externalListingId)).toEqual([8000, 8001]);
		for (const [index, entry] of api.seen.entries()) {
			expect(entry.body.products).toEqual([
				{ externalId: 'J-1', row: 'C', seat: String(3 + index), productType: 'TICKET', ga: false },
				{ externalId: `J-2-${index}`, productType: 'PARKING', ga: true },
			]);
			expect(entry.body.stockType).toEqual(['PDF', 'MOBILE']);
			expect(entry.headers['accept-language']).toBe('de-DE');
		}
	});

	it('expands seat ranges into one product per seat with ids from the pattern', async () => {
		const api = listingApi();
		tokenApi();
		await run({
			...PER_ITEM,
			productsSource: 'seatRange',
			seatRanges: {
				range: [
					{
						row: 'A',
						firstSeat: 1,
						lastSeat: 3,
						externalIdPattern: '{listing}-{row}-{seat}',
						productType: 'TICKET',
					},
					{
						row: 'B',
						firstSeat: '10',
						lastSeat: '11',
						externalIdPattern: 'E{event}/{seat}',
						productType: 'TICKET',
					},
				],
			},
		});

		expect(api.seen[0].body.products).toEqual([
			{ externalId: '7001-A-1', row: 'A', seat: '1', productType: 'TICKET', ga: false },
			{ externalId: '7001-A-2', row: 'A', seat: '2', productType: 'TICKET', ga: false },
			{ externalId: '7001-A-3', row: 'A', seat: '3', productType: 'TICKET', ga: false },
			{ externalId: 'E123456/10', row: 'B', seat: '10', productType: 'TICKET', ga: false },
			{ externalId: 'E123456/11', row: 'B', seat: '11', productType: 'TICKET', ga: false },
		]);
	});

	it('builds seat-range ids from the validated listing and event ids, not the raw sheet text', async () => {
		const api = listingApi();
		tokenApi();
		await run({
			...PER_ITEM,
			externalListingId: ' 7001',
			eventId: '123456 ',
			productsSource: 'seatRange',
			seatRanges: {
				range: [
					{
						row: 'A',
						firstSeat: 1,
						lastSeat: 1,
						externalIdPattern: '{listing}-{event}-{row}-{seat}',
					},
				],
			},
		});
		expect(api.seen[0].body.products).toEqual([
			{ externalId: '7001-123456-A-1', row: 'A', seat: '1', productType: 'TICKET', ga: false },
		]);
	});

	it('groups sheet rows that share an External Listing ID into one listing, one product per row, in input order', async () => {
		const api = listingApi();
		tokenApi();
		const { output } = await run(GROUPED, sheetRows(SHEET));

		expect(api.seen).toHaveLength(2);
		const byListing = Object.fromEntries(
			api.seen.map((entry) => [entry.body.externalListingId, entry.body]),
		);
		expect(byListing[7001]).toEqual(
			listingBody({
				eventId: 123456,
				amount: 49.9,
				currency: 'EUR',
				externalListingId: 7001,
				products: [
					{ externalId: 'T1', row: 'A', seat: '1' },
					{ externalId: 'T3', row: 'A', seat: '2' },
					{ externalId: 'T5', row: 'B', seat: '7' },
				],
			}),
		);
		expect(byListing[7002].products).toEqual([
			{ externalId: 'T2', productType: 'TICKET', ga: true },
			{ externalId: 'T4', productType: 'TICKET', ga: true },
		]);
		expect(output).toEqual([
			{ json: { listingId: 'L-7001' }, pairedItem: [{ item: 0 }, { item: 2 }, { item: 4 }] },
			{ json: { listingId: 'L-7002' }, pairedItem: [{ item: 1 }, { item: 3 }] },
		]);
	});

	it('Validate Only outputs the exact requests and sends nothing, not even the token request', async () => {
		const api = listingApi();
		const token = tokenApi();
		const { output } = await run(
			{ ...GROUPED, options: { validateOnly: true } },
			sheetRows(SHEET.slice(0, 2)),
		);

		expect(api.seen).toEqual([]);
		expect(token.isDone()).toBe(false);
		expect(output).toEqual([
			{
				json: {
					validateOnly: true,
					...listingRequest({
						eventId: 123456,
						amount: 49.9,
						currency: 'EUR',
						externalListingId: 7001,
						products: [{ externalId: 'T1', row: 'A', seat: '1' }],
					}),
				},
				pairedItem: [{ item: 0 }],
			},
			expect.objectContaining({ pairedItem: [{ item: 1 }] }),
		]);
		expect(JSON.stringify(output)).not.toMatch(/authorization|Bearer/i);
	});
});

describe('Listing → Create: validation before anything is sent', () => {
	it.each<[string, Record<string, ParameterValue>, string]>([
		[
			'a reserved seat without seat',
			{
				products: {
					product: [
						{ externalId: 'a', row: 'A', seat: '1' },
						{ externalId: 'b', row: 'A', seat: '2' },
						{ externalId: 'c', row: 'A', seat: '' },
					],
				},
			},
			'Products → Product 3 → Seat is empty: a seated ticket needs a Row and a Seat. For standing tickets, switch on General Admission',
		],
		[
			'an id with letters',
			{ eventId: '12abc' },
			'Event ID must be a whole number greater than 0 (got "12abc") (row 1)',
		],
		[
			'an id in exponent notation',
			{ externalListingId: '1e3' },
			'External Listing ID must be a whole number greater than 0 (got "1e3") (row 1)',
		],
		[
			'a zero price',
			{ priceAmount: 0 },
			'Price Amount must be a number greater than 0, such as 49.90 (got 0) (row 1)',
		],
		[
			'a negative price',
			{ priceAmount: '-5' },
			'Price Amount must be a number greater than 0, such as 49.90 (got "-5") (row 1)',
		],
		[
			'an infinite price',
			{ priceAmount: 'Infinity' },
			'Price Amount must be a number greater than 0, such as 49.90 (got "Infinity") (row 1)',
		],
		[
			'a four-letter currency',
			{ priceCurrency: 'EURO' },
			'Currency must be a three-letter currency code such as EUR (got "EURO") (row 1)',
		],
		[
			'a malformed language tag',
			{ acceptLanguage: 'english please' },
			'Language must be a language tag such as en-US (got "english please") (row 1)',
		],
		['an empty products list', { products: {} }, 'Products must hold at least one product (row 1)'],
		[
			'one product object where a list belongs (a hand-edited workflow)',
			{ products: { product: { externalId: 'x', ga: true } } },
			'Products must be a list of products (row 1)',
		],
		[
			'one seat range object where a list belongs',
			{
				productsSource: 'seatRange',
				seatRanges: { range: { row: 'A', firstSeat: 1, lastSeat: 2, externalIdPattern: '{seat}' } },
			},
			'Seat Ranges must be a list of ranges (row 1)',
		],
		[
			'a repeated product id',
			{
				products: {
					product: [
						{ externalId: 'x', ga: true },
						{ externalId: 'x', ga: true },
					],
				},
			},
			'Products → External ID "x" is used more than once in one listing (products 1 and 2); each product needs its own (row 1)',
		],
		[
			'the JSON products left at their empty default',
			{ productsSource: 'json', productsJson: '[]' },
			'Products must hold at least one product (row 1)',
		],
		[
			'JSON that is not JSON',
			{ productsSource: 'json', productsJson: '[{' },
			'Products (JSON) is not valid JSON',
		],
		[
			'a JSON product with a misspelt key',
			{ productsSource: 'json', productsJson: [{ externalId: 'x', Seat: '1', row: 'A' }] },
			'Products (JSON) product 1 has unknown field "Seat"; allowed are externalId, row, seat, productType, ga (row 1)',
		],
		[
			'a seat range going backwards',
			{
				productsSource: 'seatRange',
				seatRanges: {
					range: [{ row: 'A', firstSeat: 5, lastSeat: 2, externalIdPattern: '{seat}' }],
				},
			},
			'Seat Ranges → Range 1 → Last Seat must not be below First Seat (5) (row 1)',
		],
		[
			'a seat pattern without {seat}',
			{
				productsSource: 'seatRange',
				seatRanges: {
					range: [{ row: 'A', firstSeat: 1, lastSeat: 2, externalIdPattern: '{listing}-{row}' }],
				},
			},
			'Seat Ranges → Range 1 → External ID Pattern must contain {seat} so that every product gets its own id (row 1)',
		],
		[
			'a seat pattern with an unknown placeholder',
			{
				productsSource: 'seatRange',
				seatRanges: {
					range: [{ row: 'A', firstSeat: 1, lastSeat: 2, externalIdPattern: '{section}-{seat}' }],
				},
			},
			'Seat Ranges → Range 1 → External ID Pattern has unknown placeholder {section}; use {listing}, {event}, {row}, {seat} (row 1)',
		],
	])('refuses %s', async (_name, overrides, expected) => {
		const { message, lines } = await validationError({ ...PER_ITEM, ...overrides });
		expect(message).toBe('1 of 1 listing failed validation; nothing was sent');
		expect(lines.some((line) => line.startsWith(expected))).toBe(true);
	});

	it('accepts exact numbers written as text ("12", " 49.90 ") and sends them as numbers', async () => {
		const api = listingApi();
		tokenApi();
		await run({
			...PER_ITEM,
			eventId: '12',
			externalListingId: ' 7001 ',
			priceAmount: ' 49.90 ',
			paymentType: '2',
		});
		expect(api.seen[0].body).toMatchObject({
			eventId: 12,
			externalListingId: 7001,
			pricePerProduct: { amount: 49.9 },
			paymentType: 2,
		});
	});

	it('checks every item first and lists all problems in one error, naming each item', async () => {
		const items = [{ json: {} }, { json: {} }, { json: {} }];
		const { message, lines, error } = await validationError(
			{
				...PER_ITEM,
				eventId: (itemIndex: number) => (itemIndex === 1 ? 'abc' : 1),
				priceCurrency: (itemIndex: number) => (itemIndex === 2 ? 'E' : 'EUR'),
			},
			items,
		);
		expect(message).toBe('2 of 3 listings failed validation; nothing was sent');
		expect(lines).toEqual([
			'Event ID must be a whole number greater than 0 (got "abc") (row 2)',
			'Currency must be a three-letter currency code such as EUR (got "E") (row 3)',
			"Fix these values in the sheet or the node's fields, then run the workflow again.",
			'To send the valid listings and get one error item per invalid one, set Settings → On Error → Continue (using error output).',
			'Rows are counted from 1, in the order the items reach this node.',
		]);
		expect(error.context.itemIndex).toBe(1);
	});

	it('says a problem shared by 2,000 rows once, with the rows as a range', async () => {
		const items = Array.from({ length: 2000 }, () => ({ json: {} }));
		const { message, lines } = await validationError(
			{
				...PER_ITEM,
				externalListingId: (itemIndex: number) => 10_000 + itemIndex,
				priceCurrency: 'euro',
			},
			items,
		);
		expect(message).toBe('2000 of 2000 listings failed validation; nothing was sent');
		expect(lines[0]).toBe(
			'Currency must be a three-letter currency code such as EUR (got "euro") (rows 1–2000)',
		);
		expect(lines).toHaveLength(4);
	});

	it('keeps the error readable for 2,000 different problems: the first 10, then a count', async () => {
		const items = Array.from({ length: 2000 }, () => ({ json: {} }));
		const { lines } = await validationError(
			{
				...PER_ITEM,
				externalListingId: (itemIndex: number) => 10_000 + itemIndex,
				priceCurrency: (itemIndex: number) => `E${itemIndex}`,
			},
			items,
		);
		expect(lines[0]).toBe(
			'Currency must be a three-letter currency code such as EUR (got "E0") (row 1)',
		);
		expect(lines[9]).toBe(
			'Currency must be a three-letter currency code such as EUR (got "E9") (row 10)',
		);
		expect(lines[10]).toBe('… and 1990 more problems.');
		expect(lines[11]).toBe(
			"Fix these values in the sheet or the node's fields, then run the workflow again.",
		);
		expect(lines[12]).toBe(
			'To send the valid listings and get one error item per invalid one, set Settings → On Error → Continue (using error output).',
		);
	});

	it('refuses two items that would create the same listing', async () => {
		const { lines } = await validationError(PER_ITEM, [{ json: {} }, { json: {} }]);
		expect(lines[0]).toBe(
			'External Listing ID 7001 is already used by row 1; to combine rows into one listing, choose Input Shape → Each Item Is a Ticket (row 2)',
		);
	});

	it('names the rows of a listing whose rows disagree on listing-level values', async () => {
		const sheet = SHEET.map((row, index) =>
			index === 4 ? { ...row, price: '55', event: '999' } : row,
		);
		const { lines } = await validationError(GROUPED, sheetRows(sheet));
		expect(lines.slice(0, 2)).toEqual([
			'Event ID differs between the rows of one listing: 123456 in rows 1 and 3; 999 in row 5 (rows 1, 3 and 5)',
			'Price Amount differs between the rows of one listing: 49.9 in rows 1 and 3; 55 in row 5 (rows 1, 3 and 5)',
		]);
	});

	it('names the row of a grouped product error, and a row without a usable listing id on its own', async () => {
		const sheet = SHEET.map((row, index) =>
			index === 2 ? { ...row, seat: '' } : index === 3 ? { ...row, listing: 'x7002' } : row,
		);
		const { lines } = await validationError(GROUPED, sheetRows(sheet));
		expect(lines.slice(0, 2)).toEqual([
			'Seat is empty: a seated ticket needs a Row and a Seat. For standing tickets, switch on General Admission (or map it to a column, such as {{ $json.ga }}) (row 3)',
			'External Listing ID must be a whole number greater than 0 (got "x7002") (row 4)',
		]);
	});

	it('with Continue On Fail, bad items become paired error items and good ones are sent', async () => {
		const api = listingApi();
		tokenApi();
		const sheet = SHEET.map((row, index) => (index === 1 ? { ...row, currency: 'EURO' } : row));
		const { output } = await run(GROUPED, sheetRows(sheet), true);

		expect(api.seen.map((entry) => entry.body.externalListingId)).toEqual([7001]);
		expect(output).toHaveLength(2);
		expect(output[0]).toEqual({
			json: { listingId: 'L-7001' },
			pairedItem: [{ item: 0 }, { item: 2 }, { item: 4 }],
		});
		expect(output[1].pairedItem).toEqual([{ item: 1 }, { item: 3 }]);
		expect(output[1].json).toMatchObject({
			error: 'Listing 7002 (rows 2 and 4) failed validation',
			itemIndexes: [1, 3],
			problems: ['Currency must be a three-letter currency code such as EUR (got "EURO") (row 2)'],
		});
	});
});

describe('Listing → Create: sending', () => {
	const MANY = Array.from({ length: 6 }, (_, index) => ({
		json: { listing: String(9000 + index) },
	}));
	const MANY_PARAMETERS = {
		...PER_ITEM,
		externalListingId: column('listing'),
		// One seat per listing: a seat in two listings of one event is refused before sending.
		products: (_itemIndex: number, json: Record<string, unknown>) => ({
			product: [{ externalId: 'A-1', row: 'A', seat: String(json.listing), ga: false }],
		}),
	};

	it('keeps input order and pairing whatever order the answers arrive in, never exceeding the concurrency', async () => {
		let inFlight = 0;
		let maxInFlight = 0;
		const arrivals: number[] = [];
		const finished: number[] = [];
		tokenApi();
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.times(6)
			.reply(function (_uri, body, callback) {
				const id = Number((body as IDataObject).externalListingId);
				arrivals.push(id);
				inFlight++;
				maxInFlight = Math.max(maxInFlight, inFlight);
				// Later listings answer sooner, so completion order is the reverse of input order.
				setTimeout(
					() => {
						inFlight--;
						finished.push(id);
						callback(null, [201, { listingId: `L-${id}` }]);
					},
					(9006 - id) * 15,
				);
			});

		const { output, tokenRequests } = await run(
			{ ...MANY_PARAMETERS, options: { concurrencyMode: 'fixed', concurrency: 3 } },
			MANY,
		);

		expect(output.map((item) => item.json.listingId)).toEqual([
			'L-9000',
			'L-9001',
			'L-9002',
			'L-9003',
			'L-9004',
			'L-9005',
		]);
		expect(output.map((item) => item.pairedItem)).toEqual(
			[0, 1, 2, 3, 4, 5].map((item) => [{ item }]),
		);
		expect(maxInFlight).toBe(3);
		// The first listing went alone, so the token was fetched once.
		expect(finished[0]).toBe(9000);
		expect(arrivals[0]).toBe(9000);
		expect(tokenRequests).toBe(1);
		expect(finished).not.toEqual(arrivals);
	});

	it('with concurrency 1 sends one listing after the other', async () => {
		let inFlight = 0;
		let maxInFlight = 0;
		tokenApi();
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.times(6)
			.reply(function (_uri, body, callback) {
				inFlight++;
				maxInFlight = Math.max(maxInFlight, inFlight);
				setTimeout(() => {
					inFlight--;
					callback(null, [201, { id: (body as IDataObject).externalListingId }]);
				}, 5);
			});
		const { output } = await run({ ...MANY_PARAMETERS, options: { concurrency: 1 } }, MANY);
		expect(maxInFlight).toBe(1);
		expect(output.map((item) => item.json.id)).toEqual([9000, 9001, 9002, 9003, 9004, 9005]);
	});

	it('stops after a failure that may have created the listing, never re-sends it, and says what was created', async () => {
		const api = listingApi({ status: (body) => (body.externalListingId === 9001 ? 502 : 201) });
		tokenApi();
		try {
			await run({ ...MANY_PARAMETERS, options: { concurrency: 1 } }, MANY);
			throw new Error('expected a failure');
		} catch (error) {
			const failure = error as {
				message: string;
				description: string;
				httpCode: string;
				context: IDataObject;
			};
			expect(failure.httpCode).toBe('502');
			expect(failure.context.itemIndex).toBe(1);
			expect(failure.message).toBe(
				'Outcome unknown: the Partner API failed with a server error (HTTP 502)',
			);
			expect(failure.description).toContain(
				'the listing may or may not have been created. It was not sent again, so nothing was created twice. Look the listing up on the marketplace by its External Listing ID before sending it again.',
			);
			expect(failure.description).toContain('Created in this run: 1 listing (9000).');
			expect(failure.description).toContain(
				'Outcome unknown, may have been created: 1 listing (9001): Outcome unknown',
			);
			expect(failure.description).toContain(
				'Not sent, the run stopped first: 4 listings (9002, 9003, 9004 and 9005).',
			);
		}
		expect(api.seen.map((entry) => entry.body.externalListingId)).toEqual([9000, 9001]);
	});

	it('reports every listing of a stopped run in exactly one group, also when two fail at once', async () => {
		// Item 1 is refused (400) while item 2, in flight at the same time, gets a 502 and may exist.
		const api = listingApi({
			status: (body) => ({ 9001: 400, 9002: 502 })[Number(body.externalListingId)] ?? 201,
		});
		tokenApi();
		let description = '';
		try {
			await run(
				{ ...MANY_PARAMETERS, options: { concurrencyMode: 'fixed', concurrency: 3 } },
				MANY.slice(0, 5),
			);
			throw new Error('expected a failure');
		} catch (error) {
			description = (error as { description: string }).description;
		}
		const sent = api.seen.map((entry) => Number(entry.body.externalListingId));
		const created = sent.filter((id) => id !== 9001 && id !== 9002);
		const notSent = [9000, 9001, 9002, 9003, 9004].filter((id) => !sent.includes(id));
		const groups = {
			created: /Created in this run: \d+ listings? \((.*)\)\./.exec(description)?.[1] ?? '',
			refused: /Not created: (.*)/.exec(description)?.[1] ?? '',
			unknown: /Outcome unknown, may have been created: (.*)/.exec(description)?.[1] ?? '',
			notSent:
				/Not sent, the run stopped first: \d+ listings? \((.*)\)\./.exec(description)?.[1] ?? '',
		};
		expect(groups.refused).toContain(
			'1 listing (9001): The Partner API refused the listing (HTTP 400)',
		);
		expect(groups.unknown).toContain('1 listing (9002): Outcome unknown');
		expect(groups.unknown).toContain('(HTTP 502)');
		for (const id of created) expect(groups.created).toContain(String(id));
		for (const id of notSent) expect(groups.notSent).toContain(String(id));
		// Each listing in exactly one group.
		for (const id of [9000, 9001, 9002, 9003, 9004]) {
			const homes = Object.values(groups).filter((text) => text.includes(String(id)));
			expect(homes).toHaveLength(1);
		}
		expect(description).not.toMatch(/before the failure/);
	});

	it('with Continue On Fail, an API refusal becomes a paired error item and the rest are sent', async () => {
		const api = listingApi({ status: (body) => (body.externalListingId === 9002 ? 400 : 201) });
		tokenApi();
		const { output } = await run(
			{ ...MANY_PARAMETERS, options: { concurrency: 2 } },
			MANY.slice(0, 4),
			true,
		);
		expect(api.seen).toHaveLength(4);
		expect(output.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3].map((item) => [{ item }]));
		expect(output[2].json).toMatchObject({
			error: 'The Partner API refused the listing (HTTP 400)',
			httpCode: '400',
			itemIndexes: [2],
		});
		expect(output[3].json).toEqual({ listingId: 'L-9003' });
	});

	it('reports a 201 without a JSON object as outcome unknown, not created', async () => {
		tokenApi();
		nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, '');
		const { output } = await run(PER_ITEM, undefined, true);
		expect(output).toEqual([
			{
				json: expect.objectContaining({ httpCode: '201', mayHaveBeenCreated: true }),
				pairedItem: [{ item: 0 }],
			},
		]);
	});
});
