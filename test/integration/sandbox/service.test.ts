/** The sandbox's default answers: the real service's shapes (sandbox/answers.ts), over loopback. */
import { SANDBOX_DEFAULTS, SandboxAdminClient, startSandbox } from '../../../sandbox/index';
import type { Sandbox } from '../../../sandbox/index';
import {
	basic,
	createListing,
	DEMO_BASIC,
	getToken,
	LISTINGS_PATH,
	post,
	requestToken,
	validListing,
	WEBHOOKS_PATH,
} from '../../../support/sandboxRequests';

const REFRESH_PATH = '/sellers/oauth/refresh_accesstoken';

function refresh(
	sandbox: Sandbox,
	refreshToken: string,
	options: { authorization?: string; grantType?: string } = {},
) {
	const form = new URLSearchParams({
		grant_type: options.grantType ?? 'refresh_token',
		refresh_token: refreshToken,
	});
	return post(`${sandbox.url}${REFRESH_PATH}`, {
		headers: {
			Authorization: options.authorization ?? DEMO_BASIC,
			'Content-Type': 'application/x-www-form-urlencoded',
		},
		body: form.toString(),
	});
}

/** A listing whose seated products are unique to it, so the service's seat check lets it through. */
function uniqueListing(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	const listing = validListing(overrides);
	const id = String(listing.externalListingId);
	return {
		...listing,
		products: [
			{ externalId: `${id}-1`, row: id, seat: '1', productType: 'TICKET', ga: false },
			{ externalId: `${id}-2`, row: id, seat: '2', productType: 'TICKET', ga: false },
		],
		...overrides,
	};
}

