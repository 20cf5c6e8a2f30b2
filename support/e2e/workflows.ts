/**
 * The workflows the e2e suite imports: every example exactly as users import them, plus variants of the sheet
 * workflow (copies under their own ids and paths; the example files are not changed). The Slack and Google Sheets
 * examples need their services, so they are imported but not activated: the suite checks that every node type and
 * parameter in them resolves in the real n8n, and the browser test opens them in the editor.
 */
import {
	CREDENTIAL_IDS,
	EXAMPLE_FILES,
	loadExample,
	nodeByType,
	variantOf,
	webhookPath,
	type WorkflowJson,
	type WorkflowNode,
} from '../harness/workflows';
import { n8nMajor, n8nVersion } from '../harness/n8nInstall';

export const ACTION_NODE_TYPE = 'n8n-nodes-ticket-marketplace.ticketMarketplace';
export const TRIGGER_NODE_TYPE = 'n8n-nodes-ticket-marketplace.ticketMarketplaceTrigger';

/** The n8n this run tests (TM_N8N_VERSION): the examples use n8n 2.x nodes that 1.x does not have. */
export const ON_N8N_1X = n8nMajor(n8nVersion()) < 2;

/**
 * Node types the examples use that n8n 1.x lacks (Data Table 1.1; the AI example's Agent 3.1, 1.123 has up to 3;
 * the form example's Form Trigger 2.5, as n8n 2.8 has it, unchecked on 1.x): on 1.x the suite leaves them out.
 */
const ONLY_ON_N8N_2X = [
	'n8n-nodes-base.dataTable',
	'@n8n/n8n-nodes-langchain.agent',
	'n8n-nodes-base.formTrigger',
];

/** The sale alert without its branches that need n8n 2.x (marking sold seats in a Data Table). */
function withoutNodesMissingOn1x(workflow: WorkflowJson): WorkflowJson {
	const copy = JSON.parse(JSON.stringify(workflow)) as WorkflowJson;
	const dropped = new Set(
		copy.nodes.filter((node) => ONLY_ON_N8N_2X.includes(node.type)).map((node) => node.name),
	);
	// A node whose only successors are dropped goes too (the Code node that picks the sold seats for the table).
	for (const [from, outputs] of Object.entries(copy.connections)) {
		const targets = (outputs as { main: Array<Array<{ node: string }>> }).main
			.flat()
			.map((target) => target.node);
		if (targets.length > 0 && targets.every((target) => dropped.has(target))) dropped.add(from);
	}
	copy.nodes = copy.nodes.filter((node) => !dropped.has(node.name));
	for (const name of dropped) delete copy.connections[name];
	for (const outputs of Object.values(copy.connections)) {
		const main = (outputs as { main: Array<Array<{ node: string }>> }).main;
		for (const [index, branch] of main.entries())
			main[index] = branch.filter((target) => !dropped.has(target.node));
	}
	return copy;
}

/** The timeout-workflow variant's Timeout Workflow setting, as imported. */
export const SHEET_TIMEOUT_SECONDS = 3;

