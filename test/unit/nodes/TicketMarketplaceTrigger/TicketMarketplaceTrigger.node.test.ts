import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { mock, mockDeep } from 'jest-mock-extended';
import {
	Workflow,
	type ICredentialTestFunctions,
	type IHookFunctions,
	type INodeParameters,
	type INodeType,
	type INodeTypes,
} from 'n8n-workflow';

import { TicketMarketplaceCallbackApi } from '../../../../credentials/TicketMarketplaceCallbackApi.credentials';
import { constantTimeEqual } from '../../../../nodes/shared/callbackCredential';
import {
	TicketMarketplaceTrigger,
	WEBHOOK_RESOLVERS,
	type ResolvableField,
} from '../../../../nodes/TicketMarketplaceTrigger/TicketMarketplaceTrigger.node';
import { RecordingResponse } from '../../../../support/fakeN8n/recordingResponse';
import {
	createTriggerContext,
	runTriggerWebhook,
	TEST_TRIGGER,
	TRIGGER_LOG,
	type TriggerSetup,
} from '../../../../support/fakeN8n/triggerContext';

const trigger = new TicketMarketplaceTrigger();
const { description } = trigger;

describe('Ticket Marketplace Trigger description', () => {
	it('declares the token endpoint as `setup` and the notifications as `default`, both POST, neither answering firstEntryJson', () => {
		expect(description.webhooks).toEqual([
			expect.objectContaining({
				name: 'setup',
				httpMethod: 'POST',
				path: 'token',
				responseMode: 'onReceived',
				responseData: '',
			}),
			expect.objectContaining({ name: 'default', httpMethod: 'POST', path: 'notifications' }),
		]);
		// isFullPath would drop the webhook id from the URLs, which must stay /webhook/<webhookId>/<path>.
		for (const webhook of description.webhooks ?? []) expect(webhook.isFullPath).toBeUndefined();
	});

	it.each([
		['immediately', 'onReceived', ''],
		['whenFinished', 'lastNode', 'noData'],
		[undefined, 'onReceived', ''],
	])(
		'Respond %s: the notifications webhook answers in n8n\'s %s mode with response data "%s"',
		(respond, mode, data) => {
			const notifications = description.webhooks?.find((webhook) => webhook.name === 'default');
			// The expressions n8n evaluates against the node's parameters (n8n fills in the default for an older node).
			const evaluate = (expression: unknown) =>
				new Function(
					'$parameter',
					`return (${String(expression)
						.replace(/^=\{\{/, '')
						.replace(/\}\}$/, '')});`,
				)({ respond: respond ?? 'immediately' }) as string;
			expect(evaluate(notifications?.responseMode)).toBe(mode);
			expect(evaluate(notifications?.responseData)).toBe(data);
			expect(description.properties.find((property) => property.name === 'respond')?.default).toBe(
				'immediately',
			);
		},
	);

	describe('native resolvers (n8n 2.41+ reads them instead of evaluating the templates in an isolate)', () => {
		const resolversOf = (name: string) => {
			const webhook = description.webhooks?.find((item) => item.name === name);
			const resolvers = (webhook as unknown as Record<symbol, Record<string, ResolvableField>>)?.[
				WEBHOOK_RESOLVERS
			];
			return { webhook, resolvers };
		};

		it("sit under n8n-workflow's registered key, and every template of both webhooks has one", () => {
			expect(WEBHOOK_RESOLVERS).toBe(Symbol.for('n8n.webhookDescriptionResolvers'));
			for (const name of ['setup', 'default']) {
				const { webhook, resolvers } = resolversOf(name);
				// What n8n's webhookDescriptionIsNativelyResolvable checks: each `=` field has a resolver whose template
				// is that exact string (n8n uses a resolver only then), or the field is a plain value.
				for (const [field, value] of Object.entries(webhook ?? {})) {
					if (typeof value === 'string' && value.startsWith('='))
						expect(resolvers?.[field]?.template).toBe(value);
				}
			}
			expect(Object.keys(resolversOf('default').resolvers ?? {})).toEqual([
				'responseMode',
				'responseData',
			]);
		});

		it.each([
			['immediately', { respond: 'immediately' }],
			['whenFinished', { respond: 'whenFinished' }],
			['the default (an older node without the parameter)', {}],
		])(
			"Respond %s: each resolver returns what n8n's expression engine makes of its template",
			(_case, parameters: INodeParameters) => {
				const nodeTypes: INodeTypes = {
					getByName: () => trigger as INodeType,
					getByNameAndVersion: () => trigger as INodeType,
					getKnownTypes: () => ({}),
				};
				const workflow = new Workflow({
					id: 'w',
					nodes: [
						{
							id: 'n',
							name: 'Trigger',
							type: 'n8n-nodes-ticket-marketplace.ticketMarketplaceTrigger',
							typeVersion: 1,
							position: [0, 0],
							parameters,
						},
					],
					connections: {},
					active: true,
					nodeTypes,
				});
				// The workflow's node carries the defaults, as the node n8n passes to the resolvers does.
				const node = workflow.getNode('Trigger');
				if (node === null) throw new Error('no node');
				const { resolvers } = resolversOf('default');
				for (const field of Object.values(resolvers ?? {})) {
					const viaEngine = workflow.expression.getSimpleParameterValue(
						node,
						field.template,
						'webhook',
						{},
					);
					expect(field.resolve(node.parameters)).toBe(viaEngine);
				}
			},
		);
	});

	it('is version 1.1 for new nodes and the examples, and still runs version 1 nodes', () => {
		// n8n evaluates its Webhook node 1's binaryData expression before any start node of version 1 runs.
		expect(description.version).toEqual([1, 1.1]);
		expect(description.defaultVersion).toBe(1.1);
		for (const file of ['sale-alert.workflow.json', 'sale-alert-slack.workflow.json']) {
			const workflow = JSON.parse(
				readFileSync(join(__dirname, '..', '..', '..', '..', 'examples', file), 'utf8'),
			) as { nodes: Array<{ type: string; typeVersion: number }> };
			const triggers = workflow.nodes.filter((node) =>
				node.type.endsWith('.ticketMarketplaceTrigger'),
			);
			expect({ file, versions: triggers.map((node) => node.typeVersion) }).toEqual({
				file,
				versions: [1.1],
			});
		}
	});

	it('is a trigger without inputs and is not offered as an AI tool', () => {
		expect(description.inputs).toEqual([]);
		expect(description.group).toEqual(['trigger']);
		expect(description.usableAsTool).toBeUndefined();
	});

	it('tests its callback credential with a method that exists, under the credential name the credential declares', () => {
		const credential = new TicketMarketplaceCallbackApi();
		expect(credential.name).toBe('ticketMarketplaceCallbackApi');
		expect(credential.properties.map((property) => property.name)).toEqual([
			'notice',
			'clientId',
			'clientSecret',
		]);
		expect(
			credential.properties.find((property) => property.name === 'clientSecret')?.typeOptions,
		).toEqual({ password: true });
		const entry = description.credentials?.find((item) => item.name === credential.name);
		expect(entry).toMatchObject({
			required: true,
			testedBy: 'ticketMarketplaceCallbackApiTest',
			displayName: 'Ticket Marketplace Callback API',
		});
		expect(Object.keys(trigger.methods.credentialTest)).toEqual([
			'ticketMarketplaceCallbackApiTest',
		]);
	});

	it('has one short notice: publish, subscribe, the sandbox command for a sample sale, and where the detail is', () => {
		const notices = description.properties.filter((property) => property.type === 'notice');
		expect(notices).toHaveLength(1);
		const [notice] = notices;
		for (const text of [
			'Publish the workflow',
			'production URLs',
			'Webhook → Subscribe',
			// The sandbox is not on npm before the first release: the clone's command.
			'npm run sandbox -- sample-sale in a clone of n8n-nodes-ticket-marketplace',
			'(steps in the docs)',
		])
			expect(notice.displayName).toEqual(expect.stringContaining(text));
		expect(notice.displayName).not.toMatch(/this package's repository|docs\//);
	});

	it("labels Respond's options as n8n's Webhook node does, with the values workflows already store", () => {
		const respond = description.properties.find((property) => property.name === 'respond');
		expect(respond?.options).toEqual([
			expect.objectContaining({ name: 'Immediately', value: 'immediately' }),
			expect.objectContaining({ name: 'When Last Node Finishes', value: 'whenFinished' }),
		]);
		expect(respond?.default).toBe('immediately');
	});
});

describe('Ticket Marketplace Trigger activation and deactivation', () => {
	it('never calls the marketplace: checkExists reports true so n8n skips create, and create/delete do nothing', async () => {
		const hooks = mockDeep<IHookFunctions>();
		const lifecycle = trigger.webhookMethods.default;
		await expect(lifecycle.checkExists.call(hooks)).resolves.toBe(true);
		await expect(lifecycle.create.call(hooks)).resolves.toBe(true);
		await expect(lifecycle.delete.call(hooks)).resolves.toBe(true);
		expect(hooks.helpers.httpRequest).not.toHaveBeenCalled();
		expect(hooks.helpers.httpRequestWithAuthentication).not.toHaveBeenCalled();
		expect(hooks.getCredentials).not.toHaveBeenCalled();
	});

	it('has lifecycle methods only for `default`, so n8n runs none for the token endpoint', () => {
		expect(Object.keys(trigger.webhookMethods)).toEqual(['default']);
	});
});

describe('callback credential test (local, nothing remote to call)', () => {
	const test = trigger.methods.credentialTest.ticketMarketplaceCallbackApiTest;
	const context = mock<ICredentialTestFunctions>();
	const decrypted = (data: Record<string, unknown>) =>
		({ id: '1', name: 'Callback', type: 'ticketMarketplaceCallbackApi', data }) as never;

	it('accepts a client id with a secret of at least 16 characters', async () => {
		await expect(
			test.call(context, decrypted({ clientId: 'marketplace', clientSecret: '0123456789abcdef' })),
		).resolves.toEqual({
			status: 'OK',
			message: expect.any(String),
		});
	});

	it('refuses an empty client id and a short secret, without repeating the secret', async () => {
		const noId = await test.call(
			context,
			decrypted({ clientId: '  ', clientSecret: '0123456789abcdef' }),
		);
		expect(noId).toEqual({
			status: 'Error',
			message:
				'The callback credential has no client ID. Open the Ticket Marketplace Callback API credential and fix it: a client ID without a colon and without spaces at either end, and a client secret of at least 16 characters (a long random string is best), both of letters, digits, spaces and the punctuation on a US keyboard.',
		});
		const shortSecret = await test.call(
			context,
			decrypted({ clientId: 'marketplace', clientSecret: '0123456789abcde' }),
		);
		expect(shortSecret.status).toBe('Error');
		expect(shortSecret.message).toContain('at least 16 characters');
		expect(shortSecret.message).not.toContain('0123456789abcde');
	});
});

describe('constant-time comparison', () => {
	it('is equality on strings of any lengths', () => {
		expect(constantTimeEqual('same secret', 'same secret')).toBe(true);
		expect(constantTimeEqual('same secret', 'same secreT')).toBe(false);
		expect(constantTimeEqual('short', 'a much longer value')).toBe(false);
		expect(constantTimeEqual('', '')).toBe(true);
	});
});

describe('token endpoint and notification endpoint together', () => {
	const setup: TriggerSetup = {
		credentials: { clientId: 'marketplace', clientSecret: 'a secret long enough for this' },
		webhookId: 'webhook-a',
	};

	it('accepts a notification carrying the token the same node issued, and refuses it at another node', async () => {
		const tokenResponse = new RecordingResponse();
		await runTriggerWebhook(
			setup,
			'setup',
			{
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
				body: {
					grant_type: 'client_credentials',
					client_id: 'marketplace',
					client_secret: 'a secret long enough for this',
				},
			},
			tokenResponse,
		);
		const token = tokenResponse.json.access_token as string;
		const request = {
			headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
			body: { listingId: 1 },
		};

		const here = await runTriggerWebhook(setup, 'default', request, new RecordingResponse());
		expect(here.workflowData).toEqual([
			[
				{
					json: { listingId: 1, notificationKind: { kind: null, field: null, sale: null } },
				},
			],
		]);

		const elsewhereResponse = new RecordingResponse();
		const elsewhere = await runTriggerWebhook(
			{ ...setup, webhookId: 'webhook-b' },
			'default',
			request,
			elsewhereResponse,
		);
		expect(elsewhere.workflowData).toBeUndefined();
		expect(elsewhereResponse.status).toBe(401);
	});
});

describe('webhook(): the node answers every request itself and never throws', () => {
	it.each(['setup', 'default'] as const)(
		'answers 500 itself, and logs why, when something it reads throws unexpectedly (%s)',
		async (webhookName) => {
			TRIGGER_LOG.length = 0;
			const response = new RecordingResponse();
			const context = createTriggerContext(
				{ ...TEST_TRIGGER.setup, workflowId: `workflow-unexpected-${webhookName}` },
				webhookName,
				{
					headers: {
						authorization: `Basic ${Buffer.from(`${TEST_TRIGGER.clientId}:${TEST_TRIGGER.clientSecret}`).toString('base64')}`,
					},
				},
				response,
			);
			context.getHeaderData = () => {
				throw new Error('the request object went away');
			};
			await expect(trigger.webhook.call(context)).resolves.toEqual({ noWebhookResponse: true });
			expect(response.writes).toBe(1);
			expect(response.status).toBe(500);
			expect(response.text).not.toContain('went away');
			expect(TRIGGER_LOG).toHaveLength(1);
			expect(TRIGGER_LOG[0].message).toContain('the request object went away');
		},
	);

	it('does not answer twice when the error comes after the answer was written', async () => {
		const response = new RecordingResponse();
		const context = createTriggerContext(
			{ ...TEST_TRIGGER.setup, workflowId: 'workflow-unexpected-late' },
			'setup',
			{ headers: {} },
			response,
		);
		context.getHeaderData = () => {
			response.writeHead(400);
			throw new Error('late');
		};
		await expect(trigger.webhook.call(context)).resolves.toEqual({ noWebhookResponse: true });
		expect(response.writes).toBe(1);
		expect(response.status).toBe(400);
	});
});
