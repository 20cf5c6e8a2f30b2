import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

/**
 * The client id and secret that the marketplace presents to the Ticket Marketplace Trigger's token endpoint.
 * Nothing remote can check them, so the trigger node tests them locally (testedBy).
 */
export class TicketMarketplaceCallbackApi implements ICredentialType {
	name = 'ticketMarketplaceCallbackApi';

	displayName = 'Ticket Marketplace Callback API';

	icon: Icon = {
		light: 'file:../icons/ticketMarketplaceApi.svg',
		dark: 'file:../icons/ticketMarketplaceApi.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-ticket-marketplace/n8n-nodes-ticket-marketplace#credentials';

	properties: INodeProperties[] = [
		{
			displayName:
				"These are the values the marketplace will present to the Ticket Marketplace Trigger's token endpoint. Choose them yourself (the secret needs at least 16 characters; a long random string is best). The Ticket Marketplace node's Webhook → Subscribe operation sends this same credential to the marketplace, so you type them only once.",
			name: 'notice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
		},
	];
}
