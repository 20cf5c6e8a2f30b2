/**
 * Listing → Create: what an answer proves. "Created" only on an answer that shows it (a 200 or 201 with a JSON
 * object); any other 2xx is "outcome unknown"; a 409 conflict is "already listed". Each through the real execute()
 * and n8n-core's real request helper, with the memory shared between two runs: the second run shows whether the
 * first remembered the listing (skipped) or forgot it (sent again).
 */
import nock from 'nock';
import type { IDataObject, INode } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import {
	API_CREDENTIALS,
	BASE,
	fakeRun,
	idsUpTo,
	oneSeatListings,
	MemoryDeduplicationStore,
} from '../../../../../../../support/fakeN8n/actionContext';
import { grantTokens } from '../../../../../../../support/partnerApiNock';

/** N listings, one per item, External Listing IDs 1..N, sent one after the other. */
const listings = (count: number, options: IDataObject = {}) =>
	oneSeatListings(idsUpTo(count), options);

const tokenApi = () => grantTokens('tok-outcomes-0123456789', 10);

type Answer = [number, string | IDataObject | unknown[], Record<string, string>?];

/** The API: listing 1 gets `first`, every later request a created listing; the IDs received, in order. */
function api(first: Answer) {
	const received: number[] = [];
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(20)
		.reply((_uri, body) => {
			const id = Number((body as IDataObject).externalListingId);
			received.push(id);
			return (id === 1 ? first : [201, { listingId: `L-${id}` }]) as nock.ReplyFnResult;
		});
	return received;
}

interface RunOptions {
	continueOnFail?: boolean;
	onError?: INode['onError'];
	output?: 'listing' | 'row';
	count?: number;
}

/** One run of `count` listings against the memory `store`: its items, or the error it threw. */
async function runOnce(store: MemoryDeduplicationStore, options: RunOptions = {}) {
	const { items, parameters } = listings(
		options.count ?? 1,
		options.output ? { output: options.output } : {},
	);
	const fake = fakeRun({
		parameters,
		items,
		deduplication: store,
		continueOnFail: options.continueOnFail ?? options.onError !== undefined,
		onError: options.onError,
	});
	return await execute.call(fake.context, items).then(
		(output) => ({ output, thrown: undefined }),
		(thrown: Error & { description?: string }) => ({ output: undefined, thrown }),
	);
}

/** A second run with the same memory: does it send listing 1 again? */
async function sentAgain(store: MemoryDeduplicationStore): Promise<boolean> {
	nock.cleanAll();
	tokenApi();
	const received = api([201, { listingId: 'L-1' }]);
	await runOnce(store, { continueOnFail: true });
	return received.includes(1);
}

const HTML_PAGE = `<!doctype html><html><body><h1>Down for maintenance</h1><p>${API_CREDENTIALS.password}</p></body></html>`;

/** 2xx answers that do not show a created listing, with what the item says about the body. */
const UNCONFIRMED: Array<[string, Answer, string]> = [
	[
		'a 200 HTML maintenance page',
		[200, HTML_PAGE, { 'Content-Type': 'text/html' }],
		'an HTML page',
	],
	['a 201 with an empty body', [201, ''], 'an empty body'],
	[
		'a 202 {"status":"queued"}',
		[202, { status: 'queued' }, { 'Content-Type': 'application/json' }],
		'a JSON object',
	],
	['a 204', [204, ''], 'an empty body'],
	[
		'a 200 JSON array',
		[200, [{ listingId: 'L-1' }], { 'Content-Type': 'application/json' }],
		'a JSON array',
	],
	[
		'a 201 JSON object sent as text/plain',
		[201, '{"listingId":"L-1"}', { 'Content-Type': 'text/plain' }],
		'a JSON object not marked as JSON',
	],
];

beforeEach(() => nock.cleanAll());
afterEach(() => nock.cleanAll());

describe('Listing → Create: a 2xx that does not show a created listing is "outcome unknown"', () => {
	it.each(UNCONFIRMED)(
		'%s: with Continue On Fail, the item says outcome unknown with the body, and the listing stays remembered',
		async (_name, answer, inWords) => {
			tokenApi();
			const received = api(answer);
			const store = new MemoryDeduplicationStore();
			const { output } = await runOnce(store, { continueOnFail: true, count: 2 });
			expect(received).toEqual([1, 2]);
			const [item, created] = output!;
			expect(item.json).toMatchObject({
				error: `Outcome unknown: the Partner API answered ${answer[0]} with ${inWords}`,
				httpCode: String(answer[0]),
				mayHaveBeenCreated: true,
				itemIndexes: [0],
			});
			expect(String(item.json.description)).toContain('may or may not have been created');
			expect(created.json).toEqual({ listingId: 'L-2' });
			expect(JSON.stringify(output)).not.toContain(API_CREDENTIALS.password);
			expect(await sentAgain(store)).toBe(false);
		},
	);

	it('shows the body the API answered, redacted and cut short', async () => {
		tokenApi();
		api([200, HTML_PAGE + 'x'.repeat(5000), { 'Content-Type': 'text/html' }]);
		const { output } = await runOnce(new MemoryDeduplicationStore(), { continueOnFail: true });
		const description = String(output![0].json.description);
		expect(description).toContain(
			'It answered: <!doctype html><html><body><h1>Down for maintenance</h1><p>[redacted]</p>',
		);
		expect(description).not.toContain(API_CREDENTIALS.password);
		expect(description.length).toBeLessThan(1000);
	});

	it.each(UNCONFIRMED)(
		'%s: without Continue On Fail, the run stops there, sends nothing more, and says outcome unknown',
		async (_name, answer) => {
			tokenApi();
			const received = api(answer);
			const store = new MemoryDeduplicationStore();
			const { thrown } = await runOnce(store, { count: 3 });
			expect(received).toEqual([1]);
			expect(thrown?.message).toMatch(/^Outcome unknown: /);
			expect(thrown?.description).toContain(
				'Outcome unknown, may have been created: 1 listing (1): Outcome unknown: the Partner API answered',
			);
			expect(thrown?.description).toContain(
				'Look these up on the marketplace by External Listing ID before sending them again.',
			);
			expect(thrown?.description).toContain(
				'Not sent, the run stopped first: 2 listings (2 and 3).',
			);
			expect(await sentAgain(store)).toBe(false);
		},
	);

	it('goes to the error output saying it may have been created, in both Output modes', async () => {
		for (const output of ['listing', 'row'] as const) {
			nock.cleanAll();
			tokenApi();
			api([202, { status: 'queued' }]);
			const run = await runOnce(new MemoryDeduplicationStore(), {
				onError: 'continueErrorOutput',
				output,
			});
			const [item] = run.output!;
			expect(Object.keys(item.json).sort()).toEqual(['error', 'message']);
			expect(String(item.json.message)).toContain(
				'External Listing ID 1: outcome unknown, it may have been created.',
			);
		}
	});

	it('per row, the row says unknown (in the run that got it) with mayHaveBeenCreated', async () => {
		tokenApi();
		api([204, '']);
		const { output } = await runOnce(new MemoryDeduplicationStore(), {
			continueOnFail: true,
			output: 'row',
		});
		expect(output![0].json).toMatchObject({
			id: 1,
			externalListingId: 1,
			listingStatus: 'unknown',
			listingError: { httpCode: '204', mayHaveBeenCreated: true },
		});
	});
});

