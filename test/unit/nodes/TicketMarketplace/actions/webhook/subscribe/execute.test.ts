import nock from 'nock';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import {
	execute,
	NEXT_STEP_WITHOUT_ID,
} from '../../../../../../../nodes/TicketMarketplace/actions/webhook/subscribe/execute';
import { description } from '../../../../../../../nodes/TicketMarketplace/actions/webhook/Webhook.resource';
import { readCallbackClient } from '../../../../../../../nodes/shared/callbackCredential';
import type { ParameterValue } from '../../../../../../../support/fakeN8n/actionContext';
import {
	BASE,
	CALLBACK_CREDENTIALS,
	fakeRun,
} from '../../../../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';

const PARAMETERS: Record<string, ParameterValue> = {
	callbackUrl: 'https://n8n.example.test/webhook/abc/notification',
	callbackAuthUrl: 'https://n8n.example.test/webhook/abc/token',
	subscriptionKinds: ['listing_sale'],
	options: {},
};

/** One trigger per item: the same subscription twice would be sent once. */
const PER_ITEM: Record<string, ParameterValue> = {
	...PARAMETERS,
	callbackUrl: (itemIndex: number) =>
		`https://n8n.example.test/webhook/abc${itemIndex}/notification`,
	callbackAuthUrl: (itemIndex: number) => `https://n8n.example.test/webhook/abc${itemIndex}/token`,
};

function tokenApi() {
	return nock(BASE)
		.post(PARTNER_API_PATHS.grant)
		.query({ grant_type: 'client_credentials' })
		.reply(200, { access_token: 'tok-webhook' });
}

function webhookApi(answer: unknown, status = 201) {
	const seen: Array<{ body: IDataObject; headers: Record<string, unknown> }> = [];
	const scope = nock(BASE)
		.post(PARTNER_API_PATHS.webhooks)
		.times(10)
		.reply(function (_uri, body) {
			seen.push({ body: body as IDataObject, headers: this.req.headers });
			return [status, answer as nock.Body];
		});
	return { seen, scope };
}

async function run(
	parameters: Record<string, ParameterValue>,
	options: { items?: INodeExecutionData[]; continueOnFail?: boolean } = {},
) {
	const items = options.items ?? [{ json: {} }];
	const fake = fakeRun({
		parameters,
		items,
		continueOnFail: options.continueOnFail,
		callbackCredentials: CALLBACK_CREDENTIALS,
	});
	return await execute.call(fake.context, items);
}

afterEach(() => {
	nock.cleanAll();
});

