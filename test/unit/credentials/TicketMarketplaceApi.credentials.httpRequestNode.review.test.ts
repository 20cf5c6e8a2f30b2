/**
 * Review reproductions: the credential under n8n's HTTP Request node (n8n-core's real legacy
 * `requestWithAuthentication`, which calls preAuthentication again after ANY failure, the login's own included),
 * attacked as an unlucky user would meet it.
 */
import nock from 'nock';
import type {
	ICredentialDataDecryptedObject,
	INode,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import {
	httpRequest,
	requestWithAuthentication,
} from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';

import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';
import { TicketMarketplaceApi } from '../../../credentials/TicketMarketplaceApi.credentials';
import { apiCredentialsHelper } from '../../../support/fakeN8n/apiCredentialsHelper';
import { withTokenIssued } from '../../../support/fakeN8n/issuedToken';

const BASE = 'https://partner.api.test';
const LISTINGS = `${BASE}${PARTNER_API_PATHS.listings}`;
const LOGIN = {
	baseUrl: BASE,
	consumerKey: 'ck',
	consumerSecret: 'cs-secret',
	email: 'seller@example.test',
	password: 'pw',
};

/** The options the HTTP Request node (v4.2) hands n8n for a POST with a JSON body. */
function httpRequestNodeOptions(uri = LISTINGS) {
	return {
		headers: {},
		method: 'POST',
		uri,
		gzip: true,
		rejectUnauthorized: true,
		followRedirect: false,
		followAllRedirects: false,
		resolveWithFullResponse: true,
		sendCredentialsOnCrossOriginRedirect: false,
		timeout: 300_000,
		body: { externalListingId: 1 },
		json: true,
	};
}

/** Every request that reached the API, in order; the token endpoint answers `grant`. */
function api(grant: [number, unknown, Record<string, string>?]) {
	const sent: string[] = [];
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.listings)
		.reply(() => {
			sent.push(PARTNER_API_PATHS.listings);
			return [200, { id: 1 }];
		});
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.reply(() => {
			sent.push(PARTNER_API_PATHS.grant);
			return grant as never;
		});
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.refresh)
		.reply(() => {
			sent.push(PARTNER_API_PATHS.refresh);
			return [400, { error: 'invalid_grant' }];
		});
	return sent;
}

/** Sends as the HTTP Request node does; n8n decrypts a fresh copy of the stored credential for each request. */
async function throughHttpRequestNode(stored: ICredentialDataDecryptedObject) {
	const node = {
		name: 'HTTP Request',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {},
		credentials: { ticketMarketplaceApi: { id: '1', name: 'Partner API' } },
	} as unknown as INode;
	const { credentialsHelper } = apiCredentialsHelper(stored);
	const context = {
		helpers: { httpRequest },
		getNode: () => node,
		getCredentials: async () => ({ ...stored }),
	};
	try {
		return {
			response: await requestWithAuthentication.call(
				context as never,
				'ticketMarketplaceApi',
				httpRequestNodeOptions() as never,
				{} as Workflow,
				node,
				{ credentialsHelper } as unknown as IWorkflowExecuteAdditionalData,
				undefined,
				0,
			),
		};
	} catch (error) {
		return { error: error as Error };
	}
}

beforeEach(() => {
	nock.cleanAll();
	nock.disableNetConnect();
});
afterAll(() => nock.cleanAll());

describe('a first request (no token yet) whose login fails, through the HTTP Request node', () => {
	it.each([
		['a refused key', [401, { ErrorCode: 'invalid_client', Error: 'ClientId is Invalid' }]],
		['a refused marketplace login', [401, { ErrorCode: 'invalid_grant', Error: 'bad login' }]],
		['a busy token endpoint (429)', [429, { fault: { faultstring: 'Spike arrest violation' } }]],
		[
			'a token endpoint that is down (503)',
			[503, '<html>maintenance</html>', { 'content-type': 'text/html' }],
		],
	])('%s costs one login, not two, and sends nothing', async (_case, grant) => {
		const sent = api(grant as [number, unknown]);

		const { error } = await throughHttpRequestNode({ ...LOGIN, accessToken: '' });

		expect(error).toBeDefined();
		// n8n's legacy helper calls preAuthentication again after the login's own failure: a second login
		// (a second failed password, or a second request to a busy endpoint) must not follow.
		expect(sent).toEqual([PARTNER_API_PATHS.grant]);
	});
});

describe('holds', () => {
	it("the credential's Test logs in afresh even while a token is stored (so saving it renews)", async () => {
		const stored = withTokenIssued(LOGIN, 'tok-revoked');
		const sent = api([200, { access_token: 'tok-after-test', expires_in: '15551999' }]);

		// n8n's credential test hands preAuthentication a freshly decrypted copy of the credential.
		const output = await new TicketMarketplaceApi().preAuthentication.call(
			{ helpers: { httpRequest } } as never,
			{ ...stored },
		);

		expect(output).toMatchObject({ accessToken: 'tok-after-test' });
		expect(sent).toEqual([PARTNER_API_PATHS.grant]);
	});
});
