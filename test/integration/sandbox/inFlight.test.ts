import { SandboxAdminClient, SandboxAdminError, startSandbox } from '../../../sandbox/index';
import type { Sandbox } from '../../../sandbox/index';
import { createListing, getToken, requestToken } from '../../../support/sandboxRequests';

/** These tests pin the sandbox's own older answer shapes (`--answers spec`); service.test.ts covers the default. */
const SPEC = { shapes: 'spec' } as const;

describe('sandbox limit on requests in flight', () => {
	let sandbox: Sandbox;

	afterEach(() => sandbox.stop());

	/** Starts `count` listing requests at once while each is held `latencyMs` by a latency fault. */
	async function burst(token: string, count: number) {
		return await Promise.all(Array.from({ length: count }, () => createListing(sandbox, token)));
	}

	it('answers 429 with Retry-After to what arrives beyond the limit, and only that', async () => {
		sandbox = await startSandbox({ inFlightLimit: { maxInFlight: 3 }, answers: SPEC });
		const token = await getToken(sandbox);
		sandbox.addFault({ endpoint: 'listings', kind: 'latency', latencyMs: 300 });

		const answers = await burst(token, 5);

		expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 429, 429]);
		const refused = answers.find((answer) => answer.status === 429)!;
		expect(refused.headers.get('retry-after')).toBe('1');
		expect(refused.body).toEqual({
			error: 'rate_limited',
			message: expect.stringContaining('in flight'),
		});
		const state = sandbox.state();
		expect(state.listings).toHaveLength(3);
		expect(state.inFlight).toEqual({
			limit: { maxInFlight: 3, endpoint: '*', retryAfterSeconds: 1 },
			now: 0,
			peak: 3,
			refused: 2,
		});
		expect(
			state.requests.filter((request) => request.faults.includes('inFlightLimit')),
		).toHaveLength(2);
		// Once the first ones are answered, there is room again.
		expect((await createListing(sandbox, token)).status).toBe(201);
	});

	it('counts one endpoint when asked, and can be changed, removed and put back by reset', async () => {
		sandbox = await startSandbox({
			inFlightLimit: { maxInFlight: 1, endpoint: 'listings', retryAfterSeconds: 4 },
			answers: SPEC,
		});
		const token = await getToken(sandbox);
		sandbox.addFault({ endpoint: '*', kind: 'latency', latencyMs: 200 });

		// A token request in flight does not count against the listings' limit.
		const [tokenAnswer, first, second] = await Promise.all([
			requestToken(sandbox),
			createListing(sandbox, token),
			createListing(sandbox, token),
		]);
		expect(tokenAnswer.status).toBe(200);
		expect([first.status, second.status].sort()).toEqual([201, 429]);
		expect(
			[first, second].find((answer) => answer.status === 429)!.headers.get('retry-after'),
		).toBe('4');

		expect(sandbox.limitInFlight({ maxInFlight: 2 })).toMatchObject({
			limit: { maxInFlight: 2, endpoint: '*', retryAfterSeconds: 1 },
		});
		expect((await burst(token, 2)).map((answer) => answer.status)).toEqual([201, 201]);
		sandbox.limitInFlight(null);
		expect((await burst(token, 4)).map((answer) => answer.status)).toEqual([201, 201, 201, 201]);

		sandbox.reset();
		expect(sandbox.state().inFlight).toEqual({
			limit: { maxInFlight: 1, endpoint: 'listings', retryAfterSeconds: 4 },
			now: 0,
			peak: 0,
			refused: 0,
		});
	});

	it('is driven over the admin HTTP API too, and refuses bad limits', async () => {
		sandbox = await startSandbox({ answers: SPEC });
		const admin = new SandboxAdminClient(sandbox.url);
		const token = await getToken(sandbox);
		sandbox.addFault({ endpoint: 'listings', kind: 'latency', latencyMs: 200 });

		expect(await admin.limitInFlight({ maxInFlight: 1, retryAfterSeconds: 2 })).toMatchObject({
			limit: { maxInFlight: 1, endpoint: '*', retryAfterSeconds: 2 },
		});
		expect((await burst(token, 2)).map((answer) => answer.status).sort()).toEqual([201, 429]);
		expect((await admin.state()).inFlight).toMatchObject({ peak: 1, refused: 1 });

		for (const bad of [
			{ maxInFlight: 0 },
			{ maxInFlight: 1.5 },
			{ maxInFlight: 2, endpoint: 'orders' },
			{ maxInFlight: 2, retryAfterSeconds: -1 },
			{ maxInFlight: 2, extra: true },
		]) {
			await expect(admin.limitInFlight(bad as never)).rejects.toThrow(SandboxAdminError);
		}
		expect((await admin.limitInFlight(null)).limit).toBeNull();
		expect((await burst(token, 3)).map((answer) => answer.status)).toEqual([201, 201, 201]);
	});

	it('releases a dropped request, so a dropped connection never leaks a slot', async () => {
		sandbox = await startSandbox({ inFlightLimit: { maxInFlight: 1 }, answers: SPEC });
		const token = await getToken(sandbox);
		sandbox.addFault({ endpoint: 'listings', kind: 'drop', sequence: ['drop', 'drop'] });
		for (let attempt = 0; attempt < 2; attempt++)
			await expect(createListing(sandbox, token)).rejects.toThrow();
		expect((await createListing(sandbox, token)).status).toBe(201);
		expect(sandbox.state().inFlight).toMatchObject({ now: 0, refused: 0 });
	});
});
