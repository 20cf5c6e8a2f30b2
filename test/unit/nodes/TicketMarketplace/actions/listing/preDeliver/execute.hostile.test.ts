/**
 * Listing → Pre-deliver Tickets, a hostile review: each test asserts what docs/listing-pre-deliver.md and the
 * README promise, through the real execute(), Create's real execute() and memory, n8n-core's request helpers and nock.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import { execute as create } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { SENT_LISTINGS_CAP } from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/verifiedStore';
import {
	BASE,
	fakeRun,
	MemoryDeduplicationStore,
} from '../../../../../../../support/fakeN8n/actionContext';
import { fileItem, pdfBytes } from '../../../../../../../support/fakeN8n/binaryItems';
import { grantTokens } from '../../../../../../../support/partnerApiNock';

import {
	acceptUploads,
	BY_EXTERNAL_ID,
	createParameters,
	createSeven,
	goesToErrorOutput,
	productsOf,
	run,
} from '../../../../../../../support/preDeliverRuns';

const A1 = pdfBytes('A1');
const A1_AGAIN = pdfBytes('A1 again');

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('Pre-deliver review 49: the same seat twice, as the node itself compares seats', () => {
	it('refuses External Listing IDs 7 and 07 with the same seat: both name listing 7', async () => {
		const store = new MemoryDeduplicationStore();
		await createSeven(store);
		grantTokens('tok-pdf');
		const uploads = acceptUploads();
		const items = [
			fileItem({ listing: '7', row: 'A', seat: '1' }, A1, 'a1.pdf'),
			fileItem({ listing: '07', row: 'A', seat: '1' }, A1_AGAIN, 'a1-again.pdf'),
		];
		const outcome = run(items, { deduplication: store }, BY_EXTERNAL_ID)
			.output()
			.then(
				() => uploads.map(productsOf),
				(error: Error) => error.message,
			);
		await expect(outcome).resolves.toMatch(/Item 2: .*given twice/);
	});

	it.each([
		['a full-width A', 'Ａ'],
		['a zero-width space', 'A\u200b'],
	])(
		'refuses, by External Listing ID, seat A-1 given again with %s: the node maps both to seat A-1',
		async (_name, row) => {
			const store = new MemoryDeduplicationStore();
			await createSeven(store);
			grantTokens('tok-pdf');
			const uploads = acceptUploads();
			const items = [
				fileItem({ listing: '7', row: 'A', seat: '1' }, A1, 'a1.pdf'),
				fileItem({ listing: '7', row, seat: '1' }, A1_AGAIN, 'a1-again.pdf'),
			];
			const outcome = run(items, { deduplication: store }, BY_EXTERNAL_ID)
				.output()
				.then(
					() => uploads.map(productsOf),
					(error: Error) => error.message,
				);
			await expect(outcome).resolves.toMatch(/Item 2: .*given twice/);
		},
	);

	it('refuses, by Marketplace Listing ID, the same seat with its row spaced differently', async () => {
		grantTokens('tok-pdf');
		const uploads = acceptUploads();
		const items = [
			fileItem({ listing: '9001', row: 'Block A', seat: '1' }, A1, 'a1.pdf'),
			fileItem({ listing: '9001', row: 'Block  A', seat: '1' }, A1_AGAIN, 'a1-again.pdf'),
		];
		const outcome = run(items)
			.output()
			.then(
				() => uploads.map(productsOf),
				(error: Error) => error.message,
			);
		await expect(outcome).resolves.toMatch(/Item 2: .*given twice/);
	});
});

describe('Pre-deliver review 49: a 200 whose JSON reports an error', () => {
	it.each([
		["Apigee's OAuth error shape", { ErrorCode: 'invalid_request', Error: 'Invalid listing' }],
		['an errorCode', { errorCode: 'PDF_REJECTED', errorMessage: 'File is not a ticket' }],
		['success: false', { success: false, message: 'Seat E-151 is not on this listing' }],
		['a status that says it failed', { status: 'FAILED', listingId: 9001 }],
		['a state that says so under data', { data: { state: ' Rejected ' } }],
		[
			"the service's own {code, description} shape",
			{ code: 'listings.notFound', description: 'Listing not found' },
		],
	])('%s is not "delivered"', async (_name, answer) => {
		grantTokens('tok-pdf');
		acceptUploads(200, answer);
		const items = [fileItem({ listing: '9001', row: 'E', seat: '151' }, A1, 'e.pdf')];
		const out = await run(items, { continueOnFail: true }).output();
		expect(out[0].json.status).not.toBe('delivered');
	});
});

describe('Pre-deliver review 49: Continue (using error output)', () => {
	it('sends a ticket whose file the binary data store cannot read at the check to the error output', async () => {
		grantTokens('tok-pdf');
		acceptUploads();
		const items = [
			fileItem({ listing: '9001', row: 'E', seat: '151' }, A1, 'e151.pdf'),
			fileItem({ listing: '9002', row: 'E', seat: '152' }, A1_AGAIN, 'e152.pdf'),
		];
		const { fake, output } = run(items, {
			continueOnFail: true,
			onError: 'continueErrorOutput',
		});
		const read = fake.context.helpers.getBinaryDataBuffer;
		// Filesystem mode: the file behind the first item's binary id is gone.
		fake.context.helpers.getBinaryDataBuffer = async (itemIndex, property) => {
			if (itemIndex === 0)
				throw Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
			return await read(itemIndex, property);
		};
		const out = await output();
		// n8n routes `{error, message: ''}` to the success output: the message must say something.
		expect(out[0].json).toEqual({
			error: expect.any(String),
			message: expect.stringMatching(/\S/),
		});
		expect(out.map(goesToErrorOutput)).toEqual([true, false]);
	});
});

describe('Pre-deliver review 49: a file the binary data store cannot read, at the check', () => {
	it('stops the run naming the item and its file, as every other refusal does', async () => {
		const items = [fileItem({ listing: '9001', row: 'E', seat: '151' }, A1, 'e151.pdf')];
		const { fake, output } = run(items);
		// Filesystem or S3 mode: the file behind the item's binary id is gone.
		fake.context.helpers.getBinaryDataBuffer = async () => {
			throw Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
		};
		await expect(output()).rejects.toThrow(/Item 1: .*e151\.pdf/);
	});
});

describe('Pre-deliver review 49: the memory close to its cap', () => {
	it('finds, by External Listing ID, a listing Create has just remembered with room to spare', async () => {
		const store = new MemoryDeduplicationStore();
		// 300 places short of the cap, as some 1,200 listings remembered for Pre-deliver leave it (the docs).
		const filler = Array.from({ length: SENT_LISTINGS_CAP - 300 }, (_, i) => `other value ${i}`);
		store.entries.set('workflow', new Set(filler));
		await createSeven(store);
		// Create had room for listing 7, and kept its marketplace ID and seats for Pre-deliver.
		const held = [...store.entries.get('workflow')!];
		expect(held.filter((key) => key.includes(' marketplace listing')).length).toBeGreaterThan(0);
		expect(held.length).toBeLessThan(SENT_LISTINGS_CAP - 200);
		grantTokens('tok-pdf');
		const uploads = acceptUploads();
		const items = [fileItem({ listing: '7', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		const out = await run(items, { deduplication: store }, BY_EXTERNAL_ID)
			.output()
			.catch((error: Error & { description?: string }) => [
				{ json: { thrown: `${error.message} | ${error.description}` } },
			]);
		expect(out[0].json).toMatchObject({ status: 'delivered', listingId: 'lst_7' });
		expect(uploads.map((u) => u.path)).toEqual(['/sellers/listings/pdf/v3/lst_7']);
	});
});

describe('Pre-deliver review 49: the words the README quotes', () => {
	it('an item without any file says "The item has no binary field \'data\'", as Common issues quotes it', async () => {
		const items = [{ json: { listing: '9001', row: 'E', seat: '151' } }];
		await expect(run(items).output()).rejects.toThrow(/no binary field 'data'/);
	});
});

describe('Pre-deliver review 49: a ticket Create listed at row GA, seat GA', () => {
	it('is found by External Listing ID, given that same row and seat', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-create');
		nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, { id: 'lst_8', externalListingId: 8 });
		// A sheet that writes GA in its row and seat columns, General Admission not ticked.
		const rows = [{ json: { listing: 8, ticket: 'G1', row: 'GA', seat: 'GA' } }];
		const parameters = createParameters({ rememberForPreDeliver: true });
		const created = fakeRun({ parameters, items: rows, deduplication: store });
		await create.call(created.context, rows);
		grantTokens('tok-pdf');
		const uploads = acceptUploads();
		const items = [fileItem({ listing: '8', row: 'GA', seat: 'GA' }, A1, 'ga.pdf')];
		const out = await run(
			items,
			{ deduplication: store, continueOnFail: true },
			BY_EXTERNAL_ID,
		).output();
		const { status, error } = out[0].json;
		expect({ status, error }).toEqual({ status: 'delivered', error: undefined });
		expect(uploads.map((u) => u.path)).toEqual(['/sellers/listings/pdf/v3/lst_8']);
	});
});

describe('Pre-deliver review 49: a marketplace ID the address would drop, learnt from Create', () => {
	it.each([['..'], ['.']])(
		'refuses, by External Listing ID, a listing Create learnt as %j: the files would go to another address',
		async (id) => {
			const store = new MemoryDeduplicationStore();
			await createSeven(store, id);
			grantTokens('tok-pdf');
			const paths: string[] = [];
			nock(BASE)
				.intercept(/.*/, 'POST')
				.times(5)
				.reply((path) => {
					paths.push(path);
					return [200, { ok: true }, { 'Content-Type': 'application/json' }];
				});
			const items = [fileItem({ listing: '7', row: 'A', seat: '1' }, A1, 'a1.pdf')];
			const out = await run(items, { deduplication: store, continueOnFail: true }, BY_EXTERNAL_ID)
				.output()
				.catch((error: Error) => [{ json: { thrown: error.message } as IDataObject }]);
			expect(paths).toEqual([]);
			expect(out[0].json.status).not.toBe('delivered');
		},
	);
});

