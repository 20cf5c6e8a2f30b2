/**
 * Where the seller's token goes: the Base URL's origin only, through n8n-core's real request helpers, as the
 * HTTP Request node (legacy `requestWithAuthentication`, `uri`) and this package's node (`httpRequestWithAuthentication`,
 * `url`) send it, redirects included.
 */
import fc from 'fast-check';
import nock from 'nock';
import type {
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
	INode,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import {
	httpRequestWithAuthentication,
	requestWithAuthentication,
} from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';

import { TicketMarketplaceApi } from '../../../credentials/TicketMarketplaceApi.credentials';
import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';
import { withTokenIssued } from '../../../support/fakeN8n/issuedToken';

const BASE = 'https://partner.api.test';
const TOKEN = 'tok-six-months-9f3b';
const credentialType = new TicketMarketplaceApi();

interface Reached {
	origin: string;
	path: string;
	authorization: string | undefined;
}

/** Every request that left, wherever it went, with what it carried. `answer` decides the reply. */
function recordAll(
	answer: (reached: Reached) => [number, unknown, Record<string, string>?] = () => [200, {}],
) {
	const reached: Reached[] = [];
	for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']) {
		nock(/.*/)
			.persist()
			.intercept(/.*/, method)
			.reply(function (uri) {
				const { protocol, hostname, port } = (this.req as unknown as { options: unknown })
					.options as {
					protocol: string;
					hostname: string;
					port: number | string;
				};
				const host = hostname.includes(':') ? `[${hostname}]` : hostname;
				const seen: Reached = {
					origin: new URL(`${protocol}//${host}:${port}`).origin,
					path: uri,
					authorization: this.req.headers.authorization as string | undefined,
				};
				reached.push(seen);
				return answer(seen);
			});
	}
	return reached;
}

function credentials(baseUrl = BASE): ICredentialDataDecryptedObject {
	return withTokenIssued(
		{
			baseUrl,
			consumerKey: 'ck',
			consumerSecret: 'cs-secret',
			email: 'seller@example.test',
			password: 'pw',
		},
		TOKEN,
	);
}

