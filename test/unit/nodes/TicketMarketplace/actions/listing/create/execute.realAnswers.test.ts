/**
 * Listing → Create fed the answers the real service gives (StubHub International's Partner API behind Apigee), through
 * the real execute() and n8n-core's request helper: a duplicate answered 400, the plan's quota, a spike arrest answered
 * 500, the service's error codes, and an outcome unknown said in the run that got it. Each failed before its fix.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import {
	outcomeUnknownKey,
	sentListingKey,
} from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/sentListings';
import {
	BASE,
	fakeRun,
	idsUpTo,
	MEMORY_ACCOUNT,
	MemoryDeduplicationStore,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';
import { GATEWAY_FAULT, gatewayFaultBody } from '../../../../../../../sandbox/answers';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import { grantTokens } from '../../../../../../../support/partnerApiNock';

/** The plan's quota, as the gateway answers it (the sandbox's own body). */
const QUOTA = gatewayFaultBody(GATEWAY_FAULT.quota);
const SPIKE = {
	fault: {
		faultstring: 'Spike arrest violation. Allowed rate : 40ps',
		detail: { errorcode: 'policies.ratelimit.SpikeArrestViolation' },
	},
};

type Reply = [number, unknown];

/** The listing endpoint answers each request by `answer` (External Listing ID, attempt for that ID from 1). */
function listingApi(answer: (id: number, attempt: number) => Reply) {
	const sent: number[] = [];
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(100)
		.reply((_uri, body) => {
			const id = Number((body as IDataObject).externalListingId);
			sent.push(id);
			const [status, reply] = answer(id, sent.filter((other) => other === id).length);
			return [status, reply as nock.Body];
		});
	return sent;
}

async function run(
	count: number,
	options: {
		continueOnFail?: boolean;
		output?: string;
		store?: MemoryDeduplicationStore;
		concurrency?: number;
	} = {},
) {
	const { items, parameters } = oneSeatListings(idsUpTo(count), {
		...(options.output && { output: options.output }),
		...(options.concurrency && { concurrency: options.concurrency }),
	});
	const fake = fakeRun({
		parameters,
		items,
		continueOnFail: options.continueOnFail ?? false,
		deduplication: options.store ?? new MemoryDeduplicationStore(),
	});
	return await execute.call(fake.context, items).then(
		(output) => ({ output, thrown: undefined, fake }),
		(thrown: Error & { description?: string; httpCode?: string }) => ({
			output: undefined,
			thrown,
			fake,
		}),
	);
}

const remembered = (store: MemoryDeduplicationStore) => [...(store.entries.get('workflow') ?? [])];

beforeEach(() => grantTokens('tok-real-answers', 5));
afterEach(() => nock.cleanAll());

describe('a duplicate External Listing ID answered 400', () => {
	const duplicate = (id: number): Reply => [
		400,
		{
			code: 'inventory.listings.duplicateExternalListingId',
			description: `Listing with external listing id ${id} already exists`,
		},
	];

	it('is already listed, not an error, and stays remembered', async () => {
		const store = new MemoryDeduplicationStore();
		listingApi((id) => (id === 1 ? duplicate(id) : [201, { id: `L-${id}`, status: 'INCOMPLETE' }]));
		const { output, thrown } = await run(2, { store, output: 'row' });
		expect(thrown).toBeUndefined();
		expect(output![0].json).toMatchObject({
			externalListingId: 1,
			listingStatus: 'alreadyListed',
			listingError: {
				httpCode: '400',
				apiCode: 'inventory.listings.duplicateExternalListingId',
			},
		});
		expect(output![1].json).toMatchObject({ listingStatus: 'created' });
		expect(remembered(store).sort()).toEqual(
			[sentListingKey(MEMORY_ACCOUNT, 1), sentListingKey(MEMORY_ACCOUNT, 2)].sort(),
		);
	});

	it('a 400 for a duplicate seat is refused, not already listed, and forgotten', async () => {
		const store = new MemoryDeduplicationStore();
		listingApi(() => [
			400,
			{
				code: 'inventory.listings.duplicateSectionRowSeat',
				description: 'Row/Seat combination already exists',
			},
		]);
		const { output } = await run(1, { store, output: 'row', continueOnFail: true });
		expect(output![0].json).toMatchObject({ listingStatus: 'failed' });
		expect(String((output![0].json.listingError as IDataObject).description)).toContain(
			'(code inventory.listings.duplicateSectionRowSeat)',
		);
		expect(remembered(store)).toEqual([]);
	});
});

