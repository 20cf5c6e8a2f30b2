import type { IWebhookResponseData } from 'n8n-workflow';

import {
	CREDENTIAL_REUSE_MS,
	issueAccessToken,
} from '../../../../nodes/TicketMarketplaceTrigger/accessToken';
import {
	expectNoExecution,
	RecordingResponse,
	runRecorded,
} from '../../../../support/fakeN8n/recordingResponse';
import {
	TEST_TRIGGER,
	TRIGGER_LOG,
	type TriggerRequest,
	type TriggerSetup,
} from '../../../../support/fakeN8n/triggerContext';

const subject = {
	audience: TEST_TRIGGER.webhookId,
	clientId: TEST_TRIGGER.clientId,
	clientSecret: TEST_TRIGGER.clientSecret,
};
const SALE = {
	eventType: 'listing_sale',
	listingId: 12345,
	sale: { quantity: 2, price: { amount: 50.5, currency: 'EUR' } },
};
const INVALID_TOKEN_CHALLENGE = /^Bearer realm="Ticket Marketplace Trigger", error="invalid_token"/;

/** The item a notification starts the workflow with: the body as sent, and the kind the trigger read beside it. */
function started(body: object) {
	return [[{ json: { ...body, notificationKind: expect.any(Object) } }]];
}

function now(): number {
	return Math.floor(Date.now() / 1000);
}

function validToken(): string {
	return issueAccessToken(subject, 3600, now());
}

async function notify(request: TriggerRequest, triggerSetup: TriggerSetup = TEST_TRIGGER.setup) {
	return await runRecorded(triggerSetup, 'default', request);
}

function jsonRequest(authorization: string | undefined, body: unknown = SALE): TriggerRequest {
	return { headers: { authorization, 'content-type': 'application/json' }, body };
}

function expectInvalidToken(
	result: IWebhookResponseData,
	response: RecordingResponse,
	description: string,
): void {
	expectNoExecution(result, response);
	expect(response.status).toBe(401);
	expect(response.headers['www-authenticate']).toMatch(INVALID_TOKEN_CHALLENGE);
	expect(response.json).toEqual({ error: 'invalid_token', error_description: description });
}

