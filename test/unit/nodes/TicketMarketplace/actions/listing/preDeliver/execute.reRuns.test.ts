/**
 * Listing → Pre-Deliver Tickets over several runs, as docs/listing-pre-deliver.md promises: a listing of unknown
 * outcome is not uploaded again whatever tickets a run brings, a delivered listing brought with fewer tickets sends
 * nothing, and the words of a stopped run and of a refused upload say what happened. Through the real execute(),
 * n8n-core-shaped contexts, the real memory and nock.
 */
import nock from 'nock';

import { MemoryDeduplicationStore } from '../../../../../../../support/fakeN8n/actionContext';
import { fileItem, pdfBytes } from '../../../../../../../support/fakeN8n/binaryItems';
import { grantTokens } from '../../../../../../../support/partnerApiNock';
import { acceptUploads, productsOf, run } from '../../../../../../../support/preDeliverRuns';

const ticket = (row: string, seat: string, listing = '9001') =>
	fileItem({ listing, row, seat }, pdfBytes(`${row}${seat}`), `${row}${seat}.pdf`);
const gaTicket = (label: string, listing = '9001') =>
	fileItem({ listing, ga: true }, pdfBytes(label), `${label}.pdf`);

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('a listing of unknown outcome, brought again with other tickets', () => {
	// Docs, "unknown": "A later run does not upload it again: it comes out unknown again ... and nothing is sent".
	it('a ticket added to the sheet does not upload again the tickets whose upload may have gone through', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		acceptUploads(500, { code: 'inventory.listings.systemError', description: 'x' }, undefined, 1);
		const first = await run([ticket('A', '1'), ticket('A', '2')], {
			continueOnFail: true,
			deduplication: store,
		}).output();
		expect(first.map((item) => item.json.status)).toEqual(['unknown', 'unknown']);
		const again = acceptUploads();
		const rerun = await run([ticket('A', '1'), ticket('A', '2'), ticket('A', '3')], {
			continueOnFail: true,
			deduplication: store,
		}).output();
		// A1 and A2 may have their PDFs already: they must not go again without the user's say.
		expect(again.flatMap(productsOf).map((p) => `${p.row}${p.seat}`)).not.toContain('A1');
		expect(rerun[0].json).toMatchObject({ status: 'unknown', mayHaveBeenDelivered: true });
	});

	// Docs: "While one of its tickets has an upload of unknown outcome, no later run uploads the listing, whatever
	// tickets it brings."
	it.each([
		['a ticket taken off the sheet (sold)', ['1']],
		['only a ticket added since', ['3']],
	])('a run bringing %s uploads nothing of the listing', async (_name, seats) => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		acceptUploads(500, { code: 'inventory.listings.systemError', description: 'x' }, undefined, 1);
		const first = await run([ticket('A', '1'), ticket('A', '2')], {
			continueOnFail: true,
			deduplication: store,
		}).output();
		expect(first.map((item) => item.json.status)).toEqual(['unknown', 'unknown']);
		const again = acceptUploads();
		const rerun = await run(
			seats.map((seat) => ticket('A', seat)),
			{ continueOnFail: true, deduplication: store },
		).output();
		expect({ uploads: again.length, status: rerun[0].json.status }).toEqual({
			uploads: 0,
			status: 'unknown',
		});
	});

	// The GA tickets' memory keys are their PDFs' hashes: PDFs made again (any PDF generator stamps its
	// CreationDate) are new keys, so the same tickets go again although the first upload may have delivered them.
	it('General Admission tickets whose PDFs were generated again are not uploaded a second time', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-b3', 2);
		acceptUploads(500, { code: 'inventory.listings.systemError', description: 'x' }, undefined, 1);
		const first = await run([gaTicket('ga1 2026-01-01'), gaTicket('ga2 2026-01-01')], {
			continueOnFail: true,
			deduplication: store,
		}).output();
		expect(first.map((item) => item.json.status)).toEqual(['unknown', 'unknown']);
		const again = acceptUploads();
		const rerun = await run([gaTicket('ga1 2026-01-02'), gaTicket('ga2 2026-01-02')], {
			continueOnFail: true,
			deduplication: store,
		}).output();
		// Not one more upload of both GA tickets: they may have been delivered already.
		expect({ uploads: again.length, statuses: rerun.map((item) => item.json.status) }).toEqual({
			uploads: 0,
			statuses: ['unknown', 'unknown'],
		});
	});
});

