import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';

import {
	outcomeUnknownKey,
	sentListingKey,
} from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/sentListings';
import {
	bareColumnReference,
	normalizeHeader,
	recogniseHeaders,
} from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/settings';
import type { ParameterValue } from '../../../../../../../support/fakeN8n/actionContext';
import { listingBody } from '../../../../../../../support/listingBody';
import {
	BASE,
	fakeRun,
	MEMORY_ACCOUNT,
	GROUPED_SHEET_PARAMETERS,
	MemoryDeduplicationStore,
	sheetRows,
} from '../../../../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import { grantTokens } from '../../../../../../../support/partnerApiNock';

const tokenApi = () => grantTokens('tok', 10);

function listingApi(status: (id: number) => number | 'drop' = () => 201) {
	const seen: number[] = [];
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(200)
		.reply(function (_uri, body) {
			const id = Number((body as IDataObject).externalListingId);
			seen.push(id);
			const answer = status(id);
			// A conflict names the ID it is about, as the sandbox's does.
			if (answer === 409) return [409, { message: `externalListingId ${id} already exists` }];
			return [answer === 'drop' ? 504 : answer, { listingId: `L-${id}` }];
		});
	return seen;
}

const ROWS = sheetRows([
	{
		listing: '7001',
		event: '55',
		price: '10',
		currency: 'EUR',
		ticket: 't1',
		row: 'A',
		seat: '1',
		ga: '',
	},
	{
		listing: '7001',
		event: '55',
		price: '10',
		currency: 'EUR',
		ticket: 't2',
		row: 'A',
		seat: '2',
		ga: '',
	},
	{
		listing: '7002',
		event: '55',
		price: '12',
		currency: 'EUR',
		ticket: 't3',
		row: 'B',
		seat: '1',
		ga: '',
	},
]);

async function run(
	parameters: Record<string, ParameterValue>,
	items: INodeExecutionData[],
	deduplication = new MemoryDeduplicationStore(),
	continueOnFail = false,
) {
	const fake = fakeRun({ parameters, items, deduplication, continueOnFail });
	return await execute.call(fake.context, items);
}

afterEach(() => nock.cleanAll());

describe('reading sheet parameters', () => {
	it.each([
		['={{ $json.listing_id }}', 'listing_id'],
		['={{$json.seat}}', 'seat'],
		['={{ $json["Event ID"] }}', 'Event ID'],
		["={{ $json['price'] }}", 'price'],
		['={{ $json.a.b }}', undefined],
		['={{ $json.price * 2 }}', undefined],
		['={{ $("Sheet").item.json.seat }}', undefined],
		['{{ $json.seat }}', undefined],
		['=A-{{ $json.seat }}', undefined],
		[12, undefined],
	])('%j reads column %j directly', (raw, expected) => {
		expect(bareColumnReference(raw)).toBe(expected);
	});
});