describe('notification endpoint (default webhook), refusals', () => {
	it('answers a request without Authorization with a bare Bearer challenge (RFC 6750 3.1: no error code)', async () => {
		const { result, response } = await notify(jsonRequest(undefined));
		expectNoExecution(result, response);
		expect(response.status).toBe(401);
		expect(response.headers['www-authenticate']).toBe('Bearer realm="Ticket Marketplace Trigger"');
	});

	it('treats another scheme (Basic) as no Bearer credentials', async () => {
		const basic = `Basic ${Buffer.from(`${TEST_TRIGGER.clientId}:${TEST_TRIGGER.clientSecret}`).toString('base64')}`;
		const { result, response } = await notify(jsonRequest(basic));
		expectNoExecution(result, response);
		expect(response.status).toBe(401);
		expect(response.headers['www-authenticate']).toBe('Bearer realm="Ticket Marketplace Trigger"');
	});

	it('refuses malformed Bearer headers with invalid_token', async () => {
		for (const authorization of [
			'Bearer',
			'Bearer ',
			'Bearer not-a-token',
			'Bearer tmt1.only-two',
			'Bearer a.b.c.d',
		]) {
			const { result, response } = await notify(jsonRequest(authorization));
			expectInvalidToken(result, response, 'The access token is invalid');
		}
	});

	it('refuses two Authorization headers with invalid_request, even when the first carries a valid token', async () => {
		const authorization = `Bearer ${validToken()}`;
		const { result, response } = await notify({
			// Node's parsed headers keep the first of the two; the raw headers show both.
			headers: { authorization, 'content-type': 'application/json' },
			rawHeaders: [
				'Authorization',
				authorization,
				'Content-Type',
				'application/json',
				'Authorization',
				'Bearer another',
			],
			body: SALE,
		});
		expectNoExecution(result, response);
		expect(response.status).toBe(400);
		expect(response.headers['www-authenticate']).toMatch(
			/^Bearer realm="Ticket Marketplace Trigger", error="invalid_request"/,
		);
		expect(response.json.error).toBe('invalid_request');
	});

	it('refuses a forged token (claims changed after signing) with invalid_token', async () => {
		const [version, , signature] = validToken().split('.');
		const forgedClaims = Buffer.from(
			JSON.stringify({
				aud: TEST_TRIGGER.webhookId,
				cid: TEST_TRIGGER.clientId,
				iat: now(),
				exp: now() + 10 ** 6,
			}),
		).toString('base64url');
		const { result, response } = await notify(
			jsonRequest(`Bearer ${version}.${forgedClaims}.${signature}`),
		);
		expectInvalidToken(result, response, 'The access token is invalid');
	});

	it('refuses a token whose signature was altered, including a non-canonical spelling of it', async () => {
		const token = validToken();
		// The second-to-last character carries six bits of the signature: another one is another signature.
		const flipped = token.slice(0, -2) + (token.at(-2) === 'A' ? 'B' : 'A') + token.slice(-1);
		for (const altered of [flipped, `${token}=`, `${token}!`]) {
			const { result, response } = await notify(jsonRequest(`Bearer ${altered}`));
			expectInvalidToken(result, response, 'The access token is invalid');
		}
	});

	it('refuses an expired token with invalid_token and says it expired', async () => {
		const issuedTwoHoursAgo = issueAccessToken(subject, 3600, now() - 7200);
		const { result, response } = await notify(jsonRequest(`Bearer ${issuedTwoHoursAgo}`));
		expectInvalidToken(result, response, 'The access token expired');
	});

	it('refuses a token signed with another client secret (the secret was changed: every token is revoked)', async () => {
		const oldSecretToken = issueAccessToken(
			{ ...subject, clientSecret: 'the previous secret, now replaced' },
			3600,
			now(),
		);
		const { result, response } = await notify(jsonRequest(`Bearer ${oldSecretToken}`));
		expectInvalidToken(result, response, 'The access token is invalid');
	});

	it('refuses a token issued by another trigger node (other webhook id) with the same credential', async () => {
		const otherNodeToken = issueAccessToken(
			{ ...subject, audience: 'another-webhook-id' },
			3600,
			now(),
		);
		const { result, response } = await notify(jsonRequest(`Bearer ${otherNodeToken}`));
		expectInvalidToken(result, response, 'The access token is invalid');
	});

	it('refuses a token issued to another client id when the credential has changed its id', async () => {
		const otherClientToken = issueAccessToken(
			{ ...subject, clientId: 'old-client-id' },
			3600,
			now(),
		);
		const { result, response } = await notify(jsonRequest(`Bearer ${otherClientToken}`));
		expectInvalidToken(result, response, 'The access token is invalid');
	});

	it('refuses with 400 a body that is not a JSON object: array, scalar, null, text, form', async () => {
		const authorization = `Bearer ${validToken()}`;
		const cases: TriggerRequest[] = [
			jsonRequest(authorization, [SALE]),
			jsonRequest(authorization, 42),
			jsonRequest(authorization, null),
			{ headers: { authorization, 'content-type': 'application/json' }, body: undefined },
			{ headers: { authorization, 'content-type': 'text/plain' }, body: JSON.stringify(SALE) },
			{
				headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
				body: { eventType: 'listing_sale' },
			},
			{ headers: { authorization }, body: SALE },
		];
		for (const request of cases) {
			const { result, response } = await notify(request);
			expectNoExecution(result, response);
			expect(response.status).toBe(400);
			expect(response.json.message).toBe('The notification body must be a JSON object');
		}
	});

	it('with Accepted Kinds set, answers 200 but starts nothing for another kind, and says so', async () => {
		const { result, response } = await notify(
			jsonRequest(`Bearer ${validToken()}`, { eventType: 'inventory_status', listingId: 1 }),
			{ ...TEST_TRIGGER.setup, parameters: { options: { acceptedKinds: 'listing_sale' } } },
		);
		expectNoExecution(result, response);
		expect(response.status).toBe(200);
		expect(response.json).toMatchObject({ received: true, started: false });
		expect(String((response.json as { message: string }).message)).toContain(
			'"inventory_status" (from eventType) is not among',
		);
	});

	it('refuses a token as invalid when the credential cannot be used (secret too short), and tells the owner in the log', async () => {
		const shortSecret = 'too-short';
		const token = issueAccessToken({ ...subject, clientSecret: shortSecret }, 3600, now());
		TRIGGER_LOG.length = 0;
		const { result, response } = await notify(jsonRequest(`Bearer ${token}`), {
			...TEST_TRIGGER.setup,
			workflowId: 'workflow-short-secret',
			credentialId: 'callback-credential-short-secret',
			credentials: { clientId: TEST_TRIGGER.clientId, clientSecret: shortSecret },
		});
		expectInvalidToken(result, response, 'The access token is invalid');
		expect(response.text).not.toContain(shortSecret);
		expect(TRIGGER_LOG).toEqual([
			{
				level: 'warn',
				message: expect.stringContaining('client secret must have at least 16 characters'),
				metadata: { workflowId: 'workflow-short-secret', nodeName: 'Ticket Marketplace Trigger' },
			},
		]);
		expect(TRIGGER_LOG[0].message).toContain('refused 401');
		expect(TRIGGER_LOG[0].message).not.toContain(shortSecret);
	});
});

