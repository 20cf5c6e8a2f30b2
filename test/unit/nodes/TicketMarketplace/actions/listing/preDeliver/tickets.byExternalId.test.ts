/**
 * Listing → Pre-deliver Tickets by External Listing ID: Create (its real execute(), its memory and Remember Listings
 * for Pre-Deliver on) records the marketplace's ID and the seats of each listing it created; Pre-deliver maps the ID through that record, and refuses
 * before sending an ID Create has no record of, or a seat the listing does not hold.
 */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import { execute as create } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { MAX_ID_BYTES } from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/createdListings';
import { RunMemory } from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/runMemory';
import { sentListingKey } from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/sentListings';
import { SENT_LISTINGS_CAP } from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/verifiedStore';
import { execute as preDeliver } from '../../../../../../../nodes/TicketMarketplace/actions/listing/preDeliver.operation';
import {
	BASE,
	column,
	fakeRun,
	MEMORY_ACCOUNT,
	MemoryDeduplicationStore,
} from '../../../../../../../support/fakeN8n/actionContext';
import {
	fileItem,
	pdfBytes,
	withBinaryHelpers,
} from '../../../../../../../support/fakeN8n/binaryItems';
import { grantTokens } from '../../../../../../../support/partnerApiNock';
import { createParameters } from '../../../../../../../support/preDeliverRuns';

/** Listing → Create of listings 7 (seats) and 8 (General Admission), answered with `ids` (by External ID). */
async function createListings(
	store: MemoryDeduplicationStore,
	ids: Record<number, unknown>,
	options: IDataObject = {},
) {
	grantTokens('tok-create');
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(2)
		.reply((_uri, body) => {
			const external = Number((body as IDataObject).externalListingId);
			return [201, { id: ids[external], externalListingId: external }];
		});
	const items = [
		{ json: { listing: 7, ticket: 'T1', row: 'A', seat: '1' } },
		{ json: { listing: 7, ticket: 'T2', row: 'A', seat: '2' } },
		{ json: { listing: 8, ticket: 'G1', ga: true } },
	];
	const parameters = createParameters({ rememberForPreDeliver: true, ...options });
	const fake = fakeRun({ parameters, items, deduplication: store });
	await create.call(fake.context, items);
	expect(nock.pendingMocks()).toEqual([]);
	return fake.hints;
}

/** A memory in which Create recorded listing 7 as lst_7 and listing 8 as lst_8. */
async function createdSevenAndEight(): Promise<MemoryDeduplicationStore> {
	const store = new MemoryDeduplicationStore();
	await createListings(store, { 7: 'lst_7', 8: 'lst_8' });
	return store;
}

const PARAMETERS = {
	binaryPropertyName: 'data',
	listingBy: 'externalId',
	externalListingId: column('listing'),
	generalAdmission: column('ga'),
	row: column('row'),
	seat: column('seat'),
	options: { concurrencyMode: 'fixed', concurrency: 1 },
};

async function deliver(
	store: MemoryDeduplicationStore,
	items: INodeExecutionData[],
	continueOnFail = false,
) {
	const fake = fakeRun({ parameters: PARAMETERS, items, deduplication: store, continueOnFail });
	withBinaryHelpers(fake.context, items);
	return await preDeliver.call(fake.context, items);
}

