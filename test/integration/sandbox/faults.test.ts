import { SandboxAdminClient, SandboxAdminError, startSandbox } from '../../../sandbox/index';
import type { Sandbox } from '../../../sandbox/index';
import { createListing, getToken, requestToken, subscribe } from '../../../support/sandboxRequests';

/** These tests pin the sandbox's own older answer shapes (`--answers spec`); service.test.ts covers the default. */
const SPEC = { shapes: 'spec' } as const;

describe('sandbox faults on demand', () => {
	let sandbox: Sandbox;

	beforeEach(async () => {
		sandbox = await startSandbox({ seed: 42, answers: SPEC });
	});
	afterEach(() => sandbox.stop());

	const lastRequest = () => sandbox.state().requests.at(-1);

	it('latency: delays the answer (fixed plus seeded jitter) and still answers normally', async () => {
		sandbox.addFault({ endpoint: 'token', kind: 'latency', latencyMs: 40, jitterMs: 20 });
		const result = await requestToken(sandbox);
		expect(result.status).toBe(200);
		expect(lastRequest()).toMatchObject({ endpoint: 'token', status: 200, faults: ['latency'] });
		// A lower bound only: the delay happens before the answer is written.
		expect(lastRequest()!.durationMs).toBeGreaterThanOrEqual(38);
		expect(sandbox.state().faults[0]).toMatchObject({ seen: 1, applied: 1 });
	});

	it('429: answers Too Many Requests with Retry-After, then the endpoint works once the fault is cleared', async () => {
		sandbox.addFault({ endpoint: 'token', kind: '429', retryAfterSeconds: 7 });
		const limited = await requestToken(sandbox);
		expect(limited.status).toBe(429);
		expect(limited.headers.get('retry-after')).toBe('7');
		expect(limited.body).toEqual({
			error: 'rate_limited',
			message: expect.stringContaining('retry after 7 s'),
		});
		sandbox.clearFaults();
		expect((await requestToken(sandbox)).status).toBe(200);
	});

	it('5xx: answers the configured status, 503 by default, only on the chosen endpoint', async () => {
		const token = await getToken(sandbox);
		sandbox.addFault({ endpoint: 'listings', kind: '5xx', status: 502 });
		const failed = await createListing(sandbox, token);
		expect(failed.status).toBe(502);
		expect(failed.body.error).toBe('server_error');
		expect(sandbox.state().listings).toHaveLength(0);
		expect((await subscribe(sandbox, token)).status).toBe(201);

		sandbox.clearFaults();
		sandbox.addFault({ endpoint: 'webhooks', kind: '5xx' });
		expect((await subscribe(sandbox, token)).status).toBe(503);
	});

	it("maintenance: a 503 HTML page, or with fault: true Apigee's ServiceUnavailable; nothing created", async () => {
		const token = await getToken(sandbox);
		sandbox.addFault({ endpoint: 'listings', kind: 'maintenance', retryAfterSeconds: 2 });
		const page = await createListing(sandbox, token);
		expect(page.status).toBe(503);
		expect(page.text).toMatch(/^<!DOCTYPE html>.*maintenance/is);
		sandbox.clearFaults();
		sandbox.addFault({ endpoint: 'listings', kind: 'maintenance', fault: true });
		const fault = await createListing(sandbox, token);
		expect([fault.status, fault.body]).toEqual([
			503,
			{
				fault: {
					faultstring: 'The Service is temporarily unavailable',
					detail: { errorcode: 'messaging.adaptors.http.flow.ServiceUnavailable' },
				},
			},
		]);
		expect(sandbox.state().listings).toHaveLength(0);
		expect(() =>
			sandbox.addFault({
				endpoint: 'listings',
				kind: 'maintenance',
				fault: 'yes' as unknown as boolean,
			}),
		).toThrow(/fault must be true or false/);
	});

	it('drop: closes the connection without an answer', async () => {
		sandbox.addFault({ endpoint: '*', kind: 'drop' });
		await expect(requestToken(sandbox)).rejects.toThrow(/fetch failed|socket|closed/i);
		expect(lastRequest()).toMatchObject({ endpoint: 'token', status: null, faults: ['drop'] });
		expect(sandbox.state().tokens.count).toBe(0);
	});

	it('expireToken on a Bearer endpoint: the presented token expires, the call gets 401, a new token works', async () => {
		const token = await getToken(sandbox);
		sandbox.addFault({ endpoint: 'listings', sequence: ['expireToken'] });
		const refused = await createListing(sandbox, token);
		expect(refused.status).toBe(401);
		expect(refused.body.message).toBe('The access token has expired');
		expect((await createListing(sandbox, token)).status).toBe(401);
		expect((await createListing(sandbox, await getToken(sandbox))).status).toBe(201);
	});

	it('expireToken on the token endpoint: hands out a token that is already expired', async () => {
		sandbox.addFault({ endpoint: 'token', sequence: ['expireToken', 'ok'] });
		const stale = await getToken(sandbox);
		expect((await createListing(sandbox, stale)).status).toBe(401);
		expect((await createListing(sandbox, await getToken(sandbox))).status).toBe(201);
	});

	it('sequence: consumes one entry per request, then stops faulting', async () => {
		sandbox.addFault({
			endpoint: 'token',
			sequence: ['429', 'ok', '5xx', 'latency'],
			latencyMs: 1,
		});
		const statuses: number[] = [];
		for (let i = 0; i < 6; i++) statuses.push((await requestToken(sandbox)).status);
		expect(statuses).toEqual([429, 200, 503, 200, 200, 200]);
		expect(sandbox.state().requests.map((r) => r.faults)).toEqual([
			['429'],
			[],
			['5xx'],
			['latency'],
			[],
			[],
		]);
	});

	it('rate: faults a seeded, repeatable share of requests', async () => {
		const pattern = async (target: Sandbox) => {
			const statuses: number[] = [];
			for (let i = 0; i < 20; i++) statuses.push((await requestToken(target)).status);
			return statuses;
		};
		sandbox.addFault({ endpoint: 'token', kind: '5xx', rate: 0.5 });
		const first = await pattern(sandbox);
		expect(first).toContain(503);
		expect(first).toContain(200);

		const twin = await startSandbox({ seed: 42, answers: SPEC });
		try {
			twin.addFault({ endpoint: 'token', kind: '5xx', rate: 0.5 });
			expect(await pattern(twin)).toEqual(first);
		} finally {
			await twin.stop();
		}
		sandbox.reseedFaults();
		expect(await pattern(sandbox)).toEqual(first);
		sandbox.reseedFaults(7);
		expect(await pattern(sandbox)).not.toEqual(first);
	});

	it('rate 0 never faults and rate 1 always does', async () => {
		sandbox.addFault({ endpoint: 'token', kind: '429', rate: 0 });
		expect((await requestToken(sandbox)).status).toBe(200);
		sandbox.addFault({ endpoint: 'token', kind: '429', rate: 1 });
		expect((await requestToken(sandbox)).status).toBe(429);
	});

	it('is driven over the admin HTTP API too, and refuses bad rules', async () => {
		const admin = new SandboxAdminClient(sandbox.url);
		const rule = await admin.addFault({ endpoint: 'token', kind: '429', seed: 3 });
		expect(rule).toMatchObject({ id: expect.any(String), endpoint: 'token', kind: '429' });
		expect((await requestToken(sandbox)).status).toBe(429);
		await admin.clearFaults();
		expect((await requestToken(sandbox)).status).toBe(200);

		for (const bad of [
			{ endpoint: 'nowhere', kind: '429' },
			{ endpoint: 'token', kind: 'explode' },
			{ endpoint: 'token' },
			{ endpoint: 'token', kind: '5xx', status: 404 },
			{ endpoint: 'token', kind: '429', rate: 2 },
			{ endpoint: 'token', sequence: ['429', 'boom'] },
			{ endpoint: 'token', kind: 'latency', latencyMs: -1 },
			{ endpoint: 'token', kind: '429', typo: true },
		]) {
			const error = await admin.addFault(bad as never).catch((e: unknown) => e);
			expect(error).toBeInstanceOf(SandboxAdminError);
			expect((error as SandboxAdminError).status).toBe(400);
		}
		expect(() => sandbox.addFault({ endpoint: 'token' } as never)).toThrow(/kind or a sequence/);
	});

	it('reset forgets faults and data and restarts the seeded generator', async () => {
		const token = await getToken(sandbox);
		await createListing(sandbox, token);
		sandbox.addFault({ endpoint: '*', kind: '429' });
		await new SandboxAdminClient(sandbox.url).reset();
		const state = sandbox.state();
		expect(state).toMatchObject({
			requests: [],
			listings: [],
			subscriptions: [],
			sales: [],
			deliveries: [],
			faults: [],
		});
		expect(state.tokens.count).toBe(0);
		// The token issued before the reset is refused now.
		expect((await createListing(sandbox, token)).status).toBe(401);
		expect((await requestToken(sandbox)).status).toBe(200);
	});

	it('reset with keepTokens keeps the tokens issued valid, and forgets the rest', async () => {
		const token = await getToken(sandbox);
		await createListing(sandbox, token);
		const admin = new SandboxAdminClient(sandbox.url);
		await admin.reset({ keepTokens: true });
		expect(sandbox.state()).toMatchObject({ requests: [], listings: [], faults: [] });
		expect(sandbox.state().tokens.count).toBe(1);
		expect((await createListing(sandbox, token)).status).toBe(201);
		const refused = await fetch(`${sandbox.url}/__sandbox/reset`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ keepTokens: 'yes' }),
		});
		expect(refused.status).toBe(400);
	});
});