describe('notification endpoint (default webhook), accepted notifications', () => {
	it.each([
		{ eventType: 'LISTING_SALE' },
		{ type: 'sale' },
		{ event: 'listing.sold' },
		{ kind: 'inventory_status' },
	])(
		'by default starts the workflow for every kind, never dropping a sale silently: %j',
		async (kindField) => {
			const body = { ...kindField, listingId: 7 };
			const { result } = await notify(jsonRequest(`Bearer ${validToken()}`, body));
			expect(result.workflowData).toEqual(started(body));
		},
	);

	it('compares Accepted Kinds without case', async () => {
		const body = { eventType: 'LISTING_SALE', listingId: 7 };
		const { result } = await notify(jsonRequest(`Bearer ${validToken()}`, body), {
			...TEST_TRIGGER.setup,
			parameters: { options: { acceptedKinds: 'listing_sale, Listing_Refund' } },
		});
		expect(result.workflowData).toEqual(started(body));
	});

	it('starts the workflow with the body unchanged as the item and answers 200 through n8n', async () => {
		const { result, response } = await notify(jsonRequest(`Bearer ${validToken()}`));
		expect(result).toEqual({
			workflowData: started(SALE),
			webhookResponse: { received: true },
		});
		// n8n writes the answer from webhookResponse; the node itself writes nothing.
		expect(response.writes).toBe(0);
	});

	it('accepts a notification that names no kind, and one whose `event` is an object, not a kind', async () => {
		for (const body of [{ listingId: 7 }, { event: { id: 99, name: 'Concert' }, listingId: 7 }]) {
			const { result } = await notify(jsonRequest(`Bearer ${validToken()}`, body));
			expect(result.workflowData).toEqual(started(body));
		}
	});

	it('reads the kind from any field that names one; fields that disagree leave it untold, so it starts', async () => {
		const saleOnly = {
			...TEST_TRIGGER.setup,
			parameters: { options: { acceptedKinds: 'listing_sale' } },
		};
		const accepted = await notify(
			jsonRequest(`Bearer ${validToken()}`, { type: 'listing_sale', id: 1 }),
			saleOnly,
		);
		expect(accepted.result.workflowData).toHaveLength(1);
		const disagreeing = { kind: 'other_kind', type: 'listing_sale' };
		const untold = await notify(jsonRequest(`Bearer ${validToken()}`, disagreeing), saleOnly);
		expect(untold.result.workflowData).toEqual([
			[
				{
					json: {
						...disagreeing,
						notificationKind: { kind: null, field: 'kind, type disagree', sale: null },
					},
				},
			],
		]);
	});

	it("with Accepted Kinds listing_sale, starts for a sale whose `event` is the live event's name", async () => {
		const saleOnly = {
			...TEST_TRIGGER.setup,
			parameters: { options: { acceptedKinds: 'listing_sale' } },
		};
		const sale = { type: 'listing_sale', event: 'Coldplay – Wembley', listingId: 7 };
		const { result } = await notify(jsonRequest(`Bearer ${validToken()}`, sale), saleOnly);
		expect(result.workflowData).toEqual([
			[
				{
					json: { ...sale, notificationKind: { kind: 'listing_sale', field: 'type', sale: true } },
				},
			],
		]);
		// A name alone tells no kind: the sale starts the workflow rather than being dropped for good.
		for (const body of [
			{ event: 'Coldplay – Wembley', listingId: 7 },
			{ event: 'Adele', listingId: 7 },
			{ type: 'Concert', listingId: 7 },
		]) {
			const named = await notify(jsonRequest(`Bearer ${validToken()}`, body), saleOnly);
			expect(named.result.workflowData).toEqual([
				[{ json: { ...body, notificationKind: { kind: null, field: null, sale: null } } }],
			]);
		}
	});

	describe('the newer sales webhooks: kind in topic and action', () => {
		const saleOnly = {
			...TEST_TRIGGER.setup,
			parameters: { options: { acceptedKinds: 'listing_sale' } },
		};
		const embedded = { sale: { id: 'S-1' }, seller_listing: { id: 42 } };

		it.each(['provisional', 'cancelled', 'canceled'])(
			'a sale-only trigger does not start for topic sale, action %s, and says which kind from which field',
			async (action) => {
				const body = { topic: 'sale', action, _embedded: embedded };
				const { result, response } = await notify(
					jsonRequest(`Bearer ${validToken()}`, body),
					saleOnly,
				);
				expectNoExecution(result, response);
				expect(response.status).toBe(200);
				expect(String((response.json as { message: string }).message)).toContain(
					`"sale.${action}" (from topic + action) is not among`,
				);
			},
		);

		it.each(['created', 'CONFIRMED', 'completed'])(
			'a sale-only trigger starts for topic sale, action %s, and the item names the kind and its field',
			async (action) => {
				const body = { topic: 'sale', action, _embedded: embedded };
				const { result } = await notify(jsonRequest(`Bearer ${validToken()}`, body), saleOnly);
				expect(result.workflowData).toEqual([
					[
						{
							json: {
								...body,
								notificationKind: { kind: `sale.${action}`, field: 'topic + action', sale: true },
							},
						},
					],
				]);
			},
		);

		it('starts when topic and action tell no kind (a name, a number), rather than dropping a sale on a guess', async () => {
			for (const body of [
				{ topic: 'Sale Update', action: 'created', _embedded: embedded },
				{ topic: 7, action: 'provisional', _embedded: embedded },
				{ action: 'provisional', _embedded: embedded },
			]) {
				const { result } = await notify(jsonRequest(`Bearer ${validToken()}`, body), saleOnly);
				expect(result.workflowData).toHaveLength(1);
			}
		});
	});

	it('accepts every kind when Accepted Kinds is empty, and any listed kind', async () => {
		const other = { eventType: 'inventory_status', listingId: 1 };
		const all = await notify(jsonRequest(`Bearer ${validToken()}`, other), {
			...TEST_TRIGGER.setup,
			parameters: { options: { acceptedKinds: '' } },
		});
		expect(all.result.workflowData).toEqual(started(other));
		const listed = await notify(jsonRequest(`Bearer ${validToken()}`, other), {
			...TEST_TRIGGER.setup,
			parameters: { options: { acceptedKinds: 'listing_sale, inventory_status' } },
		});
		expect(listed.result.workflowData).toEqual(started(other));
	});

	it('accepts a Bearer scheme written in any case and a JSON content type with a charset', async () => {
		const { result } = await notify({
			headers: {
				authorization: `bearer ${validToken()}`,
				'content-type': 'application/json; charset=utf-8',
			},
			body: SALE,
		});
		expect(result.workflowData).toEqual(started(SALE));
	});

	it('includes request headers without Authorization when asked', async () => {
		const token = validToken();
		const { result } = await notify(
			{
				headers: {
					authorization: `Bearer ${token}`,
					'content-type': 'application/json',
					'x-request-id': 'abc-123',
				},
				body: SALE,
			},
			{ ...TEST_TRIGGER.setup, parameters: { options: { includeHeaders: true } } },
		);
		expect(result.workflowData).toEqual([
			[
				{
					json: {
						headers: { 'content-type': 'application/json', 'x-request-id': 'abc-123' },
						body: SALE,
						notificationKind: { kind: 'listing_sale', field: 'eventType', sale: true },
					},
				},
			],
		]);
		expect(JSON.stringify(result)).not.toContain(token);
	});

	it('works for a node without a webhook id (URLs then use the workflow id and node name)', async () => {
		const audience = 'workflow-9/Ticket Marketplace Trigger';
		const token = issueAccessToken({ ...subject, audience }, 3600, now());
		const response = new RecordingResponse();
		const { createTriggerContext } = await import('../../../../support/fakeN8n/triggerContext');
		const context = createTriggerContext(
			{ ...TEST_TRIGGER.setup, workflowId: 'workflow-9' },
			'default',
			jsonRequest(`Bearer ${token}`),
			response,
		);
		// Drop the webhook id the helper sets, as for a node saved before n8n gave nodes one.
		(context as unknown as { node: { webhookId?: string } }).node.webhookId = undefined;
		const { TicketMarketplaceTrigger } = await import(
			'../../../../nodes/TicketMarketplaceTrigger/TicketMarketplaceTrigger.node'
		);
		const result = await new TicketMarketplaceTrigger().webhook.call(context);
		expect(result.workflowData).toEqual(started(SALE));
	});
});

