/**
 * Review reproductions: where the seller's access token goes after the credential's Base URL is edited, and a
 * token answer whose lifetime is zero.
 */
import nock from 'nock';
import type {
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
	INode,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import { httpRequestWithAuthentication } from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';

import { TicketMarketplaceApi } from '../../../credentials/TicketMarketplaceApi.credentials';
import {
	accessTokenExpired,
	refreshTokenFieldAfter,
} from '../../../nodes/shared/partnerApi/pastN8n';

const OLD_BASE = 'https://api.stubcloudprod.test';
const NEW_BASE = 'https://typo-stubcloud.test';
const TOKEN = 'six-months-production-token';
const credentialType = new TicketMarketplaceApi();

function loginOn(baseUrl: string): ICredentialDataDecryptedObject {
	return {
		baseUrl,
		consumerKey: 'ck',
		consumerSecret: 'cs-secret',
		email: 'seller@example.test',
		password: 'pw',
	};
}

afterEach(() => nock.cleanAll());

describe('the access token after the Base URL is edited', () => {
	it("the old origin's access token does not go to the new Base URL (n8n keeps hidden password fields on edit)", async () => {
		// The credential as n8n holds it after the seller changed only the Base URL: n8n's credentials service
		// redacts password fields (the expirable accessToken and refreshToken included) and restores them on save.
		const before = loginOn(OLD_BASE);
		const edited: ICredentialDataDecryptedObject = {
			...loginOn(NEW_BASE),
			accessToken: TOKEN,
			refreshToken: refreshTokenFieldAfter(
				before,
				{ access_token: TOKEN, refresh_token: 'refresh-secret', expires_in: '15551999' },
				undefined,
				Date.now(),
			),
		};
		let seenAuthorization: string | undefined;
		nock(NEW_BASE)
			.post('/sellers/inventory/listings/v3')
			.reply(function () {
				seenAuthorization = this.req.headers.authorization as string | undefined;
				return [401, {}];
			});
		nock(NEW_BASE)
			.post(/sellers\/oauth/)
			.reply(401, {});
		const node = {
			id: 'n1',
			name: 'Ticket Marketplace',
			type: 'n8n-nodes-ticket-marketplace.ticketMarketplace',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
			credentials: { ticketMarketplaceApi: { id: '1', name: 'Partner API' } },
		} as unknown as INode;
		const additionalData = {
			credentialsHelper: {
				getParentTypes: () => [],
				preAuthentication: async () => undefined,
				authenticate: async (
					decrypted: ICredentialDataDecryptedObject,
					_type: string,
					request: IHttpRequestOptions,
				) => await credentialType.authenticate(decrypted, request),
			},
			hooks: undefined,
		} as unknown as IWorkflowExecuteAdditionalData;
		const context = {
			getCredentials: async () => ({ ...edited }),
			getNode: () => node,
			helpers: {},
		};
		await httpRequestWithAuthentication
			.call(
				context as never,
				'ticketMarketplaceApi',
				{
					method: 'POST',
					url: `${NEW_BASE}/sellers/inventory/listings/v3`,
					body: {},
					json: true,
				} as IHttpRequestOptions,
				{ id: 'wf' } as unknown as Workflow,
				node,
				additionalData,
			)
			.catch(() => undefined);
		// Today: "Bearer six-months-production-token" reaches the new origin. The refresh token is tied to the
		// Base URL (pastN8n.ts loginFingerprint); the access token is not.
		expect(seenAuthorization).not.toBe(`Bearer ${TOKEN}`);
	});
});

describe('a token answer with a lifetime of zero or one second', () => {
	it('a token just issued with expires_in "0" is not expired before its first use', () => {
		const login = loginOn(OLD_BASE);
		const now = 1_700_000_000_000;
		const field = refreshTokenFieldAfter(
			login,
			{ access_token: 'x', expires_in: '0' },
			undefined,
			now,
		);
		// Today: expired at once, so TokenRenewal logs in (the password) again before every request of the run.
		expect(accessTokenExpired({ ...login, refreshToken: field }, now)).toBe(false);
	});
});
