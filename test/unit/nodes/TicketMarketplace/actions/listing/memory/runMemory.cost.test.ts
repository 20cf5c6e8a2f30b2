/**
 * What a run of Listing → Create costs the memory, counted: n8n's store reads and rewrites its whole list at every
 * call, and each pause lasts a few store calls, so a run's cost at N remembered IDs is about
 * (store calls + pauses × their length in store calls) × N. These counts must not grow with N, and stay few.
 */
import nock from 'nock';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { VerifiedStore } from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/verifiedStore';
import {
	BASE,
	fakeRun,
	MemoryDeduplicationStore,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';

/** A store that counts its calls, each of which reads (and but for the count, rewrites) the whole list. */
class CountingStore extends MemoryDeduplicationStore {
	wholeListCalls = 0;

	override helpers(caller?: string) {
		const helpers = super.helpers(caller);
		const counted =
			<A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
			async (...args: A): Promise<R> => {
				this.wholeListCalls++;
				return await call(...args);
			};
		return {
			...helpers,
			checkProcessedAndRecord: counted(helpers.checkProcessedAndRecord),
			removeProcessed: counted(helpers.removeProcessed),
			getProcessedDataCount: counted(helpers.getProcessedDataCount),
		};
	}
}

function creatingApi(): void {
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.reply(200, { access_token: 'tok-cost-0123456789' })
		.post(PARTNER_API_PATHS.listings)
		.reply((_uri, body) => {
			const id = Number((body as { externalListingId: number }).externalListingId);
			return [201, { listingId: 900 + id, externalListingId: id }];
		});
}

/** A memory holding `remembered` values of other listings (or other workflows' Remove Duplicates nodes). */
function storeHolding(remembered: number): CountingStore {
	const store = new CountingStore();
	store.entries.set(
		'workflow',
		new Set(Array.from({ length: remembered }, (_, index) => `other listing ${index}`)),
	);
	return store;
}

async function run(
	ids: number[],
	store: CountingStore,
): Promise<{ calls: number; pauses: number }> {
	const pause = jest.spyOn(VerifiedStore.prototype, 'pause');
	const before = store.wholeListCalls;
	const { items, parameters } = oneSeatListings(ids);
	const fake = fakeRun({ parameters, items, deduplication: store });
	try {
		await execute.call(fake.context, items);
		return { calls: store.wholeListCalls - before, pauses: pause.mock.calls.length };
	} finally {
		pause.mockRestore();
	}
}

const IDS = Array.from({ length: 20 }, (_, index) => 7_000 + index);
/** Below the near-cap notice (90,000): the run's calls must be the same at every size. */
const SIZES = [0, 1_300, 13_300, 80_000];

beforeEach(() => creatingApi());
afterEach(() => nock.cleanAll());

describe('the store calls and pauses of one run do not depend on how much is remembered', () => {
	it('a run that sends every listing', async () => {
		const costs = [];
		for (const size of SIZES) costs.push(await run(IDS, storeHolding(size)));
		expect(new Set(costs.map((cost) => JSON.stringify(cost))).size).toBe(1);
		// Counted, not timed: one count (the second is derived), a record checked by a look, and after sending a
		// record and a removal, each checked by a look.
		expect(costs[0]).toEqual({ calls: 8, pauses: 3 });
	});

	it('a run that skips every listing (sent by an earlier run)', async () => {
		const costs = [];
		for (const size of SIZES) {
			const store = storeHolding(size);
			await run(IDS, store);
			costs.push(await run(IDS, store));
		}
		expect(new Set(costs.map((cost) => JSON.stringify(cost))).size).toBe(1);
		// One count, a record checked by a look, what it found held written again after a pause (checked), the
		// "outcome unknown" looks out (checked), and the run's markers out.
		expect(costs[0]).toEqual({ calls: 9, pauses: 4 });
	});

	it('near the cap, a run that skips every listing also moves them to the end n8n forgets last', async () => {
		const store = storeHolding(95_000);
		await run(IDS, store);
		// Two calls more than below the notice: the IDs seen again are taken out and written again.
		expect(await run(IDS, store)).toEqual({ calls: 11, pauses: 4 });
	});
});
