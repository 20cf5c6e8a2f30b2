/**
 * Whole Create runs under the plan's quota and a spike arrest arriving mid-run with many listings in flight
 * (real execute(), n8n-core's request helper, nock).
 */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { sentListingKey } from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/sentListings';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import {
	BASE,
	fakeRun,
	idsUpTo,
	MEMORY_ACCOUNT,
	MemoryDeduplicationStore,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';
import { GATEWAY_FAULT, gatewayFaultBody } from '../../../../../../../sandbox/answers';

/** The plan's quota, as the gateway answers it (the sandbox's own body). */
const QUOTA = gatewayFaultBody(GATEWAY_FAULT.quota);
const spike = (withRate: boolean) => ({
	fault: {
		faultstring: withRate
			? 'Spike arrest violation. Allowed rate : 40ps'
			: 'Spike arrest violation',
		detail: { errorcode: 'policies.ratelimit.SpikeArrestViolation' },
	},
});

type Reply = [number, unknown];

/**
 * The listing endpoint, answering after a short delay (so that many are in flight): `answer(id, attempt, n)` with n
 * the request's rank. Records, per request, whether it started after a final answer (`isStop`) was delivered.
 */
function slowListingApi(answer: (id: number, attempt: number, n: number) => Reply) {
	const sent: number[] = [];
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(500)
		.reply((_uri, body, callback) => {
			const id = Number((body as IDataObject).externalListingId);
			sent.push(id);
			const [status, reply] = answer(id, sent.filter((other) => other === id).length, sent.length);
			setTimeout(() => callback(null, [status, reply as nock.Body]), 15);
		});
	return { sent };
}

const grant = (times = 5) =>
	nock(BASE)
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.times(times)
		.reply(200, { access_token: 'tok-mid-run' });

async function run(
	count: number,
	options: { store: MemoryDeduplicationStore; onError?: 'continueErrorOutput' },
) {
	const { items, parameters } = oneSeatListings(idsUpTo(count), {
		concurrency: 6,
		output: 'listing',
	});
	const fake = fakeRun({
		parameters,
		items,
		continueOnFail: true,
		deduplication: options.store,
		...(options.onError && { onError: options.onError }),
	});
	const output = (await execute.call(fake.context, items)) as INodeExecutionData[];
	return { output, fake };
}

const remembered = (store: MemoryDeduplicationStore) => [...(store.entries.get('workflow') ?? [])];

afterEach(() => nock.cleanAll());

describe.each([429, 500])('the quota answered %s mid-run, six listings in flight', (status) => {
	it('one request per listing at most, nothing new after the quota answer, the rest forgotten', async () => {
		grant();
		const store = new MemoryDeduplicationStore();
		const { sent } = slowListingApi((id, _attempt, n) =>
			n <= 8 ? [201, { id: `L-${id}`, status: 'ACTIVE' }] : [status, QUOTA],
		);
		const { output } = await run(30, { store });
		const perId = new Map<number, number>();
		for (const id of sent) perId.set(id, (perId.get(id) ?? 0) + 1);
		expect([...perId.values()].every((times) => times === 1)).toBe(true);
		// Nothing new after the quota answer: the 8 created, and at most the 6 in flight when it came (no timing read).
		expect(sent.length).toBeLessThanOrEqual(8 + 6);
		const created = output.filter((item) => typeof item.json.id === 'string').length;
		expect(created).toBe(8);
		const quota = output.filter((item) =>
			String(item.json.error ?? '').startsWith('Quota used up'),
		);
		expect(quota.length).toBeGreaterThanOrEqual(1);
		expect(String(quota[0].json.description)).toContain('Rate limit quota violation');
		// Only the created ones stay remembered: the next run sends every other.
		expect(remembered(store).sort()).toEqual(
			idsUpTo(8)
				.map((id) => sentListingKey(MEMORY_ACCOUNT, id))
				.sort(),
		);
	});

	it('on the error output: the same, and the quota named there', async () => {
		grant();
		const store = new MemoryDeduplicationStore();
		const { sent } = slowListingApi((id, _attempt, n) =>
			n <= 3 ? [201, { id: `L-${id}` }] : [status, QUOTA],
		);
		const { output } = await run(20, { store, onError: 'continueErrorOutput' });
		expect(new Set(sent).size).toBe(sent.length);
		const errors = output.filter((item) => item.json.error !== undefined);
		expect(errors.some((item) => String(item.json.error).startsWith('Quota used up'))).toBe(true);
		expect(remembered(store).sort()).toEqual(
			idsUpTo(3)
				.map((id) => sentListingKey(MEMORY_ACCOUNT, id))
				.sort(),
		);
	});
});

describe.each([
	[500, true],
	[500, false],
	[429, true],
	[429, false],
])('a spike arrest answered %s (rate given: %s) mid-run, six in flight', (status, withRate) => {
	it('creates every listing exactly once, none remembered unknown', async () => {
		grant();
		const store = new MemoryDeduplicationStore();
		const created = new Map<number, number>();
		slowListingApi((id, attempt, n) => {
			if (n > 5 && attempt === 1) return [status, spike(withRate)];
			created.set(id, (created.get(id) ?? 0) + 1);
			return [201, { id: `L-${id}`, status: 'ACTIVE' }];
		});
		const { output } = await run(24, { store });
		expect(output.map((item) => item.json.id)).toEqual(idsUpTo(24).map((id) => `L-${id}`));
		expect([...created.values()].every((times) => times === 1)).toBe(true);
		expect(created.size).toBe(24);
		expect(remembered(store).filter((key) => /unknown/i.test(key))).toEqual([]);
		expect(remembered(store)).toHaveLength(24);
	});
});