describe('notification endpoint (default webhook), reading the callback credential', () => {
	/** Each test its own credential id: the node remembers reads per credential for the whole process. */
	let credentialSequence = 0;

	async function notifyCounting(
		request: TriggerRequest,
		credentialId: string,
		credentials: TriggerSetup['credentials'] = TEST_TRIGGER.setup.credentials,
	) {
		const response = new RecordingResponse();
		const { createTriggerContext } = await import('../../../../support/fakeN8n/triggerContext');
		const context = createTriggerContext(
			{ ...TEST_TRIGGER.setup, credentials },
			'default',
			request,
			response,
		);
		const internals = context as unknown as {
			node: { credentials: Record<string, { id: string }> };
			additionalData: { credentialsHelper: { getDecrypted: () => Promise<unknown> } };
		};
		internals.node.credentials.ticketMarketplaceCallbackApi.id = credentialId;
		let reads = 0;
		const helper = internals.additionalData.credentialsHelper;
		const getDecrypted = helper.getDecrypted.bind(helper);
		helper.getDecrypted = async () => {
			reads += 1;
			return await getDecrypted();
		};
		const { TicketMarketplaceTrigger } = await import(
			'../../../../nodes/TicketMarketplaceTrigger/TicketMarketplaceTrigger.node'
		);
		const result = await new TicketMarketplaceTrigger().webhook.call(context);
		return { result, response, reads };
	}

	function nextCredentialId(): string {
		credentialSequence += 1;
		return `callback-credential-reads-${credentialSequence}`;
	}

	afterEach(() => jest.restoreAllMocks());

	it('reads the credential once for notifications that follow one another within the reuse time (n8n 2.41 starts a sandbox per read)', async () => {
		const credentialId = nextCredentialId();
		const token = validToken();
		const first = await notifyCounting(jsonRequest(`Bearer ${token}`), credentialId);
		const second = await notifyCounting(jsonRequest(`Bearer ${token}`), credentialId);
		expect(first.result.workflowData).toEqual(started(SALE));
		expect(second.result.workflowData).toEqual(started(SALE));
		expect([first.reads, second.reads]).toEqual([1, 0]);
	});

	it('reuses the read for sales that come seconds apart, not only within one burst', async () => {
		const credentialId = nextCredentialId();
		const token = validToken();
		await notifyCounting(jsonRequest(`Bearer ${token}`), credentialId);
		const readAt = Date.now();
		jest.spyOn(Date, 'now').mockReturnValue(readAt + 5_000);
		const later = await notifyCounting(jsonRequest(`Bearer ${token}`), credentialId);
		expect(later.result.workflowData).toEqual(started(SALE));
		expect(later.reads).toBe(0);
	});

	it('decides every refusal on the credential as stored now, even right after an accepted notification', async () => {
		const credentialId = nextCredentialId();
		await notifyCounting(jsonRequest(`Bearer ${validToken()}`), credentialId);
		const oldSecretToken = issueAccessToken(
			{ ...subject, clientSecret: 'the previous secret, now replaced' },
			3600,
			now(),
		);
		const {
			result: oldResult,
			response: oldResponse,
			reads: oldReads,
		} = await notifyCounting(jsonRequest(`Bearer ${oldSecretToken}`), credentialId);
		expectInvalidToken(oldResult, oldResponse, 'The access token is invalid');
		expect(oldReads).toBe(1);
		// A credential that became unusable is seen by the next refusal, not hidden by the earlier read.
		const shortSecret = 'too-short';
		const { result, response } = await notifyCounting(
			jsonRequest(
				`Bearer ${issueAccessToken({ ...subject, clientSecret: shortSecret }, 3600, now())}`,
			),
			credentialId,
			{ clientId: TEST_TRIGGER.clientId, clientSecret: shortSecret },
		);
		expectInvalidToken(result, response, 'The access token is invalid');
	});

	it("refuses a token that cannot be ours without reading the credential: not our format, another trigger's, expired", async () => {
		const credentialId = nextCredentialId();
		const cases: Array<[string, string]> = [
			['Bearer x', 'The access token is invalid'],
			['Bearer not-a-token', 'The access token is invalid'],
			['Bearer tmt1.e30.c2ln', 'The access token is invalid'],
			[
				`Bearer ${issueAccessToken({ ...subject, audience: 'another-webhook-id' }, 3600, now())}`,
				'The access token is invalid',
			],
			[`Bearer ${issueAccessToken(subject, 3600, now() - 7200)}`, 'The access token expired'],
		];
		for (const [authorization, description] of cases) {
			const { result, response, reads } = await notifyCounting(
				jsonRequest(authorization),
				credentialId,
			);
			expectInvalidToken(result, response, description);
			expect(reads).toBe(0);
		}
	});

	it('accepts a token signed with a new client secret right after the secret changed', async () => {
		const credentialId = nextCredentialId();
		await notifyCounting(jsonRequest(`Bearer ${validToken()}`), credentialId);
		const newSecret = 'a brand new callback client secret';
		const newToken = issueAccessToken({ ...subject, clientSecret: newSecret }, 3600, now());
		const { result, reads } = await notifyCounting(
			jsonRequest(`Bearer ${newToken}`),
			credentialId,
			{ clientId: TEST_TRIGGER.clientId, clientSecret: newSecret },
		);
		expect(result.workflowData).toEqual(started(SALE));
		expect(reads).toBe(1);
	});

	it('refuses a token of the replaced secret once the reuse time has passed since the credential was read', async () => {
		const credentialId = nextCredentialId();
		const oldToken = validToken();
		await notifyCounting(jsonRequest(`Bearer ${oldToken}`), credentialId);
		const readAt = Date.now();
		jest.spyOn(Date, 'now').mockReturnValue(readAt + CREDENTIAL_REUSE_MS + 1);
		const { result, response, reads } = await notifyCounting(
			jsonRequest(`Bearer ${oldToken}`),
			credentialId,
			{ clientId: TEST_TRIGGER.clientId, clientSecret: 'a brand new callback client secret' },
		);
		expectInvalidToken(result, response, 'The access token is invalid');
		expect(reads).toBe(1);
	});

	it('a credential that became unreadable: a token is accepted only within the reuse time of the last read, then refused 401', async () => {
		const credentialId = nextCredentialId();
		const token = validToken();
		await notifyCounting(jsonRequest(`Bearer ${token}`), credentialId);
		const readAt = Date.now();
		const deleted = new Error('Credential with ID "x" does not exist');
		const within = await notifyCounting(jsonRequest(`Bearer ${token}`), credentialId, deleted);
		expect(within.result.workflowData).toEqual(started(SALE));
		jest.spyOn(Date, 'now').mockReturnValue(readAt + CREDENTIAL_REUSE_MS + 1);
		const after = await notifyCounting(jsonRequest(`Bearer ${token}`), credentialId, deleted);
		expectInvalidToken(after.result, after.response, 'The access token is invalid');
		expect(after.reads).toBe(1);
	});

	it('a token keeps the lifetime it was issued with: lowering Token Lifetime does not shorten it', async () => {
		const issuedForADay = issueAccessToken(subject, 86_400, now() - 7_200);
		const { result } = await notify(jsonRequest(`Bearer ${issuedForADay}`), {
			...TEST_TRIGGER.setup,
			parameters: { options: { tokenLifetime: 60 } },
		});
		expect(result.workflowData).toEqual(started(SALE));
	});

	it.each([0, 5])(
		'reuses no read for a credential id that is not text (%j): a replaced secret refuses at once',
		async (odd) => {
			const credentialId = odd as unknown as string;
			const oldToken = validToken();
			const first = await notifyCounting(jsonRequest(`Bearer ${oldToken}`), credentialId);
			const { result, response, reads } = await notifyCounting(
				jsonRequest(`Bearer ${oldToken}`),
				credentialId,
				{ clientId: TEST_TRIGGER.clientId, clientSecret: 'a brand new callback client secret' },
			);
			expect(first.result.workflowData).toEqual(started(SALE));
			expectInvalidToken(result, response, 'The access token is invalid');
			expect(reads).toBe(1);
		},
	);

	it('does not reuse a read across credentials: another credential id is read on its own', async () => {
		const token = validToken();
		await notifyCounting(jsonRequest(`Bearer ${token}`), nextCredentialId());
		const other = await notifyCounting(jsonRequest(`Bearer ${token}`), nextCredentialId());
		expect(other.result.workflowData).toEqual(started(SALE));
		expect(other.reads).toBe(1);
	});
});

