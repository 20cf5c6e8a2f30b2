/**
 * Listing → Pre-deliver Tickets against the sandbox: listings made by Create, then their PDFs uploaded; the
 * sandbox parses the multipart, checks the seats and files, and shows what each ticket received.
 */
import { createHash } from 'node:crypto';
import type { INodeExecutionData } from 'n8n-workflow';

import { execute as createListings } from '../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { execute as preDeliver } from '../../../nodes/TicketMarketplace/actions/listing/preDeliver.operation';
import { SANDBOX_DEFAULTS, startSandbox } from '../../../sandbox/index';
import type { Sandbox } from '../../../sandbox/index';
import {
	column,
	fakeRun,
	GROUPED_SHEET_PARAMETERS,
	MemoryDeduplicationStore,
	sheetRows,
} from '../../../support/fakeN8n/actionContext';
import type { FakeRunOptions, ParameterValue } from '../../../support/fakeN8n/actionContext';
import { fileItem, pdfBytes, withBinaryHelpers } from '../../../support/fakeN8n/binaryItems';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => {
	await sandbox.stop();
});
beforeEach(() => sandbox.reset());

const credentials = () => ({
	baseUrl: sandbox.url,
	consumerKey: SANDBOX_DEFAULTS.consumerKey,
	consumerSecret: SANDBOX_DEFAULTS.consumerSecret,
	email: SANDBOX_DEFAULTS.marketplaceAccount.email,
	password: SANDBOX_DEFAULTS.marketplaceAccount.password,
});

/** Listings 1 and 2 of event 5000 (remembered for Pre-deliver), seats; returns their IDs. */
async function createTwoListings(
	deduplication = new MemoryDeduplicationStore(),
): Promise<Map<number, string>> {
	const rows = [1, 2].flatMap((listing) =>
		[1, 2].map((n) => {
			const seat = String((listing - 1) * 2 + n);
			return {
				event: '5000',
				listing: String(listing),
				price: '25.50',
				currency: 'EUR',
				ticket: `t${seat}`,
				row: 'A',
				seat,
				ga: 'false',
			};
		}),
	);
	const items = sheetRows(rows);
	const options = { rememberForPreDeliver: true };
	const parameters: Record<string, ParameterValue> = { ...GROUPED_SHEET_PARAMETERS, options };
	const run = fakeRun({ parameters, items, apiCredentials: credentials(), deduplication });
	await createListings.call(run.context, items);
	return new Map(sandbox.state().listings.map((l) => [l.externalListingId as number, l.id]));
}

