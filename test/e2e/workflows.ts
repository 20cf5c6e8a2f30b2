/**
 * The workflows the e2e suite imports: the three examples exactly as users import them, plus a Continue On Fail
 * variant of the sheet workflow (a copy under its own id and path; the example file is not changed).
 */
import {
	EXAMPLE_FILES,
	loadExample,
	nodeByType,
	variantOf,
	webhookPath,
	type WorkflowJson,
} from '../../scripts/harness/workflows';

export const ACTION_NODE_TYPE = 'n8n-nodes-ticket-marketplace.ticketMarketplace';
export const TRIGGER_NODE_TYPE = 'n8n-nodes-ticket-marketplace.ticketMarketplaceTrigger';

export function suiteWorkflows() {
	const sheetToListings = loadExample(EXAMPLE_FILES.sheetToListings);
	const subscribe = loadExample(EXAMPLE_FILES.subscribe);
	const saleAlert = loadExample(EXAMPLE_FILES.saleAlert);
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
	return { sheetToListings, subscribe, saleAlert, sheetContinueOnFail, sheetPerRow };
}

export function harnessWorkflows(): Array<{ workflow: WorkflowJson; activate: boolean }> {
	return Object.values(suiteWorkflows()).map((workflow) => ({ workflow, activate: true }));
}

export function triggerWebhookId(saleAlert: WorkflowJson): string {
	const webhookId = nodeByType(saleAlert, TRIGGER_NODE_TYPE).webhookId;
	if (!webhookId) throw new Error('the sale alert trigger has no webhookId');
	return webhookId;
}

export { webhookPath };
