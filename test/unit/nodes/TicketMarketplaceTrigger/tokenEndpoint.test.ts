import type { IWebhookResponseData } from 'n8n-workflow';

import {
	CREDENTIAL_REUSE_MS,
	verifyAccessToken,
} from '../../../../nodes/TicketMarketplaceTrigger/accessToken';
import {
	expectNoExecution,
	RecordingResponse,
	runCountingReads,
	runRecorded,
} from '../../../../support/fakeN8n/recordingResponse';
import {
	TEST_TRIGGER,
	TRIGGER_LOG,
	type TriggerRequest,
	type TriggerSetup,
} from '../../../../support/fakeN8n/triggerContext';

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

function basic(id: string, secret: string): string {
	return `Basic ${Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')}`;
}

async function requestToken(
	request: TriggerRequest,
	triggerSetup: TriggerSetup = TEST_TRIGGER.setup,
) {
	return await runRecorded(triggerSetup, 'setup', request);
}

function expectTokenIssued(
	result: IWebhookResponseData,
	response: RecordingResponse,
	lifetime = 3600,
): string {
	expectNoExecution(result, response);
	expect(response.status).toBe(200);
	expect(response.headers['cache-control']).toBe('no-store');
	expect(response.headers.pragma).toBe('no-cache');
	expect(response.headers['content-type']).toMatch(/^application\/json/);
	const body = response.json;
	expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
	expect(body.token_type).toBe('Bearer');
	expect(body.expires_in).toBe(lifetime);
	const token = body.access_token as string;
	const now = Math.floor(Date.now() / 1000);
	const check = verifyAccessToken(
		token,
		{
			audience: TEST_TRIGGER.webhookId,
			clientId: TEST_TRIGGER.clientId,
			clientSecret: TEST_TRIGGER.clientSecret,
		},
		now,
	);
	expect(check).toEqual({ valid: true, expiresAt: expect.any(Number) });
	if (check.valid) expect(check.expiresAt - now).toBeGreaterThan(lifetime - 5);
	return token;
}

/** The trigger's own configuration cannot be used: answered by the node, 503, no token, no execution. */
function expectUnavailable(result: IWebhookResponseData, response: RecordingResponse): void {
	expectNoExecution(result, response);
	expect(response.status).toBe(503);
	expect(response.json).toEqual({
		error: 'temporarily_unavailable',
		error_description: 'The trigger cannot issue access tokens now',
	});
	expect(response.headers['cache-control']).toBe('no-store');
	expect(response.text).not.toContain(TEST_TRIGGER.clientSecret);
}

function expectRefusal(
	result: IWebhookResponseData,
	response: RecordingResponse,
	status: number,
	error: string,
): void {
	expectNoExecution(result, response);
	expect(response.status).toBe(status);
	expect(response.json.error).toBe(error);
	expect(response.json).not.toHaveProperty('access_token');
	expect(response.headers['cache-control']).toBe('no-store');
	if (status === 401) {
		expect(response.headers['www-authenticate']).toBe('Basic realm="Ticket Marketplace Trigger"');
	} else {
		expect(response.headers['www-authenticate']).toBeUndefined();
	}
	// Refusals never echo what the client sent, secrets included.
	expect(response.text).not.toContain(TEST_TRIGGER.clientSecret);
}

