/**
 * Generated (fast-check) over the states of the trigger's world: every state of its callback credential (as
 * issued, rotated, renamed, deleted, not shared, not decryptable, not set, holding values it cannot use), every
 * option set by an expression (right, wrong type, out of range, failing to evaluate), and every kind of request
 * that reaches the node (token requests in each spelling, notifications without, with a bad or with a valid token,
 * bodies of each shape). The invariants: webhook() never throws; a request is answered exactly once, by the node or
 * (for a started execution) by n8n; an execution starts only for a notification carrying a token the trigger issued
 * under the credential as stored now; a token is issued only to the stored client, with the lifetime asked; no
 * secret reaches an answer or the log. Seeded and bounded; prints its counts.
 */
import fc from 'fast-check';
import type { IDataObject, INodeParameters, WebhookType } from 'n8n-workflow';

import {
	issueAccessToken,
	verifyAccessToken,
} from '../../../../nodes/TicketMarketplaceTrigger/accessToken';
import { TicketMarketplaceTrigger } from '../../../../nodes/TicketMarketplaceTrigger/TicketMarketplaceTrigger.node';
import { RecordingResponse } from '../../../../support/fakeN8n/recordingResponse';
import {
	createTriggerContext,
	TEST_TRIGGER,
	TRIGGER_LOG,
	type TriggerRequest,
	type TriggerSetup,
} from '../../../../support/fakeN8n/triggerContext';

const SEED = 38_2026;
const RUNS = 1000;
const trigger = new TicketMarketplaceTrigger();
const ISSUED = { clientId: TEST_TRIGGER.clientId, clientSecret: TEST_TRIGGER.clientSecret };
const ROTATED_SECRET = 'a rotated callback client secret';

// ---- the credential ---------------------------------------------------------------------------------------------
type CredentialState =
	| 'as issued'
	| 'secret rotated'
	| 'client id renamed'
	| 'deleted'
	| 'not shared'
	| 'not decryptable'
	| 'not set'
	| 'secret too short'
	| 'client id empty'
	| 'values not text';

/** The stored client, for the states where the trigger can use one. */
function storedClient(state: CredentialState): typeof ISSUED | undefined {
	if (state === 'as issued') return ISSUED;
	if (state === 'secret rotated') return { ...ISSUED, clientSecret: ROTATED_SECRET };
	if (state === 'client id renamed') return { ...ISSUED, clientId: 'renamed-client' };
	return undefined;
}

function credentialSetup(state: CredentialState): Partial<TriggerSetup> {
	const stored = storedClient(state);
	if (stored !== undefined) return { credentials: { ...stored } };
	switch (state) {
		case 'deleted':
			return { credentials: new Error('Credential with ID "x" does not exist for type "y".') };
		case 'not shared':
			return { credentials: new Error('Credential is not accessible to this workflow') };
		case 'not decryptable':
			return { credentials: new Error('Credentials could not be decrypted.') };
		case 'not set':
			return { credentialUnset: true };
		case 'secret too short':
			return { credentials: { clientId: ISSUED.clientId, clientSecret: 'short-secret' } };
		case 'client id empty':
			return { credentials: { clientId: '', clientSecret: ISSUED.clientSecret } };
		default:
			return { credentials: { clientId: 42, clientSecret: { value: ISSUED.clientSecret } } };
	}
}

const credentialStates = fc.oneof(
	{ arbitrary: fc.constant<CredentialState>('as issued'), weight: 8 },
	fc.constantFrom<CredentialState>(
		'as issued',
		'secret rotated',
		'client id renamed',
		'deleted',
		'not shared',
		'not decryptable',
		'not set',
		'secret too short',
		'client id empty',
		'values not text',
	),
);

