import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';

export { create };

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
		],
		default: 'create',
	},
	...create.description,
];