describe('Webhook → Subscribe', () => {
	it('sends the documented subscription with the callback credential, and outputs the id, its field and the next step', async () => {
		tokenApi();
		const api = webhookApi({ id: 'sub-42', status: 'PENDING' });

		const output = await run(PARAMETERS);

		expect(api.seen).toHaveLength(1);
		expect(api.seen[0].body).toEqual({
			callback: {
				url: 'https://n8n.example.test/webhook/abc/notification',
				auth: {
					authType: 'oauth',
					tokenEndPoint: 'https://n8n.example.test/webhook/abc/token',
					oauthRequest: {
						clientId: 'marketplace-client',
						clientSecret: CALLBACK_CREDENTIALS.clientSecret,
						grantType: 'client_credentials',
					},
				},
			},
			subscription: { listing: ['listing_sale'] },
		});
		expect(api.seen[0].headers).toMatchObject({
			authorization: 'Bearer tok-webhook',
			'content-type': 'application/json',
			accept: 'application/json',
		});
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		expect(output[0].json).toMatchObject({
			subscriptionId: 'sub-42',
			subscriptionIdField: 'id',
			response: { id: 'sub-42', status: 'PENDING' },
		});
		expect(output[0].json.nextStep).toContain('E-mail the subscription identifier sub-42');
		expect(output[0].json.nextStep).toContain('24 to 48 hours');
		expect(output[0].json.nextStep).toContain('Create no listings');
	});

	it('sends free subscription kinds and options as typed', async () => {
		tokenApi();
		const api = webhookApi({ data: { subscriptionId: 77 } });
		const output = await run({
			...PARAMETERS,
			subscriptionKinds: ['listing_sale', ' inventory_status '],
			options: { authType: 'oauth2', grantType: 'client_credentials' },
		});
		const auth = (api.seen[0].body.callback as IDataObject).auth as IDataObject;
		expect(auth.oauthRequest).toEqual({ ...CALLBACK_CREDENTIALS, grantType: 'client_credentials' });
		expect(auth.authType).toBe('oauth2');
		expect(api.seen[0].body.subscription).toEqual({
			listing: ['listing_sale', 'inventory_status'],
		});
		expect(output[0].json).toMatchObject({
			subscriptionId: '77',
			subscriptionIdField: 'data.subscriptionId',
		});
	});

	it('keeps no client id or secret among its own parameters: they live only in the encrypted credential', () => {
		const names = description.map((property) => property.name);
		expect(names).not.toContain('clientSecret');
		expect(names).not.toContain('clientId');
		expect(names).not.toContain('clientCredentialsSource');
	});

	it.each([
		[
			'a secret ending in a space',
			{ clientId: 'marketplace-client', clientSecret: 'callback-secret-4f9a ' },
			'client secret starts or ends with a space',
		],
		[
			'a client ID starting with a space',
			{ clientId: ' marketplace-client', clientSecret: 'callback-secret-4f9a' },
			'client ID starts or ends with a space',
		],
		[
			'a secret shorter than the trigger accepts',
			{ clientId: 'marketplace-client', clientSecret: 'twelve-chars' },
			'at least 16 characters',
		],
	])(
		'refuses %s, as the trigger would, before anything is sent',
		async (_name, callbackCredentials, expected) => {
			const token = tokenApi();
			const api = webhookApi({ id: 'never' });
			const fake = fakeRun({ parameters: PARAMETERS, callbackCredentials });
			const error = await execute.call(fake.context, [{ json: {} }]).then(
				() => undefined,
				(thrown: unknown) => thrown as NodeOperationError,
			);
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error?.message).toContain(expected);
			expect(error?.message).toContain('nothing was sent');
			// The trigger reads the same credential the same way and refuses it too.
			expect(readCallbackClient(callbackCredentials)).toEqual(expect.stringContaining(expected));
			expect(api.seen).toEqual([]);
			expect(token.isDone()).toBe(false);
			expect(JSON.stringify(error)).not.toContain(callbackCredentials.clientSecret);
		},
	);

	it('without Continue On Fail, the error of a later item carries the identifiers already obtained', async () => {
		tokenApi();
		const api = nock(BASE)
			.post(PARTNER_API_PATHS.webhooks)
			.reply(201, { subscriptionId: 'sub-0' })
			.post(PARTNER_API_PATHS.webhooks)
			.reply(201, { subscriptionId: 'sub-1' })
			.post(PARTNER_API_PATHS.webhooks)
			.reply(400, { message: 'refused' });
		const items = [{ json: {} }, { json: {} }, { json: {} }];
		const error = await run(PER_ITEM, { items }).then(
			() => undefined,
			(thrown: unknown) => thrown as NodeApiError,
		);
		expect(api.isDone()).toBe(true);
		expect(error?.context.itemIndex).toBe(2);
		expect(error?.description).toContain('item 1: sub-0 and item 2: sub-1.');
		expect(error?.description).toContain('e-mail these identifiers to API support');
		expect(error?.context.subscriptionIds).toEqual(['sub-0', 'sub-1']);
	});

	it('never outputs the client secret, even when the API echoes it back', async () => {
		tokenApi();
		webhookApi({
			webhookId: 'wh-1',
			callback: { auth: { oauthRequest: { clientSecret: CALLBACK_CREDENTIALS.clientSecret } } },
		});
		const output = await run(PARAMETERS);
		expect(output[0].json.subscriptionId).toBe('wh-1');
		expect(JSON.stringify(output)).not.toContain(CALLBACK_CREDENTIALS.clientSecret);
		expect(JSON.stringify(output)).toContain('[redacted]');
	});

	it('cuts an oversized answer once, saying how many values it left out', async () => {
		tokenApi();
		const values = Array.from({ length: 20_000 }, (_, index) => index);
		webhookApi({ id: 'sub-7', values });
		const output = await run(PARAMETERS);
		const kept = (output[0].json.response as { values: unknown[] }).values;
		// The answer's first two values (the id and the array) count too: 9,998 of the array's fit.
		expect(kept).toHaveLength(9_999);
		expect(kept.slice(0, 3)).toEqual([0, 1, 2]);
		expect(kept.at(-1)).toBe('[answer too large]: 10002 more');
	});

	it('says plainly when no identifier is recognisable, and still passes the response through', async () => {
		tokenApi();
		webhookApi({ accepted: true });
		const output = await run(PARAMETERS);
		expect(output[0].json).toEqual({
			subscriptionId: null,
			subscriptionIdField: null,
			message: 'No subscription identifier was recognised in the response',
			nextStep: NEXT_STEP_WITHOUT_ID,
			response: { accepted: true },
		});
	});

	it.each<[string, Record<string, ParameterValue>, string]>([
		[
			'a callback URL that is not a URL',
			{ callbackUrl: 'my-n8n/webhook' },
			'Callback URL must be an absolute URL',
		],
		[
			'a token endpoint with another scheme',
			{ callbackAuthUrl: 'ftp://n8n.example.test/token' },
			'Token URL must start with https:// or http://',
		],
		[
			'a Token URL on another server, though its webhook ID matches',
			{ callbackAuthUrl: 'https://collector.example.org/webhook/abc/token' },
			'Token URL is on another server (https://collector.example.org) than Callback URL (https://n8n.example.test)',
		],
		[
			'a Token URL on plain http:// beside an https:// Callback URL',
			{ callbackAuthUrl: 'http://n8n.example.test/webhook/abc/token' },
			'Token URL starts with http:// and the marketplace would send the callback client secret there unencrypted',
		],
		[
			'both URLs on plain http:// while the Base URL is no sandbox on this machine',
			{
				callbackUrl: 'http://n8n.example.test/webhook/abc/notifications',
				callbackAuthUrl: 'http://n8n.example.test/webhook/abc/token',
			},
			'Callback URL starts with http://',
		],
		[
			'no subscription kind',
			{ subscriptionKinds: [] },
			'Subscription Kinds needs at least one kind, such as listing_sale',
		],
	])('refuses %s and sends nothing', async (_name, overrides, expected) => {
		const token = tokenApi();
		const api = webhookApi({ id: 'never' });
		const items = [{ json: {} }, { json: {} }];
		// The second item is the bad one: the first must not have been sent either.
		const parameters = Object.fromEntries(
			Object.entries({ ...PARAMETERS, ...overrides }).map(([name, value]) => [
				name,
				name in overrides
					? (itemIndex: number) => (itemIndex === 1 ? value : (PARAMETERS[name] ?? value))
					: value,
			]),
		);
		await expect(run(parameters, { items })).rejects.toThrow(NodeOperationError);
		try {
			await run(parameters, { items });
		} catch (error) {
			// The second item, counted from 1 as in every operation's errors.
			expect((error as NodeOperationError).message).toBe(
				'Item 2: the subscription is invalid; nothing was sent',
			);
			expect(String((error as NodeOperationError).description)).toContain(expected);
			expect(JSON.stringify(error)).not.toContain(CALLBACK_CREDENTIALS.clientSecret);
		}
		expect(api.seen).toEqual([]);
		expect(token.isDone()).toBe(false);
	});

	it('sends plain http:// URLs on one server when the Base URL is the sandbox on this machine', async () => {
		const sandbox = 'http://127.0.0.1:4010';
		nock(sandbox)
			.post(PARTNER_API_PATHS.grant)
			.query({ grant_type: 'client_credentials' })
			.reply(200, { access_token: 'tok-webhook' });
		const seen: IDataObject[] = [];
		nock(sandbox)
			.post(PARTNER_API_PATHS.webhooks)
			.reply(201, (_uri, body) => {
				seen.push(body as IDataObject);
				return { id: 'wh-local' };
			});
		const items = [{ json: {} }];
		const fake = fakeRun({
			parameters: {
				...PARAMETERS,
				callbackUrl: 'http://127.0.0.1:5678/webhook/abc/notifications',
				callbackAuthUrl: 'http://127.0.0.1:5678/webhook/abc/token',
			},
			items,
			callbackCredentials: CALLBACK_CREDENTIALS,
			apiCredentials: { baseUrl: `${sandbox}/` },
		});
		const output = await execute.call(fake.context, items);
		expect(output[0].json.subscriptionId).toBe('wh-local');
		expect(seen).toHaveLength(1);
	});

	it('with Continue On Fail, an API refusal becomes a paired error item without the secret', async () => {
		tokenApi();
		webhookApi({ message: `bad secret ${CALLBACK_CREDENTIALS.clientSecret}` }, 400);
		const output = await run(PARAMETERS, { continueOnFail: true });
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		expect(output[0].json.error).toBe('The Partner API refused the subscription (HTTP 400)');
		expect(output[0].json.description).toContain('The API said: "bad secret [redacted]".');
		expect(JSON.stringify(output)).not.toContain(CALLBACK_CREDENTIALS.clientSecret);
	});
});

