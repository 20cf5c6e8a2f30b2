import type { INodeProperties } from 'n8n-workflow';

import * as subscribe from './subscribe.operation';

export { subscribe };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		default: 'subscribe',
		noDataExpression: true,
		displayOptions: { show: { resource: ['webhook'] } },
		options: [
			{
				name: 'Subscribe',
				value: 'subscribe',
				description:
					'Ask the marketplace to send sale notifications to your Ticket Marketplace Trigger',
				action: 'Subscribe a webhook',
			},
		],
	},
	...subscribe.description,
];