describe('Listing → Create: what still counts as created', () => {
	it.each<[string, Answer]>([
		['a 201 {"id":...}', [201, { id: 'L-1' }]],
		['a 200 {...}', [200, { listing: { id: 'L-1' }, status: 'ACTIVE' }]],
		[
			'a 201 {...} with a charset',
			[201, '{"id":"L-1"}', { 'Content-Type': 'application/json; charset=utf-8' }],
		],
	])('%s is created, passed through, and remembered', async (_name, answer) => {
		tokenApi();
		const received = api(answer);
		const store = new MemoryDeduplicationStore();
		const { output, thrown } = await runOnce(store, { count: 2 });
		expect(thrown).toBeUndefined();
		expect(received).toEqual([1, 2]);
		expect(output![0].json).toEqual(
			typeof answer[1] === 'string' ? JSON.parse(answer[1]) : answer[1],
		);
		expect(await sentAgain(store)).toBe(false);
	});

	it('per row, a 200 {...} is listingStatus created with the response', async () => {
		tokenApi();
		api([200, { id: 'L-1' }]);
		const { output } = await runOnce(new MemoryDeduplicationStore(), { output: 'row' });
		expect(output![0].json).toEqual({
			id: 1,
			externalListingId: 1,
			listingStatus: 'created',
			listingResponse: { id: 'L-1' },
		});
	});
});

describe('Listing → Create: a 409 conflict is "already listed"', () => {
	const CONFLICT: Answer = [
		409,
		{
			code: 'duplicate_external_listing_id',
			message: 'A listing with externalListingId 1 already exists (id lst_7)',
		},
	];
	const SAID = 'A listing with externalListingId 1 already exists (id lst_7)';

	it.each([false, true])(
		'is not an error (Continue On Fail %s): the run goes on, the item says already listed, and it stays remembered',
		async (continueOnFail) => {
			tokenApi();
			const received = api(CONFLICT);
			const store = new MemoryDeduplicationStore();
			const { output, thrown } = await runOnce(store, { continueOnFail, count: 3 });
			expect(thrown).toBeUndefined();
			expect(received).toEqual([1, 2, 3]);
			expect(output![0].json).toEqual({
				status: 'alreadyListed',
				externalListingId: 1,
				message: `Already listed: the API holds a listing with External Listing ID 1, so it was not created again (with Skip Listings Already Sent on, it stays remembered and later runs skip it). The API said: "${SAID}" (code duplicate_external_listing_id). Nothing new was created. For a new listing, give it a new External Listing ID. If the API's words say something else, look it up on the marketplace by its External Listing ID.`,
				apiCode: 'duplicate_external_listing_id',
				httpCode: '409',
			});
			expect(output![1].json).toEqual({ listingId: 'L-2' });
			expect(await sentAgain(store)).toBe(false);
		},
	);

	it('per row, the row says alreadyListed; with the error output it stays on the success branch', async () => {
		tokenApi();
		api(CONFLICT);
		const { output } = await runOnce(new MemoryDeduplicationStore(), {
			onError: 'continueErrorOutput',
			output: 'row',
		});
		expect(output![0].json).toMatchObject({
			id: 1,
			externalListingId: 1,
			listingStatus: 'alreadyListed',
			listingError: { httpCode: '409' },
		});
		expect(String((output![0].json.listingError as IDataObject).message)).toContain(
			'Already listed',
		);
	});

	it('a run stopped by another listing names it among the already listed', async () => {
		tokenApi();
		let requests = 0;
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.times(5)
			.reply(
				() => (++requests === 1 ? CONFLICT : [400, { message: 'bad seat' }]) as nock.ReplyFnResult,
			);
		const { thrown } = await runOnce(new MemoryDeduplicationStore(), { count: 3 });
		expect(requests).toBe(2);
		expect(thrown?.message).toBe('The Partner API refused the listing (HTTP 400)');
		expect(thrown?.description).toContain('The API said: "bad seat".');
		expect(thrown?.description).toContain(
			'Already listed (the API holds a listing with this External Listing ID), not created again: 1 listing (1).',
		);
	});
});
