import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * n8n offers a node with `usableAsTool` to AI Agents as a node type of its own, named after it with "Tool"
 * appended: that name tells a run as an agent's tool (where the model chooses every `$fromAI()` value and when to
 * call) from a run in a workflow.
 */
export function runsAsAgentTool(context: IExecuteFunctions): boolean {
	return context.getNode().type.endsWith('Tool');
}

/**
 * Refuses an operation that an AI Agent must not run, before it reads or sends anything: `title` says what was
 * refused and what was not done, `why` what the operation would do that the seller could not take back.
 */
export function refuseAsAgentTool(context: IExecuteFunctions, title: string, why: string): void {
	if (!runsAsAgentTool(context)) return;
	throw new NodeOperationError(context.getNode(), title, {
		description: `${why} Run it from a workflow of its own (for example Manual Trigger → Ticket Marketplace), not as an AI Agent's tool.`,
		itemIndex: 0,
	});
}