async function upload(
	items: INodeExecutionData[],
	options: Partial<FakeRunOptions> = {},
	listingBy = 'marketplaceId',
) {
	const parameters = {
		binaryPropertyName: 'data',
		listingBy,
		listingId: column('listing'),
		externalListingId: column('listing'),
		generalAdmission: false,
		row: column('row'),
		seat: column('seat'),
		options: {},
	};
	const run = fakeRun({ parameters, items, apiCredentials: credentials(), ...options });
	withBinaryHelpers(run.context, items);
	return await preDeliver.call(run.context, items);
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const pdfPosts = () => sandbox.state().requests.filter((r) => r.endpoint === 'pdfs');

describe('Listing → Pre-deliver Tickets against the sandbox', () => {
	// In memory (n8n 1.x's default) and streamed from disk by the file's id (2.x's filesystem mode).
	it.each(['memory', 'filesystem'] as const)(
		'delivers every ticket of a listing in one request; the sandbox holds each PDF byte for byte (%s mode)',
		async (mode) => {
			const ids = await createTwoListings();
			const [a1, a2, a3] = ['A1', 'A2', 'A3'].map(pdfBytes);
			const items = [
				fileItem({ listing: ids.get(1)!, row: 'A', seat: '1' }, a1, 'a1.pdf', 'data', mode),
				fileItem({ listing: ids.get(2)!, row: 'A', seat: '3' }, a3, 'a3.pdf', 'data', mode),
				fileItem({ listing: ids.get(1)!, row: 'A', seat: '2' }, a2, 'a2.pdf', 'data', mode),
			];
			const out = await upload(items);

			expect(out.map((item) => item.json.status)).toEqual(['delivered', 'delivered', 'delivered']);
			expect(pdfPosts()).toHaveLength(2);
			const state = sandbox.state().listings;
			const one = state.find((l) => l.id === ids.get(1))!;
			const two = state.find((l) => l.id === ids.get(2))!;
			expect(one.preDelivered).toBe(true);
			expect(one.products.map((p) => p.pdf?.sha256)).toEqual([sha(a1), sha(a2)]);
			expect(two.preDelivered).toBe(false);
			expect(two.products.map((p) => p.pdf?.sha256)).toEqual([sha(a3), undefined]);
			expect(out[0].json.response).toEqual({
				listingId: ids.get(1),
				ticketsDelivered: 2,
				preDelivered: true,
			});
		},
	);

	it('a re-run of the same items sends nothing for a listing already delivered', async () => {
		const ids = await createTwoListings();
		const store = new MemoryDeduplicationStore();
		const items = () => [
			fileItem({ listing: ids.get(1)!, row: 'A', seat: '1' }, pdfBytes('A1'), 'a1.pdf'),
		];
		await upload(items(), { deduplication: store });
		const again = await upload(items(), { deduplication: store });
		expect(pdfPosts()).toHaveLength(1);
		expect(again[0].json.status).toBe('skipped');
	});

	it('an unknown listing is answered 404: not delivered, with what to check', async () => {
		const items = [fileItem({ listing: 'lst_nope', row: 'A', seat: '1' }, pdfBytes('x'), 'x.pdf')];
		const out = await upload(items, { continueOnFail: true });
		expect(out[0].json).toMatchObject({
			status: 'failed',
			httpCode: '404',
			mayHaveBeenDelivered: false,
		});
		expect(String(out[0].json.description)).toContain('Check the Listing ID');
	});

	it('a seat the listing does not hold is refused by the sandbox, and nothing is marked', async () => {
		const ids = await createTwoListings();
		const items = [fileItem({ listing: ids.get(1)!, row: 'Z', seat: '9' }, pdfBytes('z'), 'z.pdf')];
		const out = await upload(items, { continueOnFail: true });
		expect(out[0].json).toMatchObject({ status: 'failed', httpCode: '400' });
		expect(String(out[0].json.description)).toContain('row Z, seat 9');
		expect(
			sandbox.state().listings.every((l) => !l.preDelivered && l.products.every((p) => !p.pdf)),
		).toBe(true);
	});

	it("takes the sandbox's fault switches: a system error leaves the outcome unknown", async () => {
		const ids = await createTwoListings();
		sandbox.addFault({ endpoint: 'pdfs', kind: 'systemError' });
		const items = [
			fileItem({ listing: ids.get(1)!, row: 'A', seat: '1' }, pdfBytes('A1'), 'a1.pdf'),
		];
		await expect(upload(items)).rejects.toThrow(/Outcome unknown/);
	});

	it("by External Listing ID: Create's record names the listing; a seat it does not hold is refused unsent", async () => {
		const deduplication = new MemoryDeduplicationStore();
		const ids = await createTwoListings(deduplication);
		const [a1, a2, z9] = ['A1', 'A2', 'Z9'].map(pdfBytes);
		const items = [
			fileItem({ listing: '1', row: 'A', seat: '1' }, a1, 'a1.pdf'),
			fileItem({ listing: '1', row: 'A', seat: '2' }, a2, 'a2.pdf'),
		];
		const out = await upload(items, { deduplication }, 'externalId');
		expect(out.map((item) => [item.json.status, item.json.listingId])).toEqual([
			['delivered', ids.get(1)],
			['delivered', ids.get(1)],
		]);
		const one = sandbox.state().listings.find((l) => l.id === ids.get(1))!;
		expect(one.preDelivered).toBe(true);
		expect(one.products.map((p) => p.pdf?.sha256)).toEqual([sha(a1), sha(a2)]);

		const wrong = [fileItem({ listing: '2', row: 'Z', seat: '9' }, z9, 'z9.pdf')];
		await expect(upload(wrong, { deduplication }, 'externalId')).rejects.toThrow(
			'Item 1: listing 2 holds no ticket at row Z, seat 9',
		);
		const unknown = [fileItem({ listing: '3', row: 'A', seat: '1' }, z9, 'z9.pdf')];
		await expect(upload(unknown, { deduplication }, 'externalId')).rejects.toThrow(
			'has no record of External Listing ID 3',
		);
		expect(pdfPosts()).toHaveLength(1);
	});
});
