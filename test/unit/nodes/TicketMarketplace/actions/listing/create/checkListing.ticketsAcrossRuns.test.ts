/**
 * As an AI Agent's tool, every call is a run of its own: "one ticket in one listing" must hold across runs, so a
 * model that calls again with another External Listing ID cannot list the same ticket twice. The runs share n8n's
 * deduplication store, as the calls of one workflow do.
 */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import type { ParameterValue } from '../../../../../../../support/fakeN8n/actionContext';
import {
	BASE,
	fakeRun,
	MemoryDeduplicationStore,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';
import { acceptListings, grantTokens } from '../../../../../../../support/partnerApiNock';

const TOOL_TYPE = 'n8n-nodes-ticket-marketplace.ticketMarketplaceTool';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

/** One tool call: one listing of one ticket, as the example's tool sends it, continuing on error. */
async function call(
	store: MemoryDeduplicationStore,
	listingId: number,
	product: IDataObject,
	asTool = true,
) {
	const { items, parameters } = oneSeatListings([listingId]);
	const fake = fakeRun({
		items,
		parameters: { ...parameters, products: { product: [product] } as ParameterValue },
		continueOnFail: true,
		deduplication: store,
	});
	if (asTool) (fake.context.getNode() as { type: string }).type = TOOL_TYPE;
	return (await execute.call(fake.context, items)) as INodeExecutionData[];
}

const GENERAL_ADMISSION = { externalId: 'GA-7', ga: true };

describe('as a tool, a ticket listed by an earlier call', () => {
	it('is refused in another listing, naming the listing that holds it; nothing is sent', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-tickets', 2);
		const bodies = acceptListings();
		const first = await call(store, 1, GENERAL_ADMISSION);
		expect(first[0].json.id).toBe('L-1');
		const second = await call(store, 2, GENERAL_ADMISSION);
		expect(bodies.map((body) => body.externalListingId)).toEqual([1]);
		expect(second[0].json.id).toBeUndefined();
		expect(JSON.stringify(second[0].json)).toContain(
			'\\"GA-7\\" (General Admission) is already in listing 1 of event 55, which this workflow listed in an earlier run',
		);
	});

	it('is refused for its seat too, under another ticket ID', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-tickets', 2);
		const bodies = acceptListings();
		await call(store, 9_007_199_254_740_991, { externalId: 'A-1', row: 'A', seat: '12' });
		const second = await call(store, 3, { externalId: 'B-1', row: 'a', seat: '12' });
		expect(bodies.map((body) => body.externalListingId)).toEqual([9_007_199_254_740_991]);
		expect(JSON.stringify(second[0].json)).toContain(
			'row \\"a\\" seat \\"12\\" is already in listing 9007199254740991 of event 55',
		);
	});

	it('in the same listing called again is skipped as already sent, not refused', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-tickets', 2);
		const bodies = acceptListings();
		await call(store, 4, GENERAL_ADMISSION);
		const again = await call(store, 4, GENERAL_ADMISSION);
		expect(bodies).toHaveLength(1);
		expect(again[0].json).toMatchObject({ status: 'skipped', externalListingId: 4 });
	});

	it('is free again when the marketplace refused its listing', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-tickets', 2);
		nock(BASE).post(PARTNER_API_PATHS.listings).reply(400, { message: 'event closed' });
		await call(store, 5, GENERAL_ADMISSION);
		const bodies = acceptListings();
		const later = await call(store, 6, GENERAL_ADMISSION);
		expect(bodies.map((body) => body.externalListingId)).toEqual([6]);
		expect(later[0].json.id).toBe('L-6');
	});

	it('leaves nothing of the check behind in the memory but the tickets listed', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-tickets', 1);
		acceptListings();
		const before = [...(store.entries.get('workflow') ?? [])].length;
		await call(store, 8, GENERAL_ADMISSION);
		const entries = [...(store.entries.get('workflow') ?? [])].filter((entry) =>
			entry.includes(' ticket '),
		);
		// Only the listing's own entry beside them: the check's looks and markers are gone.
		expect([...(store.entries.get('workflow') ?? [])]).toHaveLength(3);
		// The ticket, and the one bit set in 8; no NUL, which a database refuses in text.
		expect(entries).toEqual([
			expect.stringMatching(/ ticket \["55","id","GA-7"\]$/),
			expect.stringMatching(/ ticket \["55","id","GA-7"\] listing bit 3$/),
		]);
		expect(before).toBe(0);
	});

	it('is not looked for when the look would not fit in the memory: nothing sent, nothing dropped', async () => {
		const store = new MemoryDeduplicationStore();
		const filler = Array.from({ length: 99_990 }, (_, index) => `earlier entry ${index}`);
		store.entries.set('workflow', new Set(filler));
		grantTokens('tok-tickets', 1);
		const bodies = acceptListings();
		await expect(call(store, 10, GENERAL_ADMISSION)).rejects.toThrow(/memory/i);
		expect(bodies).toEqual([]);
		expect(store.entries.get('workflow')).toEqual(new Set(filler));
	});
});