// ---- the options, as saved or as an expression gives them -------------------------------------------------------
const FAILING_EXPRESSIONS = ['={{ $nothing.here }}', '={{ $json.missing.deeper }}', '={{ (( }}'];
const wrongValues = fc.constantFrom<unknown>(null, {}, [], true, 'text', '', 0.5, -1, Number.NaN);
const lifetimes = fc.oneof(
	{ arbitrary: fc.integer({ min: 60, max: 86_400 }), weight: 8 },
	fc.integer({ min: -10, max: 59 }),
	fc.integer({ min: 86_401, max: 10 ** 7 }),
	fc.double({ min: 60.1, max: 86_399.9, noNaN: true }),
	wrongValues,
	fc.integer({ min: 0, max: 100_000 }).map((seconds) => `={{ ${seconds} }}`),
	fc.constantFrom(...FAILING_EXPRESSIONS, '={{ "3600" }}', '={{ null }}'),
);
const acceptedKinds = fc.oneof(
	{
		arbitrary: fc.constantFrom('', 'listing_sale', 'listing_sale, other_kind', 'other_kind'),
		weight: 8,
	},
	wrongValues,
	fc.constantFrom(...FAILING_EXPRESSIONS, '={{ "listing_sale" }}', '={{ 7 }}', '={{ ["a"] }}'),
);
const includeHeaders = fc.oneof(
	{ arbitrary: fc.boolean(), weight: 8 },
	wrongValues,
	fc.constantFrom(...FAILING_EXPRESSIONS, '={{ true }}', '={{ "yes" }}', '={{ 1 }}'),
);
const optionSets = fc.record(
	{ tokenLifetime: lifetimes, acceptedKinds, includeHeaders },
	{ requiredKeys: [] },
) as fc.Arbitrary<IDataObject>;

function isValidLifetime(value: unknown): value is number {
	return typeof value === 'number' && Number.isInteger(value) && value >= 60 && value <= 86_400;
}

/** The lifetime the trigger must issue tokens with, or undefined when it must issue none. */
function askedLifetime(options: IDataObject): number | undefined {
	if (!('tokenLifetime' in options)) return 3600;
	const value = options.tokenLifetime;
	if (typeof value === 'string') {
		const literal = /^=\{\{ (\d+) \}\}$/.exec(value);
		return literal !== null && isValidLifetime(Number(literal[1])) ? Number(literal[1]) : undefined;
	}
	return isValidLifetime(value) ? value : undefined;
}

/** Whether the notification options read as the owner meant them, or as a problem to log (undefined: either). */
function notificationOptionsReadable(options: IDataObject): boolean | undefined {
	const kinds: unknown = options.acceptedKinds;
	const headers: unknown = options.includeHeaders;
	const kindsOk =
		kinds === undefined ||
		(typeof kinds === 'string' && (!kinds.startsWith('=') || kinds === '={{ "listing_sale" }}'));
	const headersOk =
		headers === undefined || typeof headers === 'boolean' || headers === '={{ true }}';
	const kindsBroken =
		(typeof kinds !== 'string' && kinds !== undefined && kinds !== null) ||
		(typeof kinds === 'string' && kinds.startsWith('=') && !kindsOk);
	const headersBroken =
		(typeof headers !== 'boolean' && headers !== undefined && headers !== null && !headersOk) ||
		FAILING_EXPRESSIONS.includes(String(headers));
	if (kindsOk && headersOk) return true;
	if (kindsBroken || headersBroken) return false;
	return undefined;
}

// ---- the requests -----------------------------------------------------------------------------------------------
type Client = 'issued' | 'stored' | 'wrong secret' | 'none';
type Spelling = 'basic form' | 'basic json' | 'form body' | 'json body' | 'json subscription names';
type TokenKind =
	| 'none'
	| 'not ours'
	| 'valid'
	| 'other trigger'
	| 'expired'
	| 'issued before rotation';

interface TokenRequestCase {
	endpoint: 'setup';
	spelling: Spelling;
	client: Client;
	grant: string | null | undefined;
	scope: string | null | undefined;
}
interface NotificationCase {
	endpoint: 'default';
	token: TokenKind;
	body: unknown;
}
type RequestCase = TokenRequestCase | NotificationCase;

const tokenRequests: fc.Arbitrary<RequestCase> = fc.record({
	endpoint: fc.constant('setup' as const),
	spelling: fc.constantFrom<Spelling>(
		'basic form',
		'basic json',
		'form body',
		'json body',
		'json subscription names',
	),
	client: fc.constantFrom<Client>('issued', 'issued', 'stored', 'wrong secret', 'none'),
	grant: fc.oneof(
		{ arbitrary: fc.constant('client_credentials'), weight: 6 },
		fc.constantFrom('password', '', null, undefined),
	),
	scope: fc.constantFrom('listing', null, undefined),
});
const notifications: fc.Arbitrary<RequestCase> = fc.record({
	endpoint: fc.constant('default' as const),
	token: fc.constantFrom<TokenKind>(
		'valid',
		'valid',
		'none',
		'not ours',
		'valid',
		'other trigger',
		'expired',
		'issued before rotation',
	),
	body: fc.oneof(
		fc.constant({ eventType: 'listing_sale', listingId: 7 }),
		fc.constant({ eventType: 'other_kind', listingId: 7 }),
		fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 4 }),
		fc.constantFrom<unknown>([], null, 'text', 42),
	),
});

