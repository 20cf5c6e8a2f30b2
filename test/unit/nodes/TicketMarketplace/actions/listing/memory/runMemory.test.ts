/**
 * The memory of listings sent, through the real execute() of Listing → Create and Forget Sent Listings: what one
 * memory is (one marketplace account on one API, whatever the Base URL's spelling), what a skipped listing says
 * of its earlier run, and looks that tell what the memory holds without leaving anything in it.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { execute as forget } from '../../../../../../../nodes/TicketMarketplace/actions/listing/forgetSent.operation';
import {
	API_CREDENTIALS,
	BASE,
	fakeRun,
	oneSeatListings,
	MemoryDeduplicationStore,
} from '../../../../../../../support/fakeN8n/actionContext';
import { SharedRowStore } from '../../../../../../../support/fakeN8n/sharedRowStore';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';

const LISTING_PATH = PARTNER_API_PATHS.listings;
/** How the version before per-account memories wrote an ID (credential Base URL as typed, trailing slash cut). */
const OLD_KEY = (id: number) => `ticket-marketplace listing ${id} at ${BASE}`;

const listings = (ids: number[], options: IDataObject = {}) => oneSeatListings(ids, options);

/** The API at `base`: a token, then every listing created; returns the IDs it received. */
function creatingApi(base = BASE): number[] {
	const received: number[] = [];
	nock(base)
		.persist()
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.reply(200, { access_token: 'tok-memory-0123456789' })
		.post(LISTING_PATH)
		.reply((_uri, body) => {
			const id = Number((body as IDataObject).externalListingId);
			received.push(id);
			return [201, { listingId: 900 + id, externalListingId: id }];
		});
	return received;
}

async function create(
	ids: number[],
	store: MemoryDeduplicationStore,
	more: {
		apiCredentials?: Partial<typeof API_CREDENTIALS>;
		options?: IDataObject;
		continueOnFail?: boolean;
		onError?: 'continueErrorOutput';
	} = {},
) {
	const { items, parameters } = listings(ids, more.options);
	const fake = fakeRun({
		parameters,
		items,
		deduplication: store,
		apiCredentials: more.apiCredentials,
		continueOnFail: more.continueOnFail,
		onError: more.onError,
	});
	const output = await execute.call(fake.context, items);
	return { output, hints: fake.hints };
}

async function forgetIds(ids: number[], store: MemoryDeduplicationStore) {
	const items = ids.map(() => ({ json: {} }));
	const fake = fakeRun({
		parameters: { forgetScope: 'ids', forgetExternalListingId: (index: number) => ids[index] },
		items,
		deduplication: store,
	});
	return await forget.call(fake.context, items);
}

const remembered = (store: MemoryDeduplicationStore) => [...(store.entries.get('workflow') ?? [])];

afterEach(() => nock.cleanAll());

