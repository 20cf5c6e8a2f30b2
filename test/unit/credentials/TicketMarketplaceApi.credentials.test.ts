import nock from 'nock';
import type {
	ICredentialDataDecryptedObject,
	IHttpRequestHelper,
	IHttpRequestOptions,
} from 'n8n-workflow';
import { httpRequest } from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';

import { TicketMarketplaceApi } from '../../../credentials/TicketMarketplaceApi.credentials';
import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';
import { withTokenIssued } from '../../../support/fakeN8n/issuedToken';

const BASE = 'https://partner.api.test';
const credentials: ICredentialDataDecryptedObject = {
	baseUrl: `${BASE}/`,
	consumerKey: 'ck_live_5f2a9',
	consumerSecret: 'cs_live_9b7e1-secret',
	email: 'seller@example.test',
	password: 'p@ss:word with spaces',
	accessToken: '',
};
const SECRETS = [
	credentials.consumerKey,
	credentials.consumerSecret,
	credentials.password,
	Buffer.from(`${credentials.consumerKey}:${credentials.consumerSecret}`).toString('base64'),
] as string[];
// Computed by hand, not by the code under test: base64("ck_live_5f2a9:cs_live_9b7e1-secret").
const EXPECTED_BASIC = 'Basic Y2tfbGl2ZV81ZjJhOTpjc19saXZlXzliN2UxLXNlY3JldA==';

const credentialType = new TicketMarketplaceApi();
const helper: IHttpRequestHelper = { helpers: { httpRequest } } as unknown as IHttpRequestHelper;

// n8n hands preAuthentication a freshly decrypted copy of the credential each time.
async function preAuthenticate(creds: ICredentialDataDecryptedObject = { ...credentials }) {
	return await credentialType.preAuthentication.call(helper, creds);
}

async function preAuthenticationError(): Promise<string> {
	try {
		await preAuthenticate();
	} catch (error) {
		const message = (error as Error).message;
		for (const secret of SECRETS) expect(message).not.toContain(secret);
		expect(JSON.stringify(error)).not.toContain(credentials.password as string);
		return message;
	}
	throw new Error('preAuthentication was expected to fail');
}

function tokenEndpoint() {
	return nock(BASE).post(PARTNER_API_PATHS.grant).query({ grant_type: 'client_credentials' });
}

afterEach(() => {
	nock.cleanAll();
});

describe('Ticket Marketplace API credential: token exchange (spec 4.1)', () => {
	it('sends exactly the documented token request and returns the access token', async () => {
		let seen: { headers: Record<string, unknown>; body: unknown } | undefined;
		const scope = nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(
				(query) => JSON.stringify(query) === JSON.stringify({ grant_type: 'client_credentials' }),
			)
			.reply(function (_uri, body) {
				seen = { headers: this.req.headers, body };
				return [200, { access_token: 'tok-1', expires_in: 15552000 }];
			});

		await expect(preAuthenticate()).resolves.toMatchObject({ accessToken: 'tok-1' });

		expect(scope.isDone()).toBe(true);
		expect(seen?.headers.authorization).toBe(EXPECTED_BASIC);
		expect(seen?.headers['content-type']).toMatch(/^application\/json/);
		expect(seen?.body).toEqual({
			username: 'seller@example.test',
			password: 'p@ss:word with spaces',
		});
	});

	it('tolerates a base URL with or without a trailing slash', async () => {
		tokenEndpoint().reply(200, { access_token: 'tok-2' });
		await expect(preAuthenticate({ ...credentials, baseUrl: BASE })).resolves.toMatchObject({
			accessToken: 'tok-2',
		});
	});

	it('reads the token from a response that has other fields too', async () => {
		tokenEndpoint().reply(200, { token_type: 'Bearer', access_token: 'tok-3', scope: 'x' });
		await expect(preAuthenticate()).resolves.toMatchObject({ accessToken: 'tok-3' });
	});

	it('refuses a success response without access_token instead of storing an empty token', async () => {
		tokenEndpoint().reply(200, { token_type: 'Bearer' });
		expect(await preAuthenticationError()).toMatch(/answered without an access token/);
	});

	it('refuses an empty access_token', async () => {
		tokenEndpoint().reply(200, { access_token: '' });
		expect(await preAuthenticationError()).toMatch(/answered without an access token/);
	});
});

