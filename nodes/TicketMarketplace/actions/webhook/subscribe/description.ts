/** Webhook → Subscribe as the editor shows it, in both node versions. */
import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection } from '../../optionsCollection';
import { fromV1_1, v1Only } from '../../versions';

const subscriptionKinds: INodeProperties = {
	displayName: 'Subscription Kinds',
	name: 'subscriptionKinds',
	type: 'string',
	typeOptions: { multipleValues: true, multipleValueButtonText: 'Add Kind' },
	default: ['listing_sale'],
	description:
		'Which notifications to receive; listing_sale (a ticket sold) is the one the marketplace documents',
};

const properties: INodeProperties[] = [
	{
		displayName:
			'After subscribing, e-mail the subscription ID to API support, and create listings only once they confirm activation (24 to 48 hours)',
		name: 'activationNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Callback URL',
		name: 'callbackUrl',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. https://n8n.example.com/webhook/…/notifications',
		description:
			"The Ticket Marketplace Trigger's production URL that ends in /notifications, where sales arrive",
	},
	{
		displayName: 'Token URL',
		name: 'callbackAuthUrl',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. https://n8n.example.com/webhook/…/token',
		description:
			"The Ticket Marketplace Trigger's production URL that ends in /token, where the marketplace signs in",
	},
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
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['subscribe'] } },
	properties,
);