describe('token endpoint (setup webhook), successes', () => {
	it('issues a token to HTTP Basic with the same client_id in the body too (RFC 6749 3.2.1)', async () => {
		const { result, response } = await requestToken({
			headers: {
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
				'content-type': FORM,
			},
			body: { grant_type: 'client_credentials', client_id: TEST_TRIGGER.clientId },
		});
		expectTokenIssued(result, response);
	});

	it('issues a token to HTTP Basic client authentication with a form body', async () => {
		const { result, response } = await requestToken({
			headers: {
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
				'content-type': FORM,
			},
			body: { grant_type: 'client_credentials' },
		});
		expectTokenIssued(result, response);
	});

	it('issues a token to HTTP Basic client authentication with a JSON body', async () => {
		const { result, response } = await requestToken({
			headers: {
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
				'content-type': JSON_TYPE,
			},
			body: { grant_type: 'client_credentials' },
		});
		expectTokenIssued(result, response);
	});

	it('issues a token to client_id/client_secret in a form body', async () => {
		const { result, response } = await requestToken({
			headers: { 'content-type': FORM },
			body: {
				grant_type: 'client_credentials',
				client_id: TEST_TRIGGER.clientId,
				client_secret: TEST_TRIGGER.clientSecret,
			},
		});
		expectTokenIssued(result, response);
	});

	it('issues a token to client_id/client_secret in a JSON body, ignoring unknown parameters', async () => {
		const { result, response } = await requestToken({
			headers: { 'content-type': JSON_TYPE },
			body: {
				grant_type: 'client_credentials',
				client_id: TEST_TRIGGER.clientId,
				client_secret: TEST_TRIGGER.clientSecret,
				audience: 'anything',
			},
		});
		expectTokenIssued(result, response);
	});

	it('decodes Basic credentials that were form-urlencoded first (RFC 6749 2.3.1) and also accepts them plain', async () => {
		const secret = 'p@ss word+with:colon%';
		const specialSetup: TriggerSetup = {
			...TEST_TRIGGER.setup,
			// Its own credential: the trigger refuses another client than one read seconds ago without reading again.
			credentialId: 'callback-credential-special-characters',
			credentials: { clientId: 'id with space', clientSecret: secret },
		};
		const encoded = await requestToken(
			{
				headers: {
					authorization: basic(
						encodeURIComponent('id with space').replace(/%20/g, '+'),
						encodeURIComponent(secret),
					),
					'content-type': FORM,
				},
				body: { grant_type: 'client_credentials' },
			},
			specialSetup,
		);
		expect(encoded.response.status).toBe(200);
		const plain = await requestToken(
			{
				headers: { authorization: basic('id with space', secret), 'content-type': FORM },
				body: { grant_type: 'client_credentials' },
			},
			specialSetup,
		);
		expect(plain.response.status).toBe(200);
	});

	it('takes grant_type from the query when the body has none, as the marketplace sends it to its own API', async () => {
		const { result, response } = await requestToken({
			headers: {
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
				'content-type': JSON_TYPE,
			},
			body: {},
			query: { grant_type: 'client_credentials' },
		});
		expectTokenIssued(result, response);
	});

	it('uses the Token Lifetime option for expires_in and the expiry', async () => {
		const { result, response } = await requestToken(
			{
				headers: {
					authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
					'content-type': FORM,
				},
				body: { grant_type: 'client_credentials' },
			},
			{ ...TEST_TRIGGER.setup, parameters: { options: { tokenLifetime: 120 } } },
		);
		expectTokenIssued(result, response, 120);
	});
});