export function suiteWorkflows() {
	const sheetToListings = loadExample(EXAMPLE_FILES.sheetToListings);
	const subscribe = loadExample(EXAMPLE_FILES.subscribe);
	const saleAlert = ON_N8N_1X
		? withoutNodesMissingOn1x(loadExample(EXAMPLE_FILES.saleAlert))
		: loadExample(EXAMPLE_FILES.saleAlert);
	const saleAlertSlack = loadExample(EXAMPLE_FILES.saleAlertSlack);
	const dataTableToListings = loadExample(EXAMPLE_FILES.dataTableToListings);
	const googleSheetsToListings = loadExample(EXAMPLE_FILES.googleSheetsToListings);
	const httpRequest = loadExample(EXAMPLE_FILES.httpRequest);
	const aiAgent = loadExample(EXAMPLE_FILES.aiAgent);
	const preDeliverDrive = loadExample(EXAMPLE_FILES.preDeliverDrive);
	const preDeliverForm = loadExample(EXAMPLE_FILES.preDeliverForm);
	const sheetContinueOnFail = variantOf(sheetToListings, {
		id: 'tmSheetContOnFai',
		name: 'E2E: sheet to listings, Continue On Fail',
		webhookPath: 'ticket-marketplace/sheet-to-listings-continue-on-fail',
		changeNodes: (node) => {
			if (node.type === ACTION_NODE_TYPE) node.onError = 'continueRegularOutput';
		},
	});
	const sheetPerRow = variantOf(sheetToListings, {
		id: 'tmSheetPerRowOut',
		name: 'E2E: sheet to listings, one item per row, Continue On Fail',
		webhookPath: 'ticket-marketplace/sheet-to-listings-per-row',
		changeNodes: (node) => {
			if (node.type !== ACTION_NODE_TYPE) return;
			node.onError = 'continueRegularOutput';
			node.parameters.options = { output: 'row' };
		},
	});
	// The workflow setting Timeout Workflow (executionTimeout, seconds) stops a run part-way;
	// On Error → Continue, one item per row, at most 4 requests at once (so a slow API lets only part of a sheet
	// out before the timeout). The test changes the timeout between runs (same workflow, same memory).
	const sheetTimeout = variantOf(sheetToListings, {
		id: 'tmSheetTimeout01',
		name: 'E2E: sheet to listings, workflow timeout, one item per row, Continue On Fail',
		webhookPath: 'ticket-marketplace/sheet-to-listings-timeout',
		changeNodes: (node) => {
			if (node.type !== ACTION_NODE_TYPE) return;
			node.onError = 'continueRegularOutput';
			node.parameters.options = { output: 'row', concurrencyMode: 'fixed', concurrency: 4 };
		},
	});
	sheetTimeout.settings = { ...sheetTimeout.settings, executionTimeout: SHEET_TIMEOUT_SECONDS };
	// The account with a wrong marketplace password, On Error → Continue, one item per row.
	const sheetWrongPassword = variantOf(sheetToListings, {
		id: 'tmSheetWrongPass',
		name: 'E2E: sheet to listings, wrong marketplace password, one item per row, Continue On Fail',
		webhookPath: 'ticket-marketplace/sheet-to-listings-wrong-password',
		changeNodes: (node) => {
			if (node.type !== ACTION_NODE_TYPE) return;
			node.onError = 'continueRegularOutput';
			node.parameters.options = { output: 'row' };
			node.credentials = {
				ticketMarketplaceApi: { ...CREDENTIAL_IDS.apiWrongPassword },
			};
		},
	});
	// Settings → On Error → Continue (using error output), one item per row, each branch ending in its own No-Op,
	// as a "mark as listed" and a "mark as failed" step would.
	const sheetErrorOutput = variantOf(sheetToListings, {
		id: 'tmSheetErrOutput',
		name: 'E2E: sheet to listings, error output',
		webhookPath: 'ticket-marketplace/sheet-to-listings-error-output',
		changeNodes: (node) => {
			if (node.type !== ACTION_NODE_TYPE) return;
			node.onError = 'continueErrorOutput';
			node.parameters.options = { output: 'row' };
		},
	});
	const create = sheetErrorOutput.nodes.find((node) => node.type === ACTION_NODE_TYPE)!;
	for (const [index, name] of ['Listed', 'Not listed'].entries()) {
		sheetErrorOutput.nodes.push({
			id: `error-output-${index}`,
			name,
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [create.position[0] + 300, create.position[1] + index * 200],
			parameters: {},
		});
	}
	// The HTTP Request example aimed at another address than the credential's Base URL (this n8n's own, once the
	// harness has configured it), in the node's current version and in version 3 (the legacy request helper).
	const httpRequestElsewhere = (id: string, typeVersion: number) =>
		variantOf(httpRequest, {
			id,
			name: `E2E: HTTP Request ${typeVersion} to another address than the Base URL`,
			webhookPath: `ticket-marketplace/partner-api-request-elsewhere-${typeVersion}`,
			changeNodes: (node) => {
				if (node.type !== 'n8n-nodes-base.httpRequest') return;
				node.typeVersion = typeVersion;
				node.parameters.url = 'https://n8n.example.com/webhook/collect-token';
			},
		});
	const httpRequestElsewhereV4 = httpRequestElsewhere('tmHttpElsewhere4', 4.2);
	const httpRequestElsewhereV3 = httpRequestElsewhere('tmHttpElsewhere3', 3);
	// The HTTP Request example on a path the API does not have (the sandbox answers 404), and with the node's
	// Ignore SSL Issues (Insecure) option on.
	const httpRequestNotFound = variantOf(httpRequest, {
		id: 'tmHttpNotFound01',
		name: 'E2E: HTTP Request to a path the API does not have',
		webhookPath: 'ticket-marketplace/partner-api-request-not-found',
		changeNodes: (node) => {
			if (node.type !== 'n8n-nodes-base.httpRequest') return;
			node.parameters.url = String(node.parameters.url).replace('/listings/v3', '/no-such-path/v3');
		},
	});
	const httpRequestIgnoreSsl = variantOf(httpRequest, {
		id: 'tmHttpIgnoreSsl1',
		name: 'E2E: HTTP Request with Ignore SSL Issues',
		webhookPath: 'ticket-marketplace/partner-api-request-ignore-ssl',
		changeNodes: (node) => {
			if (node.type !== 'n8n-nodes-base.httpRequest') return;
			node.parameters.options = { allowUnauthorizedCerts: true };
		},
	});
	sheetErrorOutput.connections[create.name] = {
		main: [
			[{ node: 'Listed', type: 'main', index: 0 }],
			[{ node: 'Not listed', type: 'main', index: 0 }],
		],
	};
	return {
		sheetToListings,
		sheetErrorOutput,
		preDeliverFromDisk: preDeliverFromDisk(),
		createThenPreDeliver: createThenPreDeliver(sheetToListings),
		preDeliverDrive,
		preDeliverForm,
		subscribe,
		saleAlert,
		saleAlertSlack,
		dataTableToListings,
		googleSheetsToListings,
		httpRequest,
		httpRequestElsewhereV4,
		httpRequestElsewhereV3,
		httpRequestNotFound,
		httpRequestIgnoreSsl,
		aiAgent,
		sheetContinueOnFail,
		sheetPerRow,
		sheetTimeout,
		sheetWrongPassword,
	};
}