describe('sandbox answers like the service (default)', () => {
	let sandbox: Sandbox;
	let clock: number;

	beforeEach(async () => {
		clock = Date.parse('2026-03-01T00:00:00Z');
		sandbox = await startSandbox({
			now: () => clock,
			apps: [{ consumerKey: 'other-key', consumerSecret: 'other-secret' }],
		});
	});
	afterEach(() => sandbox.stop());

	describe('token URL (Apigee OAuthV2)', () => {
		it('answers a token with a refresh token, expires_in as text and token_type BearerToken', async () => {
			const answer = await requestToken(sandbox);
			expect(answer.status).toBe(200);
			expect(answer.body).toMatchObject({
				access_token: expect.any(String),
				refresh_token: expect.any(String),
				token_type: 'BearerToken',
				expires_in: '15552000',
			});
			expect(answer.body.refresh_token).not.toBe(answer.body.access_token);
		});

		it('answers invalid_client "ClientId is Invalid" 401 for a wrong consumer key or secret', async () => {
			for (const authorization of [
				basic('nope', SANDBOX_DEFAULTS.consumerSecret),
				basic(SANDBOX_DEFAULTS.consumerKey, 'wrong-secret'),
			]) {
				const answer = await requestToken(sandbox, { authorization });
				expect(answer.status).toBe(401);
				expect(answer.body).toEqual({ ErrorCode: 'invalid_client', Error: 'ClientId is Invalid' });
				expect(answer.headers.get('www-authenticate')).toBeNull();
			}
		});

		it('answers invalid_request 400 without the consumer key', async () => {
			const answer = await requestToken(sandbox, { authorization: null });
			expect(answer.status).toBe(400);
			expect(answer.body).toEqual({
				ErrorCode: 'invalid_request',
				Error: 'The request is missing a required parameter : client_id',
			});
		});

		it('answers invalid_request without grant_type and unsupported_grant_type for another one', async () => {
			const missing = await requestToken(sandbox, { query: '' });
			expect(missing.status).toBe(400);
			expect(missing.body).toEqual({
				ErrorCode: 'invalid_request',
				Error: 'Required param : grant_type',
			});
			const other = await requestToken(sandbox, { query: '?grant_type=password' });
			expect(other.status).toBe(400);
			expect(other.body).toEqual({
				ErrorCode: 'unsupported_grant_type',
				Error: 'Unsupported grant type : password',
			});
		});

		it('answers invalid_request naming the missing parameter of the body', async () => {
			const answer = await requestToken(sandbox, { body: { username: 'seller@example.test' } });
			expect(answer.status).toBe(400);
			expect(answer.body).toEqual({
				ErrorCode: 'invalid_request',
				Error: 'Required param : password',
			});
		});

		it('answers the same invalid_grant 401 for a wrong and for a developer-portal login', async () => {
			for (const body of [
				{ username: SANDBOX_DEFAULTS.marketplaceAccount.email, password: 'wrong' },
				{ ...SANDBOX_DEFAULTS.developerAccount, username: SANDBOX_DEFAULTS.developerAccount.email },
			]) {
				const answer = await requestToken(sandbox, { body });
				expect(answer.status).toBe(401);
				expect(answer.body).toEqual({
					ErrorCode: 'invalid_grant',
					Error: 'Invalid username or password',
				});
			}
		});
	});

	describe('refresh endpoint', () => {
		it('issues a new access token and refresh token; the old refresh token is spent', async () => {
			const first = await requestToken(sandbox);
			const renewed = await refresh(sandbox, first.body.refresh_token as string);
			expect(renewed.status).toBe(200);
			expect(renewed.body).toMatchObject({
				access_token: expect.any(String),
				refresh_token: expect.any(String),
				token_type: 'BearerToken',
				expires_in: '15552000',
			});
			expect(renewed.body.access_token).not.toBe(first.body.access_token);
			expect(renewed.body.refresh_token).not.toBe(first.body.refresh_token);
			const created = await createListing(
				sandbox,
				renewed.body.access_token as string,
				uniqueListing(),
			);
			expect(created.status).toBe(200);

			const again = await refresh(sandbox, first.body.refresh_token as string);
			expect(again.status).toBe(400);
			expect(again.body).toEqual({ ErrorCode: 'invalid_grant', Error: 'Invalid Refresh Token' });
			expect(sandbox.state().requests.map((r) => [r.path, r.endpoint, r.status])).toEqual([
				['/sellers/oauth/accesstoken', 'token', 200],
				[REFRESH_PATH, 'token', 200],
				[LISTINGS_PATH, 'listings', 200],
				[REFRESH_PATH, 'token', 400],
			]);
		});

		it('renews an expired access token; refuses an unknown, expired, revoked or other app refresh token', async () => {
			const first = await requestToken(sandbox);
			sandbox.expireTokens();
			const expired = await createListing(sandbox, first.body.access_token as string);
			expect(expired.status).toBe(401);
			const renewed = await refresh(sandbox, first.body.refresh_token as string);
			expect(renewed.status).toBe(200);

			expect((await refresh(sandbox, 'not-a-refresh-token')).body).toEqual({
				ErrorCode: 'invalid_grant',
				Error: 'Invalid Refresh Token',
			});
			const otherApp = await refresh(sandbox, renewed.body.refresh_token as string, {
				authorization: basic('other-key', 'other-secret'),
			});
			expect(otherApp.status).toBe(400);

			const admin = new SandboxAdminClient(sandbox.url);
			await admin.expireTokens({ all: true, refreshTokens: true });
			const lapsed = await refresh(sandbox, renewed.body.refresh_token as string);
			expect(lapsed.status).toBe(400);
			expect(lapsed.body).toEqual({ ErrorCode: 'invalid_grant', Error: 'Refresh Token expired' });

			const third = await requestToken(sandbox);
			sandbox.revokeTokens();
			expect((await refresh(sandbox, third.body.refresh_token as string)).status).toBe(400);
		});

		it('checks the consumer key and the grant type like the token URL', async () => {
			const first = await requestToken(sandbox);
			const token = first.body.refresh_token as string;
			const wrongApp = await refresh(sandbox, token, { authorization: basic('x', 'y') });
			expect(wrongApp.status).toBe(401);
			expect(wrongApp.body).toEqual({ ErrorCode: 'invalid_client', Error: 'ClientId is Invalid' });
			const wrongGrant = await refresh(sandbox, token, { grantType: 'client_credentials' });
			expect(wrongGrant.body).toEqual({
				ErrorCode: 'unsupported_grant_type',
				Error: 'Unsupported grant type : client_credentials',
			});
			const noToken = await post(`${sandbox.url}${REFRESH_PATH}`, {
				headers: {
					Authorization: DEMO_BASIC,
					'Content-Type': 'application/x-www-form-urlencoded',
				},
				body: 'grant_type=refresh_token',
			});
			expect(noToken.status).toBe(400);
			expect(noToken.body).toEqual({
				ErrorCode: 'invalid_request',
				Error: 'Required param : refresh_token',
			});
			// The refresh token was not spent by the refused calls.
			expect((await refresh(sandbox, token)).status).toBe(200);
		});
	});

	describe('gateway faults on a Bearer problem', () => {
		it('answers access_token_expired for an expired token and invalid_access_token otherwise', async () => {
			const token = await getToken(sandbox);
			const missing = await post(`${sandbox.url}${LISTINGS_PATH}`, {
				headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify(uniqueListing()),
			});
			const invalid = {
				fault: {
					faultstring: 'Invalid Access Token',
					detail: { errorcode: 'keymanagement.service.invalid_access_token' },
				},
			};
			expect(missing.status).toBe(401);
			expect(missing.body).toEqual(invalid);
			const unknown = await createListing(sandbox, 'not-a-token', uniqueListing());
			expect([unknown.status, unknown.body]).toEqual([401, invalid]);

			clock += 15_552_000 * 1000;
			const expired = await createListing(sandbox, token, uniqueListing());
			expect(expired.status).toBe(401);
			expect(expired.body).toEqual({
				fault: {
					faultstring: 'Access Token expired',
					detail: { errorcode: 'keymanagement.service.access_token_expired' },
				},
			});
			expect(sandbox.state().listings).toHaveLength(0);
		});

		it('answers 403 no apiproduct match for an app without the API product, and only where asked', async () => {
			const token = await getToken(sandbox);
			sandbox.configureAnswers({ withoutApiProduct: 'listings' });
			const refused = await createListing(sandbox, token, uniqueListing());
			expect(refused.status).toBe(403);
			expect(refused.body).toEqual({
				fault: {
					faultstring: 'Invalid API call as no apiproduct match found',
					detail: {
						errorcode: 'keymanagement.service.InvalidAPICallAsNoApiProductMatchFound',
					},
				},
			});
			expect(sandbox.state().listings).toHaveLength(0);
			// The token URL needs no product; the webhooks product is still there.
			expect((await requestToken(sandbox)).status).toBe(200);
			const webhook = await post(`${sandbox.url}${WEBHOOKS_PATH}`, {
				headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
				body: '{}',
			});
			expect(webhook.status).toBe(400);
			sandbox.reset();
			const again = await getToken(sandbox);
			expect((await createListing(sandbox, again, uniqueListing())).status).toBe(200);
		});
	});

	describe('listings (inventory.listings errors)', () => {
		let token: string;
		beforeEach(async () => {
			token = await getToken(sandbox);
		});

		it('answers a created listing 200 with its id and status, ACTIVE or as configured', async () => {
			const created = await createListing(sandbox, token, uniqueListing());
			expect(created.status).toBe(200);
			expect(created.body).toEqual({ id: expect.stringMatching(/^lst_/), status: 'ACTIVE' });
			for (const listingStatus of ['INCOMPLETE', 'PENDING_LOCK', 'PENDING_PDF_REVIEW'] as const) {
				sandbox.configureAnswers({ listingStatus });
				const answer = await createListing(sandbox, token, uniqueListing());
				expect(answer.body).toEqual({ id: expect.any(String), status: listingStatus });
			}
			expect(sandbox.state().listings.map((listing) => listing.status)).toEqual([
				'ACTIVE',
				'INCOMPLETE',
				'PENDING_LOCK',
				'PENDING_PDF_REVIEW',
			]);
		});

		it('answers a bad listing 400 with an inventory.listings code and a description', async () => {
			const answer = await createListing(sandbox, token, uniqueListing({ eventId: 'x' }));
			expect(answer.status).toBe(400);
			expect(answer.body).toEqual({
				code: 'inventory.listings.invalidEvent',
				description: expect.stringContaining('eventId'),
			});
			const price = await createListing(
				sandbox,
				token,
				uniqueListing({ pricePerProduct: { amount: 0, currency: 'EUR' } }),
			);
			expect(price.body).toMatchObject({ code: 'inventory.listings.invalidPricePerProduct' });
			expect(sandbox.state().listings).toHaveLength(0);
		});

		it('answers invalidEvent "Event is not active" for an event not on sale', async () => {
			sandbox.configureAnswers({ inactiveEventIds: [777] });
			const answer = await createListing(sandbox, token, uniqueListing({ eventId: 777 }));
			expect(answer.status).toBe(400);
			expect(answer.body).toEqual({
				code: 'inventory.listings.invalidEvent',
				description: 'Event is not active',
			});
			expect(sandbox.state().listings).toHaveLength(0);
		});

		it('answers a duplicate External Listing ID 400 naming the ID, never 409', async () => {
			const listing = uniqueListing();
			expect((await createListing(sandbox, token, listing)).status).toBe(200);
			const again = await createListing(sandbox, token, {
				...listing,
				products: [{ externalId: 'x', row: 'Z', seat: '9', productType: 'TICKET', ga: false }],
			});
			expect(again.status).toBe(400);
			expect(again.body).toEqual({
				code: 'inventory.listings.duplicateExternalListingId',
				description: `A listing with External Listing ID ${String(listing.externalListingId)} already exists`,
			});
			expect(sandbox.state().listings).toHaveLength(1);
		});

		it('answers a seat already listed for the event duplicateSectionRowSeat; another event or GA is fine', async () => {
			const first = uniqueListing();
			expect((await createListing(sandbox, token, first)).status).toBe(200);
			const sameSeat = await createListing(sandbox, token, {
				...uniqueListing(),
				products: [(first.products as unknown[])[1]],
			});
			expect(sameSeat.status).toBe(400);
			expect(sameSeat.body).toEqual({
				code: 'inventory.listings.duplicateSectionRowSeat',
				description: 'Row/Seat combination already exists',
			});
			const otherEvent = await createListing(sandbox, token, {
				...uniqueListing({ eventId: 5151 }),
				products: first.products,
			});
			expect(otherEvent.status).toBe(200);
			const ga = { externalId: 'ga', productType: 'TICKET', ga: true };
			expect(
				(await createListing(sandbox, token, { ...uniqueListing(), products: [ga] })).status,
			).toBe(200);
			expect(
				(await createListing(sandbox, token, { ...uniqueListing(), products: [ga] })).status,
			).toBe(200);
		});

		it('lets a seat be listed again once the seat check is off, until reset turns it back on', async () => {
			const first = uniqueListing();
			expect((await createListing(sandbox, token, first)).status).toBe(200);
			const sameSeats = () => ({ ...uniqueListing(), products: first.products });
			expect(
				await new SandboxAdminClient(sandbox.url).configureAnswers({ seatCheck: false }),
			).toMatchObject({ shapes: 'service', seatCheck: false });
			const again = await createListing(sandbox, token, sameSeats());
			expect([again.status, again.body.status]).toEqual([200, 'ACTIVE']);
			expect(sandbox.state().listings).toHaveLength(2);

			sandbox.reset();
			expect(sandbox.state().answers.seatCheck).toBe(true);
			const fresh = await getToken(sandbox);
			expect((await createListing(sandbox, fresh, first)).status).toBe(200);
			const refused = await createListing(sandbox, fresh, sameSeats());
			expect([refused.status, refused.body.code]).toEqual([
				400,
				'inventory.listings.duplicateSectionRowSeat',
			]);
		});

		it('refuses a seat check setting that is not true or false', async () => {
			expect(() => sandbox.configureAnswers({ seatCheck: 'off' as unknown as boolean })).toThrow(
				'seatCheck must be true or false',
			);
			expect(sandbox.state().answers.seatCheck).toBe(true);
		});

		it('answers other refusals in the same shape', async () => {
			const answer = await createListing(sandbox, token, uniqueListing(), { Accept: 'text/html' });
			expect(answer.status).toBe(406);
			expect(answer.body).toEqual({
				code: 'inventory.listings.notAcceptable',
				description: expect.stringContaining('Accept'),
			});
		});

		it('answers the systemError fault 500, with the listing created or not as the rule or the seed says', async () => {
			sandbox.addFault({ endpoint: 'listings', kind: 'systemError', created: true });
			const kept = await createListing(sandbox, token, uniqueListing());
			expect(kept.status).toBe(500);
			expect(kept.body).toEqual({
				code: 'inventory.listings.systemError',
				description: 'System error',
			});
			expect(sandbox.state().listings).toHaveLength(1);
			sandbox.clearFaults();
			sandbox.addFault({ endpoint: 'listings', kind: 'systemError', created: false });
			const lost = await createListing(sandbox, token, uniqueListing());
			expect([lost.status, lost.body.code]).toEqual([500, 'inventory.listings.systemError']);
			expect(sandbox.state().listings).toHaveLength(1);

			// Drawn from the seeded generator: the same seed gives the same listings, and both outcomes occur.
			const outcomes = async (seed: number) => {
				sandbox.reset();
				sandbox.reseedFaults(seed);
				sandbox.addFault({ endpoint: 'listings', kind: 'systemError' });
				const fresh = await getToken(sandbox);
				for (let i = 0; i < 12; i++) await createListing(sandbox, fresh, uniqueListing());
				return sandbox.state().listings.length;
			};
			const first = await outcomes(3);
			expect(first).toBeGreaterThan(0);
			expect(first).toBeLessThan(12);
			expect(await outcomes(3)).toBe(first);
		});
	});

	it('switches to the older shapes at run time and back on reset', async () => {
		const admin = new SandboxAdminClient(sandbox.url);
		expect(await admin.configureAnswers({ shapes: 'spec' })).toMatchObject({ shapes: 'spec' });
		const old = await requestToken(sandbox);
		expect(old.body).toEqual({
			access_token: expect.any(String),
			token_type: 'Bearer',
			expires_in: 15552000,
		});
		expect(sandbox.state().answers.shapes).toBe('spec');
		await admin.reset();
		expect((await requestToken(sandbox)).body.token_type).toBe('BearerToken');
		await expect(admin.configureAnswers({ shapes: 'other' as 'spec' })).rejects.toThrow(
			/shapes must be one of service, spec/,
		);
		await expect(admin.configureAnswers({ listingStatus: 'SOLD' as 'ACTIVE' })).rejects.toThrow(
			/listingStatus/,
		);
	});
});
