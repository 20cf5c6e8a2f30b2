import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

import { CREDENTIAL_ICON } from '../nodes/shared/partnerApi/partnerApi';

/** The client the marketplace presents at the trigger's token endpoint; tested locally by the trigger (testedBy). */
export class TicketMarketplaceCallbackApi implements ICredentialType {
	name = 'ticketMarketplaceCallbackApi';
	displayName = 'Ticket Marketplace Callback API';
	documentationUrl =
		'https://github.com/n8n-nodes-ticket-marketplace/n8n-nodes-ticket-marketplace#credentials';
	icon: Icon = CREDENTIAL_ICON;
	properties: INodeProperties[] = [
		{
			displayName:
				'Choose both values yourself. Subscribe gives them to the marketplace, and the trigger checks them when the marketplace signs in.',
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
			placeholder: 'e.g. marketplace',
			description:
				'A name of your choice for the marketplace: letters, digits and punctuation, without a colon or spaces at either end',
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'A secret of your choice, at least 16 characters of letters, digits and punctuation; a long random string is best',
		},
	];
}
