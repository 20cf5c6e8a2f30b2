/**
 * The gateway's spike arrest and quota (sandbox/gatewayLimits.ts), on the sandbox's injected clock: no timing in
 * these assertions, the clock only moves when a test moves it.
 */
import { SandboxAdminClient, startSandbox } from '../../../sandbox/index';
import type { Sandbox, SandboxOptions } from '../../../sandbox/index';
import {
	createListing,
	getToken,
	requestToken,
	validListing,
} from '../../../support/sandboxRequests';

/** A listing with seats of its own, so the service's seat check never refuses it. */
function listing(): Record<string, unknown> {
	const body = validListing();
	const row = String(body.externalListingId);
	return {
		...body,
		products: [{ externalId: `${row}-1`, row, seat: '1', productType: 'TICKET', ga: false }],
	};
}

const SPIKE = (rate: string) => ({
	fault: {
		faultstring: `Spike arrest violation. Allowed rate : ${rate}`,
		detail: { errorcode: 'policies.ratelimit.SpikeArrestViolation' },
	},
});

const QUOTA = {
	fault: {
		faultstring: 'Rate limit quota violation. Quota limit  exceeded. Identifier : _default',
		detail: { errorcode: 'policies.ratelimit.QuotaViolation' },
	},
};

describe('sandbox gateway limits (Apigee spike arrest and quota)', () => {
	let sandbox: Sandbox;
	let clock: number;
	let token: string;

	async function start(options: SandboxOptions): Promise<void> {
		clock = Date.parse('2026-03-01T10:00:00Z');
		sandbox = await startSandbox({ now: () => clock, ...options });
		token = await getToken(sandbox);
	}
	afterEach(() => sandbox.stop());

	describe('spike arrest', () => {
		it('smooths 40ps to one request every 25 ms: a second request within 25 ms is refused 500', async () => {
			await start({ spikeArrest: { rate: '40ps', endpoint: 'listings' } });
			const first = await createListing(sandbox, token, listing());
			expect(first.status).toBe(200);
			// Same instant: refused, although 39 more "per second" would fit a counting window.
			const burst = await createListing(sandbox, token, listing());
			expect(burst.status).toBe(500);
			expect(burst.body).toEqual(SPIKE('40ps'));
			expect(burst.headers.get('retry-after')).toBeNull();
			clock += 24;
			expect((await createListing(sandbox, token, listing())).status).toBe(500);
			clock += 1;
			expect((await createListing(sandbox, token, listing())).status).toBe(200);
			// A refused request does not move the interval: 25 ms after the last admitted one is enough.
			clock += 10;
			expect((await createListing(sandbox, token, listing())).status).toBe(500);
			clock += 15;
			expect((await createListing(sandbox, token, listing())).status).toBe(200);

			const state = sandbox.state();
			expect(state.listings).toHaveLength(3);
			expect(state.spikeArrest).toMatchObject({ intervalMs: 25, admitted: 3, refused: 3 });
			const refused = state.requests.filter((request) => request.faults.includes('spikeArrest'));
			expect(refused.map((request) => request.status)).toEqual([500, 500, 500]);
		});

		it('admits exactly one request per interval at the allowed pace, 40 in a second', async () => {
			await start({ spikeArrest: { rate: '40ps', endpoint: 'listings' } });
			const statuses: number[] = [];
			for (let i = 0; i < 40; i++) {
				statuses.push((await createListing(sandbox, token, listing())).status);
				clock += 25;
			}
			expect(statuses).toEqual(Array(40).fill(200));
		});

		it('answers 429 when configured, and smooths per-minute rates (30pm: one every 2 s)', async () => {
			await start({ spikeArrest: { rate: '30pm', status: 429 } });
			// The default scope is every endpoint: start()'s token request was the last one admitted.
			expect((await createListing(sandbox, token, listing())).status).toBe(429);
			clock += 2000;
			expect((await createListing(sandbox, token, listing())).status).toBe(200);
			clock += 1999;
			const refused = await createListing(sandbox, token, listing());
			expect(refused.status).toBe(429);
			expect(refused.body).toEqual(SPIKE('30pm'));
			expect(refused.headers.get('retry-after')).toBeNull();
			clock += 1;
			expect((await requestToken(sandbox)).status).toBe(200);
			expect((await createListing(sandbox, token, listing())).status).toBe(429);
		});

		it('with UseEffectiveCount admits up to the rate in a sliding period instead of smoothing', async () => {
			await start({ spikeArrest: { rate: '3ps', useEffectiveCount: true, endpoint: 'listings' } });
			const statuses: number[] = [];
			for (let i = 0; i < 4; i++)
				statuses.push((await createListing(sandbox, token, listing())).status);
			expect(statuses).toEqual([200, 200, 200, 500]);
			clock += 1000;
			expect((await createListing(sandbox, token, listing())).status).toBe(200);
		});
	});

	describe('quota', () => {
		it('refuses beyond the quota with QuotaViolation 500 until the day ends; nothing is created', async () => {
			await start({ quota: { limit: 3, endpoint: 'listings' } });
			const statuses: number[] = [];
			for (let i = 0; i < 5; i++)
				statuses.push((await createListing(sandbox, token, listing())).status);
			expect(statuses).toEqual([200, 200, 200, 500, 500]);
			const refused = sandbox.state().requests.filter((r) => r.faults.includes('quota'));
			expect(refused).toHaveLength(2);
			expect(sandbox.state().listings).toHaveLength(3);
			expect(sandbox.state().quota).toMatchObject({
				used: 3,
				refused: 2,
				resetsAt: '2026-03-02T00:00:00.000Z',
			});
			const answer = await createListing(sandbox, token, listing());
			expect(answer.body).toEqual(QUOTA);
			expect(answer.headers.get('retry-after')).toBeNull();
			clock = Date.parse('2026-03-01T23:59:59.999Z');
			expect((await createListing(sandbox, token, listing())).status).toBe(500);
			clock += 1;
			expect((await createListing(sandbox, token, listing())).status).toBe(200);
		});

		it('answers 429 when configured, in a shorter window for tests', async () => {
			await start({ quota: { limit: 1, windowSeconds: 60, status: 429, endpoint: 'listings' } });
			expect((await createListing(sandbox, token, listing())).status).toBe(200);
			const refused = await createListing(sandbox, token, listing());
			expect([refused.status, refused.body]).toEqual([429, QUOTA]);
			clock = Date.parse('2026-03-01T10:01:00Z');
			expect((await createListing(sandbox, token, listing())).status).toBe(200);
		});
	});

	it('is set, changed and removed over the admin API, put back by reset, and refuses bad limits', async () => {
		await start({ spikeArrest: { rate: '10ps' } });
		const admin = new SandboxAdminClient(sandbox.url);
		expect(await admin.limitSpikeArrest({ rate: '5ps', endpoint: 'listings' })).toMatchObject({
			limit: { rate: '5ps', endpoint: 'listings', status: 500, useEffectiveCount: false },
			intervalMs: 200,
		});
		expect(await admin.limitQuota({ limit: 1, endpoint: 'listings', status: 429 })).toMatchObject({
			limit: { limit: 1, windowMs: 86_400_000, status: 429 },
			used: 0,
		});
		expect((await createListing(sandbox, token, listing())).status).toBe(200);
		clock += 200;
		expect((await createListing(sandbox, token, listing())).status).toBe(429);
		await admin.limitQuota(null);
		await admin.limitSpikeArrest(null);
		expect((await createListing(sandbox, token, listing())).status).toBe(200);
		expect((await createListing(sandbox, token, listing())).status).toBe(200);
		await admin.reset();
		expect((await admin.state()).spikeArrest.limit).toMatchObject({ rate: '10ps' });
		expect((await admin.state()).quota.limit).toBeNull();
		await expect(admin.limitSpikeArrest({ rate: '40 per second' })).rejects.toThrow(/40ps/);
		await expect(admin.limitQuota({ limit: 0 })).rejects.toThrow(/positive integer/);
		await expect(admin.limitQuota({ limit: 2, status: 503 as 500 })).rejects.toThrow(/500, 429/);
	});

	it('plays one-off gateway refusals as faults too', async () => {
		await start({});
		sandbox.addFault({
			endpoint: 'listings',
			sequence: ['spikeArrestViolation', 'quotaViolation', 'ok'],
		});
		sandbox.addFault({
			endpoint: 'token',
			kind: 'spikeArrestViolation',
			status: 429,
			allowedRate: '40ps',
		});
		const spike = await createListing(sandbox, token, listing());
		expect([spike.status, spike.body]).toEqual([500, SPIKE('10ps')]);
		const quota = await createListing(sandbox, token, listing());
		expect([quota.status, quota.body]).toEqual([500, QUOTA]);
		expect((await createListing(sandbox, token, listing())).status).toBe(200);
		const token429 = await requestToken(sandbox);
		expect([token429.status, token429.body]).toEqual([429, SPIKE('40ps')]);
		expect(() =>
			sandbox.addFault({ endpoint: 'listings', kind: 'quotaViolation', status: 503 }),
		).toThrow(/500 or 429/);
	});
});
