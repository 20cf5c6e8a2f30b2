/**
 * Hostile review of "one ticket in one listing" across tool calls: the listing that holds a ticket is kept as the
 * bits of its ID, and n8n's store only looks by writing. A look whose clean-up the store fails must not leave a
 * ticket held by a listing that never existed.
 */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import type { ParameterValue } from '../../../../../../../support/fakeN8n/actionContext';
import {
	fakeRun,
	MemoryDeduplicationStore,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';
import { acceptListings, grantTokens } from '../../../../../../../support/partnerApiNock';

const TOOL_TYPE = 'n8n-nodes-ticket-marketplace.ticketMarketplaceTool';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

/** n8n's store whose removals of ticket bits fail a given number of times (a database that hiccups). */
class FlakyRemovalStore extends MemoryDeduplicationStore {
	constructor(private failuresLeft: number) {
		super();
	}

	override helpers(caller?: string) {
		const helpers = super.helpers(caller);
		return {
			...helpers,
			removeProcessed: async (values: Array<string | number>, scope: string) => {
				if (
					this.failuresLeft > 0 &&
					values.some((value) => String(value).includes(' listing bit '))
				) {
					this.failuresLeft -= 1;
					throw new Error('SQLITE_BUSY: database is locked');
				}
				await helpers.removeProcessed(values, scope);
			},
		};
	}
}

async function call(store: MemoryDeduplicationStore, listingId: number, product: IDataObject) {
	const { items, parameters } = oneSeatListings([listingId]);
	const fake = fakeRun({
		items,
		parameters: { ...parameters, products: { product: [product] } as ParameterValue },
		continueOnFail: true,
		deduplication: store,
	});
	(fake.context.getNode() as { type: string }).type = TOOL_TYPE;
	return (await execute.call(fake.context, items)) as INodeExecutionData[];
}

describe('review: a ticket across tool calls when the store fails to clean up a look', () => {
	it('names the listing that really holds the ticket, not one made of the look’s leftover bits', async () => {
		// The first call's look of GA-7 writes the ticket and all 53 bits; its clean-up and the retry fail.
		const store = new FlakyRemovalStore(2);
		grantTokens('tok-review', 2);
		const bodies = acceptListings();
		const first = await call(store, 1, { externalId: 'GA-7', ga: true });
		expect(first[0].json.id).toBe('L-1');
		const second = await call(store, 2, { externalId: 'GA-7', ga: true });
		expect(bodies.map((body) => body.externalListingId)).toEqual([1]);
		const answer = JSON.stringify(second[0].json);
		expect(answer).not.toContain('9007199254740991');
		expect(answer).toContain('already in listing 1 of event 55');
	});
});
