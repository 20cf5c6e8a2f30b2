/**
 * The HTTP Request node's Proxy and Ignore SSL Issues (Insecure) options: with either set, the token goes only to an
 * https Base URL and only when the credential's "Allow Proxy or Ignored SSL Issues" option is on (off by default).
 */
import nock from 'nock';
import type {
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
	INode,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import { requestWithAuthentication } from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';

import { TicketMarketplaceApi } from '../../../credentials/TicketMarketplaceApi.credentials';
import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';
import { TRANSPORT_OPT_IN_FIELD } from '../../../nodes/shared/partnerApi/partnerApi';
import { withTokenIssued } from '../../../support/fakeN8n/issuedToken';

const TOKEN = 'tok-six-months-9f3b';
const credentialType = new TicketMarketplaceApi();

function credentials(baseUrl: string, optIn?: boolean): ICredentialDataDecryptedObject {
	return {
		...withTokenIssued(
			{ baseUrl, consumerKey: 'ck', consumerSecret: 'cs', email: 'e@x.test', password: 'pw' },
			TOKEN,
		),
		...(optIn !== undefined && { [TRANSPORT_OPT_IN_FIELD]: optIn }),
	};
}

/** The option as each of n8n's helpers spells it (the HTTP Request node's own in the legacy one). */
const OPTIONS: Array<[string, Record<string, unknown>]> = [
	['Proxy (HTTP Request node)', { proxy: 'http://proxy.test:3128' }],
	['Proxy (newer helper)', { proxy: { host: 'proxy.test', port: 3128, protocol: 'http' } }],
	['Ignore SSL Issues (HTTP Request node)', { rejectUnauthorized: false }],
	['Ignore SSL Issues (agent options)', { agentOptions: { rejectUnauthorized: false } }],
	['Ignore SSL Issues (newer helper)', { skipSslCertificateValidation: true }],
];

async function authenticateError(creds: ICredentialDataDecryptedObject, extra: object) {
	const url = `${String(creds.baseUrl)}${PARTNER_API_PATHS.listings}`;
	try {
		await credentialType.authenticate(creds, {
			method: 'POST',
			url,
			...extra,
		} as IHttpRequestOptions);
	} catch (error) {
		return (error as Error).message;
	}
	return undefined;
}

describe('the token with a proxy or with SSL issues ignored', () => {
	it.each(OPTIONS)('%s: refused by default, even to an https Base URL', async (name, extra) => {
		const message = await authenticateError(credentials('https://partner.api.test'), extra);
		const option = name.startsWith('Proxy') ? 'Proxy' : 'Ignore SSL Issues (Insecure)';
		expect(message).toContain(`This request's ${option} option is set, so it was not sent`);
		expect(message).toContain('"Allow Proxy or Ignored SSL Issues"');
	});

	it.each(OPTIONS)('%s: refused to an http Base URL, even when allowed', async (_name, extra) => {
		const message = await authenticateError(credentials('http://partner.api.test', true), extra);
		expect(message).toMatch(/Base URL is not https:\/\/, so its token could be read on the way/);
	});

	it.each(OPTIONS)('%s: sent to an https Base URL when allowed', async (_name, extra) => {
		const creds = credentials('https://partner.api.test', true);
		const sent = await credentialType.authenticate(creds, {
			method: 'POST',
			url: `https://partner.api.test${PARTNER_API_PATHS.listings}`,
			...extra,
		} as IHttpRequestOptions);
		expect(sent.headers).toMatchObject({ Authorization: `Bearer ${TOKEN}` });
	});

	it.each([
		['no proxy', { proxy: undefined }],
		['an empty proxy', { proxy: '' }],
		['certificates checked', { rejectUnauthorized: true, skipSslCertificateValidation: false }],
	])('%s: the token goes as before, to http and https alike', async (_name, extra) => {
		for (const base of ['http://partner.api.test', 'https://partner.api.test']) {
			expect(await authenticateError(credentials(base), extra)).toBeUndefined();
		}
	});

	it('the credential offers the option, off by default, in the words of the HTTP Request node', () => {
		const option = credentialType.properties.find((p) => p.name === TRANSPORT_OPT_IN_FIELD);
		expect(option).toMatchObject({ type: 'boolean', default: false });
		expect(option?.description).toContain('Proxy');
		expect(option?.description).toContain('Ignore SSL Issues (Insecure)');
	});
});

describe("through n8n-core's legacy helper, as the HTTP Request node sends", () => {
	beforeEach(() => nock.cleanAll());
	afterAll(() => nock.cleanAll());

	async function viaHttpRequestNode(creds: ICredentialDataDecryptedObject, extra: object) {
		const reached: string[] = [];
		nock(/.*/)
			.persist()
			.post(/.*/)
			.reply(function (uri) {
				reached.push(`${String(this.req.headers.authorization)} ${uri}`);
				return [200, {}];
			});
		const node = { name: 'HTTP Request', type: 'n8n-nodes-base.httpRequest' } as INode;
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
		} as unknown as IWorkflowExecuteAdditionalData;
		const context = {
			getCredentials: async () => ({ ...creds }),
			getNode: () => node,
			helpers: {},
		};
		let message: string | undefined;
		try {
			await requestWithAuthentication.call(
				context as never,
				'ticketMarketplaceApi',
				{
					method: 'POST',
					uri: `${String(creds.baseUrl)}${PARTNER_API_PATHS.listings}`,
					resolveWithFullResponse: true,
					rejectUnauthorized: true,
					body: {},
					json: true,
					...extra,
				} as never,
				{} as Workflow,
				node,
				additionalData,
				undefined,
				0,
			);
		} catch (error) {
			message = (error as Error).message;
		}
		return { reached, message };
	}

	it('Ignore SSL Issues: nothing leaves without the option', async () => {
		const { reached, message } = await viaHttpRequestNode(credentials('https://partner.api.test'), {
			rejectUnauthorized: false,
		});
		expect(reached).toEqual([]);
		expect(message).toContain('Ignore SSL Issues (Insecure) option is set');
	});

	it('Proxy: nothing leaves without the option', async () => {
		const { reached, message } = await viaHttpRequestNode(credentials('https://partner.api.test'), {
			proxy: 'http://proxy.test:3128',
		});
		expect(reached).toEqual([]);
		expect(message).toContain('Proxy option is set');
	});

	it('Ignore SSL Issues with the option and an https Base URL: the token goes', async () => {
		const { reached, message } = await viaHttpRequestNode(
			credentials('https://partner.api.test', true),
			{ rejectUnauthorized: false },
		);
		expect(message).toBeUndefined();
		expect(reached).toEqual([`Bearer ${TOKEN} ${PARTNER_API_PATHS.listings}`]);
	});
});
