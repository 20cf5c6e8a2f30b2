/**
 * The credential's diagnosis quotes the token endpoint's words: a secret echoed there in any form (as typed,
 * URL- or form-encoded, HTML-escaped, JSON-escaped, base64) must not reach any field of the error.
 */
import nock from 'nock';
import type { ICredentialDataDecryptedObject, IHttpRequestHelper } from 'n8n-workflow';
import { httpRequest } from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';

import { TicketMarketplaceApi } from '../../../../../credentials/TicketMarketplaceApi.credentials';
import { echoedForms, findEchoes } from '../../../../../support/errorScan';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';

const BASE = 'https://partner.api.test';
const SECRETS = {
	password: `pa ss&<w"o+r'd>9`,
	'consumer secret': `cs sec&<"+r'et>`,
};
const credentials: ICredentialDataDecryptedObject = {
	baseUrl: `${BASE}/`,
	consumerKey: 'ck_live_5f2a9',
	consumerSecret: SECRETS['consumer secret'],
	email: 'seller@example.test',
	password: SECRETS.password,
	accessToken: '',
};
const helper = { helpers: { httpRequest } } as unknown as IHttpRequestHelper;

afterEach(() => nock.cleanAll());

const cases = Object.entries(SECRETS).flatMap(([name, secret]) =>
	Object.entries(echoedForms(secret)).map(([form, text]) => [name, form, text]),
);

describe('the token endpoint echoing a secret', () => {
	it.each(cases)('%s, %s: on no field of the error', async (_name, _form, text) => {
		nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(401, { error: 'invalid_grant', error_description: `wrong password ${text} given` });
		const thrown = await new TicketMarketplaceApi().preAuthentication
			.call(helper, credentials)
			.then(
				() => undefined,
				(error: unknown) => error,
			);
		expect((thrown as Error).message).toContain(
			'Login refused: the token endpoint refused the marketplace e-mail and password',
		);
		expect((thrown as Error).message).toContain('[redacted]');
		expect(findEchoes(thrown, SECRETS)).toEqual([]);
	});
});