describe('notification endpoint (default webhook), when the trigger’s configuration cannot be used', () => {
	it.each([
		['deleted', new Error('Credential with ID "callback-credential" does not exist')],
		[
			'not decryptable',
			new Error(
				'Credentials could not be decrypted. The likely reason is that a different "encryptionKey" was used to encrypt the data.',
			),
		],
	])(
		'credential %s: refuses every Bearer token 401 invalid_token itself, and logs why',
		async (state, thrown) => {
			TRIGGER_LOG.length = 0;
			const setup: TriggerSetup = {
				...TEST_TRIGGER.setup,
				workflowId: `workflow-notify-${state}`,
				// Its own id: no earlier read of the same credential may be reused.
				credentialId: `callback-credential-${state}`,
				credentials: thrown,
			};
			for (const authorization of ['Bearer x', `Bearer ${validToken()}`]) {
				const { result, response } = await notify(jsonRequest(authorization), setup);
				expectInvalidToken(result, response, 'The access token is invalid');
			}
			expect(TRIGGER_LOG).toHaveLength(1);
			expect(TRIGGER_LOG[0].message).toContain(thrown.message.split('.')[0]);
			expect(TRIGGER_LOG[0].message).toContain('refused 401');
		},
	);

	it('credential not set on the node: refuses a Bearer token 401 itself', async () => {
		const { result, response } = await notify(jsonRequest('Bearer x'), {
			...TEST_TRIGGER.setup,
			workflowId: 'workflow-notify-unset',
			credentialUnset: true,
		});
		expectInvalidToken(result, response, 'The access token is invalid');
	});

	it.each([
		[
			'Accepted Kinds that is not text',
			{ acceptedKinds: '={{ 7 }}' },
			'Accepted Kinds must be text',
		],
		['Accepted Kinds whose expression fails', { acceptedKinds: '={{ $nothing.here }}' }, ''],
		[
			'Include Request Headers that is not true or false',
			{ includeHeaders: '={{ "yes" }}' },
			'Include Request Headers must be true or false',
		],
	])(
		'%s: a valid notification is answered 503 and starts nothing; one without a token is refused 401',
		async (name, options, reason) => {
			TRIGGER_LOG.length = 0;
			const setup: TriggerSetup = {
				...TEST_TRIGGER.setup,
				workflowId: `workflow-options-${name}`,
				parameters: { options },
			};
			const valid = await notify(jsonRequest(`Bearer ${validToken()}`), setup);
			expectNoExecution(valid.result, valid.response);
			expect(valid.response.status).toBe(503);
			expect(valid.response.json).toEqual({
				message: 'The trigger cannot take notifications now; send it again later',
			});
			const anonymous = await notify(jsonRequest(undefined), setup);
			expectNoExecution(anonymous.result, anonymous.response);
			expect(anonymous.response.status).toBe(401);
			expect(TRIGGER_LOG).toHaveLength(1);
			expect(TRIGGER_LOG[0].message).toContain(reason);
			expect(TRIGGER_LOG[0].message).toContain('answered 503');
		},
	);
});