/** What n8n-core needs around its helpers: the credential applied by this credential type's own code. */
function n8nAround(creds: ICredentialDataDecryptedObject) {
	const node = {
		id: 'n1',
		name: 'HTTP Request',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
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
	const workflow = { id: 'wf' } as unknown as Workflow;
	const context = {
		getCredentials: async () => ({ ...creds }),
		getNode: () => node,
		helpers: {},
	};
	return { node, additionalData, workflow, context };
}

type Helper = 'httpRequestWithAuthentication' | 'requestWithAuthentication';

/** Sends as n8n's helpers do; resolves to the error's message, or undefined when no error was thrown. */
async function send(
	helper: Helper,
	options: Record<string, unknown>,
	creds = credentials(),
): Promise<string | undefined> {
	const { node, additionalData, workflow, context } = n8nAround(creds);
	try {
		if (helper === 'httpRequestWithAuthentication') {
			await httpRequestWithAuthentication.call(
				context as never,
				'ticketMarketplaceApi',
				options as unknown as IHttpRequestOptions,
				workflow,
				node,
				additionalData,
			);
		} else {
			await requestWithAuthentication.call(
				context as never,
				'ticketMarketplaceApi',
				options as never,
				workflow,
				node,
				additionalData,
				undefined,
				0,
			);
		}
		return undefined;
	} catch (error) {
		return (error as Error).message;
	}
}

/** The HTTP Request node's own options (v4 defaults: follow every redirect, credentials across origins as < 4.4). */
const HTTP_REQUEST_NODE_OPTIONS = {
	headers: {},
	method: 'GET',
	gzip: true,
	rejectUnauthorized: true,
	followRedirect: true,
	followAllRedirects: true,
	maxRedirects: undefined,
	resolveWithFullResponse: true,
	sendCredentialsOnCrossOriginRedirect: true,
};

function asSent(helper: Helper, address: string, extra: Record<string, unknown> = {}) {
	return helper === 'requestWithAuthentication'
		? { ...HTTP_REQUEST_NODE_OPTIONS, uri: address, ...extra }
		: { method: 'GET', url: address, ...extra };
}

const HELPERS: Helper[] = ['requestWithAuthentication', 'httpRequestWithAuthentication'];

beforeEach(() => nock.cleanAll());
afterAll(() => nock.cleanAll());

describe.each(HELPERS)('the token through n8n-core %s', (helper) => {
	it.each([
		`${BASE}${PARTNER_API_PATHS.listings}`,
		'HTTPS://PARTNER.API.TEST/sellers/inventory/listings/v3',
		'https://partner.api.test:443/x',
		'https://Partner.Api.Test/x?next=https://elsewhere.test',
	])('reaches the Base URL’s origin: %s', async (address) => {
		const reached = recordAll();
		await expect(send(helper, asSent(helper, address))).resolves.toBeUndefined();
		expect(reached).toEqual([
			expect.objectContaining({ origin: BASE, authorization: `Bearer ${TOKEN}` }),
		]);
	});

	it.each([
		['another host', 'https://elsewhere.test/collect'],
		['the Base URL host as a prefix', 'https://partner.api.test.evil.test/x'],
		['the Base URL host as user-info', 'https://partner.api.test@evil.test/x'],
		['user and password before another host', 'https://seller:pw@evil.test/x'],
		['a backslash before the host', 'https:\\\\evil.test/x'],
		['a tab inside the host', 'https://partner.api.test\t.evil.test/x'],
		['plain http', 'http://partner.api.test/x'],
		['another port', 'https://partner.api.test:8443/x'],
		['a trailing dot', 'https://partner.api.test./x'],
		['a subdomain', 'https://x.partner.api.test/x'],
		['a look-alike in another script (IDNA)', 'https://pаrtner.api.test/x'],
		['a loopback address', 'http://127.0.0.1:5678/rest'],
		['a scheme-relative address', '//evil.test/x'],
		['a relative path with no base', '/sellers/inventory/listings/v3'],
	])('is refused, with nothing sent, for %s', async (_case, address) => {
		const reached = recordAll();
		const message = await send(helper, asSent(helper, address));
		expect(message).toContain(`This credential only sends its token to ${BASE}`);
		expect(message).not.toContain(TOKEN);
		expect(reached).toEqual([]);
	});

	it('resolves a relative URL against a baseURL option, and refuses a baseURL elsewhere', async () => {
		const reached = recordAll();
		await expect(
			send(helper, asSent(helper, PARTNER_API_PATHS.listings, { baseURL: `${BASE}/` })),
		).resolves.toBeUndefined();
		expect(reached).toEqual([
			{ origin: BASE, path: PARTNER_API_PATHS.listings, authorization: `Bearer ${TOKEN}` },
		]);

		const refused = await send(
			helper,
			asSent(helper, PARTNER_API_PATHS.listings, { baseURL: 'https://evil.test' }),
		);
		expect(refused).toContain('goes to https://evil.test');
		for (const address of ['//evil.test/x', 'https://evil.test/x']) {
			expect(await send(helper, asSent(helper, address, { baseURL: BASE }))).toContain(
				'only sends its token',
			);
		}
		expect(reached).toHaveLength(1);
	});

	it('refuses a uri at the Base URL beside a baseURL elsewhere and no url (httpRequest* reads baseURL alone)', async () => {
		const reached = recordAll();
		const refused = await send(helper, {
			method: 'GET',
			uri: `${BASE}/x`,
			baseURL: 'https://evil.test',
		});
		expect(refused).toContain('goes to https://evil.test');
		expect(reached).toEqual([]);
	});

	it('names no path, query or user-info of the refused address', async () => {
		recordAll();
		const message = await send(
			helper,
			asSent(helper, 'https://seller:hunter2@evil.test/path-secret?key=query-secret'),
		);
		expect(message).toContain('goes to https://evil.test,');
		for (const part of ['hunter2', 'seller:', 'path-secret', 'query-secret']) {
			expect(message).not.toContain(part);
		}
	});

	it.each([301, 302, 303, 307, 308])(
		'never carries the token across a %i redirect to another origin',
		async (status) => {
			for (const elsewhere of [
				'https://evil.test/collect',
				'https://x.partner.api.test/collect',
				'http://partner.api.test/collect',
			]) {
				nock.cleanAll();
				const reached = recordAll(({ origin }) =>
					origin === BASE ? [status, '', { Location: elsewhere }] : [200, {}],
				);
				await send(helper, asSent(helper, `${BASE}/moved`));
				const carried = reached.filter(({ authorization }) => authorization?.includes(TOKEN));
				expect(carried.map(({ origin }) => origin)).toEqual([BASE]);
			}
		},
	);

	it('does not follow a redirect within the Base URL’s origin either: the node gets the 3xx', async () => {
		const reached = recordAll(({ path }) =>
			path === '/moved' ? [302, '', { Location: `${BASE}/here` }] : [200, {}],
		);
		const message = await send(helper, asSent(helper, `${BASE}/moved`));
		expect(message).toBeDefined();
		expect(reached.map(({ path }) => path)).toEqual(['/moved']);
	});
});

it('refuses every request when the Base URL is not a web address, naming the field to fix', async () => {
	const reached = recordAll();
	const message = await send(
		'httpRequestWithAuthentication',
		asSent('httpRequestWithAuthentication', 'https://partner.api.test/x'),
		credentials('partner.api.test'),
	);
	expect(message).toContain("fix the credential's Base URL");
	expect(reached).toEqual([]);
});

it('accepts an IDNA Base URL and its punycode spelling as one origin', async () => {
	const reached = recordAll();
	const idna = credentials('https://bücher.example/');
	await expect(
		send(
			'httpRequestWithAuthentication',
			asSent('httpRequestWithAuthentication', 'https://xn--bcher-kva.example/x'),
			idna,
		),
	).resolves.toBeUndefined();
	expect(reached).toEqual([
		expect.objectContaining({
			origin: 'https://xn--bcher-kva.example',
			authorization: `Bearer ${TOKEN}`,
		}),
	]);
});

it('leaves the token exchange (Basic key:secret) as it was: no Bearer token, nothing changed', async () => {
	const options: IHttpRequestOptions = {
		url: `${BASE}${PARTNER_API_PATHS.grant}`,
		method: 'POST',
		headers: { Authorization: 'Basic Y2s6Y3M=' },
		disableFollowRedirect: true,
	};
	await expect(credentialType.authenticate(credentials(), options)).resolves.toEqual(options);
});

describe('invariant: the token reaches the Base URL’s origin only', () => {
	const hosts = ['partner.api.test', 'PARTNER.api.test', 'evil.test', '127.0.0.1', '[::1]'];
	const host = fc.oneof(
		fc.constantFrom(...hosts),
		fc
			.tuple(
				fc.constantFrom(...hosts),
				fc.constantFrom('.', '@', '.evil.test', ':443', ':8443', '.', '%2e'),
			)
			.map(([name, suffix]) => `${name}${suffix}`),
		fc
			.tuple(
				fc.constantFrom('x.', 'user:pw@', 'partner.api.test@', 'evil.test#@'),
				fc.constantFrom(...hosts),
			)
			.map(([prefix, name]) => `${prefix}${name}`),
	);
	const scheme = fc.constantFrom(
		'https://',
		'http://',
		'//',
		'HTTPS://',
		'https:\\\\',
		'https:/',
		'',
		'/',
	);
	const path = fc.constantFrom(
		'',
		'/',
		'/x',
		'/sellers/inventory/listings/v3?a=1',
		'\\x',
		'@evil.test/x',
	);
	const address = fc.tuple(scheme, host, path).map(([s, h, p]) => `${s}${h}${p}`);
	const shape = fc.record({
		helper: fc.constantFrom<Helper>(...HELPERS),
		baseURL: fc.option(fc.constantFrom(BASE, `${BASE}/`, 'https://evil.test', 'partner.api.test'), {
			nil: undefined,
		}),
		url: fc.option(address, { nil: undefined }),
		uri: fc.option(address, { nil: undefined }),
		redirectTo: fc.option(address, { nil: undefined }),
	});

	it('holds for generated addresses, option names, base URLs and redirects', async () => {
		let delivered = 0;
		await fc.assert(
			fc.asyncProperty(shape, async ({ helper, baseURL, url, uri, redirectTo }) => {
				nock.cleanAll();
				const reached = recordAll(({ path: reachedPath }) =>
					redirectTo !== undefined && reachedPath !== '/after-redirect'
						? [302, '', { Location: redirectTo }]
						: [200, {}],
				);
				const options: Record<string, unknown> =
					helper === 'requestWithAuthentication'
						? { ...HTTP_REQUEST_NODE_OPTIONS }
						: { method: 'GET' };
				if (baseURL !== undefined) options.baseURL = baseURL;
				if (url !== undefined) options.url = url;
				if (uri !== undefined) options.uri = uri;
				await send(helper, options);
				for (const seen of reached) {
					if (seen.authorization?.includes(TOKEN)) {
						expect(seen.origin).toBe(BASE);
						delivered += 1;
					}
				}
			}),
			{ numRuns: 300 },
		);
		// The property is not vacuous: some generated requests did go, with the token, to the Base URL.
		expect(delivered).toBeGreaterThan(0);
	});
});