describe('token endpoint (setup webhook), RFC 6749 5.2 errors', () => {
	it('refuses both client authentication methods at once with invalid_request', async () => {
		const { result, response } = await requestToken({
			headers: {
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
				'content-type': FORM,
			},
			body: {
				grant_type: 'client_credentials',
				client_id: TEST_TRIGGER.clientId,
				client_secret: TEST_TRIGGER.clientSecret,
			},
		});
		expectRefusal(result, response, 400, 'invalid_request');
	});

	it('refuses HTTP Basic with a different client_id in the body with invalid_request', async () => {
		const { result, response } = await requestToken({
			headers: {
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
				'content-type': FORM,
			},
			body: { grant_type: 'client_credentials', client_id: 'someone-else' },
		});
		expectRefusal(result, response, 400, 'invalid_request');
	});

	it('refuses two Authorization headers with invalid_request, even when the first one is right', async () => {
		const right = basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret);
		const { result, response } = await requestToken({
			// Node's parsed headers keep the first of the two; the raw headers show both.
			headers: { authorization: right, 'content-type': FORM },
			rawHeaders: [
				'Authorization',
				right,
				'Content-Type',
				FORM,
				'authorization',
				basic(TEST_TRIGGER.clientId, 'another secret'),
			],
			body: { grant_type: 'client_credentials' },
		});
		expectRefusal(result, response, 400, 'invalid_request');
	});

	it('refuses a missing grant_type with invalid_request', async () => {
		const { result, response } = await requestToken({
			headers: {
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
				'content-type': FORM,
			},
			body: {},
		});
		expectRefusal(result, response, 400, 'invalid_request');
	});

	it('refuses a repeated parameter with invalid_request', async () => {
		const { result, response } = await requestToken({
			headers: {
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
				'content-type': FORM,
			},
			body: { grant_type: ['client_credentials', 'client_credentials'] },
		});
		expectRefusal(result, response, 400, 'invalid_request');
	});

	it('refuses a non-string JSON parameter with invalid_request', async () => {
		const { result, response } = await requestToken({
			headers: { 'content-type': JSON_TYPE },
			body: {
				grant_type: 'client_credentials',
				client_id: TEST_TRIGGER.clientId,
				client_secret: 12345,
			},
		});
		expectRefusal(result, response, 400, 'invalid_request');
	});

	it('refuses parameters from a body n8n parsed from XML or multipart, which the endpoint does not offer', async () => {
		for (const contentType of ['application/xml', 'multipart/form-data; boundary=B']) {
			const { result, response } = await requestToken({
				// What n8n's XML parser makes of <grant_type>client_credentials</grant_type>.
				headers: {
					authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
					'content-type': contentType,
				},
				body: { grant_type: 'client_credentials' },
			});
			expectRefusal(result, response, 400, 'invalid_request');
		}
	});

	it('refuses a body that is not a parameter object (JSON array, plain text) with invalid_request', async () => {
		for (const body of [['client_credentials'], 'grant_type=client_credentials']) {
			const { result, response } = await requestToken({
				headers: {
					authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
					'content-type': JSON_TYPE,
				},
				body,
			});
			expectRefusal(result, response, 400, 'invalid_request');
		}
	});

	it('refuses client credentials in the URL with invalid_request', async () => {
		const { result, response } = await requestToken({
			headers: { 'content-type': FORM },
			body: { grant_type: 'client_credentials' },
			query: { client_id: TEST_TRIGGER.clientId, client_secret: TEST_TRIGGER.clientSecret },
		});
		expectRefusal(result, response, 400, 'invalid_request');
	});

	it('refuses grant_type values that differ between body and query with invalid_request', async () => {
		const { result, response } = await requestToken({
			headers: {
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
				'content-type': FORM,
			},
			body: { grant_type: 'client_credentials' },
			query: { grant_type: 'password' },
		});
		expectRefusal(result, response, 400, 'invalid_request');
	});

	it('refuses another grant type from an authenticated client with unsupported_grant_type', async () => {
		const { result, response } = await requestToken({
			headers: {
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
				'content-type': FORM,
			},
			body: { grant_type: 'password', username: 'someone', password: 'something' },
		});
		expectRefusal(result, response, 400, 'unsupported_grant_type');
	});

	it('refuses an unknown client id with invalid_client and a Basic challenge', async () => {
		const { result, response } = await requestToken({
			headers: {
				authorization: basic('someone-else', TEST_TRIGGER.clientSecret),
				'content-type': FORM,
			},
			body: { grant_type: 'client_credentials' },
		});
		expectRefusal(result, response, 401, 'invalid_client');
	});

	it('refuses a wrong secret by Basic and by body with invalid_client', async () => {
		const byBasic = await requestToken({
			headers: {
				authorization: basic(TEST_TRIGGER.clientId, `${TEST_TRIGGER.clientSecret}x`),
				'content-type': FORM,
			},
			body: { grant_type: 'client_credentials' },
		});
		expectRefusal(byBasic.result, byBasic.response, 401, 'invalid_client');
		const byBody = await requestToken({
			headers: { 'content-type': FORM },
			body: {
				grant_type: 'client_credentials',
				client_id: TEST_TRIGGER.clientId,
				client_secret: TEST_TRIGGER.clientSecret.slice(1),
			},
		});
		expectRefusal(byBody.result, byBody.response, 401, 'invalid_client');
	});

	it('refuses a request without client authentication, or with only a client_id, with invalid_client', async () => {
		const none = await requestToken({
			headers: { 'content-type': FORM },
			body: { grant_type: 'client_credentials' },
		});
		expectRefusal(none.result, none.response, 401, 'invalid_client');
		const idOnly = await requestToken({
			headers: { 'content-type': FORM },
			body: { grant_type: 'client_credentials', client_id: TEST_TRIGGER.clientId },
		});
		expectRefusal(idOnly.result, idOnly.response, 401, 'invalid_client');
	});

	it('refuses a malformed or non-Basic Authorization header with invalid_client', async () => {
		for (const authorization of [
			'Bearer abc',
			'Basic not base64!',
			`Basic ${Buffer.from('no-colon').toString('base64')}`,
		]) {
			const { result, response } = await requestToken({
				headers: { authorization, 'content-type': FORM },
				body: { grant_type: 'client_credentials' },
			});
			expectRefusal(result, response, 401, 'invalid_client');
		}
	});

	it('answers 503 temporarily_unavailable, naming no secret, when the credential secret is too short', async () => {
		TRIGGER_LOG.length = 0;
		// The marketplace presents the secret it was subscribed with; the credential was edited since.
		const { result, response } = await requestToken(
			{
				headers: {
					authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
					'content-type': FORM,
				},
				body: { grant_type: 'client_credentials' },
			},
			{
				...TEST_TRIGGER.setup,
				workflowId: 'workflow-short-secret',
				credentialId: 'callback-credential-short-secret',
				credentials: { clientId: TEST_TRIGGER.clientId, clientSecret: 'tiny-s3cret' },
			},
		);
		expectUnavailable(result, response);
		expect(response.text).not.toContain('tiny-s3cret');
		expect(TRIGGER_LOG).toHaveLength(1);
		expect(TRIGGER_LOG[0].message).toContain('at least 16 characters');
		expect(TRIGGER_LOG[0].message).not.toContain('tiny-s3cret');
	});

	it('answers 503 itself, and logs why, when an out-of-range Token Lifetime reaches it through an expression', async () => {
		TRIGGER_LOG.length = 0;
		const { result, response } = await requestToken(
			{
				headers: {
					authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
					'content-type': FORM,
				},
				body: { grant_type: 'client_credentials' },
			},
			{
				...TEST_TRIGGER.setup,
				workflowId: 'workflow-lifetime-5',
				parameters: { options: { tokenLifetime: '={{ 5 }}' } },
			},
		);
		expectUnavailable(result, response);
		expect(TRIGGER_LOG).toEqual([
			{
				level: 'warn',
				message: expect.stringContaining(
					'Token Lifetime must be a whole number of seconds from 60 to 86400',
				),
				metadata: { workflowId: 'workflow-lifetime-5', nodeName: 'Ticket Marketplace Trigger' },
			},
		]);
		expect(TRIGGER_LOG[0].message).not.toContain(TEST_TRIGGER.clientSecret);
	});
});

