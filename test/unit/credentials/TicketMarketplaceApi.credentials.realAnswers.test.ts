/**
 * The credential against the answers the real service gives: Apigee's OAuth errors at the token URL, and renewal
 * with the refresh token the token answer carries (`POST /sellers/oauth/refresh_accesstoken`), the login as the
 * fallback. Each failed before its fix.
 */
import nock from 'nock';
import type {
	ICredentialDataDecryptedObject,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import {
	httpRequest,
	httpRequestWithAuthentication,
} from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';

import { TicketMarketplaceApi } from '../../../credentials/TicketMarketplaceApi.credentials';
import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';
import { failedTokenExchange } from '../../../nodes/shared/partnerApi/pastN8n';
import { meaningOfDiagnosis } from '../../../nodes/shared/partnerApi/tokenDiagnosis';
import { credentialSecrets } from '../../../nodes/TicketMarketplace/transport/tokenRenewal';
import { apiCredentialsHelper } from '../../../support/fakeN8n/apiCredentialsHelper';

const BASE = 'https://partner.api.test';
// Computed by hand: base64("ck_1:cs_secret_1").
const BASIC = 'Basic Y2tfMTpjc19zZWNyZXRfMQ==';

function stored(values: Partial<Record<string, string>> = {}): ICredentialDataDecryptedObject {
	return {
		baseUrl: BASE,
		consumerKey: 'ck_1',
		consumerSecret: 'cs_secret_1',
		email: 'seller@example.test',
		password: 'pw-secret-1',
		accessToken: '',
		refreshToken: '',
		...values,
	};
}

/** n8n-core's real httpRequestWithAuthentication with a credentials helper that saves as n8n's CLI does. */
function setUp(credential: ICredentialDataDecryptedObject) {
	const node = { name: 'Ticket Marketplace', type: 'x' } as INode;
	const { credentialsHelper } = apiCredentialsHelper(credential);
	const context = {
		helpers: { httpRequest },
		getNode: () => node,
		getCredentials: async () => credential,
	};
	return async (options: IHttpRequestOptions) =>
		await httpRequestWithAuthentication.call(
			context as never,
			'ticketMarketplaceApi',
			options,
			{} as Workflow,
			node,
			{ credentialsHelper } as unknown as IWorkflowExecuteAdditionalData,
		);
}

const listingCall: IHttpRequestOptions = {
	method: 'POST',
	url: `${BASE}${PARTNER_API_PATHS.listings}`,
	body: { eventId: 1 },
	json: true,
};

const login = () =>
	nock(BASE, { reqheaders: { authorization: BASIC } })
		.post(PARTNER_API_PATHS.grant, { username: 'seller@example.test', password: 'pw-secret-1' })
		.query({ grant_type: 'client_credentials' });

/** The refresh endpoint, for exactly the documented request: Basic key:secret, the form body. */
function refresh(token: string) {
	const scope = nock(BASE, {
		reqheaders: {
			authorization: BASIC,
			'content-type': (value: string) => value.startsWith('application/x-www-form-urlencoded'),
		},
	}).post(PARTNER_API_PATHS.refresh, `grant_type=refresh_token&refresh_token=${token}`);
	return { scope };
}

/** The first login of a credential, answered with a refresh token and a lifetime given as text. */
async function firstLogin(credential: ICredentialDataDecryptedObject) {
	const call = setUp(credential);
	login().reply(200, {
		access_token: 'at-1',
		refresh_token: 'rt-1',
		expires_in: '15551999',
		token_type: 'BearerToken',
	});
	nock(BASE, { reqheaders: { authorization: 'Bearer at-1' } })
		.post(PARTNER_API_PATHS.listings)
		.reply(201, { id: 'L-1' });
	await expect(call(listingCall)).resolves.toEqual({ id: 'L-1' });
	return call;
}

afterEach(() => nock.cleanAll());

describe('renewal with the refresh token', () => {
	it('keeps the refresh token (a secret: redacted like the others), and reads expires_in given as text', async () => {
		const credential = stored();
		await firstLogin(credential);
		expect(credential.accessToken).toBe('at-1');
		const kept = JSON.parse(String(credential.refreshToken)) as Record<string, unknown>;
		expect(kept.token).toBe('rt-1');
		// About six months from now, read from the text "15551999".
		expect(Number(kept.expiresAt) - Date.now()).toBeGreaterThan(15_000_000_000);
		// The password is not in it, in clear.
		expect(String(credential.refreshToken)).not.toContain('pw-secret-1');
		expect(credentialSecrets(credential)).toContain('rt-1');
	});

	it('renews after a 401 with POST /sellers/oauth/refresh_accesstoken, never sending the password', async () => {
		const credential = stored();
		const call = await firstLogin(credential);
		nock(BASE, { reqheaders: { authorization: 'Bearer at-1' } })
			.post(PARTNER_API_PATHS.listings)
			.reply(401, {
				fault: {
					faultstring: 'Access Token expired',
					detail: { errorcode: 'keymanagement.service.access_token_expired' },
				},
			});
		const renewed = refresh('rt-1').scope.reply(200, { access_token: 'at-2', expires_in: 3600 });
		const noLogin = login().reply(200, { access_token: 'never' });
		nock(BASE, { reqheaders: { authorization: 'Bearer at-2' } })
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 'L-2' });

		await expect(call(listingCall)).resolves.toEqual({ id: 'L-2' });
		expect(renewed.isDone()).toBe(true);
		expect(noLogin.isDone()).toBe(false);
		expect(credential.accessToken).toBe('at-2');
		// The refresh answer carried no new refresh token: the one kept still serves.
		expect(JSON.parse(String(credential.refreshToken)).token).toBe('rt-1');
	});

	it('falls back to the login when the refresh is refused, and keeps the new refresh token', async () => {
		const credential = stored();
		const call = await firstLogin(credential);
		nock(BASE).post(PARTNER_API_PATHS.listings).reply(401, { message: 'Invalid Access Token' });
		const refused = refresh('rt-1').scope.reply(400, {
			ErrorCode: 'invalid_request',
			Error: 'Invalid Refresh Token',
		});
		const relogin = login().reply(200, { access_token: 'at-3', refresh_token: 'rt-3' });
		nock(BASE, { reqheaders: { authorization: 'Bearer at-3' } })
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 'L-3' });

		await expect(call(listingCall)).resolves.toEqual({ id: 'L-3' });
		expect(refused.isDone() && relogin.isDone()).toBe(true);
		expect(JSON.parse(String(credential.refreshToken)).token).toBe('rt-3');
	});

	it("never renews with another login's refresh token (the credential was edited to another account)", async () => {
		const credential = stored();
		await firstLogin(credential);
		const edited = stored({
			email: 'other@example.test',
			refreshToken: String(credential.refreshToken),
		});
		const call = setUp(edited);
		const refreshScope = refresh('rt-1').scope.reply(200, { access_token: 'wrong-account' });
		nock(BASE)
			.post(PARTNER_API_PATHS.grant, { username: 'other@example.test', password: 'pw-secret-1' })
			.query(true)
			.reply(200, { access_token: 'at-other' });
		nock(BASE, { reqheaders: { authorization: 'Bearer at-other' } })
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 'L-4' });
		await expect(call(listingCall)).resolves.toEqual({ id: 'L-4' });
		expect(refreshScope.isDone()).toBe(false);
	});
});

