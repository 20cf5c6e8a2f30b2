/**
 * As an AI Agent's tool, a listing with a ticket an earlier call listed "is refused before sending"; without Continue
 * "one error lists the problems and nothing is sent", so the call's other listings are held back too.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

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

/** One tool call without Continue: each listing one General Admission ticket, `tickets[i]` its External ID. */
async function call(store: MemoryDeduplicationStore, ids: number[], tickets: string[]) {
	const { items, parameters } = oneSeatListings(ids);
	const products = (itemIndex: number) => ({
		product: [{ externalId: tickets[itemIndex], ga: true }],
	});
	const fake = fakeRun({
		items,
		parameters: { ...parameters, products: products as ParameterValue },
		deduplication: store,
	});
	(fake.context.getNode() as { type: string }).type = TOOL_TYPE;
	return await execute.call(fake.context, items).then(
		(output) => ({ output: output.map((item) => item.json), thrown: undefined }),
		(thrown: Error) => ({ output: undefined, thrown }),
	);
}

it('a ticket an earlier call listed stops the call before anything is sent (without Continue)', async () => {
	const store = new MemoryDeduplicationStore();
	grantTokens('tok-r4-tool-0001', 2);
	const bodies = acceptListings();
	await call(store, [1], ['GA-1']);
	const second = await call(store, [2, 3], ['GA-1', 'GA-3']);
	expect(second.thrown?.message).toMatch(/GA-1|validation/);
	expect(bodies.map((body: IDataObject) => body.externalListingId)).toEqual([1]);
});
