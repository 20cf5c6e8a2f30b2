import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as listing from './actions/listing/Listing.resource';
import { router } from './actions/router';
import { testCallbackCredential } from '../shared/callbackCredential';
import * as webhook from './actions/webhook/Webhook.resource';

export class TicketMarketplace implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Ticket Marketplace',
		name: 'ticketMarketplace',
		icon: {
			light: 'file:../../icons/ticketMarketplace.svg',
			dark: 'file:../../icons/ticketMarketplace.dark.svg',
		},
		group: ['output'],
		// 1.1: the panel in the user's words, with sheet rows as the default input (actions/versions.ts).
		version: [1, 1.1],
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Create ticket listings and subscribe sale webhooks on a ticket marketplace Partner API',
		defaults: { name: 'Ticket Marketplace' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			// Labelled, or both read "Credential to connect with" where Subscribe shows them.
			{ name: 'ticketMarketplaceApi', required: true, displayName: 'Ticket Marketplace API' },
			{
				name: 'ticketMarketplaceCallbackApi',
				required: true,
				displayName: 'Ticket Marketplace Callback API',
				testedBy: 'ticketMarketplaceCallbackApiTest',
				// By resource, not operation: a field whose every option is listed reads as an "authentication" switch.
				displayOptions: { show: { resource: ['webhook'] } },
			},
		],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Listing', value: 'listing', description: 'Ticket listings for an event' },
					{ name: 'Webhook', value: 'webhook', description: 'Sale notification subscriptions' },
				],
				default: 'listing',
			},
			...listing.description,
			...webhook.description,
		],
	};

	// The callback credential has nothing remote to call; the trigger's local check serves both nodes.
	methods = { credentialTest: { ticketMarketplaceCallbackApiTest: testCallbackCredential } };

	execute = router;
}
