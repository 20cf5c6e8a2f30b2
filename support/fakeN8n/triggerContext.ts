/**
 * Runs the Ticket Marketplace Trigger's webhook() inside n8n-core's real WebhookContext, as n8n does: a real
 * Workflow (so parameter defaults are filled in like n8n fills them), real getNodeParameter/getCredentials paths,
 * and the request/response objects that the caller provides. Used by the unit tests (with a recording response)
 * and by the loopback adapter (with a real http.ServerResponse).
 */
import { Container } from '@n8n/di';
import { InstanceSettings, WebhookContext } from 'n8n-core';
import {
	Workflow,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type INode,
	type INodeParameters,
	type INodeType,
	type INodeTypes,
	type IWebhookData,
	type IWebhookResponseData,
	type IWorkflowExecuteAdditionalData,
	type WebhookType,
} from 'n8n-workflow';

import { TicketMarketplaceTrigger } from '../../nodes/TicketMarketplaceTrigger/TicketMarketplaceTrigger.node';

export const TRIGGER_NODE_TYPE = 'n8n-nodes-ticket-marketplace.ticketMarketplaceTrigger';

export interface TriggerSetup {
	/** The node's parameters as saved in a workflow; defaults are added the way n8n adds them. */
	parameters?: INodeParameters;
	/**
	 * The decrypted callback credential; undefined to make getCredentials fail as with a deleted credential, an
	 * Error to make n8n's credentials helper throw that error (deleted, not shared, not decryptable).
	 */
	credentials?: ICredentialDataDecryptedObject | Error;
	/** The node names no callback credential at all (n8n's getCredentials then throws before any look-up). */
	credentialUnset?: boolean;
	/** The id of the credential the node names: the trigger reuses a read per id for a few seconds. */
	credentialId?: string;
	webhookId?: string;
	workflowId?: string;
}

/** The trigger of the unit tests: its callback client (id and secret), its webhook id, and its setup with both. */
const testClient = {
	clientId: 'marketplace-client',
	clientSecret: 'correct horse battery staple 42',
};
const testWebhookId = '0b7e6a1c-7d0f-4a59-8f37-1c2b3d4e5f60';
export const TEST_TRIGGER = {
	...testClient,
	webhookId: testWebhookId,
	setup: { credentials: { ...testClient }, webhookId: testWebhookId } satisfies TriggerSetup,
};

/** What webhook() sees of the HTTP request, after n8n's body parser. */
export interface TriggerRequest {
	headers: Record<string, string | string[] | undefined>;
	body?: unknown;
	query?: IDataObject;
	/** Name/value pairs as they arrived (Node's IncomingMessage.rawHeaders), repeated headers included. */
	rawHeaders?: string[];
}

/** The subset of http.ServerResponse the node uses. */
export interface TriggerResponse {
	writeHead(status: number, headers?: Record<string, string>): unknown;
	end(body?: string): unknown;
	readonly headersSent?: boolean;
}

/** One line the trigger wrote to n8n's log through `this.logger`. */
export interface TriggerLogLine {
	level: string;
	message: string;
	metadata?: unknown;
}

/**
 * Every line the trigger logged in this test file, oldest first (n8n's real Logger would print them). Tests that
 * read it empty it first.
 */
export const TRIGGER_LOG: TriggerLogLine[] = [];

const recordingLogger = Object.fromEntries(
	['error', 'warn', 'info', 'debug'].map((level) => [
		level,
		(message: string, metadata?: unknown) => TRIGGER_LOG.push({ level, message, metadata }),
	]),
);

let instanceSettingsStubbed = false;

/** n8n-core's contexts ask the DI container for InstanceSettings, whose real constructor writes ~/.n8n. */
function stubInstanceSettings(): void {
	if (instanceSettingsStubbed) return;
	Container.set(InstanceSettings, {} as InstanceSettings);
	instanceSettingsStubbed = true;
}

const nodeType: INodeType = new TicketMarketplaceTrigger();

const nodeTypes: INodeTypes = {
	getByName: () => nodeType,
	getByNameAndVersion: () => nodeType,
	getKnownTypes: () => ({}),
};

export function createTriggerContext(
	setup: TriggerSetup,
	webhookName: WebhookType,
	request: TriggerRequest,
	response: TriggerResponse,
): WebhookContext {
	stubInstanceSettings();
	const node: INode = {
		id: 'trigger-node-id',
		name: 'Ticket Marketplace Trigger',
		type: TRIGGER_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		webhookId: setup.webhookId ?? '6f1c2a52-1b1e-4c55-9b8e-2d6ad1c7e001',
		parameters: setup.parameters ?? {},
		credentials: setup.credentialUnset
			? undefined
			: {
					ticketMarketplaceCallbackApi: {
						id: setup.credentialId ?? 'callback-credential',
						name: 'Callback',
					},
				},
	};
	const workflow = new Workflow({
		id: setup.workflowId ?? 'workflow-1',
		name: 'Trigger under test',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes,
		settings: {},
	});
	const workflowNode = workflow.getNode(node.name) as INode;
	const additionalData = {
		httpRequest: {
			headers: request.headers,
			rawHeaders: request.rawHeaders,
			body: request.body,
			query: request.query ?? {},
			params: {},
		},
		httpResponse: response,
		credentialsHelper: {
			getDecrypted: async () => {
				if (setup.credentials === undefined) throw new Error('Credential not found');
				if (setup.credentials instanceof Error) throw setup.credentials;
				return setup.credentials;
			},
		},
		webhookWaitingBaseUrl: 'http://127.0.0.1/webhook-waiting',
		formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
		variables: {},
	} as unknown as IWorkflowExecuteAdditionalData;
	const description = nodeType.description.webhooks?.find(
		(webhook) => webhook.name === webhookName,
	);
	if (description === undefined) throw new Error(`The trigger has no ${webhookName} webhook`);
	const webhookData = {
		httpMethod: 'POST',
		node: node.name,
		path: `${node.webhookId}/${String(description.path)}`,
		webhookDescription: description,
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalData,
		webhookId: node.webhookId,
	} as IWebhookData;
	const context = new WebhookContext(
		workflow,
		workflowNode,
		additionalData,
		'webhook',
		webhookData,
		[],
		null,
	);
	// n8n-core takes its Logger from the DI container; here the lines are recorded instead.
	Object.defineProperty(context, 'logger', { value: recordingLogger });
	return context;
}

export async function runTriggerWebhook(
	setup: TriggerSetup,
	webhookName: WebhookType,
	request: TriggerRequest,
	response: TriggerResponse,
): Promise<IWebhookResponseData> {
	const context = createTriggerContext(setup, webhookName, request, response);
	return await nodeType.webhook!.call(context);
}
