import { SandboxAdminClient, SandboxAdminError, startSandbox } from '../../../sandbox/index';
import type { Sandbox } from '../../../sandbox/index';
import { createListing, getToken, requestToken } from '../../../support/sandboxRequests';

/** These tests pin the sandbox's own older answer shapes (`--answers spec`); service.test.ts covers the default. */
const SPEC = { shapes: 'spec' } as const;

describe('sandbox limit on requests per second', () => {
	let sandbox: Sandbox;
	// The sandbox's clock: the window moves only when a test moves it, so nothing here depends on real timing.
	let clock: number;
	const now = () => clock;

	beforeEach(() => {
		clock = 1_700_000_000_000;
	});
	afterEach(() => sandbox.stop());

	async function burst(token: string, count: number) {
		return await Promise.all(Array.from({ length: count }, () => createListing(sandbox, token)));
	}

	async function statuses(token: string, count: number) {
		return (await burst(token, count)).map((answer) => answer.status).sort();
	}

	it('answers 429 with Retry-After to what arrives beyond the limit in a second, and only that', async () => {
		sandbox = await startSandbox({
			now,
			perSecondLimit: { maxPerSecond: 4, endpoint: 'listings' },
			answers: SPEC,
		});
		const token = await getToken(sandbox);

		const answers = await burst(token, 6);

		expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 201, 429, 429]);
		const refused = answers.find((answer) => answer.status === 429)!;
		expect(refused.headers.get('retry-after')).toBe('1');
		expect(refused.body).toEqual({
			error: 'rate_limited',
			message: expect.stringContaining('per second'),
		});
		const state = sandbox.state();
		expect(state.listings).toHaveLength(4);
		expect(state.perSecond).toEqual({
			limit: { maxPerSecond: 4, endpoint: 'listings', retryAfterSeconds: null },
			inWindow: 4,
			peak: 4,
			refused: 2,
		});
		expect(
			state.requests.filter((request) => request.faults.includes('perSecondLimit')),
		).toHaveLength(2);
		expect(state.requests.filter((request) => request.status === 429)).toHaveLength(2);

		// Still refused 999 ms later; admitted again once the first ones have left the window.
		clock += 999;
		expect((await createListing(sandbox, token)).status).toBe(429);
		clock += 1;
		expect(await statuses(token, 5)).toEqual([201, 201, 201, 201, 429]);
		expect(sandbox.state().perSecond).toMatchObject({ inWindow: 4, peak: 4, refused: 4 });
	});

	it('sends a fixed Retry-After when configured, and counts one endpoint when asked', async () => {
		sandbox = await startSandbox({
			now,
			perSecondLimit: { maxPerSecond: 1, endpoint: 'listings', retryAfterSeconds: 4 },
			answers: SPEC,
		});
		const token = await getToken(sandbox);

		// Token requests do not count against the listings' limit.
		const [first, second, ...tokens] = await Promise.all([
			createListing(sandbox, token),
			createListing(sandbox, token),
			requestToken(sandbox),
			requestToken(sandbox),
			requestToken(sandbox),
		]);
		expect(tokens.map((answer) => answer.status)).toEqual([200, 200, 200]);
		expect([first.status, second.status].sort()).toEqual([201, 429]);
		expect(
			[first, second].find((answer) => answer.status === 429)!.headers.get('retry-after'),
		).toBe('4');
		expect(sandbox.state().perSecond).toMatchObject({ inWindow: 1, refused: 1 });
	});

	it('can be changed at any moment, removed, and put back by reset', async () => {
		sandbox = await startSandbox({ now, perSecondLimit: { maxPerSecond: 40 }, answers: SPEC });
		const token = await getToken(sandbox);
		// The token request above counts too: the limit covers every endpoint.
		expect(await statuses(token, 20)).toEqual(Array(20).fill(201));

		// Tightened mid-run, the requests of the last second count against the new limit at once.
		clock += 500;
		expect(sandbox.limitPerSecond({ maxPerSecond: 10 })).toEqual({
			limit: { maxPerSecond: 10, endpoint: '*', retryAfterSeconds: null },
			inWindow: 21,
			peak: 21,
			refused: 0,
		});
		expect(await statuses(token, 3)).toEqual([429, 429, 429]);
		clock += 500;
		expect(await statuses(token, 12)).toEqual([...Array(10).fill(201), 429, 429]);

		// Relaxed again: room for 30 more in this second.
		sandbox.limitPerSecond({ maxPerSecond: 40 });
		expect(await statuses(token, 31)).toEqual([...Array(30).fill(201), 429]);
		expect(sandbox.state().perSecond).toMatchObject({ inWindow: 40, peak: 40, refused: 6 });

		sandbox.limitPerSecond(null);
		expect(await statuses(token, 10)).toEqual(Array(10).fill(201));
		expect(sandbox.state().perSecond).toMatchObject({ limit: null, inWindow: 50, refused: 6 });

		sandbox.reset();
		expect(sandbox.state().perSecond).toEqual({
			limit: { maxPerSecond: 40, endpoint: '*', retryAfterSeconds: null },
			inWindow: 0,
			peak: 0,
			refused: 0,
		});
	});

	it('works with the in-flight limit: each refusal is counted by one limit, and admitted by neither', async () => {
		sandbox = await startSandbox({
			now,
			perSecondLimit: { maxPerSecond: 5, endpoint: 'listings', retryAfterSeconds: 3 },
			inFlightLimit: { maxInFlight: 2, endpoint: 'listings', retryAfterSeconds: 2 },
			answers: SPEC,
		});
		const token = await getToken(sandbox);
		sandbox.addFault({ endpoint: 'listings', kind: 'latency', latencyMs: 200 });

		// Three at once: the in-flight limit refuses the third, which must not use up the per-second budget.
		const first = await burst(token, 3);
		expect(first.map((answer) => answer.status).sort()).toEqual([201, 201, 429]);
		expect(first.find((answer) => answer.status === 429)!.headers.get('retry-after')).toBe('2');
		expect(sandbox.state().perSecond).toMatchObject({ inWindow: 2, refused: 0 });
		expect(sandbox.state().inFlight).toMatchObject({ now: 0, peak: 2, refused: 1 });

		// Three more fit in the second (two at once, then one); the next is refused by the per-second limit alone.
		expect(await statuses(token, 2)).toEqual([201, 201]);
		const [fifth, sixth] = [
			await createListing(sandbox, token),
			await createListing(sandbox, token),
		];
		expect(fifth.status).toBe(201);
		expect(sixth.status).toBe(429);
		expect(sixth.headers.get('retry-after')).toBe('3');
		const state = sandbox.state();
		expect(state.perSecond).toMatchObject({ inWindow: 5, peak: 5, refused: 1 });
		expect(state.inFlight).toMatchObject({ now: 0, refused: 1 });
		expect(state.listings).toHaveLength(5);
		expect(
			state.requests
				.filter((request) => request.status === 429)
				.map((request) => request.faults.filter((fault) => fault.endsWith('Limit')))
				.sort(),
		).toEqual([['inFlightLimit'], ['perSecondLimit']]);
	});

	it('is driven over the admin HTTP API too, and refuses bad limits with 400', async () => {
		sandbox = await startSandbox({ now, answers: SPEC });
		const admin = new SandboxAdminClient(sandbox.url);
		const token = await getToken(sandbox);

		expect(await admin.limitPerSecond({ maxPerSecond: 2, retryAfterSeconds: 5 })).toMatchObject({
			limit: { maxPerSecond: 2, endpoint: '*', retryAfterSeconds: 5 },
			// The token request made above is in the window.
			inWindow: 1,
		});
		const answers = await burst(token, 2);
		expect(answers.map((answer) => answer.status).sort()).toEqual([201, 429]);
		expect(answers.find((answer) => answer.status === 429)!.headers.get('retry-after')).toBe('5');
		expect((await admin.state()).perSecond).toMatchObject({ inWindow: 2, peak: 2, refused: 1 });

		for (const bad of [
			{ maxPerSecond: 0 },
			{ maxPerSecond: 1.5 },
			{ maxPerSecond: '3' },
			{},
			{ maxPerSecond: 2, endpoint: 'orders' },
			{ maxPerSecond: 2, retryAfterSeconds: -1 },
			{ maxPerSecond: 2, extra: true },
		]) {
			const error = await admin.limitPerSecond(bad as never).then(
				() => undefined,
				(thrown: unknown) => thrown,
			);
			expect(error).toBeInstanceOf(SandboxAdminError);
			expect((error as SandboxAdminError).status).toBe(400);
			expect((error as SandboxAdminError).body).toMatchObject({ error: 'invalid_request' });
		}
		const notJson = await fetch(`${sandbox.url}/__sandbox/per-second`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: '{"maxPerSecond":',
		});
		expect(notJson.status).toBe(400);
		// A refused change leaves the limit as it was.
		expect((await admin.state()).perSecond.limit).toEqual({
			maxPerSecond: 2,
			endpoint: '*',
			retryAfterSeconds: 5,
		});

		expect((await admin.limitPerSecond(null)).limit).toBeNull();
		expect(await statuses(token, 3)).toEqual([201, 201, 201]);
		expect(await admin.limitPerSecond({ maxPerSecond: 3, endpoint: 'token' })).toMatchObject({
			limit: { maxPerSecond: 3, endpoint: 'token', retryAfterSeconds: null },
			inWindow: 1,
		});
		await admin.reset();
		expect((await admin.state()).perSecond).toEqual({
			limit: null,
			inWindow: 0,
			peak: 0,
			refused: 0,
		});
	});
});
