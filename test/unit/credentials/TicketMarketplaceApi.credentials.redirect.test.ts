/**
 * The credential's Test button sends `test.request` with the consumer secret (Basic) and the marketplace password:
 * like the token exchange itself, it must not follow a redirect and carry them to another address.
 */
import nock from 'nock';
import type { IHttpRequestOptions } from 'n8n-workflow';
import { httpRequest } from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';

import { TicketMarketplaceApi } from '../../../credentials/TicketMarketplaceApi.credentials';
import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';

const BASE = 'https://partner.api.test';
const ELSEWHERE = 'https://elsewhere.example.test';

afterEach(() => nock.cleanAll());

it('does not follow a redirect from the token endpoint', async () => {
	const { request } = new TicketMarketplaceApi().test;
	// The request as n8n sends it once its expressions are resolved.
	const resolved: IHttpRequestOptions = {
		...request,
		baseURL: BASE,
		url: String(request.url),
		headers: { ...request.headers, Authorization: 'Basic Y2s6Y3M=' },
		body: { username: 'seller@example.test', password: 'marketplace-password' },
		skipSslCertificateValidation: undefined,
	};
	nock(BASE)
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.reply(307, '', { Location: `${ELSEWHERE}/collect` });
	const elsewhere = nock(ELSEWHERE).post('/collect').reply(200, { access_token: 'x' });

	await httpRequest(resolved).catch(() => undefined);

	expect(elsewhere.isDone()).toBe(false);
});