/** What n8n's getCredentials throws, as each state of the credential makes it (n8n-core and n8n's CLI). */
const UNREADABLE_CREDENTIALS: Array<[string, Partial<TriggerSetup>, string]> = [
	[
		'deleted',
		{
			credentials: new Error(
				'Credential with ID "callback-credential" does not exist for type "ticketMarketplaceCallbackApi".',
			),
		},
		'does not exist',
	],
	[
		"not shared with the workflow's project",
		{ credentials: new Error('Credential is not accessible to this workflow') },
		'not accessible',
	],
	[
		'not decryptable with this process’s encryption key',
		{
			credentials: new Error(
				'Credentials could not be decrypted. The likely reason is that a different "encryptionKey" was used to encrypt the data.',
			),
		},
		'could not be decrypted',
	],
	['not set on the node', { credentialUnset: true }, 'Node does not have any credentials set'],
];

describe('token endpoint (setup webhook), when n8n cannot hand the trigger its credential', () => {
	it.each(UNREADABLE_CREDENTIALS)(
		'credential %s: answers every token request 503 itself and logs n8n’s reason once',
		async (state, broken, reason) => {
			TRIGGER_LOG.length = 0;
			const setup: TriggerSetup = {
				...TEST_TRIGGER.setup,
				// Its own credential id: no earlier read of another state may be reused.
				credentialId: `callback-credential-${state}`,
				...broken,
				workflowId: `workflow-${state}`,
			};
			const requests: TriggerRequest[] = [
				// The marketplace, with the right client.
				{
					headers: {
						authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
						'content-type': FORM,
					},
					body: { grant_type: 'client_credentials' },
				},
				// A stranger whose client could be the credential's.
				{
					headers: {
						authorization: basic('some-client', 'a guess of sixteen or more'),
						'content-type': FORM,
					},
					body: { grant_type: 'client_credentials' },
				},
			];
			for (const request of requests) {
				const { result, response } = await requestToken(request, setup);
				expectUnavailable(result, response);
			}
			// An anonymous stranger is refused without a look at the credential: it learns nothing of its state.
			const anonymous = await requestToken(
				{ headers: { 'content-type': FORM }, body: { grant_type: 'client_credentials' } },
				setup,
			);
			expect(anonymous.response.status).toBe(401);
			expect(anonymous.response.json.error).toBe('invalid_client');
			expect(TRIGGER_LOG).toHaveLength(1);
			expect(TRIGGER_LOG[0]).toMatchObject({ level: 'warn' });
			expect(TRIGGER_LOG[0].message).toContain(reason);
			expect(TRIGGER_LOG[0].message).toContain('Token requests are answered 503');
		},
	);

	it('logs one line a minute per trigger and problem, so that strangers cannot flood the log', async () => {
		TRIGGER_LOG.length = 0;
		const setup: TriggerSetup = {
			...TEST_TRIGGER.setup,
			workflowId: 'workflow-log-interval',
			credentials: new Error('Credential with ID "x" does not exist'),
		};
		const anonymous = {
			headers: {
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
				'content-type': FORM,
			},
			body: { grant_type: 'client_credentials' },
		};
		const start = Date.now();
		const clock = jest.spyOn(Date, 'now');
		try {
			for (const offset of [0, 1_000, 59_999, 60_000, 60_001]) {
				clock.mockReturnValue(start + offset);
				const { response } = await requestToken(anonymous, setup);
				expect(response.status).toBe(503);
			}
		} finally {
			clock.mockRestore();
		}
		expect(TRIGGER_LOG).toHaveLength(2);
	});
});

