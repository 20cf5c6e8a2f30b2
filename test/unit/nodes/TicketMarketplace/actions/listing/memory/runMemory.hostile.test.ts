/**
 * Review (unlucky user): the memory of sent listings near n8n's cap, and the account part of its key. Promised:
 * "nothing listed twice, across runs"; beyond 100,000 IDs n8n forgets the least recently seen first.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import { sentListingKey } from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/sentListings';
import { SENT_LISTINGS_CAP } from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/verifiedStore';
import {
	API_CREDENTIALS,
	BASE,
	fakeRun,
	MEMORY_ACCOUNT,
	MemoryDeduplicationStore,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';

/**
 * n8n's store in "entries" mode with its cap, as real-n8n.md describes it: a record past `maxEntries` drops the
 * oldest entries first; a value seen again keeps its place. Counts what the cap dropped.
 */
class CappedStore extends MemoryDeduplicationStore {
	dropped: string[] = [];

	override helpers(caller?: string) {
		const helpers = super.helpers(caller);
		return {
			...helpers,
			checkProcessedAndRecord: async (
				values: Array<string | number>,
				scope: string,
				options?: { maxEntries?: number },
			) => {
				const answer = await helpers.checkProcessedAndRecord(values, scope);
				const list = this.entries.get(scope)!;
				const cap = options?.maxEntries ?? Number.POSITIVE_INFINITY;
				for (const value of list) {
					if (list.size <= cap) break;
					list.delete(value);
					this.dropped.push(value);
				}
				return answer;
			},
		};
	}
}

function creatingApi(): number[] {
	const received: number[] = [];
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.reply(200, { access_token: 'tok-review-memory-0123' })
		.post(PARTNER_API_PATHS.listings)
		.reply((_uri, body) => {
			const id = Number((body as IDataObject).externalListingId);
			received.push(id);
			return [201, { listingId: `L-${id}` }];
		});
	return received;
}

afterEach(() => nock.cleanAll());

describe('review: the memory near n8n’s cap', () => {
	it('400 new listings on a memory of 99,000 (99,400 fit under the cap): no earlier listing is forgotten', async () => {
		const earlier = 99_000;
		const store = new CappedStore();
		store.entries.set(
			'workflow',
			new Set(
				Array.from({ length: earlier }, (_, index) => sentListingKey(MEMORY_ACCOUNT, index + 1)),
			),
		);
		creatingApi();
		const ids = Array.from({ length: 400 }, (_, index) => 500_001 + index);
		const { items, parameters } = oneSeatListings(ids, { concurrency: 50 });
		const fake = fakeRun({ items, parameters, deduplication: store });

		await execute.call(fake.context, items);

		expect(earlier + ids.length).toBeLessThan(SENT_LISTINGS_CAP);
		// Each ID is written under two keys (this account's and "outcome unknown") with the run's markers, all at
		// once: look-only keys leave again, but entries the cap dropped for them would not come back.
		const forgottenEarlier = store.dropped.filter((key) =>
			/^ticket-marketplace listing \d+ at .* account [0-9a-f]+$/.test(key),
		);
		expect(forgottenEarlier.length).toBe(0);
	}, 60_000);
});

describe('review: one marketplace account, two spellings of its e-mail', () => {
	it('the e-mail in NFC and in NFD (as macOS and Windows type "é") is one account: listing 1 is not sent twice', async () => {
		const store = new MemoryDeduplicationStore();
		const nfc = 'josé@example.test'.normalize('NFC');
		const nfd = 'josé@example.test'.normalize('NFD');
		expect(nfc).not.toBe(nfd);
		const received = creatingApi();
		for (const email of [nfc, nfd]) {
			const { items, parameters } = oneSeatListings([1]);
			const fake = fakeRun({
				items,
				parameters,
				deduplication: store,
				apiCredentials: { ...API_CREDENTIALS, email },
			});
			await execute.call(fake.context, items);
		}
		expect(received).toEqual([1]);
	});
});

describe('the memory near n8n’s cap, a sheet run again', () => {
	it('400 listings sent before, 600 entries left under the cap: the run skips them all instead of refusing, and nothing is forgotten', async () => {
		const ids = Array.from({ length: 400 }, (_, index) => 600_001 + index);
		const filler = SENT_LISTINGS_CAP - 600 - ids.length;
		const store = new CappedStore();
		store.entries.set(
			'workflow',
			new Set([
				...Array.from({ length: filler }, (_, index) => `other workflow's value ${index}`),
				...ids.map((id) => sentListingKey(MEMORY_ACCOUNT, id)),
			]),
		);
		const received = creatingApi();
		const { items, parameters } = oneSeatListings(ids, { concurrency: 50 });
		const fake = fakeRun({ items, parameters, deduplication: store });

		const output = await execute.call(fake.context, items);

		expect(received).toEqual([]);
		expect(output.map((item) => item.json.status)).toEqual(ids.map(() => 'skipped'));
		expect(store.dropped).toEqual([]);
		// Only the memory's own entries are left: the run's looks and markers went out again.
		expect(store.entries.get('workflow')!.size).toBe(SENT_LISTINGS_CAP - 600);
	}, 60_000);
});
