/**
 * Listing → Create when the access token runs out mid-run, through the real execute() and n8n-core's real request
 * helper (which calls the credential's preAuthentication whenever the token field is empty): one login per expiry
 * for the whole run, whatever number of listings are in flight, and a Stop during the login leaves nothing buried.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute } from '../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { REQUEST_TIMEOUTS } from '../../../../../nodes/shared/partnerApi/partnerApi';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';
import { MAX_RENEWALS_PER_RUN } from '../../../../../nodes/TicketMarketplace/transport/tokenRenewal';
import {
	BASE,
	fakeRun,
	idsUpTo,
	oneSeatListings,
} from '../../../../../support/fakeN8n/actionContext';

const listings = (count: number, options: IDataObject = {}) =>
	oneSeatListings(idsUpTo(count), { concurrency: 48, skipAlreadySent: false, ...options });

/**
 * The Partner API as a model: tokens it has issued, which of them it accepts, and the listings it holds. The stored
 * token stops being accepted after `expireAfter` listings; with `revokes`, every new token revokes all older ones.
 */
function partnerApi({
	expireAfter = 1,
	revokes = false,
	tokenAnswers = [] as Array<[number, IDataObject, Record<string, string>?]>,
	tokenDelayMs = 0,
} = {}) {
	const valid = new Set(['stored-token']);
	const created = new Map<number, number>();
	const tokenRequests: string[] = [];
	const authorizations: string[] = [];
	let issued = 0;
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.delay(tokenDelayMs)
		.reply(() => {
			const scripted = tokenAnswers[tokenRequests.length];
			tokenRequests.push('login');
			if (scripted) return scripted;
			const token = `tok-${++issued}`;
			if (revokes) valid.clear();
			valid.add(token);
			return [200, { access_token: token }];
		});
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.listings)
		.reply(function (_uri, body) {
			const authorization = String(this.req.headers.authorization).replace(/^Bearer /, '');
			authorizations.push(authorization);
			if (!valid.has(authorization)) return [401, { message: 'invalid token' }];
			const id = Number((body as IDataObject).externalListingId);
			created.set(id, (created.get(id) ?? 0) + 1);
			if ([...created.values()].reduce((a, b) => a + b, 0) >= expireAfter)
				valid.delete('stored-token');
			return [201, { id }];
		});
	return { created, tokenRequests, authorizations };
}

afterEach(() => nock.cleanAll());

describe('Listing → Create: the token expires with 48 listings in flight', () => {
	it('logs in once and creates every listing once', async () => {
		const api = partnerApi({ tokenDelayMs: 20 });
		const { items, parameters } = listings(48);
		const fake = fakeRun({ items, parameters, accessToken: 'stored-token' });

		const output = await execute.call(fake.context, items);

		expect(api.tokenRequests).toHaveLength(1);
		expect(output.map((item) => item.json.id)).toEqual(items.map((item) => item.json.id));
		expect([...api.created.values()].every((count) => count === 1)).toBe(true);
		expect(api.created.size).toBe(48);
		expect(fake.stored.accessToken).toBe('tok-1');
	}, 30_000);

	it('does the same against an API whose new token revokes the old one', async () => {
		const api = partnerApi({ revokes: true, tokenDelayMs: 20 });
		const { items, parameters } = listings(48);
		const fake = fakeRun({ items, parameters, accessToken: 'stored-token' });

		const output = await execute.call(fake.context, items);

		expect(api.tokenRequests).toHaveLength(1);
		expect(output.map((item) => item.json.id)).toEqual(items.map((item) => item.json.id));
		expect(api.created.size).toBe(48);
		expect([...api.created.values()].every((count) => count === 1)).toBe(true);
	}, 30_000);

	it('starts with no stored token: one login before any listing goes', async () => {
		const api = partnerApi({ tokenDelayMs: 20 });
		const { items, parameters } = listings(48);
		const fake = fakeRun({ items, parameters, accessToken: '' });

		await execute.call(fake.context, items);

		expect(api.tokenRequests).toHaveLength(1);
		expect(api.created.size).toBe(48);
		expect(api.authorizations.every((token) => token === 'tok-1')).toBe(true);
	}, 30_000);
});

