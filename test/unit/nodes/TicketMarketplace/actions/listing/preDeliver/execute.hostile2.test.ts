/**
 * Listing → Pre-deliver Tickets, a second hostile review (of the first review's fixes): each test asserts what docs/listing-pre-deliver.md and the
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
import type { FakeRunOptions } from '../../../../../../../support/fakeN8n/actionContext';
import { fileItem, pdfBytes } from '../../../../../../../support/fakeN8n/binaryItems';
import { grantTokens } from '../../../../../../../support/partnerApiNock';

import {
	acceptUploads,
	BY_EXTERNAL_ID,
	BY_MARKETPLACE_ID,
	createParameters,
	createSeven,
	goesToErrorOutput,
	run,
} from '../../../../../../../support/preDeliverRuns';

const A1 = pdfBytes('A1');
const A1_AGAIN = pdfBytes('A1 again');

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('Pre-deliver review 49b: Skip Listings Already Delivered, seats compared as Create compares them', () => {
	it.each([
		['its row spaced differently', 'Block  A'],
		['a full-width letter in its row', 'Block Ａ'],
		['a zero-width space in its row', 'Block A\u200b'],
	])(
		'does not upload a delivered listing again when a re-run gives the same seat with %s',
		async (_name, row) => {
			const store = new MemoryDeduplicationStore();
			grantTokens('tok-pdf', 2);
			const first = acceptUploads(200, { ok: true }, undefined, 1);
			const once = [fileItem({ listing: '9001', row: 'Block A', seat: '1' }, A1, 'a1.pdf')];
			const out = await run(once, { deduplication: store }).output();
			expect(out[0].json.status).toBe('delivered');
			expect(first).toHaveLength(1);
			const again = acceptUploads();
			const twice = [fileItem({ listing: '9001', row, seat: '1' }, A1, 'a1.pdf')];
			const rerun = await run(twice, { deduplication: store }).output();
			expect({ status: rerun[0].json.status, uploadedAgain: again.length }).toEqual({
				status: 'skipped',
				uploadedAgain: 0,
			});
		},
	);
});

describe('Pre-deliver review 49b: a re-run of an upload whose outcome is unknown', () => {
	it('sends the re-run\'s "unknown" item to the error output, as the docs say unknown items go', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		acceptUploads(
			409,
			{ code: 'conflict', description: 'Tickets already have PDFs' },
			undefined,
			1,
		);
		const items = [fileItem({ listing: '9001', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		const options = { continueOnFail: true, onError: 'continueErrorOutput', deduplication: store };
		const first = await run(items, options as Partial<FakeRunOptions>).output();
		expect(first.map(goesToErrorOutput)).toEqual([true]);
		const again = acceptUploads();
		const rerun = await run(items, options as Partial<FakeRunOptions>).output();
		expect(again).toHaveLength(0);
		expect({ json: rerun[0].json, toErrorOutput: rerun.map(goesToErrorOutput) }).toEqual({
			json: rerun[0].json,
			toErrorOutput: [true],
		});
	});

	it("the re-run's words say how to upload the tickets once the listing shows they have no PDFs", async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		acceptUploads(
			409,
			{ code: 'conflict', description: 'Tickets already have PDFs' },
			undefined,
			1,
		);
		const items = [fileItem({ listing: '9001', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		await run(items, { continueOnFail: true, deduplication: store }).output();
		acceptUploads();
		const rerun = await run(items, { continueOnFail: true, deduplication: store }).output();
		const said = JSON.stringify(rerun[0].json);
		expect(said).toMatch(/Skip Listings Already Delivered/);
	});
});

describe('Pre-deliver review 49b: an unknown re-run without On Error → Continue', () => {
	// As Create's re-run of a listing of unknown outcome: the run goes on, the item and a warning above it say so.
	it('does not stop the run: the item says the outcome is unknown, and a warning above the output says so', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		acceptUploads(
			409,
			{ code: 'conflict', description: 'Tickets already have PDFs' },
			undefined,
			1,
		);
		const items = [fileItem({ listing: '9001', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		await run(items, { deduplication: store })
			.output()
			.catch(() => undefined);
		const again = acceptUploads();
		const rerun = run(items, { deduplication: store });
		const out = await rerun.output();
		expect(again).toHaveLength(0);
		expect(out[0].json).toMatchObject({ status: 'unknown', mayHaveBeenDelivered: true });
		expect(String(out[0].json.error)).toMatch(/unknown|no answer/i);
		expect(rerun.fake.hints.map((hint) => hint.message).join('\n')).toMatch(
			/outcome unknown[\s\S]*Skip Listings Already Delivered off/,
		);
	});
});

describe('Pre-deliver review 49b: a file readable at the check, gone when its upload goes', () => {
	it('is "failed" (nothing was sent), in the error output with words, and sent by the next run', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		const items = [fileItem({ listing: '9001', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		const options = { continueOnFail: true, onError: 'continueErrorOutput', deduplication: store };
		const { fake, output } = run(items, options as Partial<FakeRunOptions>);
		const read = fake.context.helpers.getBinaryDataBuffer;
		let reads = 0;
		fake.context.helpers.getBinaryDataBuffer = async (itemIndex, property) => {
			if (++reads > 1)
				throw Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
			return await read(itemIndex, property);
		};
		const uploads = acceptUploads();
		const out = await output();
		expect(uploads).toHaveLength(0);
		expect(out[0].json).toEqual({
			error: expect.any(String),
			message: expect.stringMatching(/\S/),
		});
		expect(out.map(goesToErrorOutput)).toEqual([true]);
		const rerun = await run(items, { deduplication: store }).output();
		expect(rerun[0].json.status).toBe('delivered');
		expect(uploads).toHaveLength(1);
	});
});

describe('Pre-deliver review 49b: 2xx answers and the evidence of a delivery', () => {
	it.each([
		[
			'a numeric code beside a message (the docs: no `code` beside a message)',
			{ code: 400, message: 'Invalid PDF for seat A-1' },
		],
		[
			'snake-case error fields',
			{ error_code: 'PDF_INVALID', error_message: 'File is not a ticket' },
		],
		[
			'an error nested under result',
			{ result: { errors: [{ code: 'PDF_INVALID', message: 'File is not a ticket' }] } },
		],
	])('%s is not "delivered"', async (_name, answer) => {
		grantTokens('tok-pdf');
		acceptUploads(200, answer);
		const items = [fileItem({ listing: '9001', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		const out = await run(items, { continueOnFail: true }).output();
		expect(out[0].json.status).not.toBe('delivered');
	});

	it.each([
		['empty errors and a null error', { errors: [], error: null, uploaded: 1 }],
		['an empty fault and success true', { fault: {}, success: true }],
		['errorCode null', { errorCode: null, errorMessage: '' }],
		['a status that is no failure', { status: 'DELIVERED', state: 200 }],
	])('a success with %s is "delivered"', async (_name, answer) => {
		grantTokens('tok-pdf');
		acceptUploads(200, answer);
		const items = [fileItem({ listing: '9001', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		const out = await run(items, { continueOnFail: true }).output();
		expect(out[0].json.status).toBe('delivered');
	});

	it.each([
		['a byte-order mark', '\ufeff{"uploaded":1}', 'application/json'],
		['a charset in its type', '{"uploaded":1}', 'application/json; charset=utf-8'],
		['a JSON-based type', '{"uploaded":1}', 'application/vnd.api+json'],
	])('a 201 JSON object with %s is "delivered"', async (_name, answer, type) => {
		grantTokens('tok-pdf');
		acceptUploads(201, answer, { 'Content-Type': type });
		const items = [fileItem({ listing: '9001', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		const out = await run(items, { continueOnFail: true }).output();
		expect({ status: out[0].json.status, error: out[0].json.error }).toEqual({
			status: 'delivered',
			error: undefined,
		});
	});

	it('Create: a 200 with a numeric code beside a message is not "created"', async () => {
		grantTokens('tok-create');
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(200, { code: 400, message: 'Event is not active' });
		const items = [{ json: { listing: 7, ticket: 'T1', row: 'A', seat: '1' } }];
		const parameters = createParameters({ output: 'row' });
		const fake = fakeRun({ parameters, items, continueOnFail: true });
		const out = await create.call(fake.context, items);
		expect(out[0].json.listingStatus).not.toBe('created');
	});
});

describe('Pre-deliver review 49b: a look whose clean-up the store fails once', () => {
	/** Pre-deliver of listing 7, seat A-1, by External Listing ID, while the store fails to remove a look's bits. */
	async function lookNotCleanedUp(store: MemoryDeduplicationStore) {
		const once = [fileItem({ listing: '7', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		const first = run(once, { deduplication: store, continueOnFail: true }, BY_EXTERNAL_ID);
		const remove = first.fake.context.helpers.removeProcessed;
		// The store fails to take out what the look wrote (a database hiccup, both tries).
		first.fake.context.helpers.removeProcessed = async (values, scope, options) => {
			if (values.some((value) => String(value).includes(' listing bit ')))
				throw new Error('SQLITE_BUSY: database is locked');
			return await remove(values, scope, options);
		};
		return await first.output();
	}

	it('does not tell the user Create has no record of a listing Create recorded', async () => {
		const store = new MemoryDeduplicationStore();
		await createSeven(store);
		grantTokens('tok-pdf');
		acceptUploads();
		const out = await lookNotCleanedUp(store);
		expect(String(out[0].json.error ?? '')).not.toMatch(/has no record of External Listing ID 7/);
	});

	it('leaves the listing findable by External Listing ID in the next run', async () => {
		const store = new MemoryDeduplicationStore();
		await createSeven(store);
		grantTokens('tok-pdf', 2);
		const uploads = acceptUploads();
		await lookNotCleanedUp(store);
		const both = [
			fileItem({ listing: '7', row: 'A', seat: '1' }, A1, 'a1.pdf'),
			fileItem({ listing: '7', row: 'A', seat: '2' }, A1_AGAIN, 'a2.pdf'),
		];
		const rerun = await run(
			both,
			{ deduplication: store, continueOnFail: true },
			BY_EXTERNAL_ID,
		).output();
		expect({
			statuses: rerun.map((item) => item.json.status),
			errors: rerun.map((item) => item.json.error),
			paths: [...new Set(uploads.map((u) => u.path))],
		}).toEqual({
			statuses: ['delivered', 'delivered'],
			errors: [undefined, undefined],
			paths: ['/sellers/listings/pdf/v3/lst_7'],
		});
	});
});

describe('Pre-deliver review 49b: two runs pre-delivering one listing by External Listing ID at once', () => {
	it('neither is told Create has no record of it', async () => {
		const store = new MemoryDeduplicationStore();
		await createSeven(store);
		grantTokens('tok-pdf', 2);
		acceptUploads();
		// Two e-mails, one ticket each, trigger the workflow at the same moment; the store is slow to remove.
		const x = run(
			[fileItem({ listing: '7', row: 'A', seat: '1' }, A1, 'a1.pdf')],
			{ deduplication: store, continueOnFail: true, deduplicationCaller: 'x' },
			BY_EXTERNAL_ID,
		);
		const y = run(
			[fileItem({ listing: '7', row: 'A', seat: '2' }, A1_AGAIN, 'a2.pdf')],
			{ deduplication: store, continueOnFail: true, deduplicationCaller: 'y' },
			BY_EXTERNAL_ID,
		);
		const remove = x.fake.context.helpers.removeProcessed;
		x.fake.context.helpers.removeProcessed = async (values, scope, options) => {
			await new Promise((resolve) => setTimeout(resolve, 40));
			return await remove(values, scope, options);
		};
		const outs = await Promise.all([
			x.output(),
			new Promise((resolve) => setTimeout(resolve, 10)).then(async () => await y.output()),
		]);
		const errors = outs.map((out) => String(out[0].json.error ?? ''));
		expect(errors.filter((error) => /has no record/.test(error))).toEqual([]);
	});
});

describe('Pre-deliver review 49b: looks near the cap', () => {
	it('two runs looking at once never take the memory past the cap (n8n would drop the oldest listings sent)', async () => {
		const store = new MemoryDeduplicationStore();
		await createSeven(store);
		const held = store.entries.get('workflow')!;
		// Room for one look (105 places) and a little more, as the docs promise Create leaves it.
		for (let i = 0; held.size < SENT_LISTINGS_CAP - 110; i++) held.add(`other value ${i}`);
		grantTokens('tok-pdf', 2);
		acceptUploads();
		let peak = held.size;
		const runs = ['x', 'y'].map((caller, at) => {
			const one = run(
				[fileItem({ listing: '7', row: 'A', seat: String(at + 1) }, A1, `a${at + 1}.pdf`)],
				{ deduplication: store, continueOnFail: true, deduplicationCaller: caller },
				BY_EXTERNAL_ID,
			);
			const { helpers } = one.fake.context;
			const record = helpers.checkProcessedAndRecord;
			helpers.checkProcessedAndRecord = async (values, scope, options) => {
				const answer = await record(values, scope, options);
				peak = Math.max(peak, store.entries.get('workflow')!.size);
				return answer;
			};
			// A store slow to remove (a busy database): the two looks overlap.
			const remove = helpers.removeProcessed;
			helpers.removeProcessed = async (values, scope, options) => {
				await new Promise((resolve) => setTimeout(resolve, 40));
				return await remove(values, scope, options);
			};
			return one;
		});
		await Promise.all(runs.map(async (one) => await one.output().catch(() => undefined)));
		expect(peak).toBeLessThanOrEqual(SENT_LISTINGS_CAP);
	});
});

describe("Pre-deliver review 49b: the room Create leaves for Pre-deliver's look", () => {
	it('a listing Create recorded can still be looked up after Pre-deliver delivered a dozen others', async () => {
		const store = new MemoryDeduplicationStore();
		const filler = Array.from({ length: SENT_LISTINGS_CAP - 146 }, (_, i) => `other value ${i}`);
		store.entries.set('workflow', new Set(filler));
		await createSeven(store);
		// Create had room for the record and a look beside it, and kept listing 7 for Pre-deliver.
		const kept = [...store.entries.get('workflow')!].filter((key) =>
			key.includes(' marketplace listing'),
		);
		expect(kept.length).toBeGreaterThan(0);
		grantTokens('tok-pdf', 2);
		const uploads = acceptUploads(200, { ok: true }, undefined, 20);
		// Twelve other listings' tickets, by their marketplace IDs, from another sheet.
		const others = Array.from({ length: 12 }, (_, i) =>
			fileItem({ listing: `lst_${100 + i}`, row: 'B', seat: '1' }, A1, `b${i}.pdf`),
		);
		await run(others, { deduplication: store }).output();
		expect(uploads).toHaveLength(12);
		const items = [fileItem({ listing: '7', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		const out = await run(items, { deduplication: store, continueOnFail: true }, BY_EXTERNAL_ID)
			.output()
			.catch((error: Error) => [{ json: { thrown: error.message } as IDataObject }]);
		expect(out[0].json).toMatchObject({ status: 'delivered', listingId: 'lst_7' });
	});
});

describe('Pre-deliver review 49b: a look while Create records the listing it looks for', () => {
	it("leaves Create's record whole: the next run uploads to the listing Create created", async () => {
		const store = new MemoryDeduplicationStore();
		const id = 'lst_0123456789abcdefghij';
		const items = [fileItem({ listing: '7', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		const early = run(items, { deduplication: store, continueOnFail: true }, BY_EXTERNAL_ID);
		const remove = early.fake.context.helpers.removeProcessed;
		let created = false;
		// The ticket's e-mail arrives while Create of listing 7 runs: Create's record lands between a look's
		// write and its clean-up (a busy database makes that window long).
		early.fake.context.helpers.removeProcessed = async (values, scope, options) => {
			if (!created && values.some((value) => String(value).endsWith(' listing bit 99'))) {
				created = true;
				await createSeven(store, id);
			}
			return await remove(values, scope, options);
		};
		await early.output().catch(() => undefined);
		expect(created).toBe(true);
		grantTokens('tok-pdf', 2);
		const uploads = acceptUploads();
		const out = await run(items, { deduplication: store, continueOnFail: true }, BY_EXTERNAL_ID)
			.output()
			.catch((error: Error) => [{ json: { thrown: error.message } as IDataObject }]);
		expect({ paths: uploads.map((u) => u.path), listingId: out[0].json.listingId }).toEqual({
			paths: [`/sellers/listings/pdf/v3/${id}`],
			listingId: id,
		});
	});
});

describe('Pre-deliver review 49b: the words of an upload answered with a redirect', () => {
	it.each([[302], [303]])(
		'a %i says to check the listing on the marketplace before uploading again',
		async (status) => {
			grantTokens('tok-pdf');
			acceptUploads(status, '', { Location: `${BASE}/sellers/listings/9001` }, 1);
			const items = [fileItem({ listing: '9001', row: 'A', seat: '1' }, A1, 'a1.pdf')];
			const out = await run(items, { continueOnFail: true }).output();
			expect(out[0].json).toMatchObject({ status: 'unknown', mayHaveBeenDelivered: true });
			expect(`${out[0].json.error} ${out[0].json.description}`).toMatch(
				/check whether its tickets show as delivered before uploading them again/,
			);
		},
	);
});

describe('Pre-deliver review 49b: the same tickets in two runs at once', () => {
	it('are uploaded once, by Marketplace Listing ID', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		const uploads = acceptUploads();
		const items = [fileItem({ listing: '9001', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		const outs = await Promise.all(
			['x', 'y'].map(
				async (caller) =>
					await run(items, { deduplication: store, deduplicationCaller: caller }).output(),
			),
		);
		expect(uploads).toHaveLength(1);
		// The other run sees the upload in flight as an earlier run's unknown outcome.
		expect(outs.map((out) => out[0].json.status).sort()).toEqual(['delivered', 'unknown']);
	});
});

describe('Pre-deliver review 49b: an unknown outcome settled by uploading with the option off', () => {
	it('is not reported as "unknown, no answer" by a later run once an upload was delivered', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 3);
		acceptUploads(
			409,
			{ code: 'conflict', description: 'Tickets already have PDFs' },
			undefined,
			1,
		);
		const items = [fileItem({ listing: '9001', row: 'A', seat: '1' }, A1, 'a1.pdf')];
		await run(items, { continueOnFail: true, deduplication: store }).output();
		// The listing shows no PDFs: uploaded again with Skip Listings Already Delivered off, as the docs say.
		acceptUploads(200, { ok: true }, undefined, 1);
		const optionOff = {
			...BY_MARKETPLACE_ID,
			options: { concurrencyMode: 'fixed', concurrency: 1, skipAlreadySent: false },
		};
		const forced = await run(items, { deduplication: store }, optionOff).output();
		expect(forced[0].json.status).toBe('delivered');
		const later = acceptUploads();
		const out = await run(items, { continueOnFail: true, deduplication: store }).output();
		expect(later).toHaveLength(0);
		expect(out[0].json.status).not.toBe('unknown');
	});
});
