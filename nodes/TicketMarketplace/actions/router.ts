import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as listing from './listing/Listing.resource';
import * as webhook from './webhook/Webhook.resource';

type Operation = (
	this: IExecuteFunctions,
	items: INodeExecutionData[],
) => Promise<INodeExecutionData[]>;

/** Every resource and its operations, by the values the node's description gives them. */
export const OPERATIONS = {
	listing: {
		create: listing.create.execute,
		forgetSent: listing.forgetSent.execute,
		preDeliver: listing.preDeliver.execute,
	},
	webhook: { subscribe: webhook.subscribe.execute },
} satisfies Record<string, Record<string, Operation>>;

export type Resource = keyof typeof OPERATIONS;

/** The operation a node's parameters name, if it is one of ours. */
export function operationFor(resource: string, operation: string): Operation | undefined {
	if (!Object.hasOwn(OPERATIONS, resource)) return undefined;
	const ofResource: Record<string, Operation> = OPERATIONS[resource as Resource];
	return Object.hasOwn(ofResource, operation) ? ofResource[operation] : undefined;
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const run = operationFor(resource, operation);
	if (!run) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of "${resource}" is not supported`,
			{
				description:
					'Open the node and choose its resource and operation again: Listing → Create, Listing → Pre-Deliver Tickets, Listing → Clear Sent Listings History or Webhook → Subscribe.',
			},
		);
	}
	return [await run.call(this, items)];
}
