/**
 * The example workflows in examples/ are the files users import and the files the harness imports. Their
 * credential references use the fixed ids below, which the harness gives to the credentials it imports (in the
 * editor, a user's import asks them to pick their own credential instead).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const EXAMPLES_DIR = join(__dirname, '..', '..', 'examples');

export const CREDENTIAL_IDS = {
	api: { id: 'tmMarketplaceApi', name: 'Ticket Marketplace account' },
	/** The same account with a wrong marketplace password: the marketplace refuses its login. */
	apiWrongPassword: { id: 'tmWrongPassword1', name: 'Ticket Marketplace account (wrong password)' },
	callback: { id: 'tmCallbackCreds1', name: 'Ticket Marketplace callback' },
	mattermost: { id: 'tmMattermostChat', name: 'Mattermost (sale alerts)' },
	slack: { id: 'tmSlackSaleAlert', name: 'Slack (sale alerts)' },
	googleSheets: { id: 'tmGoogleSheets01', name: 'Google Sheets (seat inventory)' },
	googleDrive: { id: 'tmGoogleDrive001', name: 'Google Drive (ticket PDFs)' },
	openAi: { id: 'tmOpenAiModel001', name: 'OpenAI (listing assistant)' },
	chatLogin: { id: 'tmChatBasicAuth1', name: 'Listing assistant chat' },
	/** The Basic Auth login of the ticket PDF form (n8n Form Trigger). */
	formLogin: { id: 'tmFormBasicAuth1', name: 'Ticket PDF form login' },
	/** The Header Auth credential of the examples' Webhook nodes (Run over HTTP). */
	webhookKey: { id: 'tmWebhookKey0001', name: 'Example webhook key' },
} as const;

/**
 * The header and value the harness's Header Auth credential expects: what a caller of the examples' Webhook nodes
 * sends. Not a secret of anything real.
 */
export const EXAMPLE_WEBHOOK_KEY = {
	name: 'X-Webhook-Key',
	value: 'stand-in-webhook-key-0123456789abcdef',
};

export interface WebhookRun {
	status: number;
	body: unknown;
}

/**
 * POSTs `body` (JSON, or text as it is) and returns the status and the answer, parsed when it is JSON. It sends the
 * examples' webhook key, as their callers must (their Webhook nodes use Header Auth); other endpoints ignore it.
 */
export async function postJson(
	url: string,
	body: unknown,
	headers: Record<string, string> = {},
): Promise<WebhookRun> {
	const response = await fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			[EXAMPLE_WEBHOOK_KEY.name]: EXAMPLE_WEBHOOK_KEY.value,
			...headers,
		},
		body: typeof body === 'string' ? body : JSON.stringify(body),
		signal: AbortSignal.timeout(180_000),
	});
	const text = await response.text();
	let parsed: unknown = text;
	try {
		parsed = JSON.parse(text);
	} catch {
		// Not JSON: keep the text.
	}
	return { status: response.status, body: parsed };
}

/** The addresses the examples ship with, which a user replaces with their own after importing. */
const EXAMPLE_PLACEHOLDERS = {
	partnerApi: 'https://api.example.com',
	n8n: 'https://n8n.example.com',
	filesFolder: "'/home/node/.n8n-files/'",
};

/** The sheet the sheet example reads, as shipped. */
const EXAMPLE_SHEET = '/home/node/.n8n-files/seats.csv';

/** A file selector that reads the file named in the HTTP call's `sheet` (seats.csv without one), in the folder. */
function sheetFromCall(filesFolder: string): string {
	const folder = JSON.stringify(join(filesFolder, '/')).slice(1, -1).replace(/'/g, "\\'");
	return `={{ '${folder}' + String(($json.body && $json.body.sheet) || 'seats.csv').replace(/[^A-Za-z0-9_.-]/g, '') }}`;
}

/**
 * A workflow as a user configures it after importing: the Partner API's address, their n8n's public address and
 * their files folder in place of the examples' placeholders (the examples take none of them from a caller).
 */
export function configuredLikeAUser(
	workflow: WorkflowJson,
	where: { partnerApiUrl: string; n8nUrl: string; filesFolder: string },
): WorkflowJson {
	const text = JSON.stringify(workflow)
		.split(EXAMPLE_PLACEHOLDERS.partnerApi)
		.join(where.partnerApiUrl.replace(/\/+$/, ''))
		.split(EXAMPLE_PLACEHOLDERS.n8n)
		.join(where.n8nUrl.replace(/\/+$/, ''))
		.split(EXAMPLE_PLACEHOLDERS.filesFolder)
		.join(JSON.stringify(`'${join(where.filesFolder, '/')}'`).slice(1, -1))
		// The tests run many sheets through one published workflow: here, and only here, the call names the sheet
		// (a file name in the files folder). The example as shipped reads one fixed file.
		.split(JSON.stringify(EXAMPLE_SHEET))
		.join(JSON.stringify(sheetFromCall(where.filesFolder)));
	return JSON.parse(text) as WorkflowJson;
}

export interface WorkflowNode {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	webhookId?: string;
	credentials?: Record<string, { id: string; name: string }>;
	onError?: string;
	[key: string]: unknown;
}

export interface WorkflowJson {
	id: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	active?: boolean;
	[key: string]: unknown;
}

/** The example workflow files, by role. */
export const EXAMPLE_FILES = {
	sheetToListings: 'sheet-to-listings.workflow.json',
	subscribe: 'subscribe-to-sales.workflow.json',
	saleAlert: 'sale-alert.workflow.json',
	saleAlertSlack: 'sale-alert-slack.workflow.json',
	dataTableToListings: 'data-table-to-listings.workflow.json',
	googleSheetsToListings: 'google-sheets-to-listings.workflow.json',
	httpRequest: 'partner-api-http-request.workflow.json',
	aiAgent: 'ai-agent-create-listing.workflow.json',
	preDeliverDrive: 'drive-folder-pre-deliver.workflow.json',
	preDeliverForm: 'form-upload-pre-deliver.workflow.json',
} as const;

export function loadExample(file: string): WorkflowJson {
	return JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as WorkflowJson;
}

export function nodeByType(workflow: WorkflowJson, type: string): WorkflowNode {
	const node = workflow.nodes.find((candidate) => candidate.type === type);
	if (!node) throw new Error(`workflow "${workflow.name}" has no node of type ${type}`);
	return node;
}

/** The production path of the workflow's Webhook node (POST /webhook/<path>). */
export function webhookPath(workflow: WorkflowJson): string {
	const path = nodeByType(workflow, 'n8n-nodes-base.webhook').parameters.path;
	if (typeof path !== 'string')
		throw new Error(`workflow "${workflow.name}" has a Webhook node without a path`);
	return path;
}

/**
 * A copy of a workflow under a new id, name and Webhook path, with changes applied to its nodes: tests use it
 * for variants of the examples (e.g. Continue On Fail) without touching the files users import.
 */
export function variantOf(
	workflow: WorkflowJson,
	variant: {
		id: string;
		name: string;
		webhookPath: string;
		changeNodes?: (node: WorkflowNode) => void;
	},
): WorkflowJson {
	const copy = JSON.parse(JSON.stringify(workflow)) as WorkflowJson;
	copy.id = variant.id;
	copy.name = variant.name;
	for (const node of copy.nodes) {
		if (node.type === 'n8n-nodes-base.webhook') {
			node.parameters.path = variant.webhookPath;
			// n8n keys production webhooks by webhookId too: a copy must not collide with the original.
			node.webhookId = `${variant.id}-webhook`;
		}
		variant.changeNodes?.(node);
	}
	return copy;
}
