/**
 * The credential's "Test" button, as the editor presses it (POST /rest/credentials/test on a saved credential),
 * in a real n8n: the token exchange really runs (preAuthentication), and the message says which part is wrong.
 */
import { SANDBOX_DEFAULTS } from '../../sandbox/index';
import { ownerSessionCookie, testCredentialAsEditor } from '../../support/harness/n8n';
import { useE2e } from '../../support/e2e/helpers';
import { PARTNER_API_PATHS } from '../../nodes/shared/partnerApi/paths';

const e2e = useE2e();

describe('Ticket Marketplace API credential test in a real n8n', () => {
	let cookie: string;
	let credential: { id: string; name: string; type: string };

	const goodData = () => ({
		baseUrl: `${e2e().context.sandboxUrl}/`,
		consumerKey: SANDBOX_DEFAULTS.consumerKey,
		consumerSecret: SANDBOX_DEFAULTS.consumerSecret,
		email: SANDBOX_DEFAULTS.marketplaceAccount.email,
		password: SANDBOX_DEFAULTS.marketplaceAccount.password,
	});

	async function tokenRequests() {
		const { requests } = await e2e().sandbox.state();
		return requests.filter((request) => request.path === PARTNER_API_PATHS.grant);
	}

	async function testWith(data: Record<string, unknown>) {
		const result = await testCredentialAsEditor(e2e().context.n8nUrl, cookie, {
			...credential,
			data,
		});
		for (const secret of [
			SANDBOX_DEFAULTS.consumerSecret,
			SANDBOX_DEFAULTS.marketplaceAccount.password,
			'portal-password',
			'wrong-secret-value',
		]) {
			expect(result.message).not.toContain(secret);
		}
		return result;
	}

	beforeAll(async () => {
		cookie = await ownerSessionCookie(e2e().context.n8nUrl);
		const created = await e2e().n8n.request<{ id: string; name: string; type: string }>(
			'POST',
			'/credentials',
			{
				name: 'Credential test target',
				type: 'ticketMarketplaceApi',
				data: { ...goodData(), allowedHttpRequestDomains: 'all' },
			},
		);
		credential = { id: created.id, name: created.name, type: 'ticketMarketplaceApi' };
	});

	it('succeeds with the sandbox credentials and really exchanges a token', async () => {
		const before = (await tokenRequests()).length;
		const result = await testWith(goodData());
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		const made = (await tokenRequests()).slice(before);
		expect(made.length).toBeGreaterThanOrEqual(1);
		expect(made.every((request) => request.status === 200)).toBe(true);
	});

	it('succeeds with the key, secret and e-mail pasted with spaces and line breaks around them', async () => {
		const data = goodData();
		const result = await testWith({
			...data,
			consumerKey: ` ${data.consumerKey}\n`,
			consumerSecret: `${data.consumerSecret} `,
			email: `${data.email}\r\n`,
		});
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
	});

	it('says spaces around a refused secret were removed, so they are not the cause', async () => {
		const result = await testWith({ ...goodData(), consumerSecret: 'wrong-secret-value \n' });
		expect(result.status).toBe('Error');
		expect(result.message).toContain(
			'The spaces or line breaks around the Consumer Secret were removed before sending, so they are not the cause.',
		);
	});

	it('names the consumer key/secret when they are refused', async () => {
		const result = await testWith({ ...goodData(), consumerSecret: 'wrong-secret-value' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^Login refused: the token endpoint refused the consumer key and secret \(HTTP 401\)\. /,
		);
	});

	it('names the marketplace login, with the developer-portal hint, for a developer-portal account', async () => {
		const result = await testWith({
			...goodData(),
			email: SANDBOX_DEFAULTS.developerAccount.email,
			password: SANDBOX_DEFAULTS.developerAccount.password,
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^Login refused: the token endpoint refused the marketplace e-mail and password/,
		);
		expect(result.message).toMatch(/not your developer-portal login/);
	});

	it('says the Base URL does not answer like the API when it points elsewhere', async () => {
		// n8n's own address: a real HTTP server that is not the Partner API.
		const result = await testWith({ ...goodData(), baseUrl: e2e().context.n8nUrl });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/does not answer like the Partner API/);
	});
});