describe("the plan's quota", () => {
	it.each([429, 500])(
		'answered %s: stops sending at once, every listing left not created and forgotten, and says what to do',
		async (status) => {
			const store = new MemoryDeduplicationStore();
			const sent = listingApi((id) => (id === 1 ? [201, { id: 'L-1' }] : [status, QUOTA]));
			const { output } = await run(6, { store, continueOnFail: true });
			// One request for the listing refused; none after it.
			expect(sent).toEqual([1, 2]);
			expect(output![0].json).toEqual({ id: 'L-1' });
			expect(output![1].json).toMatchObject({
				error: `Quota used up: the Partner API refused the request because your plan's quota is used up (HTTP ${status})`,
				apiCode: 'policies.ratelimit.QuotaViolation',
				mayHaveBeenCreated: false,
			});
			const description = String(output![1].json.description);
			expect(description).toContain(
				'"Rate limit quota violation. Quota limit exceeded. Identifier : _default" (code policies.ratelimit.QuotaViolation)',
			);
			expect(description).toContain("upgrading your app's plan");
			expect(description).not.toContain('Lower Options → Max Listings at Once');
			for (const item of output!.slice(2))
				expect(item.json.error).toBe('Not sent: the run stopped before this listing was sent');
			// The next run sends them.
			expect(remembered(store)).toEqual([sentListingKey(MEMORY_ACCOUNT, 1)]);
		},
	);
});

describe("a spike arrest answered with Apigee's default 500", () => {
	it('is not created, tried again in the same run and created once, never remembered unknown', async () => {
		const store = new MemoryDeduplicationStore();
		const sent = listingApi((id, attempt) =>
			attempt === 1 ? [500, SPIKE] : [201, { id: `L-${id}`, status: 'ACTIVE' }],
		);
		const { output, thrown } = await run(3, { store, concurrency: 3 });
		expect(thrown).toBeUndefined();
		expect(output!.map((item) => item.json.id)).toEqual(['L-1', 'L-2', 'L-3']);
		expect(sent.filter((id) => id === 1)).toHaveLength(2);
		expect(remembered(store)).not.toContain(outcomeUnknownKey(MEMORY_ACCOUNT, 1));
		expect(remembered(store)).toHaveLength(3);
	});
});

describe('the service error code and the outcome unknown', () => {
	it('keeps the code beside the description in the error and the output (400 invalidEvent)', async () => {
		listingApi(() => [
			400,
			{ code: 'inventory.listings.invalidEvent', description: 'Event is not active' },
		]);
		const { thrown } = await run(1);
		expect(thrown?.message).toBe('The Partner API refused the listing (HTTP 400)');
		expect(thrown?.description).toContain(
			'The API said: "Event is not active" (code inventory.listings.invalidEvent).',
		);
	});

	it('a 500 systemError is listingStatus unknown in the same run, and on the error output', async () => {
		const body = { code: 'inventory.listings.systemError', description: 'System error' };
		listingApi(() => [500, body]);
		const { output } = await run(1, { output: 'row', continueOnFail: true });
		expect(output![0].json).toMatchObject({
			listingStatus: 'unknown',
			listingError: { mayHaveBeenCreated: true, apiCode: 'inventory.listings.systemError' },
		});

		listingApi(() => [500, body]);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const fake = fakeRun({
			parameters,
			items,
			continueOnFail: true,
			onError: 'continueErrorOutput',
		});
		const [item] = await execute.call(fake.context, items);
		expect(Object.keys(item.json).sort()).toEqual(['error', 'message']);
		expect(String(item.json.error)).toMatch(/^Outcome unknown: /);
		expect(String(item.json.message)).toContain('External Listing ID 1: outcome unknown');
	});
});
