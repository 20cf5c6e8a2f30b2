import { SANDBOX_DEFAULTS, startSandbox } from '../../../sandbox/index';
import type { Sandbox } from '../../../sandbox/index';
import {
	DEMO_BASIC,
	LISTINGS_PATH,
	TOKEN_PATH,
	WEBHOOKS_PATH,
	activeSubscription,
	createListing,
	getToken,
	listingHeaders,
	post,
	rawRequest,
	startReceiver,
	validListing,
} from '../../../support/sandboxRequests';

/** These tests pin the sandbox's own older answer shapes (`--answers spec`); service.test.ts covers the default. */
const SPEC = { shapes: 'spec' } as const;

describe('sandbox bad input: clear 4xx, never a crash or a hang', () => {
	let sandbox: Sandbox;
	let token: string;

	beforeEach(async () => {
		sandbox = await startSandbox({ maxBodyBytes: 4096, answers: SPEC });
		token = await getToken(sandbox);
	});
	afterEach(() => sandbox.stop());

	it.each([
		['listings', LISTINGS_PATH],
		['webhooks', WEBHOOKS_PATH],
	])(
		'answers malformed JSON on %s with 400 malformed_json naming the parse problem',
		async (_name, path) => {
			const result = await post(`${sandbox.url}${path}`, {
				headers: listingHeaders(token),
				body: '{"eventId": 1,,}',
			});
			expect(result.status).toBe(400);
			expect(result.body.error).toBe('malformed_json');
			expect(result.body.message).toMatch(/^The body is not valid JSON: /);
		},
	);

	it('answers an empty JSON body with 400 malformed_json', async () => {
		const result = await post(`${sandbox.url}${WEBHOOKS_PATH}`, {
			headers: listingHeaders(token),
			body: '',
		});
		expect(result.status).toBe(400);
		expect(result.body.message).toMatch(/empty/);
	});

	it('answers a body without any Content-Type with 415', async () => {
		const headers = listingHeaders(token);
		delete headers['Content-Type'];
		const result = await rawRequest(`${sandbox.url}${WEBHOOKS_PATH}`, { headers, body: '{}' });
		expect(result.status).toBe(415);
		expect(result.body).toEqual({
			error: 'unsupported_media_type',
			message: 'Content-Type must be application/json, got none',
		});
	});

	it('refuses a body over the size limit with 413, and keeps serving', async () => {
		const big = JSON.stringify(validListing({ padding: 'x'.repeat(5000) }));
		const result = await post(`${sandbox.url}${LISTINGS_PATH}`, {
			headers: listingHeaders(token),
			body: big,
		});
		expect(result.status).toBe(413);
		expect(result.body).toEqual({
			error: 'payload_too_large',
			message: 'The body exceeds the limit of 4096 bytes',
		});
		expect(sandbox.state().requests.at(-1)).toMatchObject({
			status: 413,
			body: { unparsed: true, reason: 'too large' },
		});
		expect((await createListing(sandbox, token)).status).toBe(201);
	});

	it('cuts off a body far over the limit instead of reading it all', async () => {
		const huge = Buffer.alloc(4096 * 40, 'a');
		const result = await rawRequest(`${sandbox.url}${TOKEN_PATH}?grant_type=client_credentials`, {
			headers: { Authorization: DEMO_BASIC, 'Content-Type': 'application/json' },
			body: huge,
		}).catch((error: NodeJS.ErrnoException) => ({ status: 0, code: error.code }));
		// Either the 413 arrives before the socket closes, or the upload is cut: never a hang or a crash.
		expect([413, 0]).toContain(result.status);
		expect((await createListing(sandbox, token)).status).toBe(201);
	});

	it('uses the default limit of 1 MiB', async () => {
		const defaults = await startSandbox({ answers: SPEC });
		try {
			const result = await post(`${defaults.url}${TOKEN_PATH}`, {
				headers: { Authorization: DEMO_BASIC, 'Content-Type': 'application/json' },
				body: Buffer.alloc(1024 * 1024 + 1, ' '),
			});
			expect(result.status).toBe(413);
			expect(result.body.message).toBe('The body exceeds the limit of 1048576 bytes');
		} finally {
			await defaults.stop();
		}
	});

	it.each([
		'/',
		'/sellers/inventory/listings/v2',
		'/partners/webhooks/v3/extra',
		'/__sandbox/nope',
	])('answers an unknown path %s with 404', async (path) => {
		const result = await post(`${sandbox.url}${path}`, {
			headers: listingHeaders(token),
			body: '{}',
		});
		expect(result.status).toBe(404);
		expect(result.body).toEqual({
			error: 'not_found',
			message: expect.stringContaining(path.replace(/\/$/, '') || '/'),
		});
	});

	it.each([
		['GET', LISTINGS_PATH, 'POST'],
		['PUT', WEBHOOKS_PATH, 'POST'],
		['DELETE', TOKEN_PATH, 'POST'],
		['POST', '/__sandbox/state', 'GET'],
	])('answers %s %s with 405 and an Allow header', async (method, path, allowed) => {
		const result = await rawRequest(`${sandbox.url}${path}`, {
			method,
			headers: listingHeaders(token),
		});
		expect(result.status).toBe(405);
		expect(result.headers.allow).toBe(allowed);
		expect(result.body.error).toBe('method_not_allowed');
	});

	it('answers malformed admin bodies with 400', async () => {
		const listingId = (await createListing(sandbox, token)).body.id as string;
		for (const body of ['{oops', '[1]', '{"count": "two"}', '{"externalIds": "p-1"}']) {
			const result = await post(`${sandbox.url}/__sandbox/listings/${listingId}/sell`, {
				headers: { 'Content-Type': 'application/json' },
				body,
			});
			expect(result.status).toBe(400);
		}
		const settings = await post(`${sandbox.url}/__sandbox/delivery`, {
			body: '{"clientAuth":"telepathy"}',
		});
		expect(settings.status).toBe(400);
		expect(settings.body.message).toMatch(/basic, client_secret_post/);
	});

	it('answers a garbled HTTP request with 400 and keeps serving', async () => {
		const net = await import('node:net');
		const reply = await new Promise<string>((resolve, reject) => {
			const socket = net.connect(sandbox.port, '127.0.0.1', () =>
				socket.write('NOT HTTP AT ALL\r\n\r\n'),
			);
			let data = '';
			socket.on('data', (chunk) => (data += chunk.toString()));
			socket.on('close', () => resolve(data));
			socket.on('error', reject);
		});
		expect(reply).toMatch(/^HTTP\/1\.1 400/);
		expect((await createListing(sandbox, token)).status).toBe(201);
	});
});

