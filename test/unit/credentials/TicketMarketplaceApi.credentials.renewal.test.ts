import nock from 'nock';
import type {
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
	INode,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import {
	httpRequest,
	httpRequestWithAuthentication,
} from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';

import { apiCredentialsHelper } from '../../../support/fakeN8n/apiCredentialsHelper';
import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';
import { withTokenIssued } from '../../../support/fakeN8n/issuedToken';

// n8n-core's real httpRequestWithAuthentication (Bearer, one retry after a 401) with a credentials helper that
// behaves like n8n's CLI one.
const BASE = 'https://partner.api.test';

/** The credential as n8n stores it, with this access token (none: '') and any other values given. */
function storedCredential(
	accessToken: string,
	values: { consumerKey?: string; consumerSecret?: string; password?: string } = {},
) {
	const login = {
		baseUrl: BASE,
		consumerKey: 'k',
		consumerSecret: 's',
		email: 'e@x.test',
		password: 'p',
		...values,
	};
	// A stored token is one n8n got for this very login.
	return accessToken === '' ? { ...login, accessToken } : withTokenIssued(login, accessToken);
}

function setUp(stored: ICredentialDataDecryptedObject) {
	const node = {
		name: 'Ticket Marketplace',
		type: 'n8n-nodes-ticket-marketplace.ticketMarketplace',
	} as INode;
	const helpers = { httpRequest };
	const { credentialsHelper, savedTokens } = apiCredentialsHelper(stored);
	const additionalData = { credentialsHelper } as unknown as IWorkflowExecuteAdditionalData;
	const context = {
		helpers,
		getNode: () => node,
		getCredentials: async () => stored,
	};
	const call = async (options: IHttpRequestOptions) =>
		await httpRequestWithAuthentication.call(
			context as never,
			'ticketMarketplaceApi',
			options,
			{} as Workflow,
			node,
			additionalData,
		);
	return { call, savedTokens };
}

const listingCall: IHttpRequestOptions = {
	method: 'POST',
	url: `${BASE}${PARTNER_API_PATHS.listings}`,
	body: { eventId: 1 },
	json: true,
};

afterEach(() => nock.cleanAll());

describe('token lifecycle through n8n-core', () => {
	it('obtains a token when none is stored, then sends it as Bearer on the API call', async () => {
		const stored = storedCredential('');
		const { call, savedTokens } = setUp(stored);
		const token = nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(200, { access_token: 'first' });
		const api = nock(BASE, { reqheaders: { authorization: 'Bearer first' } })
			.post(PARTNER_API_PATHS.listings, { eventId: 1 })
			.reply(201, { id: 'lst_1' });

		await expect(call(listingCall)).resolves.toEqual({ id: 'lst_1' });
		expect(token.isDone() && api.isDone()).toBe(true);
		expect(savedTokens).toEqual(['first']);
		expect(stored.accessToken).toBe('first');
	});

	it('reuses a stored token without asking for a new one', async () => {
		const stored = storedCredential('kept');
		const { call, savedTokens } = setUp(stored);
		const api = nock(BASE, { reqheaders: { authorization: 'Bearer kept' } })
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 'lst_2' });

		await expect(call(listingCall)).resolves.toEqual({ id: 'lst_2' });
		expect(api.isDone()).toBe(true);
		expect(savedTokens).toEqual([]);
	});

	it('renews the token once after a 401 and retries the call with the new one', async () => {
		const stored = storedCredential('stale');
		const { call, savedTokens } = setUp(stored);
		const refused = nock(BASE, { reqheaders: { authorization: 'Bearer stale' } })
			.post(PARTNER_API_PATHS.listings)
			.reply(401, { error: 'invalid_token' });
		const token = nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.once()
			.reply(200, { access_token: 'fresh' });
		const retried = nock(BASE, { reqheaders: { authorization: 'Bearer fresh' } })
			.post(PARTNER_API_PATHS.listings)
			.reply(201, { id: 'lst_3' });

		await expect(call(listingCall)).resolves.toEqual({ id: 'lst_3' });
		expect(refused.isDone() && token.isDone() && retried.isDone()).toBe(true);
		expect(savedTokens).toEqual(['fresh']);
	});

	it('surfaces the diagnosis when renewal itself is refused, without the secrets', async () => {
		const stored = storedCredential('stale', {
			consumerKey: 'key-123',
			consumerSecret: 'secret-456',
			password: 'pw-789',
		});
		const { call } = setUp(stored);
		nock(BASE).post(PARTNER_API_PATHS.listings).reply(401, { error: 'invalid_token' });
		nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(401, { error: 'invalid_grant' });

		const error = await call(listingCall).then(
			() => undefined,
			(caught: unknown) => caught as Error,
		);
		expect(error?.message).toMatch(/refused the marketplace e-mail and password/);
		const text = `${error?.message} ${(error as { description?: string })?.description ?? ''}`;
		for (const secret of ['key-123', 'secret-456', 'pw-789']) expect(text).not.toContain(secret);
	});
});