describe('Ticket Marketplace API credential: diagnosis of a refused exchange', () => {
	it('names the consumer key/secret when the app is refused', async () => {
		tokenEndpoint().reply(
			401,
			{ error: 'invalid_client', error_description: 'Unknown consumer key' },
			{ 'WWW-Authenticate': 'Basic realm="partner-api"' },
		);
		const message = await preAuthenticationError();
		expect(message).toMatch(
			/^Login refused: the token endpoint refused the consumer key and secret \(HTTP 401\)/,
		);
		expect(message).toMatch(/Unknown consumer key/);
	});

	it('names the consumer key/secret on a bare 401 that asks for Basic auth', async () => {
		tokenEndpoint().reply(401, {}, { 'WWW-Authenticate': 'Basic realm="x"' });
		expect(await preAuthenticationError()).toMatch(/refused the consumer key and secret/);
	});

	it('names the marketplace login, with the developer-portal hint, when the login is refused', async () => {
		tokenEndpoint().reply(401, {
			error: 'invalid_grant',
			error_description: 'The marketplace account e-mail or password is not recognised',
		});
		const message = await preAuthenticationError();
		expect(message).toMatch(
			/^Login refused: the token endpoint refused the marketplace e-mail and password/,
		);
		expect(message).toMatch(/not your developer-portal login/);
	});

	it('recognises a developer-portal account refusal from the API message', async () => {
		tokenEndpoint().reply(403, { message: 'This is a developer-portal account.' });
		expect(await preAuthenticationError()).toMatch(
			/refused the marketplace e-mail and password \(HTTP 403\)/,
		);
	});

	it('names both parts when a refusal says nothing more', async () => {
		tokenEndpoint().reply(401, { status: 401 });
		const message = await preAuthenticationError();
		expect(message).toMatch(/^Login refused by the token endpoint \(HTTP 401\)/);
		expect(message).toMatch(/Consumer Key and Consumer Secret/);
		expect(message).toMatch(/developer-portal/);
	});

	it('says the base URL is wrong when it answers with an HTML page', async () => {
		tokenEndpoint().reply(200, '<!doctype html><html><body>Welcome</body></html>', {
			'Content-Type': 'text/html',
		});
		expect(await preAuthenticationError()).toMatch(
			/does not answer like the Partner API \(HTTP 200, an HTML page\).*Set the credential's Base URL/,
		);
	});

	it('says the base URL is wrong when the path does not exist', async () => {
		tokenEndpoint().reply(404, { message: 'Not Found' });
		expect(await preAuthenticationError()).toMatch(
			/does not answer like the Partner API \(HTTP 404\)/,
		);
	});

	it('says the API is unreachable when the connection fails', async () => {
		tokenEndpoint().replyWithError(
			Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
		);
		const message = await preAuthenticationError();
		expect(message).toBe(
			'The Base URL could not be reached (connection refused). This n8n could not reach https://partner.api.test. Check the Base URL of the Ticket Marketplace API credential, and that this n8n can reach it (network, firewall, proxy).',
		);
	});

	it('names an unknown host in words, never as a raw code that n8n would replace with its own text', async () => {
		tokenEndpoint().replyWithError(
			Object.assign(new Error('getaddrinfo ENOTFOUND partner.api.test'), { code: 'ENOTFOUND' }),
		);
		const message = await preAuthenticationError();
		expect(message).toContain('could not be reached (host name not found)');
		expect(message).not.toMatch(/ENOTFOUND|ECONNREFUSED|GETADDRINFO/i);
	});

	it('reports a server error with its status', async () => {
		tokenEndpoint().reply(503, { message: 'maintenance' });
		expect(await preAuthenticationError()).toMatch(
			/^The token endpoint failed \(HTTP 503\)\. The API said: "maintenance"\. .*Run the workflow again/,
		);
	});
});

describe('Ticket Marketplace API credential: authenticate', () => {
	it('sends the stored token as a Bearer token', async () => {
		const options: IHttpRequestOptions = {
			url: `${BASE}${PARTNER_API_PATHS.webhooks}`,
			headers: { Accept: 'application/json' },
		};
		const authenticated = await credentialType.authenticate(
			withTokenIssued(credentials, 'tok-9'),
			options,
		);
		expect(authenticated.headers).toEqual({
			Accept: 'application/json',
			Authorization: 'Bearer tok-9',
		});
		expect(options.headers).toEqual({ Accept: 'application/json' });
	});

	it('leaves the Basic-authenticated token exchange alone', async () => {
		const options: IHttpRequestOptions = {
			url: `${BASE}${PARTNER_API_PATHS.grant}`,
			headers: { Authorization: EXPECTED_BASIC },
		};
		const authenticated = await credentialType.authenticate(
			{ ...credentials, accessToken: 'tok-9' },
			options,
		);
		expect(authenticated.headers?.Authorization).toBe(EXPECTED_BASIC);
	});

	it('declares a credential test that repeats the exchange against the base URL', () => {
		expect(credentialType.test.request).toMatchObject({
			baseURL: '={{ $credentials.baseUrl }}',
			url: PARTNER_API_PATHS.grant,
			method: 'POST',
			qs: { grant_type: 'client_credentials' },
		});
	});
});

describe('Ticket Marketplace API credential as n8n describes it to the editor', () => {
	it('keeps authenticate in the copy n8n sends to the editor, so the HTTP Request node offers it as a predefined type', () => {
		// n8n-core's loader gives the instance a toJSON that turns a function authenticate into {}; n8n then spreads
		// the instance ({ ...credential }) before serving /types/credentials.json, which keeps own properties only.
		const credential = new TicketMarketplaceApi();
		function toJSON(this: Record<string, unknown>) {
			return {
				...this,
				authenticate: typeof this.authenticate === 'function' ? {} : this.authenticate,
			};
		}
		Object.assign(credential, { toJSON });
		const served = JSON.parse(JSON.stringify({ ...credential })) as Record<string, unknown>;
		expect(served).toHaveProperty('authenticate', {});
		expect(served).toHaveProperty('name', 'ticketMarketplaceApi');
	});
});