describe('sandbox inspection never shows a secret', () => {
	it('keeps consumer secret, passwords, client secret, tokens and Basic headers out of state()', async () => {
		const clientSecret = 'receiver-client-secret-value';
		const sandbox = await startSandbox({ deliveryBaseDelayMs: 1, answers: SPEC });
		const receiver = await startReceiver({ clientId: 'mp', clientSecret, clientAuth: 'basic' });
		try {
			const token = await getToken(sandbox);
			// A failed login with a different password must not leak it either.
			await post(
				`${sandbox.url}${TOKEN_PATH}?grant_type=client_credentials&password=query-password`,
				{
					headers: { Authorization: DEMO_BASIC, 'Content-Type': 'application/json' },
					body: JSON.stringify({ username: 'seller@example.test', password: 'typo-password' }),
				},
			);
			// A form body (not JSON) is not shown at all.
			await post(`${sandbox.url}${TOKEN_PATH}?grant_type=client_credentials`, {
				headers: { Authorization: DEMO_BASIC, 'Content-Type': 'application/x-www-form-urlencoded' },
				body: 'username=seller%40example.test&password=form-password',
			});
			await activeSubscription(sandbox, token, receiver, { clientId: 'mp', clientSecret });
			const listingId = (await createListing(sandbox, token)).body.id as string;
			const [delivery] = await sandbox.sell(listingId).deliveries;
			expect(delivery.status).toBe('delivered');

			const httpState = await (await fetch(`${sandbox.url}/__sandbox/state`)).text();
			for (const dump of [JSON.stringify(sandbox.state()), httpState]) {
				for (const secret of [
					SANDBOX_DEFAULTS.consumerSecret,
					SANDBOX_DEFAULTS.marketplaceAccount.password,
					'typo-password',
					'query-password',
					'form-password',
					clientSecret,
					token,
					DEMO_BASIC.slice('Basic '.length),
					'receiver-token-1',
				]) {
					expect(dump).not.toContain(secret);
				}
				expect(dump).toContain('[redacted]');
			}
			const state = sandbox.state();
			expect(state.subscriptions[0].callback.auth.oauthRequest.clientSecret).toBe('[redacted]');
			expect(state.requests[0].headers.authorization).toBe('Basic [redacted]');
			expect(state.requests[0].body).toEqual({
				username: 'seller@example.test',
				password: '[redacted]',
			});
		} finally {
			await sandbox.stop();
			await receiver.stop();
		}
	});
});