describe('Webhook → Subscribe with the error output', () => {
	/** n8n-core's handleNodeErrorOutput: an item goes to the error output only in one of these shapes. */
	const routedToErrorOutput = (item: INodeExecutionData) => {
		const keys = Object.keys(item.json).sort().join(',');
		return item.error !== undefined || keys === 'error' || keys === 'error,message';
	};

	it('puts a refused subscription on the error output with its words, and a subscribed one on the success output', async () => {
		tokenApi();
		nock(BASE)
			.post(PARTNER_API_PATHS.webhooks)
			.reply(201, { subscriptionId: 'sub-0' })
			.post(PARTNER_API_PATHS.webhooks)
			.reply(500, { message: `busy ${CALLBACK_CREDENTIALS.clientSecret}` });
		const items = [{ json: {} }, { json: {} }];
		const fake = fakeRun({
			parameters: PER_ITEM,
			items,
			continueOnFail: true,
			onError: 'continueErrorOutput',
			callbackCredentials: CALLBACK_CREDENTIALS,
		});
		const output = await execute.call(fake.context, items);
		expect(output.map(routedToErrorOutput)).toEqual([false, true]);
		expect(output[1]).toEqual({
			json: {
				error: 'Outcome unknown: the Partner API failed with a server error (HTTP 500)',
				message: expect.stringContaining(
					'The API said: "busy [redacted]". The request may have reached the API: the subscription may or may not have been created.',
				),
			},
			pairedItem: { item: 1 },
		});
	});

	it('puts an invalid item there too, naming the field', async () => {
		const items = [{ json: {} }];
		const fake = fakeRun({
			parameters: { ...PARAMETERS, callbackUrl: 'my-n8n/webhook' },
			items,
			continueOnFail: true,
			onError: 'continueErrorOutput',
			callbackCredentials: CALLBACK_CREDENTIALS,
		});
		const output = await execute.call(fake.context, items);
		expect(routedToErrorOutput(output[0])).toBe(true);
		expect(output[0].json.error).toBe('Item 1: the subscription is invalid; nothing was sent');
		expect(String(output[0].json.message)).toContain('Callback URL must be an absolute URL');
	});
});

// n8n's Retry On Fail runs the whole node again after any error: a subscription of unknown outcome, or one an earlier
// item submitted, would go again.
describe('Webhook → Subscribe with Retry On Fail', () => {
	it.each([false, true])(
		'is refused before anything is sent (Continue On Fail %s)',
		async (continueOnFail) => {
			const token = tokenApi();
			const api = webhookApi({ id: 'sub-1' });
			const items = [{ json: {} }, { json: {} }];
			const fake = fakeRun({
				parameters: PARAMETERS,
				items,
				continueOnFail,
				retryOnFail: true,
				callbackCredentials: CALLBACK_CREDENTIALS,
			});
			const outcome = execute.call(fake.context, items);
			await expect(outcome).rejects.toThrow(
				'Subscribe does not run with Retry On Fail; nothing was sent',
			);
			await expect(outcome).rejects.toMatchObject({
				description: expect.stringContaining('Turn off Settings → Retry On Fail'),
			});
			expect(token.isDone()).toBe(false);
			expect(api.seen).toHaveLength(0);
		},
	);
});