describe('token endpoint (setup webhook), the spellings a client may use', () => {
	it('takes JSON null as absent for every optional parameter', async () => {
		const requests: TriggerRequest[] = [
			{
				headers: { 'content-type': JSON_TYPE },
				body: {
					grant_type: 'client_credentials',
					client_id: TEST_TRIGGER.clientId,
					client_secret: TEST_TRIGGER.clientSecret,
					scope: null,
				},
			},
			{
				headers: {
					authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
					'content-type': JSON_TYPE,
				},
				body: {
					grant_type: 'client_credentials',
					client_id: null,
					client_secret: null,
					scope: null,
				},
			},
			{
				headers: {
					authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
					'content-type': JSON_TYPE,
				},
				body: { grant_type: null },
				query: { grant_type: 'client_credentials' },
			},
		];
		for (const request of requests) {
			const { result, response } = await requestToken(request);
			expectTokenIssued(result, response);
		}
	});

	it('still refuses a null grant_type when nothing else gives one', async () => {
		const { result, response } = await requestToken({
			headers: {
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
				'content-type': JSON_TYPE,
			},
			body: { grant_type: null },
		});
		expectRefusal(result, response, 400, 'invalid_request');
		expect(response.json.error_description).toBe('grant_type is required');
	});

	it('issues a token to the names Subscribe registers (clientId, clientSecret, grantType) in a JSON or form body', async () => {
		const subscriptionNames = {
			clientId: TEST_TRIGGER.clientId,
			clientSecret: TEST_TRIGGER.clientSecret,
			grantType: 'client_credentials',
		};
		for (const contentType of [JSON_TYPE, FORM]) {
			const { result, response } = await requestToken({
				headers: { 'content-type': contentType },
				body: subscriptionNames,
			});
			expectTokenIssued(result, response);
		}
		const mixed = await requestToken({
			headers: { 'content-type': JSON_TYPE },
			body: {
				...subscriptionNames,
				client_id: TEST_TRIGGER.clientId,
				grant_type: 'client_credentials',
			},
		});
		expectTokenIssued(mixed.result, mixed.response);
		const withBasic = await requestToken({
			headers: {
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
				'content-type': JSON_TYPE,
			},
			body: { grantType: 'client_credentials', clientId: TEST_TRIGGER.clientId },
		});
		expectTokenIssued(withBasic.result, withBasic.response);
	});

	it.each([
		['clientId', { client_id: TEST_TRIGGER.clientId, clientId: 'someone-else' }],
		[
			'clientSecret',
			{ client_secret: TEST_TRIGGER.clientSecret, clientSecret: 'another-secret-0000' },
		],
		['grantType', { grant_type: 'client_credentials', grantType: 'password' }],
	])('refuses both spellings of %s with different values: invalid_request', async (name, pair) => {
		const body = {
			grant_type: 'client_credentials',
			client_id: TEST_TRIGGER.clientId,
			client_secret: TEST_TRIGGER.clientSecret,
			...pair,
		};
		const { result, response } = await requestToken({
			headers: { 'content-type': JSON_TYPE },
			body,
		});
		expectRefusal(result, response, 400, 'invalid_request');
		expect(response.json.error_description).toContain(name);
	});

	it('refuses the subscription names for client credentials in the URL too, and takes grantType there', async () => {
		const inUrl = await requestToken({
			headers: { 'content-type': FORM },
			body: { grant_type: 'client_credentials' },
			query: { clientId: TEST_TRIGGER.clientId, clientSecret: TEST_TRIGGER.clientSecret },
		});
		expectRefusal(inUrl.result, inUrl.response, 400, 'invalid_request');
		const grantInUrl = await requestToken({
			headers: {
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
				'content-type': JSON_TYPE,
			},
			body: {},
			query: { grantType: 'client_credentials' },
		});
		expectTokenIssued(grantInUrl.result, grantInUrl.response);
	});

	it('refuses a subscription name given a value that is not text, as it does the RFC name', async () => {
		const { result, response } = await requestToken({
			headers: { 'content-type': JSON_TYPE },
			body: { grantType: 'client_credentials', clientId: TEST_TRIGGER.clientId, clientSecret: 42 },
		});
		expectRefusal(result, response, 400, 'invalid_request');
	});
});