describe('Map Automatically', () => {
	it('compares headers without case, spaces, underscores, hyphens or a byte-order mark', () => {
		expect(
			['listing_id', 'listingId', 'Listing ID', '\uFEFFlisting_id', 'LISTING-ID'].map(
				normalizeHeader,
			),
		).toEqual(Array(5).fill('listingid'));
		const match = recogniseHeaders([
			'\uFEFFListing ID',
			'Event ID',
			'price',
			'Currency',
			'ticketId',
			'Row',
			'seat',
		]);
		expect(Object.fromEntries(match.columns)).toEqual({
			externalListingId: '\uFEFFListing ID',
			eventId: 'Event ID',
			priceAmount: 'price',
			priceCurrency: 'Currency',
			productExternalId: 'ticketId',
			productRow: 'Row',
			productSeat: 'seat',
		});
		expect(match.missing).toEqual([]);
	});

	it('sends the same listings from recognised headers as from a hand mapping', async () => {
		tokenApi();
		const seen: IDataObject[] = [];
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.times(2)
			.reply(201, (_uri, body) => {
				seen.push(body as IDataObject);
				return {};
			});
		const rows = sheetRows([
			{
				'Listing ID': '7001',
				'Event ID': '55',
				Price: '10.00',
				currency: 'eur',
				ticket_id: 't1',
				row: 'A',
				seat: '1',
			},
			{
				'Listing ID': '7001',
				'Event ID': '55',
				Price: '10.00',
				currency: 'eur',
				ticket_id: 't2',
				row: 'A',
				seat: '2',
			},
		]);
		await run(
			{
				inputShape: 'ticketPerItem',
				columnMapping: 'auto',
				productType: 'TICKET',
				stockType: 'PDF',
				paymentType: 1,
				acceptLanguage: 'en-US',
				options: {},
			},
			rows,
		);
		expect(seen).toEqual([
			listingBody({
				eventId: 55,
				amount: 10,
				currency: 'EUR',
				externalListingId: 7001,
				products: [
					{ externalId: 't1', row: 'A', seat: '1' },
					{ externalId: 't2', row: 'A', seat: '2' },
				],
			}),
		]);
	});

	it('names the missing field and lists the columns the rows do have, sending nothing', async () => {
		const token = tokenApi();
		const rows = sheetRows([
			{ listing_id: '1', evnt: '5', price: '1', currency: 'EUR', ticket_id: 'a' },
		]);
		await expect(
			run({ inputShape: 'ticketPerItem', columnMapping: 'auto', options: {} }, rows),
		).rejects.toMatchObject({
			message: 'Map Automatically found no column for Event ID; nothing was sent',
			description: expect.stringContaining(
				'The rows have the columns: "listing_id", "evnt", "price", "currency" and "ticket_id".',
			),
		});
		expect(token.isDone()).toBe(false);
	});
});

describe('nothing listed twice, across runs', () => {
	const options = { concurrencyMode: 'fixed', concurrency: 2 };

	it('records before sending; a second run of the same sheet sends nothing and says why for each listing', async () => {
		tokenApi();
		const store = new MemoryDeduplicationStore();
		const seen = listingApi();
		await run({ ...GROUPED_SHEET_PARAMETERS, options }, ROWS, store);
		expect(seen.sort()).toEqual([7001, 7002]);
		expect(store.calls[0]).toEqual({
			method: 'checkProcessedAndRecord',
			values: [
				expect.stringMatching(/^ticket-marketplace run .* write 1$/),
				expect.stringMatching(/^ticket-marketplace run .* write 1 look 2$/),
				expect.stringMatching(/^ticket-marketplace run .* write 1 look 3$/),
				expect.stringMatching(/^ticket-marketplace run .* write 1 look 4$/),
				expect.stringMatching(/^ticket-marketplace run .* write 1 guard$/),
				sentListingKey(MEMORY_ACCOUNT, 7001),
				outcomeUnknownKey(MEMORY_ACCOUNT, 7001),
				sentListingKey(MEMORY_ACCOUNT, 7002),
				outcomeUnknownKey(MEMORY_ACCOUNT, 7002),
			],
		});
		// The run's markers, the keys it only looked for and the created listings' "outcome unknown" leave the
		// memory with it: only the listings stay.
		expect([...(store.entries.get('workflow') ?? [])].sort()).toEqual([
			sentListingKey(MEMORY_ACCOUNT, 7001),
			sentListingKey(MEMORY_ACCOUNT, 7002),
		]);

		const second = await run({ ...GROUPED_SHEET_PARAMETERS, options }, ROWS, store);
		expect(seen).toHaveLength(2);
		expect(second.map((item) => item.json)).toEqual([
			expect.objectContaining({
				status: 'skipped',
				externalListingId: 7001,
				message: expect.stringContaining('already sent by this workflow'),
			}),
			expect.objectContaining({ status: 'skipped', externalListingId: 7002 }),
		]);
		expect(second.map((item) => item.pairedItem)).toEqual([
			[{ item: 0 }, { item: 1 }],
			[{ item: 2 }],
		]);
	});

	it('forgets a listing the API refused (4xx) but keeps one whose outcome is unknown (5xx, timeout)', async () => {
		tokenApi();
		const store = new MemoryDeduplicationStore();
		listingApi((id) => (id === 7001 ? 400 : 'drop'));
		const output = await run({ ...GROUPED_SHEET_PARAMETERS, options }, ROWS, store, true);
		expect(output.map((item) => item.json.mayHaveBeenCreated)).toEqual([false, true]);
		expect([...(store.entries.get('workflow') ?? [])]).toEqual([
			sentListingKey(MEMORY_ACCOUNT, 7002),
			outcomeUnknownKey(MEMORY_ACCOUNT, 7002),
		]);

		// The next run sends the refused one again and skips the one that may exist, saying its outcome is unknown.
		nock.cleanAll();
		tokenApi();
		const seen = listingApi();
		const next = await run({ ...GROUPED_SHEET_PARAMETERS, options }, ROWS, store, true);
		expect(seen).toEqual([7001]);
		expect(next[1].json).toMatchObject({
			status: 'unknown',
			externalListingId: 7002,
			mayHaveBeenCreated: true,
		});
	});

	it('remembers per API Base URL, so a sandbox run does not block production', () => {
		expect(sentListingKey({ ...MEMORY_ACCOUNT, baseUrl: 'https://sandbox.test' }, 7001)).not.toBe(
			sentListingKey({ ...MEMORY_ACCOUNT, baseUrl: 'https://api.test' }, 7001),
		);
	});

	it('can be turned off', async () => {
		tokenApi();
		const store = new MemoryDeduplicationStore();
		const seen = listingApi();
		await run(
			{ ...GROUPED_SHEET_PARAMETERS, options: { ...options, skipAlreadySent: false } },
			ROWS,
			store,
		);
		await run(
			{ ...GROUPED_SHEET_PARAMETERS, options: { ...options, skipAlreadySent: false } },
			ROWS,
			store,
		);
		expect(seen).toHaveLength(4);
		expect(store.calls).toEqual([]);
	});
});