function basic(id: string, secret: string): string {
	return `Basic ${Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')}`;
}

function presentedClient(client: Client, stored: typeof ISSUED | undefined) {
	if (client === 'none') return undefined;
	if (client === 'wrong secret') return { ...ISSUED, clientSecret: 'not the secret at all!' };
	return client === 'stored' && stored !== undefined ? stored : ISSUED;
}

function tokenHttpRequest(
	request: TokenRequestCase,
	stored: typeof ISSUED | undefined,
): TriggerRequest {
	const client = presentedClient(request.client, stored);
	const extra: IDataObject = {};
	if (request.scope !== undefined) extra.scope = request.scope;
	const grantName = request.spelling === 'json subscription names' ? 'grantType' : 'grant_type';
	if (request.grant !== undefined) extra[grantName] = request.grant;
	const json = request.spelling !== 'basic form' && request.spelling !== 'form body';
	const contentType = json ? 'application/json' : 'application/x-www-form-urlencoded';
	if (request.spelling.startsWith('basic')) {
		return {
			headers: {
				'content-type': contentType,
				authorization: client && basic(client.clientId, client.clientSecret),
			},
			body: extra,
		};
	}
	const [idName, secretName] =
		request.spelling === 'json subscription names'
			? ['clientId', 'clientSecret']
			: ['client_id', 'client_secret'];
	const body: IDataObject = { ...extra };
	if (client !== undefined) {
		body[idName] = client.clientId;
		body[secretName] = client.clientSecret;
	}
	return { headers: { 'content-type': contentType }, body };
}

function notificationHttpRequest(request: NotificationCase): TriggerRequest {
	const now = Math.floor(Date.now() / 1000);
	const issued = { audience: TEST_TRIGGER.webhookId, ...ISSUED };
	const tokens: Record<TokenKind, string | undefined> = {
		none: undefined,
		'not ours': 'x',
		valid: issueAccessToken(issued, 3600, now),
		'other trigger': issueAccessToken({ ...issued, audience: 'another-trigger' }, 3600, now),
		expired: issueAccessToken(issued, 60, now - 120),
		'issued before rotation': issueAccessToken(
			{ ...issued, clientSecret: 'the secret before' },
			3600,
			now,
		),
	};
	const token = tokens[request.token];
	return {
		headers: {
			'content-type': 'application/json',
			authorization: token === undefined ? undefined : `Bearer ${token}`,
		},
		body: request.body,
	};
}

// ---- one run ----------------------------------------------------------------------------------------------------
let runNumber = 0;
const counts = new Map<string, number>();

async function runCase(state: CredentialState, options: IDataObject, request: RequestCase) {
	runNumber += 1;
	const stored = storedClient(state);
	const httpRequest =
		request.endpoint === 'setup'
			? tokenHttpRequest(request, stored)
			: notificationHttpRequest(request);
	const setup: TriggerSetup = {
		...TEST_TRIGGER.setup,
		...credentialSetup(state),
		workflowId: `workflow-fuzz-${runNumber}`,
		// Each run its own credential, so that no read of an earlier run is reused (a reuse is its own test).
		credentialId: `callback-credential-fuzz-${runNumber}`,
		parameters: { options } as INodeParameters,
	};
	const response = new RecordingResponse();
	const context = createTriggerContext(
		setup,
		request.endpoint as WebhookType,
		httpRequest,
		response,
	);
	// Each run its own credential, so that no read of an earlier run is reused (a reuse is its own test).
	const node = (context as unknown as { node: { credentials?: Record<string, { id: string }> } })
		.node;
	if (node.credentials !== undefined)
		node.credentials.ticketMarketplaceCallbackApi.id = `callback-credential-fuzz-${runNumber}`;
	const logStart = TRIGGER_LOG.length;
	const result = await trigger.webhook.call(context);
	const logLines = TRIGGER_LOG.slice(logStart);
	return { result, response, logLines, stored };
}