describe('Listing → Create: a fresh token the API refuses', () => {
	it('stops after one login, and names the app’s API products, not the password', async () => {
		const tokens = nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(200, { access_token: 'fresh-but-useless' });
		let listingRequests = 0;
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.listings)
			.reply(() => {
				listingRequests++;
				return [401, { message: 'Unauthorized' }];
			});
		let logins = 0;
		tokens.on('request', () => logins++);
		const { items, parameters } = listings(30, { concurrency: 10 });
		const fake = fakeRun({ items, parameters, accessToken: 'stored-token', continueOnFail: true });

		const output = await execute.call(fake.context, items);

		expect(logins).toBeLessThanOrEqual(1);
		expect(fake.tokenRequests()).toBe(1);
		// At most 11 with the old token (10 at once, or the first alone then 10); each re-sent once at most.
		expect(listingRequests).toBeLessThanOrEqual(2 * 11);
		const failed = output.filter((item) => typeof item.json.error === 'string');
		expect(failed).toHaveLength(30);
		const refused = output.find((item) => item.json.httpCode === '401');
		const words = `${String(refused?.json.error)} ${String(refused?.json.description)}`;
		expect(words).toMatch(/API product/);
		expect(words).not.toMatch(/Check the credential/);
	});
});

describe('Listing → Create: a token that keeps expiring', () => {
	it('stops at the renewals cap and says the token kept expiring, not that the app lacks a product', async () => {
		let issued = 0;
		let current = 'stored-token';
		let usesLeft = 1;
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(() => {
				current = `tok-${++issued}`;
				usesLeft = 1;
				return [200, { access_token: current }];
			});
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.listings)
			.reply(function (_uri, body) {
				const token = String(this.req.headers.authorization).replace(/^Bearer /, '');
				// Each token creates one listing, then the API expires it.
				if (token !== current || usesLeft === 0) return [401, { message: 'invalid token' }];
				usesLeft--;
				return [201, { id: Number((body as IDataObject).externalListingId) }];
			});
		const { items, parameters } = listings(8, { concurrency: 1 });
		const fake = fakeRun({ items, parameters, accessToken: 'stored-token', continueOnFail: true });

		const output = await execute.call(fake.context, items);

		// The stored token and 3 renewed ones created a listing each; the 4th expiry ends the sending.
		expect(issued).toBe(3);
		expect(output.filter((item) => typeof item.json.id === 'number')).toHaveLength(4);
		const refused = output.find((item) => item.json.httpCode === '401');
		expect(String(refused?.json.error)).toBe(
			'The access token kept expiring (renewed 3 times in this run)',
		);
		expect(`${String(refused?.json.error)} ${String(refused?.json.description)}`).not.toMatch(
			/API product|just issued/,
		);
		expect(refused?.json.mayHaveBeenCreated).toBe(false);
	});
});

describe('Listing → Create: the token endpoint is busy', () => {
	it('waits out a 429 from the token endpoint and logs in again, once', async () => {
		const api = partnerApi({
			tokenAnswers: [[429, { message: 'slow down' }, { 'Retry-After': '2' }]],
		});
		const { items, parameters } = listings(12);
		const fake = fakeRun({ items, parameters, accessToken: 'stored-token' });

		const output = await execute.call(fake.context, items);

		expect(api.tokenRequests).toHaveLength(2);
		expect(api.created.size).toBe(12);
		expect(output.every((item) => typeof item.json.id === 'number')).toBe(true);
	});

	it('retries a 503 from the token endpoint a few times, never once per listing', async () => {
		const api = partnerApi({
			tokenAnswers: [
				[503, { message: 'down' }],
				[503, { message: 'down' }],
			],
		});
		const { items, parameters } = listings(12);
		const fake = fakeRun({ items, parameters, accessToken: 'stored-token' });

		await execute.call(fake.context, items);

		expect(api.tokenRequests).toHaveLength(3);
		expect(api.created.size).toBe(12);
	});

	it('gives up on a token endpoint that keeps answering 503, with few logins and a clear error', async () => {
		const api = partnerApi({
			tokenAnswers: Array.from(
				{ length: 50 },
				() => [503, { message: 'down' }] as [number, IDataObject],
			),
		});
		const { items, parameters } = listings(12);
		const fake = fakeRun({ items, parameters, accessToken: 'stored-token', continueOnFail: true });

		const output = await execute.call(fake.context, items);

		expect(api.tokenRequests.length).toBeLessThanOrEqual(4);
		expect(api.created.size).toBe(1);
		const failed = output.find((item) => typeof item.json.error === 'string');
		expect(String(failed?.json.error)).toBe('The token endpoint failed (HTTP 503)');
		expect(String(failed?.json.description)).toContain('Run the workflow again in a few minutes.');
	});
});

