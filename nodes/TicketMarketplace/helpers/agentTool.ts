import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

/** n8n offers a `usableAsTool` node to AI Agents as a type of its own, named with "Tool" appended. */
export const runsAsAgentTool = (context: IExecuteFunctions): boolean =>
	context.getNode().type.endsWith('Tool');

/** Refuses, before anything is read, an operation an AI Agent must not run: `why` says what it cannot undo. */
export function refuseAsAgentTool(context: IExecuteFunctions, title: string, why: string): void {
	if (!runsAsAgentTool(context)) return;
	throw new NodeOperationError(context.getNode(), title, {
		description: `${why} Run it from a workflow of its own (for example Manual Trigger → Ticket Marketplace), not as an AI Agent's tool.`,
		itemIndex: 0,
	});
}
