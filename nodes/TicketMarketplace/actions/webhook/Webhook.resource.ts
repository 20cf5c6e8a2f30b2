/** Webhook → Subscribe as the editor shows it, in both node versions. */
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import { optionsCollection } from '../optionsCollection';
import { fromV1_1, v1Only } from '../versions';

export * as subscribe from './subscribe/execute';

const subscriptionKinds: INodeProperties = {
	displayName: 'Subscription Kinds',
	name: 'subscriptionKinds',
	type: 'string',
	typeOptions: { multipleValues: true, multipleValueButtonText: 'Add Kind' },
	default: ['listing_sale'],
	description:
		'Which notifications to receive; listing_sale (a ticket sold) is the one the marketplace documents',
};

const urlField = (
	displayName: string,
	name: string,
	end: string,
	what: string,
): INodeProperties => ({
	displayName,
	name,
	type: 'string',
	required: true,
	default: '',
	placeholder: `e.g. https://n8n.example.com/webhook/…/${end}`,
	description: `The Ticket Marketplace Trigger's production URL that ends in /${end}, where ${what}`,
});

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
	...updateDisplayOptions({ show: { resource: ['webhook'], operation: ['subscribe'] } }, [
		{
			displayName:
				'After subscribing, e-mail the subscription ID to API support, and create listings only once they confirm activation (24 to 48 hours)',
			name: 'activationNotice',
			type: 'notice',
			default: '',
		},
		urlField('Callback URL', 'callbackUrl', 'notifications', 'sales arrive'),
		urlField('Token URL', 'callbackAuthUrl', 'token', 'the marketplace signs in'),
		// Version 1: Subscription Kinds in the main panel, and Auth Type and Grant Type as free text under Options.
		v1Only(subscriptionKinds),
		v1Only(
			optionsCollection([
				{
					displayName: 'Auth Type',
					name: 'authType',
					type: 'string',
					default: 'oauth',
					description:
						'How the marketplace signs in at the trigger; oauth is the only documented one',
				},
				{
					displayName: 'Grant Type',
					name: 'grantType',
					type: 'string',
					default: 'client_credentials',
					description:
						'How the marketplace gets its token; client_credentials is the only documented one',
				},
			]),
		),
		// From 1.1 the two values that have only one valid value are sent as such, and not shown.
		fromV1_1(optionsCollection([subscriptionKinds])),
	]),
];