describe('Listing → Create: Stop during the token fetch', () => {
	it('reports the listing not sent and does not leave it remembered', async () => {
		const stop = new AbortController();
		const tokens = nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.delay(300)
			.reply(200, { access_token: 'late-token' });
		tokens.on('request', () => stop.abort());
		const listing = nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, { id: 1 });
		const { items, parameters } = listings(1, { skipAlreadySent: true });
		const fake = fakeRun({ items, parameters, accessToken: '', cancelSignal: stop.signal });

		const output = await execute.call(fake.context, items).catch((error: Error) => error);

		expect(listing.isDone()).toBe(false);
		const text = JSON.stringify(output);
		expect(text).toMatch(/Not sent/);
		expect(text).not.toMatch(/may have been created|mayHaveBeenCreated":true/);
		const remembered = [...fake.deduplication.entries.values()].reduce(
			(sum, values) => sum + values.size,
			0,
		);
		expect(remembered).toBe(0);
	});
});

describe('Listing → Create: a listing answer that never comes', () => {
	const saved = { ...REQUEST_TIMEOUTS };
	afterEach(() => Object.assign(REQUEST_TIMEOUTS, saved));

	it('ends the request after the timeout, outcome unknown, not retried', async () => {
		REQUEST_TIMEOUTS.apiMs = 100;
		nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: 'tok' });
		let sent = 0;
		// Counted when the request arrives: the reply itself comes after the timeout, on a busy machine maybe never.
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.listings)
			.delay(1000)
			.reply(201, { id: 1 })
			.on('request', () => sent++);
		const { items, parameters } = listings(1);
		const fake = fakeRun({ items, parameters, accessToken: '', continueOnFail: true });

		const output = await execute.call(fake.context, items);

		expect(sent).toBe(1);
		expect(output[0].json.mayHaveBeenCreated).toBe(true);
	});
});

describe('Listing → Create: a stored token that is not this login’s', () => {
	it('logs in first and never sends a token saved before the credential was edited or tokens were tied', async () => {
		const api = partnerApi();
		const { items, parameters } = listings(4, { concurrency: 4 });
		// n8n keeps hidden fields on edit: the token is there, its field names another login (or none, if older).
		for (const refreshToken of ['', '{"for":"another-login","token":""}']) {
			api.tokenRequests.length = 0;
			api.authorizations.length = 0;
			const fake = fakeRun({
				items,
				parameters,
				accessToken: 'stored-token',
				apiCredentials: { refreshToken } as never,
			});

			await execute.call(fake.context, items);

			expect(api.tokenRequests).toHaveLength(1);
			expect(api.authorizations).not.toContain('stored-token');
			expect(api.authorizations).toHaveLength(4);
		}
	});
});

describe('Listing → Create: a token answer whose lifetime is always past', () => {
	afterEach(() => jest.restoreAllMocks());

	it('renews on expiry at most MAX_RENEWALS_PER_RUN times, not once per listing', async () => {
		let issued = 0;
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(() => [200, { access_token: `tok-${++issued}`, expires_in: '3600' }]);
		const sent: string[] = [];
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.listings)
			.reply(function (_uri, body) {
				sent.push(String(this.req.headers.authorization));
				return [201, { id: Number((body as IDataObject).externalListingId) }];
			});
		// Each reading of the clock is two hours later: every token is past its lifetime by its next use.
		const start = Date.now();
		let readings = 0;
		jest.spyOn(Date, 'now').mockImplementation(() => start + 2 * 3_600_000 * ++readings);
		const { items, parameters } = listings(10, { concurrency: 1 });
		const fake = fakeRun({ items, parameters, accessToken: '' });

		const output = await execute.call(fake.context, items);

		expect(issued).toBe(MAX_RENEWALS_PER_RUN);
		expect(sent).toHaveLength(10);
		expect(output.filter((item) => typeof item.json.id === 'number')).toHaveLength(10);
	});
});