describe('the trigger in every state of its configuration (generated)', () => {
	afterAll(() => {
		process.stdout.write(
			`trigger configuration fuzz (seed ${SEED}, ${RUNS} runs): ${[...counts]
				.sort()
				.map(([key, count]) => `${key}: ${count}`)
				.join(', ')}\n`,
		);
	});

	it('never throws, answers once, starts only for its own tokens, issues only to the stored client, leaks no secret', async () => {
		await fc.assert(
			fc.asyncProperty(
				credentialStates,
				optionSets,
				fc.oneof(tokenRequests, notifications),
				async (state, options, request) => {
					const { result, response, logLines, stored } = await runCase(state, options, request);
					const started = result.workflowData !== undefined;
					const key = `${request.endpoint} ${started ? 'started' : String(response.status)}`;
					counts.set(key, (counts.get(key) ?? 0) + 1);

					// Answered exactly once: by the node, or by n8n from webhookResponse for a started execution.
					if (started) {
						expect(response.writes).toBe(0);
						expect(result.webhookResponse).toEqual({ received: true });
					} else {
						expect(result).toEqual({ noWebhookResponse: true });
						expect(response.writes).toBe(1);
					}
					// Never the node's last resort: every state here is one the endpoints answer on purpose.
					expect(response.status).not.toBe(500);

					const secrets = [ISSUED.clientSecret, ROTATED_SECRET, 'short-secret'];
					for (const line of logLines) {
						expect(line.level).toBe('warn');
						for (const secret of secrets) expect(line.message).not.toContain(secret);
					}
					for (const secret of secrets) expect(response.text ?? '').not.toContain(secret);

					if (request.endpoint === 'default') {
						// An execution only for the token the trigger issued, under the credential as stored now.
						if (started) {
							expect(request.token).toBe('valid');
							expect(state).toBe('as issued');
						}
						if (request.token === 'none') expect(response.status).toBe(401);
						// And a notification with its own token is served: started, filtered out (200), or 503 when
						// an option cannot be read.
						const body = request.body;
						const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
						if (request.token === 'valid' && state === 'as issued' && isObject) {
							const readable = notificationOptionsReadable(options);
							if (readable === true) expect(started || response.status === 200).toBe(true);
							if (readable === false) expect(response.status).toBe(503);
						}
						if (request.token !== 'valid' || stored === undefined || state !== 'as issued')
							expect(started).toBe(false);
						if (!started) expect([200, 400, 401, 503]).toContain(response.status);
						// 200 without a start only for a kind the owner filtered out.
						if (!started && response.status === 200)
							expect(response.json).toMatchObject({ started: false });
						return;
					}

					expect(started).toBe(false);
					expect([200, 400, 401, 503]).toContain(response.status);
					// The stored client, asking rightly, with a usable lifetime, gets its token whatever else is set.
					const rightClient =
						stored !== undefined &&
						JSON.stringify(presentedClient(request.client, stored)) === JSON.stringify(stored);
					if (
						rightClient &&
						request.grant === 'client_credentials' &&
						askedLifetime(options) !== undefined
					)
						expect(response.status).toBe(200);
					if (response.status !== 200) {
						expect(response.json).not.toHaveProperty('access_token');
						return;
					}
					// A token only to the client as stored now, with the lifetime the options ask for.
					expect(stored).toBeDefined();
					const lifetime = askedLifetime(options);
					expect(lifetime).toBeDefined();
					const presented = presentedClient(request.client, stored);
					expect(presented).toEqual(stored);
					expect(response.json.expires_in).toBe(lifetime);
					const check = verifyAccessToken(
						response.json.access_token as string,
						{ audience: TEST_TRIGGER.webhookId, ...(stored as typeof ISSUED) },
						Math.floor(Date.now() / 1000),
					);
					expect(check.valid).toBe(true);
				},
			),
			{ numRuns: RUNS, seed: SEED },
		);
		// The generation reached every kind of answer.
		for (const key of [
			'setup 200',
			'setup 401',
			'setup 503',
			'default started',
			'default 401',
			'default 503',
		])
			expect(counts.get(key) ?? 0).toBeGreaterThan(0);
	});

	it('a state that cannot issue tokens is always answered 503 to a well-formed token request from the stored client', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom<CredentialState>(
					'deleted',
					'not shared',
					'not decryptable',
					'not set',
					'secret too short',
					'client id empty',
					'values not text',
				),
				fc.constantFrom<Spelling>('basic form', 'json body', 'json subscription names'),
				async (state, spelling) => {
					const { result, response } = await runCase(
						state,
						{},
						{
							endpoint: 'setup',
							spelling,
							client: 'issued',
							grant: 'client_credentials',
							scope: undefined,
						},
					);
					expect(result).toEqual({ noWebhookResponse: true });
					expect(response.status).toBe(503);
					expect(response.json.error).toBe('temporarily_unavailable');
				},
			),
			{ numRuns: 40, seed: SEED },
		);
	});
});
