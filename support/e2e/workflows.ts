/**
 * The workflows the e2e suite imports: every example exactly as users import them, plus variants of the sheet
 * workflow (copies under their own ids and paths; the example files are not changed). The Slack and Google Sheets
 * examples need their services, so they are imported but not activated: the suite checks that every node type and
 * parameter in them resolves in the real n8n, and the browser test opens them in the editor.
 */
import {
	EXAMPLE_FILES,
	loadExample,
	nodeByType,
	variantOf,
	webhookPath,
	type WorkflowJson,
} from '../harness/workflows';

export const ACTION_NODE_TYPE = 'n8n-nodes-ticket-marketplace.ticketMarketplace';
export const TRIGGER_NODE_TYPE = 'n8n-nodes-ticket-marketplace.ticketMarketplaceTrigger';

export function suiteWorkflows() {
	const sheetToListings = loadExample(EXAMPLE_FILES.sheetToListings);
	const subscribe = loadExample(EXAMPLE_FILES.subscribe);
	const saleAlert = loadExample(EXAMPLE_FILES.saleAlert);
	const saleAlertSlack = loadExample(EXAMPLE_FILES.saleAlertSlack);
	const dataTableToListings = loadExample(EXAMPLE_FILES.dataTableToListings);
	const googleSheetsToListings = loadExample(EXAMPLE_FILES.googleSheetsToListings);
	const httpRequest = loadExample(EXAMPLE_FILES.httpRequest);
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
	return {
		sheetToListings,
		subscribe,
		saleAlert,
		saleAlertSlack,
		dataTableToListings,
		googleSheetsToListings,
		httpRequest,
		sheetContinueOnFail,
		sheetPerRow,
	};
}

/** Examples whose services cannot be reached here (Slack, Google): imported, never activated. */
export const IMPORT_ONLY_WORKFLOW_IDS = ['tmSaleAlertSlack', 'tmGSheetListings'];

export function harnessWorkflows(): Array<{ workflow: WorkflowJson; activate: boolean }> {
	return Object.values(suiteWorkflows()).map((workflow) => ({ workflow, activate: !IMPORT_ONLY_WORKFLOW_IDS.includes(workflow.id) }));
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
export function minimalSaleAlert(id: string, name: string, webhookId: string, respond: 'immediately' | 'whenFinished' = 'immediately'): WorkflowJson {
	const trigger = { ...nodeByType(loadExample(EXAMPLE_FILES.saleAlert), TRIGGER_NODE_TYPE), webhookId, parameters: { respond, options: {} } };
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [trigger, { id: `${id}-noop`, name: 'Alert', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} }],
		connections: { [trigger.name]: { main: [[{ node: 'Alert', type: 'main', index: 0 }]] } },
	} as WorkflowJson;
}
