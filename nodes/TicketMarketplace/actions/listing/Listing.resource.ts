import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as forgetSent from './forgetSent.operation';

export { create, forgetSent };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['listing'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Create ticket listings for an event, one per item or grouped from sheet rows',
				action: 'Create a listing',
			},
			{
				name: 'Forget Sent Listings',
				value: 'forgetSent',
				description:
					'Let Create send External Listing IDs again that this workflow remembers as sent',
				action: 'Forget sent listings',
			},
		],
		default: 'create',
	},
	...create.description,
	...forgetSent.description,
];
