/**
 * The credential under the HTTP Request node (n8n-core's real legacy requestWithAuthentication, which calls
 * preAuthentication again after any failure and, when it returns a token, sends the request again): a request with
 * its own Basic header must go once, as one without.
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
import { apiCredentialsHelper } from '../../../support/fakeN8n/apiCredentialsHelper';
import { withTokenIssued } from '../../../support/fakeN8n/issuedToken';

const BASE = 'https://partner.api.test';
const LOGIN = {
	baseUrl: BASE,
	consumerKey: 'ck',
	consumerSecret: 'cs-secret',
	email: 'seller@example.test',
	password: 'pw-secret',
};

async function throughHttpRequestNode(stored: ICredentialDataDecryptedObject, headers: object) {
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
	const options = {
		headers,
		method: 'POST',
		uri: `${BASE}${PARTNER_API_PATHS.listings}`,
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
	try {
		await requestWithAuthentication.call(
			context as never,
			'ticketMarketplaceApi',
			options as never,
			{} as Workflow,
			node,
			{ credentialsHelper } as unknown as IWorkflowExecuteAdditionalData,
			undefined,
			0,
		);
	} catch {
		// the 500 is expected to surface
	}
}

beforeEach(() => {
	nock.cleanAll();
	nock.disableNetConnect();
});
afterAll(() => nock.cleanAll());

describe('a POST whose answer was a 500 is not sent twice', () => {
	it.each([
		['no header of its own', {}],
		['its own Basic Authorization header', { Authorization: 'Basic dXNlcjpwYXNz' }],
	])('with %s', async (_case, headers) => {
		const posts: string[] = [];
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.listings)
			.reply(() => {
				posts.push('listing');
				return [500, { error: 'internal' }];
			});
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(() => {
				posts.push('login');
				return [200, { access_token: 'tok-new', expires_in: '15551999' }];
			});
		nock(BASE).persist().post(PARTNER_API_PATHS.refresh).reply(400, { error: 'invalid_grant' });

		await throughHttpRequestNode(withTokenIssued(LOGIN, 'tok-stored'), headers);

		// A 500 may have created the listing: n8n's resend after a renewal would create it twice.
		expect(posts.filter((sent) => sent === 'listing')).toHaveLength(1);
	});
});