/**
 * The sheet example and, in the same workflow (Create's record of what it created is the workflow's), Pre-deliver
 * Tickets naming each listing by its External Listing ID, on a webhook of its own.
 */
function createThenPreDeliver(sheetToListings: WorkflowJson): WorkflowJson {
	const workflow = variantOf(sheetToListings, {
		id: 'tmPreDeliverExtId',
		name: 'E2E: Create, then Pre-deliver Tickets by External Listing ID',
		webhookPath: 'ticket-marketplace/create-then-pre-deliver',
		changeNodes: (node) => {
			if (node.type !== ACTION_NODE_TYPE) return;
			node.parameters.options = {
				...(node.parameters.options as object),
				rememberForPreDeliver: true,
			};
		},
	});
	const deliver = preDeliverFromDisk('externalId');
	const renamed = (name: string) => (name === 'Run over HTTP' ? 'Deliver over HTTP' : name);
	for (const node of deliver.nodes) {
		node.name = renamed(node.name);
		if (node.type === 'n8n-nodes-base.webhook') {
			node.parameters.path = 'ticket-marketplace/create-then-pre-deliver/deliver';
			node.webhookId = 'tmPreDeliverExtId-deliver';
		}
	}
	workflow.nodes.push(...deliver.nodes.map((node) => ({ ...node, id: `${node.id}-by-id` })));
	for (const [from, to] of Object.entries(deliver.connections))
		workflow.connections[renamed(from)] = to;
	return workflow;
}

/**
 * Pre-deliver Tickets with files read by n8n's own Read/Write Files from Disk: the caller posts
 * `{tickets: [{listingId, row, seat, file}]}` (file: a full path under n8n's files folder); one item per ticket,
 * whose PDF the file node reads; the node's output is the answer.
 */
