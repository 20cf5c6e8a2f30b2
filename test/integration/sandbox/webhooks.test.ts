import { startSandbox } from '../../../sandbox/index';
import type { Sandbox } from '../../../sandbox/index';
import {
	createListing,
	getToken,
	subscribe,
	validSubscription,
	TOKEN_PATH,
} from '../../../support/sandboxRequests';

/** These tests pin the sandbox's own older answer shapes (`--answers spec`); service.test.ts covers the default. */
const SPEC = { shapes: 'spec' } as const;

describe('sandbox webhook subscription (spec 2.3, 4.2) and activation (spec 6)', () => {
	let sandbox: Sandbox;
	let token: string;

	beforeEach(async () => {
		sandbox = await startSandbox({ answers: SPEC });
		token = await getToken(sandbox);
	});
	afterEach(() => sandbox.stop());

	it('answers 201 with a unique id and PENDING, echoing the subscription without its secret', async () => {
		const first = await subscribe(sandbox, token);
		const second = await subscribe(sandbox, token);
		expect(first.status).toBe(201);
		expect(first.body).toMatchObject({
			id: expect.stringMatching(/^sub_[0-9a-f]{16}$/),
			status: 'PENDING',
			callback: {
				url: 'http://127.0.0.1:9/callback',
				auth: {
					authType: 'oauth',
					tokenEndPoint: 'http://127.0.0.1:9/token',
					oauthRequest: { clientId: 'marketplace-client', grantType: 'client_credentials' },
				},
			},
			subscription: { listing: ['listing_sale'] },
		});
		expect(first.text).not.toContain('callback-client-secret');
		expect(second.body.id).not.toBe(first.body.id);
		expect(sandbox.state().subscriptions.map((s) => s.status)).toEqual(['PENDING', 'PENDING']);
	});

	type Mutation = (body: {
		callback: Record<string, unknown> & {
			auth: Record<string, unknown> & { oauthRequest: Record<string, unknown> };
		};
		subscription: Record<string, unknown>;
	}) => void;
	const cases: Array<[string, Mutation, string]> = [
		['callback missing', (b) => delete (b as Partial<typeof b>).callback, 'callback'],
		['callback.url missing', (b) => delete b.callback.url, 'callback.url'],
		['callback.url not a URL', (b) => (b.callback.url = 'not a url'), 'callback.url'],
		['callback.url an ftp URL', (b) => (b.callback.url = 'ftp://127.0.0.1/x'), 'callback.url'],
		[
			'callback.auth missing',
			(b) => delete (b.callback as Partial<typeof b.callback>).auth,
			'callback.auth',
		],
		['authType missing', (b) => delete b.callback.auth.authType, 'callback.auth.authType'],
		['authType a number', (b) => (b.callback.auth.authType = 1), 'callback.auth.authType'],
		[
			'tokenEndPoint not a URL',
			(b) => (b.callback.auth.tokenEndPoint = '/token'),
			'callback.auth.tokenEndPoint',
		],
		[
			'oauthRequest missing',
			(b) => delete (b.callback.auth as Partial<typeof b.callback.auth>).oauthRequest,
			'callback.auth.oauthRequest',
		],
		[
			'clientId empty',
			(b) => (b.callback.auth.oauthRequest.clientId = ''),
			'callback.auth.oauthRequest.clientId',
		],
		[
			'clientSecret missing',
			(b) => delete b.callback.auth.oauthRequest.clientSecret,
			'callback.auth.oauthRequest.clientSecret',
		],
		[
			'grantType password',
			(b) => (b.callback.auth.oauthRequest.grantType = 'password'),
			'callback.auth.oauthRequest.grantType',
		],
		['subscription missing', (b) => delete (b as Partial<typeof b>).subscription, 'subscription'],
		['subscription.listing empty', (b) => (b.subscription.listing = []), 'subscription.listing'],
		[
			'subscription.listing a string',
			(b) => (b.subscription.listing = 'listing_sale'),
			'subscription.listing',
		],
		[
			'subscription.listing with a number',
			(b) => (b.subscription.listing = ['listing_sale', 2]),
			'subscription.listing[1]',
		],
	];

	it.each(cases)('refuses %s with 400 naming the field', async (_name, mutate, path) => {
		const body = validSubscription() as Parameters<Mutation>[0];
		mutate(body);
		const result = await subscribe(sandbox, token, body);
		expect(result.status).toBe(400);
		expect(result.body.error).toBe('validation_failed');
		expect(result.body.details).toEqual(
			expect.arrayContaining([{ path, message: expect.stringContaining(path) }]),
		);
		expect(sandbox.state().subscriptions).toHaveLength(0);
	});

	it('needs a valid Bearer token', async () => {
		const result = await subscribe(sandbox, 'nope');
		expect(result.status).toBe(401);
		expect(result.body.error).toBe('invalid_token');
	});

	it('stays PENDING until activated; listings become eligible only after activation', async () => {
		const created = await subscribe(sandbox, token);
		const before = await createListing(sandbox, token);
		expect(before.body.eligibleForNotifications).toBe(false);

		const activated = sandbox.activateSubscription(created.body.id as string);
		expect(activated).toMatchObject({
			id: created.body.id,
			status: 'ACTIVE',
			activatedAt: expect.any(String),
		});
		const after = await createListing(sandbox, token);
		expect(after.body.eligibleForNotifications).toBe(true);

		const listings = sandbox.state().listings;
		expect(listings.map((l) => [l.id, l.eligibleForNotifications])).toEqual([
			[before.body.id, false],
			[after.body.id, true],
		]);
	});

	it('does not count an active subscription of another app, or of another kind, for eligibility', async () => {
		const otherKind = validSubscription();
		(otherKind.subscription as { listing: string[] }).listing = ['inventory_status'];
		sandbox.activateSubscription((await subscribe(sandbox, token, otherKind)).body.id as string);
		expect((await createListing(sandbox, token)).body.eligibleForNotifications).toBe(false);

		sandbox.registerApp({ consumerKey: 'k2', consumerSecret: 's2' });
		const other = await fetch(`${sandbox.url}${TOKEN_PATH}?grant_type=client_credentials`, {
			method: 'POST',
			headers: {
				Authorization: 'Basic ' + Buffer.from('k2:s2').toString('base64'),
				'Content-Type': 'application/json',
			},
			body: JSON.stringify({ username: 'seller@example.test', password: 'sandbox-password' }),
		});
		const otherToken = ((await other.json()) as { access_token: string }).access_token;
		sandbox.activateSubscription((await subscribe(sandbox, otherToken)).body.id as string);
		expect((await createListing(sandbox, token)).body.eligibleForNotifications).toBe(false);
		expect((await createListing(sandbox, otherToken)).body.eligibleForNotifications).toBe(true);
	});

	it('activates over the admin HTTP API, and answers 404 for an unknown subscription', async () => {
		const created = await subscribe(sandbox, token);
		const response = await fetch(
			`${sandbox.url}/__sandbox/subscriptions/${created.body.id as string}/activate`,
			{ method: 'POST' },
		);
		expect(response.status).toBe(200);
		expect(((await response.json()) as { status: string }).status).toBe('ACTIVE');
		const unknown = await fetch(`${sandbox.url}/__sandbox/subscriptions/sub_nope/activate`, {
			method: 'POST',
		});
		expect(unknown.status).toBe(404);
		expect(((await unknown.json()) as { error: string }).error).toBe('unknown_subscription');
		expect(() => sandbox.activateSubscription('sub_nope')).toThrow(/No subscription/);
	});
});
