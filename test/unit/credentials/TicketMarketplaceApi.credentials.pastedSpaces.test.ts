/**
 * A consumer key, secret or e-mail pasted with a space or line break around it: trimmed where it is read (the token
 * exchange, the refresh, the credential test's own request); the password goes exactly as typed. A refused login
 * says so.
 */
import nock from 'nock';
import type { ICredentialDataDecryptedObject, IHttpRequestHelper, INode } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { httpRequest } from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';

import { TicketMarketplaceApi } from '../../../credentials/TicketMarketplaceApi.credentials';
import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';
import { refreshTokenFieldAfter } from '../../../nodes/shared/partnerApi/pastN8n';
import { credentialSecrets } from '../../../nodes/TicketMarketplace/transport/tokenRenewal';

const BASE = 'https://partner.api.test';
const AS_PASTED = {
	baseUrl: BASE,
	consumerKey: 'ck_live_5f2a9 ',
	consumerSecret: '\tcs_live_9b7e1-secret\n',
	email: ' seller@example.test\r\n',
	password: ' p@ss word ',
};
// Computed by hand, not by the code under test: base64("ck_live_5f2a9:cs_live_9b7e1-secret").
const TRIMMED_BASIC = 'Basic Y2tfbGl2ZV81ZjJhOTpjc19saXZlXzliN2UxLXNlY3JldA==';

const credentialType = new TicketMarketplaceApi();
const helper = { helpers: { httpRequest } } as unknown as IHttpRequestHelper;

async function preAuthenticate(creds: ICredentialDataDecryptedObject) {
	return await credentialType.preAuthentication.call(helper, { ...creds, accessToken: '' });
}

async function refusedWith(creds: ICredentialDataDecryptedObject, body: object) {
	nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(401, body);
	try {
		await preAuthenticate(creds);
	} catch (error) {
		return (error as Error).message;
	}
	throw new Error('the login was expected to be refused');
}

beforeEach(() => nock.cleanAll());
afterAll(() => nock.cleanAll());

describe('login fields pasted with spaces or line breaks around them', () => {
	it('the login sends the key, secret and e-mail trimmed, the password as typed', async () => {
		let seen: { authorization?: string; body?: unknown } = {};
		nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query({ grant_type: 'client_credentials' })
			.reply(function (_uri, body) {
				seen = { authorization: this.req.headers.authorization as string, body };
				return [200, { access_token: 'tok-1', expires_in: '15551999' }];
			});

		await expect(preAuthenticate(AS_PASTED)).resolves.toMatchObject({ accessToken: 'tok-1' });

		expect(seen).toEqual({
			authorization: TRIMMED_BASIC,
			body: { username: 'seller@example.test', password: ' p@ss word ' },
		});
	});

	it('the refresh sends the key and secret trimmed', async () => {
		let authorization: string | undefined;
		nock(BASE)
			.post(PARTNER_API_PATHS.refresh)
			.reply(function () {
				authorization = this.req.headers.authorization as string;
				return [200, { access_token: 'tok-2', expires_in: '15551999' }];
			});
		const kept = refreshTokenFieldAfter(
			AS_PASTED,
			{ refresh_token: 'rt-1' },
			undefined,
			Date.now(),
		);

		await preAuthenticate({ ...AS_PASTED, refreshToken: kept });

		expect(authorization).toBe(TRIMMED_BASIC);
	});

	it('a token from before a space was pasted around a field is still this login’s', async () => {
		const trimmed = {
			...AS_PASTED,
			consumerKey: 'ck_live_5f2a9',
			consumerSecret: 'cs_live_9b7e1-secret',
			email: 'seller@example.test',
		};
		const kept = refreshTokenFieldAfter(trimmed, {}, undefined, Date.now());
		const sent = await credentialType.authenticate(
			{ ...AS_PASTED, accessToken: 'tok-kept', refreshToken: kept },
			{ method: 'POST', url: `${BASE}${PARTNER_API_PATHS.listings}` },
		);
		expect(sent.headers).toMatchObject({ Authorization: 'Bearer tok-kept' });
	});

	it('the credential test’s own request sends them trimmed too', () => {
		const workflow = new Workflow({
			nodes: [{ id: 'n', name: 'n', type: 't', typeVersion: 1, position: [0, 0], parameters: {} }],
			connections: {},
			active: false,
			nodeTypes: { getByName: () => undefined, getByNameAndVersion: () => undefined } as never,
		});
		const node = workflow.getNode('n') as INode;
		const resolve = (value: unknown) =>
			workflow.expression.getSimpleParameterValue(
				node,
				value as string,
				'internal',
				{ $credentials: AS_PASTED } as never,
				undefined,
				'',
			);
		const request = credentialType.test.request;
		expect(resolve((request.headers as Record<string, string>).Authorization)).toBe(TRIMMED_BASIC);
		const body = request.body as Record<string, string>;
		expect(resolve(body.username)).toBe('seller@example.test');
		expect(resolve(body.password)).toBe(' p@ss word ');
	});

	it('what the run redacts covers the values as sent', () => {
		expect(credentialSecrets(AS_PASTED)).toEqual(
			expect.arrayContaining(['ck_live_5f2a9', 'cs_live_9b7e1-secret', 'seller@example.test']),
		);
	});
});

describe('a refused login says what became of the spaces', () => {
	const invalidClient = { ErrorCode: 'invalid_client', Error: 'ClientId is Invalid' };
	const invalidGrant = { ErrorCode: 'invalid_grant', Error: 'Invalid username or password' };

	it('the key and secret: removed before sending, so not the cause', async () => {
		const message = await refusedWith(AS_PASTED, invalidClient);
		expect(message).toContain(
			'The spaces or line breaks around the Consumer Key and Consumer Secret were removed before sending, so they are not the cause.',
		);
		expect(message).not.toContain('password starts or ends');
	});

	it('the e-mail removed, the password kept as typed', async () => {
		const message = await refusedWith(AS_PASTED, invalidGrant);
		expect(message).toContain('The spaces or line breaks around the e-mail were removed');
		expect(message).toContain(
			'The password starts or ends with a space or line break and is sent exactly as typed',
		);
		expect(message).not.toContain('Consumer Key');
	});

	it('nothing of spaces when none was typed', async () => {
		const typed = {
			...AS_PASTED,
			consumerKey: 'ck',
			consumerSecret: 'cs',
			email: 'e@x.test',
			password: 'pw',
		};
		expect(await refusedWith(typed, invalidClient)).not.toMatch(/spaces|line break/);
		expect(await refusedWith(typed, invalidGrant)).not.toMatch(/spaces|line break/);
	});
});
