import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as forgetSent from './forgetSent.operation';
import * as preDeliver from './preDeliver.operation';

export { create, forgetSent, preDeliver };

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
				description: 'Create ticket listings from sheet rows or items',
				action: 'Create a listing',
			},
			{
				// Named after n8n's Remove Duplicates "Clear Deduplication History"; the value stays as workflows store it.
				name: 'Clear Sent Listings History',
				value: 'forgetSent',
				description: 'Let Create send listings again that this workflow has already sent',
				action: 'Clear sent listings history',
			},
			{
				name: 'Pre-Deliver Tickets',
				value: 'preDeliver',
				description: "Upload the tickets' PDFs onto a listing before it sells",
				action: 'Pre deliver tickets',
			},
		],
		default: 'create',
	},
	...create.description,
	...forgetSent.description,
	...preDeliver.description,
];
