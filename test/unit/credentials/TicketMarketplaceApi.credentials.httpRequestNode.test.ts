/**
 * The credential under n8n's HTTP Request node: n8n-core's real legacy `requestWithAuthentication`, which calls
 * preAuthentication again after any failure and re-sends the request when a token comes back. A renewal and a
 * re-send happen only when the credential held the request back for a new token; any answer of the API reaches the
 * node once, as it came.
 */
import nock from 'nock';
import type {
	ICredentialDataDecryptedObject,
	INode,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import {
	httpRequest,
	httpRequestWithAuthentication,
	proxyRequestToAxios,
	requestWithAuthentication,
} from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';

import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';
import { refreshTokenFieldAfter } from '../../../nodes/shared/partnerApi/pastN8n';
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
const STORED_TOKEN = 'tok-six-months-9f3b';

/** The options the HTTP Request node (v4.2) hands n8n for a POST with a JSON body. */
function httpRequestNodeOptions(uri = LISTINGS) {
	return {
		headers: { 'accept-language': 'en-US' },
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

/** Every request that reached the API, in order, with the token it carried. */
function api(listingAnswers: Array<[number, unknown]>) {
	const sent: Array<{ path: string; authorization?: string }> = [];
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.listings)
		.reply(function () {
			sent.push({
				path: PARTNER_API_PATHS.listings,
				authorization: this.req.headers.authorization as string | undefined,
			});
			return listingAnswers.shift() ?? [500, { unexpected: true }];
		});
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.reply(() => {
			sent.push({ path: PARTNER_API_PATHS.grant });
			return [200, { access_token: 'tok-new', refresh_token: 'ref-new', expires_in: '15551999' }];
		});
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.refresh)
		.reply(() => {
			sent.push({ path: PARTNER_API_PATHS.refresh });
			return [200, { access_token: 'tok-refreshed', expires_in: '15551999' }];
		});
	return sent;
}

/** Sends as the HTTP Request node does; n8n decrypts a fresh copy of the stored credential for each request. */
async function throughHttpRequestNode(
	stored: ICredentialDataDecryptedObject,
	options: Record<string, unknown> = httpRequestNodeOptions(),
) {
	const node = {
		name: 'HTTP Request',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {},
		credentials: { ticketMarketplaceApi: { id: '1', name: 'Partner API' } },
	} as unknown as INode;
	const { credentialsHelper, savedTokens } = apiCredentialsHelper(stored);
	const additionalData = { credentialsHelper } as unknown as IWorkflowExecuteAdditionalData;
	const context = {
		helpers: { httpRequest },
		getNode: () => node,
		getCredentials: async () => ({ ...stored }),
	};
	try {
		const response = await requestWithAuthentication.call(
			context as never,
			'ticketMarketplaceApi',
			options as never,
			{} as Workflow,
			node,
			additionalData,
			undefined,
			0,
		);
		return { response, savedTokens };
	} catch (error) {
		return { error: error as Error & { httpCode?: string }, savedTokens };
	}
}

/** What n8n shows of an error. */
function words(error: unknown) {
	const { message, description, httpCode } = error as NodeApiError;
	return { message, description, httpCode };
}

/** What n8n shows for the same answer to the same request sent with no credential at all. */
async function wordsWithoutCredential(status: number, body: unknown) {
	nock.cleanAll();
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.reply(status, body as nock.Body);
	const node = { name: 'HTTP Request', type: 'n8n-nodes-base.httpRequest' } as INode;
	try {
		await proxyRequestToAxios({} as Workflow, undefined, node, httpRequestNodeOptions() as never);
	} catch (error) {
		return words(new NodeApiError(node, error as never));
	}
	throw new Error('expected the request to fail');
}

beforeEach(() => nock.cleanAll());
afterAll(() => nock.cleanAll());

describe('the HTTP Request node with a token that works', () => {
	it.each([
		[500, { code: 'inventory.listings.systemError', description: 'System error' }],
		[429, { fault: { faultstring: 'Rate limit quota violation' } }],
		[404, { code: 'inventory.listings.notFound' }],
		[400, { code: 'inventory.listings.invalidEvent' }],
	])(
		'an answer %s is sent once, reaches the node as the API gave it, and leaves the token alone',
		async (status, body) => {
			const stored = withTokenIssued(LOGIN, STORED_TOKEN);
			const sent = api([[status, body]]);

			const { error, savedTokens } = await throughHttpRequestNode(stored);

			expect(sent).toEqual([
				{ path: PARTNER_API_PATHS.listings, authorization: `Bearer ${STORED_TOKEN}` },
			]);
			expect(savedTokens).toEqual([]);
			expect(stored.accessToken).toBe(STORED_TOKEN);
			// n8n's error for that status, with the API's answer as it came: what any request of the node gives.
			expect(error?.httpCode).toBe(String(status));
			expect(error).toBeInstanceOf(NodeApiError);
			expect(words(error)).toEqual(await wordsWithoutCredential(status, body));
		},
	);

	it('a 401 to it reaches the node too: the legacy helper does not say it was a 401', async () => {
		const stored = withTokenIssued(LOGIN, STORED_TOKEN);
		const sent = api([[401, { fault: { faultstring: 'Invalid Access Token' } }]]);

		const { error, savedTokens } = await throughHttpRequestNode(stored);

		expect(sent.map((request) => request.path)).toEqual([PARTNER_API_PATHS.listings]);
		expect(savedTokens).toEqual([]);
		expect(error?.httpCode).toBe('401');
	});

	it('a success is passed on once', async () => {
		const stored = withTokenIssued(LOGIN, STORED_TOKEN);
		const sent = api([[200, { id: 77, status: 'ACTIVE' }]]);

		const { response } = await throughHttpRequestNode(stored);

		expect(sent).toHaveLength(1);
		expect(response).toMatchObject({ statusCode: 200, body: { id: 77 } });
	});
});

describe('the HTTP Request node with a token that must be renewed first', () => {
	it('logs in first when the stored token came from another login, and sends once', async () => {
		const stored = {
			...withTokenIssued({ ...LOGIN, password: 'old-password' }, STORED_TOKEN),
			password: 'pw',
		};
		const sent = api([[200, { id: 1 }]]);

		const { error, savedTokens } = await throughHttpRequestNode(stored);

		expect(error).toBeUndefined();
		expect(sent).toEqual([
			{ path: PARTNER_API_PATHS.grant },
			{ path: PARTNER_API_PATHS.listings, authorization: 'Bearer tok-new' },
		]);
		expect(savedTokens).toEqual(['tok-new']);
	});

	it('renews a token past the lifetime its answer gave before sending, and sends once', async () => {
		const issuedLongAgo = Date.now() - 7 * 24 * 3600 * 1000;
		const stored = {
			...LOGIN,
			accessToken: STORED_TOKEN,
			refreshToken: refreshTokenFieldAfter(
				LOGIN,
				{ refresh_token: 'ref-kept', expires_in: '3600' },
				undefined,
				issuedLongAgo,
			),
		};
		const sent = api([[200, { id: 2 }]]);

		const { error } = await throughHttpRequestNode(stored);

		expect(error).toBeUndefined();
		expect(sent).toEqual([
			{ path: PARTNER_API_PATHS.refresh },
			{ path: PARTNER_API_PATHS.listings, authorization: 'Bearer tok-refreshed' },
		]);
	});

	it('a failure after that login reaches the node once: no second login', async () => {
		const stored = { ...LOGIN, accessToken: '' };
		const sent = api([[500, { code: 'inventory.listings.systemError' }]]);

		const { error } = await throughHttpRequestNode(stored);

		expect(sent.map((request) => request.path)).toEqual([
			PARTNER_API_PATHS.grant,
			PARTNER_API_PATHS.listings,
		]);
		expect(error?.httpCode).toBe('500');
	});
});

describe('the HTTP Request node with a request the credential refuses', () => {
	it('an address off the Base URL costs no login and sends nothing', async () => {
		const stored = withTokenIssued(LOGIN, STORED_TOKEN);
		const sent = api([]);

		const { error, savedTokens } = await throughHttpRequestNode(
			stored,
			httpRequestNodeOptions('https://elsewhere.test/x'),
		);

		expect(sent).toEqual([]);
		expect(savedTokens).toEqual([]);
		expect(error?.message).toContain(`This credential only sends its token to ${BASE}`);
	});
});

describe("n8n's newer helper (the older HTTP Request Tool) still renews after a 401", () => {
	it('renews once and sends again with the new token', async () => {
		const stored = withTokenIssued(LOGIN, STORED_TOKEN);
		const sent = api([
			[401, { fault: { faultstring: 'Invalid Access Token' } }],
			[200, { id: 3 }],
		]);
		const { credentialsHelper } = apiCredentialsHelper(stored);
		const node = { name: 'Tool', type: 'tool' } as INode;
		const context = {
			helpers: { httpRequest },
			getNode: () => node,
			getCredentials: async () => ({ ...stored }),
		};

		await httpRequestWithAuthentication.call(
			context as never,
			'ticketMarketplaceApi',
			{ method: 'POST', url: LISTINGS, body: { externalListingId: 3 }, json: true },
			{} as Workflow,
			node,
			{ credentialsHelper } as unknown as IWorkflowExecuteAdditionalData,
		);

		expect(sent).toEqual([
			{ path: PARTNER_API_PATHS.listings, authorization: `Bearer ${STORED_TOKEN}` },
			{ path: PARTNER_API_PATHS.grant },
			{ path: PARTNER_API_PATHS.listings, authorization: 'Bearer tok-new' },
		]);
	});
});