describe('Pre-deliver review 49: answers that do not say "nothing was delivered"', () => {
	it('a 302 after the upload (post/redirect/get, as a 303) is not "not delivered", and is not sent again', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		const location = { Location: `${BASE}/sellers/listings/9001` };
		const first = acceptUploads(302, '', location, 1);
		const items = [fileItem({ listing: '9001', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		const out = await run(items, { continueOnFail: true, deduplication: store }).output();
		const again = acceptUploads();
		await run(items, { continueOnFail: true, deduplication: store }).output();
		expect(first).toHaveLength(1);
		expect(out[0].json).toMatchObject({ status: 'unknown', mayHaveBeenDelivered: true });
		expect(again).toHaveLength(0);
	});

	it('a 409 that the node itself says to check "before uploading them again" is not uploaded again by the next run', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		acceptUploads(
			409,
			{ code: 'conflict', description: 'Tickets already have PDFs' },
			undefined,
			1,
		);
		const items = [fileItem({ listing: '9001', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		const out = await run(items, { continueOnFail: true, deduplication: store }).output();
		expect(String(out[0].json.description)).toMatch(/before uploading them again/);
		const again = acceptUploads();
		await run(items, { continueOnFail: true, deduplication: store }).output();
		expect({
			mayHaveBeenDelivered: out[0].json.mayHaveBeenDelivered,
			uploadedAgain: again.length,
		}).toEqual({
			mayHaveBeenDelivered: true,
			uploadedAgain: 0,
		});
	});
});

describe('Pre-deliver review 49: a Listing ID no address can hold', () => {
	it('a lone surrogate in the Listing ID is refused as that item, with Continue On Fail', async () => {
		grantTokens('tok-pdf');
		const uploads = acceptUploads();
		const items = [
			fileItem({ listing: 'lst\ud800', row: 'A', seat: '1' }, A1, 'a1.pdf'),
			fileItem({ listing: '9002', row: 'A', seat: '1' }, A1_AGAIN, 'b.pdf'),
		];
		const out = await run(items, { continueOnFail: true }).output();
		expect(out.map((item) => item.json.status)).toEqual(['invalid', 'delivered']);
		expect(uploads.map((u) => u.path)).toEqual(['/sellers/listings/pdf/v3/9002']);
	});

	it('a lone surrogate in the Listing ID: no upload goes on after the node has ended', async () => {
		grantTokens('tok-pdf');
		const uploads = acceptUploads();
		const items = [
			fileItem({ listing: 'lst\ud800', row: 'A', seat: '1' }, A1, 'a1.pdf'),
			fileItem({ listing: '9002', row: 'A', seat: '1' }, A1_AGAIN, 'b.pdf'),
		];
		const ended = await run(items)
			.output()
			.then(
				() => 'returned',
				(error: Error) => `threw ${error.name}: ${error.message}`,
			);
		const atEnd = uploads.map((u) => u.path);
		await new Promise((resolve) => setTimeout(resolve, 500));
		expect({ ended, atEnd, later: uploads.map((u) => u.path) }).toEqual({
			ended,
			atEnd,
			later: atEnd,
		});
	});

	it('a lone surrogate in the Listing ID leaves no "outcome unknown" behind: nothing was sent', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		acceptUploads();
		const items = [fileItem({ listing: 'lst\ud800', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		await run(items, { deduplication: store })
			.output()
			.catch(() => undefined);
		const again = await run(items, { deduplication: store, continueOnFail: true })
			.output()
			.catch((error: Error) => [{ json: { thrown: error.message } as IDataObject }]);
		expect(again[0].json.message ?? '').not.toMatch(/got no answer/);
	});
});