describe('token endpoint (setup webhook), strangers cost no read of the credential', () => {
	let sequence = 0;
	/** Each test its own credential: the trigger remembers reads per credential for a few seconds. */
	function freshSetup(): TriggerSetup {
		sequence += 1;
		return { ...TEST_TRIGGER.setup, credentialId: `callback-credential-strangers-${sequence}` };
	}
	const tokenRequest = (authorization: string | undefined): TriggerRequest => ({
		headers: { authorization, 'content-type': FORM },
		body: { grant_type: 'client_credentials' },
	});

	afterEach(() => jest.restoreAllMocks());

	it('refuses, without reading the credential, a client no usable credential can hold', async () => {
		const setup = freshSetup();
		for (const request of [
			tokenRequest(undefined),
			tokenRequest(basic(TEST_TRIGGER.clientId, 'short-secret')),
			tokenRequest(basic('', TEST_TRIGGER.clientSecret)),
			tokenRequest(basic(' marketplace-client', TEST_TRIGGER.clientSecret)),
			{
				headers: { 'content-type': FORM },
				body: { grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' },
			},
		]) {
			const { result, response, reads } = await runCountingReads(setup, 'setup', request);
			expectNoExecution(result, response);
			expect(response.status).toBe(401);
			expect(response.json.error).toBe('invalid_client');
			expect(reads).toBe(0);
		}
	});

	it('after a read, refuses another client without reading again until the reuse time has passed', async () => {
		const setup = freshSetup();
		const right = tokenRequest(basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret));
		const first = await runCountingReads(setup, 'setup', right);
		expectTokenIssued(first.result, first.response);
		expect(first.reads).toBe(1);
		const strangers = [
			basic('some-client', 'a guess of sixteen or more'),
			basic(TEST_TRIGGER.clientId, 'a guess of sixteen or more'),
			basic('some-client', TEST_TRIGGER.clientSecret),
		];
		for (const authorization of strangers) {
			const refused = await runCountingReads(setup, 'setup', tokenRequest(authorization));
			expect(refused.response.status).toBe(401);
			expect(refused.response.json.error).toBe('invalid_client');
			expect(refused.reads).toBe(0);
		}
		// The right client is still served from the credential as stored now.
		const again = await runCountingReads(setup, 'setup', right);
		expectTokenIssued(again.result, again.response);
		expect(again.reads).toBe(1);
		jest.spyOn(Date, 'now').mockReturnValue(Date.now() + CREDENTIAL_REUSE_MS + 1);
		const later = await runCountingReads(setup, 'setup', tokenRequest(strangers[0]));
		expect(later.response.status).toBe(401);
		expect(later.reads).toBe(1);
	});

	it("a stranger's well-formed client reads the credential once, then no more within the reuse time", async () => {
		const setup = freshSetup();
		const stranger = tokenRequest(basic('some-client', 'a guess of sixteen or more'));
		const reads: number[] = [];
		for (let attempt = 0; attempt < 3; attempt++) {
			const refused = await runCountingReads(setup, 'setup', stranger);
			expect(refused.response.status).toBe(401);
			reads.push(refused.reads);
		}
		expect(reads).toEqual([1, 0, 0]);
	});
});