describe('Pre-Deliver re-runs after a delivery', () => {
	it('skips the delivered tickets, and uploads a ticket added since (the listing key does not hold it)', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-af-pd-0001', 3);
		acceptUploads(200, { ok: true }, undefined, 1);
		const first = await run([ticket('A', '1'), ticket('A', '2')], {
			deduplication: store,
		}).output();
		const same = await run([ticket('A', '1'), ticket('A', '2')], {
			deduplication: store,
		}).output();
		const uploads = acceptUploads();
		const added = await run([ticket('A', '3')], { deduplication: store }).output();
		expect({
			first: first.map((item) => item.json.status),
			same: same.map((item) => item.json.status),
			added: added.map((item) => item.json.status),
			seats: uploads.map((upload) => productsOf(upload).map((product) => product.seat)),
		}).toEqual({
			first: ['delivered', 'delivered'],
			same: ['skipped', 'skipped'],
			added: ['delivered'],
			seats: [['3']],
		});
	});
});

describe('a delivered listing, brought again with fewer tickets', () => {
	// Docs: only "a ticket it did not have before" sends a delivered listing again; a ticket sold since brings none.
	it('is not uploaded again when the re-run brings no ticket it did not have before', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		const first = acceptUploads(200, { ok: true }, undefined, 1);
		const out = await run([ticket('A', '1'), ticket('A', '2')], { deduplication: store }).output();
		expect(out.map((item) => item.json.status)).toEqual(['delivered', 'delivered']);
		expect(first).toHaveLength(1);
		const again = acceptUploads();
		const rerun = await run([ticket('A', '1')], { deduplication: store }).output();
		expect({ uploads: again.length, status: rerun[0].json.status }).toEqual({
			uploads: 0,
			status: 'skipped',
		});
	});
});

describe('the error of a stopped run lists every listing by outcome', () => {
	// Docs: "its details list every listing by outcome (delivered, not delivered, unknown, not sent, skipped)".
	it('does not list a listing of unknown outcome as "sent by this workflow before"', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		acceptUploads(500, { code: 'inventory.listings.systemError', description: 'x' }, undefined, 1);
		const x = ticket('A', '1', 'X1');
		await run([x], { continueOnFail: true, deduplication: store }).output();
		acceptUploads(400, { code: 'inventory.listings.invalidSeat', description: 'no seat' });
		const error = await run([x, ticket('A', '1', 'Y2')], { deduplication: store })
			.output()
			.catch((thrown: { description?: string }) => thrown);
		const description = String((error as { description?: string }).description);
		expect(description).toMatch(/Not delivered: listing Y2/);
		expect(description).not.toMatch(/sent by this workflow before: listing X1/);
		expect(description).toMatch(/unknown[^\n]*X1/i);
	});
});

describe('a listing an earlier run never sent', () => {
	// Docs: "A listing is remembered as soon as its upload starts"; the later run's words say it was uploaded.
	it('is not said to have been uploaded by an earlier run that died before sending it', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 1);
		let reached!: () => void;
		const started = new Promise<void>((resolve) => (reached = resolve));
		nock('https://partner.api.test')
			.post('/sellers/listings/pdf/v3/L1')
			.reply(() => {
				reached();
				return new Promise(() => undefined) as never;
			});
		const stop = new AbortController();
		const [l1, l2] = [ticket('A', '1', 'L1'), ticket('A', '1', 'L2')];
		const dying = run([l1, l2], {
			deduplication: store,
			cancelSignal: stop.signal,
			deduplicationCaller: 'worker A',
		})
			.output()
			.catch(() => undefined);
		await started;
		// Worker A dies here, its first upload under way (Max Listings at Once 1): L2 was never sent.
		grantTokens('tok-pdf-2', 1);
		const again = acceptUploads();
		const later = await run([l2], {
			deduplication: store,
			continueOnFail: true,
			deduplicationCaller: 'worker B',
		}).output();
		stop.abort();
		await dying;
		const said = `${again.length} ${String(later[0].json.status)} ${String(later[0].json.error)}`;
		expect(said).not.toMatch(/an earlier run uploaded these tickets/);
	});
});

describe("a refused upload's words", () => {
	// Docs, "failed": "Nothing was delivered for that listing"; an upload creates nothing, it delivers.
	it.each([
		[400, { code: 'inventory.listings.invalidSeat', description: 'no seat' }],
		[413, { fault: { faultstring: 'Body buffer overflow', detail: {} } }],
	])('HTTP %s says nothing was delivered, not "created"', async (status, body) => {
		grantTokens('tok-pdf', 1);
		acceptUploads(status, body);
		const out = await run([ticket('A', '1')], { continueOnFail: true }).output();
		expect(out[0].json.status).toBe('failed');
		expect(String(out[0].json.description)).not.toMatch(/created/);
	});
});
