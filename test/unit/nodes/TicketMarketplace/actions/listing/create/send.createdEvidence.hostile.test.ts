/**
 * Review (hostile API): what an answer proves. The package promises "created" only on evidence (200/201 with a
 * JSON object marked as JSON) and "already listed" on a 409 for the listing's ID. These answers meet the letter of
 * the rule and say the opposite.
 */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import {
	BASE,
	fakeRun,
	MemoryDeduplicationStore,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';

const LISTING_PATH = PARTNER_API_PATHS.listings;

type Answer = [number, string | IDataObject, Record<string, string>?];

/** A token, then `first` for listing 1 and a created listing for any other; the IDs received. */
function api(first: Answer): number[] {
	const received: number[] = [];
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.reply(200, { access_token: 'tok-review-outcomes-0123' });
	nock(BASE)
		.persist()
		.post(LISTING_PATH)
		.reply((_uri, body) => {
			const id = Number((body as IDataObject).externalListingId);
			received.push(id);
			return (id === 1 ? first : [201, { listingId: `L-${id}` }]) as nock.ReplyFnResult;
		});
	return received;
}

/** One run of listings 1 and 2, per row, with Continue: the item of listing 1. */
async function listingOne(store: MemoryDeduplicationStore): Promise<INodeExecutionData> {
	const { items, parameters } = oneSeatListings([1, 2], { output: 'row' });
	const fake = fakeRun({ items, parameters, deduplication: store, continueOnFail: true });
	const output = await execute.call(fake.context, items);
	return output[0];
}

/** A second run with the same memory: is listing 1 sent again? */
async function sentAgain(store: MemoryDeduplicationStore): Promise<boolean> {
	nock.cleanAll();
	const received = api([201, { listingId: 'L-1' }]);
	await listingOne(store);
	return received.includes(1);
}

beforeEach(() => nock.cleanAll());
afterEach(() => nock.cleanAll());

describe('review: a 2xx whose body says it was not done', () => {
	it('a 200 application/problem+json (RFC 9457, an error document by definition) is not "created"', async () => {
		api([
			200,
			{ type: 'about:blank', title: 'Event closed', status: 422, detail: 'Event 55 is closed' },
			{ 'Content-Type': 'application/problem+json' },
		]);
		const item = await listingOne(new MemoryDeduplicationStore());
		expect(item.json.listingStatus).not.toBe('created');
	});

	it('a 200 JSON object {"error": ...} (the body says it failed) is not "created"', async () => {
		api([200, { error: 'event_closed', message: 'Event 55 is closed for new listings' }]);
		const item = await listingOne(new MemoryDeduplicationStore());
		expect(item.json.listingStatus).not.toBe('created');
	});

	it('a 201 JSON object naming another External Listing ID is not proof that listing 1 was created', async () => {
		api([201, { listingId: 'L-999', externalListingId: 999 }]);
		const item = await listingOne(new MemoryDeduplicationStore());
		expect(item.json.listingStatus).not.toBe('created');
	});
});

describe('review: a 2xx that reports no error is still "created"', () => {
	it.each([
		['an empty errors list', { listingId: 'L-1', errors: [] }],
		['an empty error object', { listingId: 'L-1', error: {} }],
		['an empty error text', { listingId: 'L-1', error: '' }],
		['its own External Listing ID as text', { listingId: 'L-1', externalListingId: '1' }],
	])('a 201 JSON object with %s', async (_what, body) => {
		api([201, body]);
		const item = await listingOne(new MemoryDeduplicationStore());
		expect(item.json.listingStatus).toBe('created');
	});
});

describe('review: a 409 that is not about the listing ID', () => {
	it('a 409 "event closed" is not "already listed", and the listing is not remembered (the next run sends it)', async () => {
		api([
			409,
			{ code: 'event_closed', message: 'Event 55 no longer accepts listings (state conflict)' },
		]);
		const store = new MemoryDeduplicationStore();
		const item = await listingOne(store);
		expect(item.json.listingStatus).not.toBe('alreadyListed');
		expect(await sentAgain(store)).toBe(true);
	});
});