describe('the memory of listings sent', () => {
	it('case 6: spellings of one Base URL share one memory (case, default port, trailing slash)', async () => {
		const received = creatingApi();
		const store = new MemoryDeduplicationStore();
		await create([1], store);
		expect(received).toEqual([1]);
		for (const baseUrl of [
			'https://PARTNER.API.TEST',
			'https://partner.api.test:443',
			'HTTPS://partner.api.test/',
		]) {
			const { output } = await create([1], store, { apiCredentials: { baseUrl } });
			expect([baseUrl, output[0].json.status]).toEqual([baseUrl, 'skipped']);
		}
		expect(received).toEqual([1]);
	});

	it('case 6: two marketplace accounts on one Base URL have a memory each; the e-mail is not kept in clear', async () => {
		const received = creatingApi();
		const store = new MemoryDeduplicationStore();
		await create([1], store, { apiCredentials: { email: 'first@example.test' } });
		const { output } = await create([1], store, {
			apiCredentials: { email: 'second@example.test' },
		});
		expect(output[0].json).toEqual({ listingId: 901, externalListingId: 1 });
		expect(received).toEqual([1, 1]);
		// The same account spelled with spaces and capitals is the same memory.
		const again = await create([1], store, { apiCredentials: { email: ' First@Example.TEST ' } });
		expect(again.output[0].json.status).toBe('skipped');
		expect(received).toEqual([1, 1]);
		expect(remembered(store).join('\n')).not.toMatch(/example\.test/);
	});

	it('case 6: an entry of the pre-release builds (Base URL text and ID, no account) is not read by Create, and Clear Sent Listings History still forgets it', async () => {
		const received = creatingApi();
		const store = new MemoryDeduplicationStore();
		store.entries.set('workflow', new Set([OLD_KEY(1)]));
		const { output } = await create([1, 2], store);
		// Such an entry names no account: read by one account, it was written for a moment by every other's look.
		expect(output[0].json.status).not.toBe('skipped');
		expect(received).toEqual([1, 2]);
		expect(store.calls.flatMap((call) => call.values)).not.toContain(OLD_KEY(2));
		// Clear Sent Listings History forgets it with the rest.
		const forgotten = await forgetIds([1], store);
		expect(forgotten[0].json).toEqual({ forgotten: 1 });
		expect(remembered(store)).not.toContain(OLD_KEY(1));
	});

	it.each([
		['per listing', { output: 'listing' }, undefined],
		['per row', { output: 'row' }, undefined],
		['error output', { output: 'listing' }, 'continueErrorOutput' as const],
	])(
		'case 4: after a 500 that failed the run, its retry (Retry On Fail) says "unknown", not "skipped" (%s)',
		async (_name, options, onError) => {
			nock(BASE)
				.post(PARTNER_API_PATHS.grant)
				.query(true)
				.reply(200, { access_token: 'tok-memory-0123456789' });
			let requests = 0;
			nock(BASE)
				.persist()
				.post(LISTING_PATH)
				.reply(() => {
					requests++;
					return [500, { message: 'try later' }];
				});
			const store = new MemoryDeduplicationStore();
			await expect(create([1], store, { options })).rejects.toThrow();
			const sent = requests;
			expect(sent).toBeGreaterThan(0);
			// n8n's Retry On Fail runs the node again on the same items.
			const { output, hints } = await create([1], store, {
				options,
				onError,
				continueOnFail: onError !== undefined,
			});
			expect(requests).toBe(sent);
			const json = output[0].json;
			if (onError) {
				expect(Object.keys(json).sort()).toEqual(['error', 'message']);
				expect(String(json.message)).toContain('outcome unknown');
			} else if (options.output === 'row') {
				expect(json.listingStatus).toBe('unknown');
				expect(JSON.stringify(json.listingError)).toContain('outcome unknown');
			} else {
				expect(json.status).toBe('unknown');
				expect(String(json.message)).toContain('outcome unknown');
			}
			expect(hints.map((hint) => hint.message).join('\n')).toContain('outcome unknown');
		},
	);

	it('case 4: a listing created earlier is still "skipped"', async () => {
		creatingApi();
		const store = new MemoryDeduplicationStore();
		await create([1], store);
		const { output } = await create([1], store);
		expect(output[0].json).toMatchObject({ status: 'skipped', externalListingId: 1 });
		expect(String(output[0].json.message)).toContain('already sent by this workflow');
	});

	it('case 12: a look that fails after writing is not trusted: the listing leaves only once the memory holds it', async () => {
		const store = new SharedRowStore();
		// Another run's stale write erases this run's record just before its look (call 3, after the count and the
		// record), and the look fails after writing.
		store.onCall = (_caller, callNumber) => {
			if (callNumber === 3) store.entries.get('workflow')?.clear();
		};
		store.failingAfterWriteCalls.add(3);
		const heldWhenSent: string[][] = [];
		nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(200, { access_token: 'tok-memory-0123456789' })
			.post(LISTING_PATH)
			.reply(() => {
				heldWhenSent.push(remembered(store).filter((value) => value.includes('listing 1 at')));
				return [201, { listingId: 901 }];
			});
		const { items, parameters } = listings([1]);
		await execute.call(fakeRun({ parameters, items, deduplication: store }).context, items);
		expect(heldWhenSent).toHaveLength(1);
		expect(heldWhenSent[0].length).toBeGreaterThan(0);
	});

	it('case 8: Forget Sent Listings whose removal fails says which IDs its look added, and undoes what it can', async () => {
		creatingApi();
		const store = new MemoryDeduplicationStore();
		await create([7], store);
		const before = remembered(store).sort();
		const helpers = store.helpers();
		store.helpers = () => ({
			...helpers,
			removeProcessed: async () => {
				throw new Error('database is locked');
			},
		});
		const thrown = (await forgetIds([7, 8], store).catch((error: unknown) => error)) as Error & {
			description?: string;
		};
		expect(thrown.message).toContain("n8n's memory of listings already sent could not be used");
		expect(thrown.description).toContain('Nothing was forgotten.');
		expect(thrown.description).toContain(
			'Now remembered as sent, though this workflow had not remembered them (checking for them had to write them, and they could not be removed): 8.',
		);
		// Once the store works again, the look's leftovers go, and 7 is forgotten as asked.
		store.helpers = () => helpers;
		expect(remembered(store).sort()).not.toEqual(before);
		const output = await forgetIds([7, 8], store);
		expect(output.map((item) => item.json.forgotten ?? item.json.notRemembered)).toEqual([7, 8]);
		// Only the failed run's markers are left (they name no listing, and take an entry each).
		expect(remembered(store).filter((key) => !/^ticket-marketplace run /.test(key))).toEqual([]);
	});

	it('case 8: Forget Sent Listings leaves nothing behind for an ID it did not hold', async () => {
		const store = new MemoryDeduplicationStore();
		const output = await forgetIds([8], store);
		expect(output[0].json.notRemembered).toBe(8);
		expect(remembered(store)).toEqual([]);
	});
});
