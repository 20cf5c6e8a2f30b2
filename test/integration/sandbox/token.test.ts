import { SANDBOX_DEFAULTS, startSandbox } from '../../../sandbox/index';
import type { Sandbox } from '../../../sandbox/index';
import { basic, createListing, getToken, requestToken } from '../../../support/sandboxRequests';

/** These tests pin the sandbox's own older answer shapes (`--answers spec`); service.test.ts covers the default. */
const SPEC = { shapes: 'spec' } as const;

describe('sandbox token endpoint (spec 4.1, 5)', () => {
	let sandbox: Sandbox;
	let clock: number;

	beforeEach(async () => {
		clock = Date.parse('2026-01-01T00:00:00Z');
		sandbox = await startSandbox({
			now: () => clock,
			apps: [{ consumerKey: 'other-key', consumerSecret: 'other-secret' }],
			accounts: [
				{ email: 'second@example.test', password: 'second-password', kind: 'marketplace' },
			],
			answers: SPEC,
		});
	});
	afterEach(() => sandbox.stop());

	it('issues an opaque Bearer token with the six-month default lifetime for the demo credentials', async () => {
		const result = await requestToken(sandbox);
		expect(result.status).toBe(200);
		expect(result.body).toEqual({
			access_token: expect.any(String),
			token_type: 'Bearer',
			expires_in: 15552000,
		});
		expect((result.body.access_token as string).length).toBeGreaterThanOrEqual(32);
		expect(result.headers.get('cache-control')).toBe('no-store');
		const second = await requestToken(sandbox);
		expect(second.body.access_token).not.toBe(result.body.access_token);
	});

	it('accepts registered extra apps and accounts, and matches the e-mail case-insensitively', async () => {
		const result = await requestToken(sandbox, {
			authorization: basic('other-key', 'other-secret'),
			body: { username: 'SECOND@example.test', password: 'second-password' },
		});
		expect(result.status).toBe(200);
	});

	it.each([
		['no Authorization header', null],
		['a Bearer header instead of Basic', 'Bearer abc'],
		['an unknown consumer key', basic('unknown-key', SANDBOX_DEFAULTS.consumerSecret)],
		['a wrong consumer secret', basic(SANDBOX_DEFAULTS.consumerKey, 'wrong-secret')],
		['Basic without a colon', 'Basic ' + Buffer.from('no-colon').toString('base64')],
	])('refuses %s with 401 invalid_client and a Basic challenge', async (_name, authorization) => {
		const result = await requestToken(sandbox, { authorization });
		expect(result.status).toBe(401);
		expect(result.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
		expect(result.headers.get('www-authenticate')).toBe('Basic realm="partner-api"');
	});

	it('needs grant_type=client_credentials in the query', async () => {
		const missing = await requestToken(sandbox, { query: '' });
		expect(missing.status).toBe(400);
		expect(missing.body.error).toBe('invalid_request');
		expect(missing.body.error_description).toMatch(/grant_type/);
		const wrong = await requestToken(sandbox, { query: '?grant_type=password' });
		expect(wrong.status).toBe(400);
		expect(wrong.body.error).toBe('unsupported_grant_type');
	});

	it.each([
		['a body that is not JSON', { rawBody: '{"username":' }, /not valid JSON/],
		['an empty body', { rawBody: '' }, /empty/],
		['a JSON array', { body: [1] }, /JSON object/],
		['a missing password', { body: { username: 'seller@example.test' } }, /password/],
		['a missing username', { body: { password: 'sandbox-password' } }, /username/],
		['a numeric username', { body: { username: 5, password: 'sandbox-password' } }, /username/],
		['a form content type', { contentType: 'application/x-www-form-urlencoded' }, /Content-Type/],
	])(
		'answers %s with 400 invalid_request naming the problem',
		async (_name, options, description) => {
			const result = await requestToken(sandbox, options);
			expect(result.status).toBe(400);
			expect(result.body.error).toBe('invalid_request');
			expect(result.body.error_description).toMatch(description);
		},
	);

	it('refuses a wrong marketplace password with invalid_grant and the exact wording', async () => {
		const result = await requestToken(sandbox, {
			body: { username: 'seller@example.test', password: 'nope' },
		});
		expect(result.status).toBe(401);
		expect(result.body).toEqual({
			error: 'invalid_grant',
			error_description: 'The marketplace account e-mail or password is not recognised',
		});
	});

	it('refuses the developer-portal account with an error that says so', async () => {
		const { email, password } = SANDBOX_DEFAULTS.developerAccount;
		const result = await requestToken(sandbox, { body: { username: email, password } });
		expect(result.status).toBe(401);
		expect(result.body).toEqual({
			error: 'invalid_grant',
			error_description:
				'This is a developer-portal account. Use the e-mail and password of your consumer marketplace account.',
		});
	});

	it('a token works on Bearer endpoints until its lifetime has passed', async () => {
		const token = await getToken(sandbox);
		expect((await createListing(sandbox, token)).status).toBe(201);
		clock += 15552000 * 1000 - 1;
		expect((await createListing(sandbox, token)).status).toBe(201);
		clock += 1;
		const expired = await createListing(sandbox, token);
		expect(expired.status).toBe(401);
		expect(expired.body).toEqual({
			error: 'invalid_token',
			message: 'The access token has expired',
		});
		expect(expired.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
	});

	it('honours a configured token lifetime', async () => {
		const short = await startSandbox({ tokenLifetimeSeconds: 60, now: () => clock, answers: SPEC });
		try {
			const result = await requestToken(short);
			expect(result.body.expires_in).toBe(60);
			clock += 60_000;
			expect((await createListing(short, result.body.access_token as string)).status).toBe(401);
		} finally {
			await short.stop();
		}
	});

	it('expires and revokes tokens on demand, all or by id, and a new token then works', async () => {
		const first = await getToken(sandbox);
		const second = await getToken(sandbox);
		const ids = sandbox.state().tokens.items.map((t) => t.id);
		expect(sandbox.expireTokens({ ids: [ids[0]] })).toBe(1);
		expect((await createListing(sandbox, first)).status).toBe(401);
		expect((await createListing(sandbox, second)).status).toBe(201);

		expect(sandbox.revokeTokens({ all: true })).toBe(2);
		const revoked = await createListing(sandbox, second);
		expect(revoked.status).toBe(401);
		expect(revoked.body.message).toBe('The access token has been revoked');

		const fresh = await getToken(sandbox);
		expect((await createListing(sandbox, fresh)).status).toBe(201);
		expect(sandbox.state().tokens).toMatchObject({ count: 3, valid: 1 });
	});

	it('revokeEarlierTokens: a new token revokes every earlier token of its account, and only of its account', async () => {
		const before = await getToken(sandbox);
		const otherAccount = await requestToken(sandbox, {
			body: { username: 'second@example.test', password: 'second-password' },
		});
		sandbox.addFault({ endpoint: 'token', kind: 'revokeEarlierTokens' });

		const renewed = await getToken(sandbox);
		const revoked = await createListing(sandbox, before);
		expect(revoked.status).toBe(401);
		expect(revoked.body.message).toBe('The access token has been revoked');
		expect((await createListing(sandbox, renewed)).status).toBe(201);
		expect((await createListing(sandbox, otherAccount.body.access_token as string)).status).toBe(
			201,
		);

		const latest = await getToken(sandbox);
		expect((await createListing(sandbox, renewed)).status).toBe(401);
		expect((await createListing(sandbox, latest)).status).toBe(201);
		expect(sandbox.state().tokens).toMatchObject({ count: 4, valid: 2 });
	});

	it('without the fault, a new token leaves the earlier ones valid', async () => {
		const before = await getToken(sandbox);
		await getToken(sandbox);
		expect((await createListing(sandbox, before)).status).toBe(201);
	});

	it('expires tokens over the admin HTTP API too', async () => {
		const token = await getToken(sandbox);
		const response = await fetch(`${sandbox.url}/__sandbox/tokens/expire`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ all: true }),
		});
		expect(await response.json()).toEqual({ expired: 1 });
		expect((await createListing(sandbox, token)).status).toBe(401);
	});

	it.each([
		[
			'no Authorization header',
			undefined,
			'An Authorization: Bearer <access token> header is required',
		],
		['an unknown token', 'Bearer not-a-token', 'The access token is not recognised'],
		[
			'Basic instead of Bearer',
			basic('a', 'b'),
			'An Authorization: Bearer <access token> header is required',
		],
	])('Bearer endpoints answer %s with 401 invalid_token', async (_name, authorization, message) => {
		const result = await createListing(sandbox, 'ignored', undefined, {
			Authorization: authorization,
		});
		expect(result.status).toBe(401);
		expect(result.body).toEqual({ error: 'invalid_token', message });
		expect(result.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
	});
});
