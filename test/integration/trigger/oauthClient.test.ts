/**
 * The trigger's token endpoint driven by a real OAuth 2.0 client library (simple-oauth2), over loopback HTTP,
 * then a notification delivered with the token it obtained.
 */
import { ClientCredentials, type ModuleOptions } from 'simple-oauth2';

import { CREDENTIAL_REUSE_MS } from '../../../nodes/TicketMarketplaceTrigger/accessToken';
import { serveTrigger, type ServedTrigger } from '../../../support/fakeN8n/serveTrigger';

const CLIENT_ID = 'marketplace client';
// Characters that RFC 6749 2.3.1's form-urlencoding changes, so strict and loose Basic encodings differ.
const CLIENT_SECRET = 'S3cret+with/odd:chars&more=0123';
const WEBHOOK_ID = 'c9a1e5d2-3f4b-4c6d-8e7f-901234567890';
const SALE = {
	eventType: 'listing_sale',
	notificationId: 'n-1',
	listing: { id: 'lst_1' },
	products: [{ externalId: 'A-1' }],
};

let trigger: ServedTrigger;

beforeEach(async () => {
	trigger = await serveTrigger({
		webhookId: WEBHOOK_ID,
		credentials: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
	});
});

afterEach(async () => {
	await trigger.stop();
});

function oauthClient(options: ModuleOptions['options'], secret = CLIENT_SECRET): ClientCredentials {
	const tokenUrl = new URL(trigger.tokenUrl);
	return new ClientCredentials({
		client: { id: CLIENT_ID, secret },
		auth: { tokenHost: tokenUrl.origin, tokenPath: tokenUrl.pathname },
		options,
	});
}

async function deliver(
	authorization: string | undefined,
	body: string = JSON.stringify(SALE),
): Promise<Response> {
	const headers: Record<string, string> = { 'Content-Type': 'application/json' };
	if (authorization !== undefined) headers.Authorization = authorization;
	return await fetch(trigger.callbackUrl, { method: 'POST', headers, body });
}

describe.each([
	[
		'HTTP Basic, RFC form-urlencoded id/secret, form body',
		{ authorizationMethod: 'header', credentialsEncodingMode: 'strict' },
	],
	[
		'HTTP Basic, plain id/secret, form body',
		{ authorizationMethod: 'header', credentialsEncodingMode: 'loose' },
	],
	['client_id/client_secret in a form body', { authorizationMethod: 'body' }],
	['client_id/client_secret in a JSON body', { authorizationMethod: 'body', bodyFormat: 'json' }],
] as Array<[string, ModuleOptions['options']]>)(
	'simple-oauth2 ClientCredentials: %s',
	(_name, options) => {
		it('obtains a Bearer token, and a notification carrying it starts one execution with the body unchanged', async () => {
			const accessToken = await oauthClient(options).getToken({});
			expect(accessToken.token).toMatchObject({
				token_type: 'Bearer',
				expires_in: 3600,
				access_token: expect.any(String),
			});
			expect(accessToken.expired()).toBe(false);
			expect(trigger.executions).toHaveLength(0);

			const response = await deliver(`Bearer ${accessToken.token.access_token as string}`);
			expect(response.status).toBe(200);
			expect(await response.json()).toEqual({ received: true });
			expect(trigger.executions).toHaveLength(1);
			// The notification as sent, and beside it the kind the trigger read.
			expect(trigger.executions[0].items).toEqual([
				{
					json: {
						...SALE,
						notificationKind: { kind: 'listing_sale', field: 'eventType', sale: true },
					},
				},
			]);
			expect(trigger.executions[0].items[0].json).toMatchObject(
				JSON.parse(trigger.executions[0].rawBody) as object,
			);
			expect(trigger.errors).toEqual([]);
		});

		it('is refused with 401 invalid_client for a wrong secret, and starts nothing', async () => {
			const failure = await oauthClient(options, `${CLIENT_SECRET}-wrong`)
				.getToken({})
				.then(
					() => undefined,
					(error: { output?: { statusCode?: number }; data?: { payload?: { error?: string } } }) =>
						error,
				);
			expect(failure?.output?.statusCode).toBe(401);
			expect(failure?.data?.payload?.error).toBe('invalid_client');
			expect(trigger.executions).toHaveLength(0);
		});
	},
);

describe('token endpoint over HTTP', () => {
	it('sends Cache-Control: no-store with the token and a Basic challenge with invalid_client', async () => {
		const form = new URLSearchParams({
			grant_type: 'client_credentials',
			client_id: CLIENT_ID,
			client_secret: CLIENT_SECRET,
		});
		const issued = await fetch(trigger.tokenUrl, {
			method: 'POST',
			headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
			body: form.toString(),
		});
		expect(issued.status).toBe(200);
		expect(issued.headers.get('cache-control')).toBe('no-store');
		expect(issued.headers.get('pragma')).toBe('no-cache');

		const refused = await fetch(trigger.tokenUrl, {
			method: 'POST',
			headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
			body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
		});
		expect(refused.status).toBe(401);
		expect(refused.headers.get('www-authenticate')).toBe(
			'Basic realm="Ticket Marketplace Trigger"',
		);
		expect(await refused.json()).toMatchObject({ error: 'invalid_client' });
		expect(trigger.executions).toHaveLength(0);
	});
});

describe('notification endpoint over HTTP', () => {
	async function token(): Promise<string> {
		const accessToken = await oauthClient({ authorizationMethod: 'header' }).getToken({});
		return accessToken.token.access_token as string;
	}

	it('refuses a missing token, a forged token and a non-object body, starting nothing', async () => {
		const missing = await deliver(undefined);
		expect(missing.status).toBe(401);
		expect(missing.headers.get('www-authenticate')).toBe(
			'Bearer realm="Ticket Marketplace Trigger"',
		);

		const genuine = await token();
		const forged = await deliver(
			`Bearer ${genuine.slice(0, -4)}${genuine.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`,
		);
		expect(forged.status).toBe(401);
		expect(forged.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);

		const array = await deliver(`Bearer ${await token()}`, JSON.stringify([SALE]));
		expect(array.status).toBe(400);

		const unparsable = await deliver(`Bearer ${await token()}`, '{"eventType": ');
		expect(unparsable.status).toBe(422);

		expect(trigger.executions).toHaveLength(0);
	});

	it('refuses every earlier token once the client secret changes, at the latest after the credential reuse time', async () => {
		const before = await token();
		trigger.update({
			credentials: { clientId: CLIENT_ID, clientSecret: 'a brand new secret, rotated today' },
		});
		// A read of the credential is reused for CREDENTIAL_REUSE_MS to accept notifications (n8n 2.41 pays an
		// isolate per read); past it, the stored credential decides.
		const changedAt = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(changedAt + CREDENTIAL_REUSE_MS + 1);
		try {
			const response = await deliver(`Bearer ${before}`);
			expect(response.status).toBe(401);
			expect(trigger.executions).toHaveLength(0);
		} finally {
			clock.mockRestore();
		}
	});
});
