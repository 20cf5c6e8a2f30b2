import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as listing from './listing/Listing.resource';
import * as webhook from './webhook/Webhook.resource';

type Operation = (
	this: IExecuteFunctions,
	items: INodeExecutionData[],
) => Promise<INodeExecutionData[]>;

/** Every resource and its operations, by the values the node's description gives them. */
export const OPERATIONS: Record<string, Record<string, Operation>> = {
	listing: {
		create: listing.create.execute,
		forgetSent: listing.forgetSent.execute,
		preDeliver: listing.preDeliver.execute,
	},
	webhook: { subscribe: webhook.subscribe.execute },
};

const CHOOSE_AGAIN =
	'Open the node and choose its resource and operation again: Listing → Create, Listing → Pre-Deliver Tickets, Listing → Clear Sent Listings History or Webhook → Subscribe.';

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const run = Object.hasOwn(OPERATIONS, resource) && OPERATIONS[resource];
	const message = `The operation "${operation}" of "${resource}" is not supported`;
	if (!run || !Object.hasOwn(run, operation))
		throw new NodeOperationError(this.getNode(), message, { description: CHOOSE_AGAIN });
	return [await run[operation].call(this, items)];
}