describe("Apigee's OAuth errors at the token URL", () => {
	const credentialType = new TicketMarketplaceApi();
	const helper = { helpers: { httpRequest } } as unknown as IHttpRequestHelper;
	const messageOf = async (status: number, body: unknown) => {
		login().reply(status, body as nock.Body);
		return await credentialType.preAuthentication.call(helper, stored()).then(
			() => '',
			(error: Error) => error.message,
		);
	};

	it('invalid_client "ClientId is Invalid": the consumer key or secret, with the API\'s words', async () => {
		const message = await messageOf(401, {
			ErrorCode: 'invalid_client',
			Error: 'ClientId is Invalid',
		});
		expect(message).toMatch(
			/^Login refused: the token endpoint refused the consumer key and secret \(HTTP 401\)\. The API said: "ClientId is Invalid" \(code invalid_client\)\./,
		);
		expect(message).not.toContain('did not say which login');
	});

	it('invalid_request "Invalid client id : … ClientId is Invalid": the consumer key too', async () => {
		const message = await messageOf(400, {
			ErrorCode: 'invalid_request',
			Error: 'Invalid client id : ck_1. ClientId is Invalid',
		});
		expect(message).toMatch(/refused the consumer key and secret \(HTTP 400\)/);
		// The consumer key the API echoes is redacted.
		expect(message).not.toContain('ck_1');
	});

	it("the plan's quota at the token URL is said, and final (no login is retried against it)", async () => {
		const credential = stored();
		login().reply(500, {
			fault: {
				faultstring: 'Rate limit quota violation. Quota limit exceeded.',
				detail: { errorcode: 'policies.ratelimit.QuotaViolation' },
			},
		});
		const message = await credentialType.preAuthentication.call(helper, credential).then(
			() => '',
			(error: Error) => error.message,
		);
		expect(message).toMatch(/^Quota used up: the token endpoint refused the login/);
		const failed = failedTokenExchange(credential);
		expect(failed?.answer).toMatchObject({ status: 500 });
		// Final: its row stops the run and is never retried.
		expect(meaningOfDiagnosis(failed!.diagnosis)).toMatchObject({ stopsRun: true, retry: 'no' });
	});
});