describe('rows back to the sheet', () => {
	it('outputs one item per input row with its own fields, its listing id and a status, paired with that row', async () => {
		tokenApi();
		listingApi((id) => (id === 7002 ? 409 : 201));
		const rows = [...ROWS, { json: { ...ROWS[0].json, listing: 'x7', ticket: 't9' } }];
		const output = await run(
			{ ...GROUPED_SHEET_PARAMETERS, options: { ...options(), output: 'row' } },
			rows,
			new MemoryDeduplicationStore(),
			true,
		);
		expect(output).toHaveLength(4);
		expect(output.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3].map((item) => ({ item })));
		expect(output.map((item) => item.json.listingStatus)).toEqual([
			'created',
			'created',
			'alreadyListed',
			'invalid',
		]);
		expect(output[0].json).toMatchObject({
			...ROWS[0].json,
			externalListingId: 7001,
			listingResponse: { listingId: 'L-7001' },
		});
		// A conflict: the API holds a listing with this ID already.
		expect(output[2].json.listingError).toMatchObject({
			httpCode: '409',
			message: expect.stringContaining('Already listed'),
		});
		expect(output[3].json.listingError).toMatchObject({ problems: expect.any(Array) });
	});

	function options() {
		return { concurrencyMode: 'fixed', concurrency: 2 };
	}
});

describe('Listing → Forget Sent Listings', () => {
	it("forgets the listed IDs for the credential's Base URL, sends nothing to the API, and Create sends them again", async () => {
		const { execute: forget } = await import(
			'../../../../../../../nodes/TicketMarketplace/actions/listing/forgetSent.operation'
		);
		const store = new MemoryDeduplicationStore();
		tokenApi();
		const seen = listingApi();
		await run(
			{ ...GROUPED_SHEET_PARAMETERS, options: { concurrencyMode: 'fixed', concurrency: 2 } },
			ROWS,
			store,
		);
		expect(seen).toHaveLength(2);

		const items = [{ json: { id: '7001' } }];
		const fake = fakeRun({
			parameters: {
				forgetScope: 'ids',
				forgetExternalListingId: (_index: number, json: Record<string, unknown>) => json.id,
			},
			items,
			deduplication: store,
		});
		const output = await forget.call(fake.context, items);
		expect(output).toEqual([{ json: { forgotten: 7001 }, pairedItem: { item: 0 } }]);
		expect([...(store.entries.get('workflow') ?? [])]).toEqual([
			sentListingKey(MEMORY_ACCOUNT, 7002),
		]);

		await run(
			{ ...GROUPED_SHEET_PARAMETERS, options: { concurrencyMode: 'fixed', concurrency: 2 } },
			ROWS,
			store,
			true,
		);
		expect(seen.slice(2)).toEqual([7001]);
	});
});