function preDeliverFromDisk(listingBy = 'marketplaceId'): WorkflowJson {
	const node = (
		name: string,
		type: string,
		typeVersion: number,
		x: number,
		parameters: object,
	) => ({
		id: `tm-pre-deliver-${x}`,
		name,
		type,
		typeVersion,
		position: [x, 0] as [number, number],
		parameters: parameters as Record<string, unknown>,
	});
	const webhook = node('Run over HTTP', 'n8n-nodes-base.webhook', 2.1, 0, {
		httpMethod: 'POST',
		path: 'ticket-marketplace/pre-deliver-from-disk',
		authentication: 'headerAuth',
		responseMode: 'lastNode',
		responseData: 'allEntries',
		options: {},
	});
	const ticket = (field: string) => `={{ $('Tickets').item.json.${field} }}`;
	const nodes: WorkflowNode[] = [
		{
			...webhook,
			webhookId: 'tmPreDeliverDisk-webhook',
			credentials: { httpHeaderAuth: { ...CREDENTIAL_IDS.webhookKey } },
		},
		node('Tickets', 'n8n-nodes-base.splitOut', 1, 240, {
			fieldToSplitOut: 'body.tickets',
			options: {},
		}),
		node('Read ticket PDF', 'n8n-nodes-base.readWriteFile', 1.1, 480, {
			operation: 'read',
			fileSelector: '={{ $json.file }}',
			options: {},
		}),
		{
			...node('Pre-deliver tickets', ACTION_NODE_TYPE, 1.1, 720, {
				resource: 'listing',
				operation: 'preDeliver',
				binaryPropertyName: 'data',
				...(listingBy === 'externalId'
					? { listingBy, externalListingId: ticket('externalListingId') }
					: { listingId: ticket('listingId') }),
				generalAdmission: "={{ $('Tickets').item.json.ga === true }}",
				row: ticket('row'),
				seat: ticket('seat'),
				options: {},
			}),
			onError: 'continueRegularOutput',
			credentials: { ticketMarketplaceApi: { ...CREDENTIAL_IDS.api } },
		},
	];
	const to = (target: string) => ({ main: [[{ node: target, type: 'main', index: 0 }]] });
	return {
		id: 'tmPreDeliverDisk',
		name: 'E2E: ticket PDFs from disk to Pre-deliver Tickets',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes,
		connections: {
			'Run over HTTP': to('Tickets'),
			Tickets: to('Read ticket PDF'),
			'Read ticket PDF': to('Pre-deliver tickets'),
		},
	};
}

/** Examples whose services cannot be reached here (Slack, Google): imported, never activated. */
export const IMPORT_ONLY_WORKFLOW_IDS = [
	'tmSaleAlertSlack',
	'tmGSheetListings',
	'tmDrivePdfUpload',
];

export function harnessWorkflows(): Array<{ workflow: WorkflowJson; activate: boolean }> {
	return Object.values(suiteWorkflows())
		.filter(
			(workflow) =>
				!ON_N8N_1X || !workflow.nodes.some((node) => ONLY_ON_N8N_2X.includes(node.type)),
		)
		.map((workflow) => ({ workflow, activate: !IMPORT_ONLY_WORKFLOW_IDS.includes(workflow.id) }));
}

export function triggerWebhookId(saleAlert: WorkflowJson): string {
	const webhookId = nodeByType(saleAlert, TRIGGER_NODE_TYPE).webhookId;
	if (!webhookId) throw new Error('the sale alert trigger has no webhookId');
	return webhookId;
}

export { webhookPath };

/**
 * The sale alert reduced to the trigger (under its own webhook id) and a No-Op: for queue mode and load, where what
 * matters is who answers and who runs it, not the chat.
 */
export function minimalSaleAlert(
	id: string,
	name: string,
	webhookId: string,
	respond: 'immediately' | 'whenFinished' = 'immediately',
): WorkflowJson {
	const trigger = {
		...nodeByType(loadExample(EXAMPLE_FILES.saleAlert), TRIGGER_NODE_TYPE),
		webhookId,
		parameters: { respond, options: {} },
	};
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			trigger,
			{
				id: `${id}-noop`,
				name: 'Alert',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [240, 0],
				parameters: {},
			},
		],
		connections: { [trigger.name]: { main: [[{ node: 'Alert', type: 'main', index: 0 }]] } },
	} as WorkflowJson;
}