/** The uploads' paths and their `listing` parts, in order. */
function acceptUploads(): Array<{ path: string; products: unknown }> {
	const uploads: Array<{ path: string; products: unknown }> = [];
	nock(BASE)
		.post(/^\/sellers\/listings\/pdf\/v3\//)
		.times(10)
		.reply((path, body) => {
			const text = Buffer.from(String(body), 'hex').toString('latin1');
			const json = /\r\n\r\n(\{"products".*?\})\r\n--/s.exec(text)![1];
			uploads.push({ path, products: JSON.parse(json).products });
			return [200, { ok: true }];
		});
	return uploads;
}

const ticket = (json: IDataObject, label: string) =>
	fileItem(json, pdfBytes(label), `${label}.pdf`);

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('Listing → Pre-deliver Tickets by External Listing ID', () => {
	it("sends each listing's tickets to the marketplace ID Create recorded, read back exactly", async () => {
		const store = new MemoryDeduplicationStore();
		const odd = 'lst/ü 9'.padEnd(MAX_ID_BYTES - 1, 'x');
		await createListings(store, { 7: 'lst_0a1b2c3d4e5f6071', 8: odd });
		grantTokens('tok-pdf');
		const uploads = acceptUploads();
		const out = await deliver(store, [
			ticket({ listing: '7', row: 'a', seat: '2' }, 'A2'),
			ticket({ listing: 8, ga: true }, 'GA'),
			ticket({ listing: ' 7 ', row: 'A', seat: '1' }, 'A1'),
		]);
		expect(uploads).toEqual([
			{
				path: '/sellers/listings/pdf/v3/lst_0a1b2c3d4e5f6071',
				products: [
					{ row: 'a', seat: '2', name: 'file1.pdf' },
					{ row: 'A', seat: '1', name: 'file2.pdf' },
				],
			},
			{
				path: `/sellers/listings/pdf/v3/${encodeURIComponent(odd)}`,
				products: [{ row: 'GA', seat: 'GA', name: 'file1.pdf' }],
			},
		]);
		expect(out.map(({ json }) => [json.status, json.listingId, json.externalListingId])).toEqual([
			['delivered', 'lst_0a1b2c3d4e5f6071', 7],
			['delivered', odd, 8],
			['delivered', 'lst_0a1b2c3d4e5f6071', 7],
		]);
	});

	it('refuses, before anything is sent, a seat the listing does not hold, naming the item', async () => {
		const store = await createdSevenAndEight();
		const uploads = acceptUploads();
		const items = [
			ticket({ listing: 7, row: 'A', seat: '1' }, 'A1'),
			ticket({ listing: 7, row: 'A', seat: '3' }, 'A3'),
		];
		await expect(deliver(store, items)).rejects.toThrow(
			'Item 2: listing 7 holds no ticket at row A, seat 3',
		);
		// A seated ticket named General Admission is not one of the listing's seats either.
		await expect(deliver(store, [ticket({ listing: 7, ga: true }, 'GA')])).rejects.toThrow(
			'Item 1: listing 7 holds no ticket at row GA, seat GA',
		);
		expect(uploads).toEqual([]);
		expect(nock.pendingMocks()).toHaveLength(1);
	});

	it('refuses an External Listing ID Create has no record of, saying what to do; sends nothing', async () => {
		const store = await createdSevenAndEight();
		const uploads = acceptUploads();
		const items = [
			ticket({ listing: 7, row: 'A', seat: '1' }, 'A1'),
			ticket({ listing: 9, row: 'A', seat: '1' }, 'B1'),
		];
		const error = await deliver(store, items).catch((thrown: Error) => thrown);
		expect(error).toMatchObject({
			message: "Item 2: this workflow's Listing → Create has no record of External Listing ID 9",
		});
		expect((error as unknown as { description: string }).description).toContain(
			'choose Listing → By Marketplace Listing ID',
		);
		expect(uploads).toEqual([]);
	});

	it('with Continue On Fail, sends what Create recorded and says which items were refused', async () => {
		const store = await createdSevenAndEight();
		grantTokens('tok-pdf');
		const uploads = acceptUploads();
		const out = await deliver(
			store,
			[
				ticket({ listing: 9, row: 'A', seat: '1' }, 'B1'),
				ticket({ listing: 7, row: 'A', seat: '1' }, 'A1'),
				ticket({ listing: 7, row: 'Z', seat: '9' }, 'Z9'),
			],
			true,
		);
		expect(uploads.map((upload) => upload.path)).toEqual(['/sellers/listings/pdf/v3/lst_7']);
		expect(out.map(({ json }) => json.status)).toEqual(['invalid', 'delivered', 'invalid']);
		expect(out[2].json.error).toBe('Item 3: listing 7 holds no ticket at row Z, seat 9');
	});

	it('finds no record where Create had no evidence of the ID, its memory was off, or the ID was forgotten', async () => {
		const noEvidence = new MemoryDeduplicationStore();
		// No ID in the answer, and one too long to keep: Create records neither.
		await createListings(noEvidence, { 7: undefined, 8: 'x'.repeat(MAX_ID_BYTES + 1) });
		const memoryOff = new MemoryDeduplicationStore();
		await createListings(memoryOff, { 7: 'lst_7', 8: 'lst_8' }, { skipAlreadySent: false });
		const forgotten = new MemoryDeduplicationStore();
		await createListings(forgotten, { 7: 'lst_7', 8: 'lst_8' });
		const fake = fakeRun({ parameters: {}, items: [], deduplication: forgotten });
		await new RunMemory(fake.context, MEMORY_ACCOUNT).forgetOnRequest([7, 8]);
		const uploads = acceptUploads();
		for (const store of [noEvidence, memoryOff, forgotten])
			for (const json of [
				{ listing: 7, row: 'A', seat: '1' },
				{ listing: 8, ga: true },
			])
				await expect(deliver(store, [ticket(json, 'T')])).rejects.toThrow(
					`has no record of External Listing ID ${json.listing}`,
				);
		expect(uploads).toEqual([]);
	});

	it('with Remember Listings for Pre-Deliver off, Create keeps only its IDs sent, and Pre-deliver says to turn it on', async () => {
		const off = new MemoryDeduplicationStore();
		await createListings(off, { 7: 'lst_7', 8: 'lst_8' }, { rememberForPreDeliver: false });
		// One entry per listing sent, nothing of the marketplace's IDs or of the seats.
		expect([...(off.entries.get('workflow') ?? [])].sort()).toEqual(
			[7, 8].map((id) => sentListingKey(MEMORY_ACCOUNT, id)).sort(),
		);
		// With it on, the same run keeps them (so the look above would see them).
		const on = await createdSevenAndEight();
		expect(
			[...on.entries.get('workflow')!].filter((key) => key.includes(' marketplace listing')),
		).not.toHaveLength(0);
		const uploads = acceptUploads();
		const error = await deliver(off, [ticket({ listing: 7, row: 'A', seat: '1' }, 'A1')]).catch(
			(thrown: Error) => thrown,
		);
		expect(error).toMatchObject({
			message: "Item 1: this workflow's Listing → Create has no record of External Listing ID 7",
		});
		expect((error as unknown as { description: string }).description).toContain(
			'turn that option on in Create',
		);
		expect((error as unknown as { description: string }).description).toContain(
			'Options → Remember Listings for Pre-Deliver',
		);
		expect(uploads).toEqual([]);
	});

	it('with no room left under the cap, Create keeps no record for Pre-deliver and says so', async () => {
		const store = new MemoryDeduplicationStore();
		const filler = new Set(
			Array.from({ length: SENT_LISTINGS_CAP - 30 }, (_, i) => `other value ${i}`),
		);
		store.entries.set('workflow', new Set(filler));
		const hints = await createListings(store, { 7: 'lst_7', 8: 'lst_8' });
		const kept = [...store.entries.get('workflow')!].filter((key) => !filler.has(key));
		expect(kept.sort()).toEqual([7, 8].map((id) => sentListingKey(MEMORY_ACCOUNT, id)).sort());
		// Beside the notice that the memory is near its cap.
		expect(hints.map((hint) => hint.message)).toContainEqual(
			expect.stringMatching(
				/^Not remembered for Pre-Deliver Tickets: .* 2 listings this run created/,
			),
		);
	});

	it('with Skip Listings Already Sent off, records nothing and says why above the output', async () => {
		const store = new MemoryDeduplicationStore();
		const hints = await createListings(
			store,
			{ 7: 'lst_7', 8: 'lst_8' },
			{ skipAlreadySent: false },
		);
		expect(store.entries.get('workflow') ?? new Set()).toEqual(new Set());
		expect(hints.map((hint) => hint.message)).toContainEqual(
			expect.stringMatching(
				/^Not remembered for Pre-Deliver Tickets: .*Skip Listings Already Sent is off/,
			),
		);
	});

	it('keeps no record for Pre-deliver while the memory lacks room for the look beside it', async () => {
		const store = new MemoryDeduplicationStore();
		// Room for the record (some 60 entries), not for it and one look (105 more).
		const filler = new Set(
			Array.from({ length: SENT_LISTINGS_CAP - 150 }, (_, i) => `other value ${i}`),
		);
		store.entries.set('workflow', new Set(filler));
		const hints = await createListings(store, { 7: 'lst_7', 8: 'lst_8' });
		const kept = [...store.entries.get('workflow')!].filter((key) => !filler.has(key));
		expect(kept.sort()).toEqual([7, 8].map((id) => sentListingKey(MEMORY_ACCOUNT, id)).sort());
		expect(hints.map((hint) => hint.message)).toContainEqual(
			expect.stringMatching(/^Not remembered for Pre-Deliver Tickets/),
		);
	});

	it('with no room to look, says what helps (not "run again") and sends nothing', async () => {
		const store = await createdSevenAndEight();
		const held = store.entries.get('workflow')!;
		for (let i = 0; held.size < SENT_LISTINGS_CAP - 20; i++) held.add(`other value ${i}`);
		const uploads = acceptUploads();
		const error = await deliver(store, [ticket({ listing: 7, row: 'A', seat: '1' }, 'A1')]).catch(
			(thrown: Error & { description?: string }) => thrown,
		);
		expect(error).toMatchObject({ message: expect.stringMatching(/memory .* is full/) });
		const { description } = error as { description: string };
		expect(description).toContain('Clear Sent Listings History');
		expect(description).toContain('By Marketplace Listing ID');
		expect(description).not.toMatch(/run the workflow again/i);
		expect(uploads).toEqual([]);
	});

	it('refuses an External Listing ID that is not a whole number', async () => {
		const uploads = acceptUploads();
		const items = [ticket({ listing: 'lst_7', row: 'A', seat: '1' }, 'A1')];
		await expect(deliver(new MemoryDeduplicationStore(), items)).rejects.toThrow(
			'Item 1: "lst_7" is not a Listing ID',
		);
		expect(uploads).toEqual([]);
	});
});
