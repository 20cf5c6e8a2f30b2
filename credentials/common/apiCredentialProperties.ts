import type { INodeProperties } from 'n8n-workflow';

import { TRANSPORT_OPT_IN_FIELD } from '../../nodes/shared/partnerApi/partnerApi';

/** The fields of the Ticket Marketplace API credential, as the editor shows them (the last two hidden). */
export const API_CREDENTIAL_PROPERTIES: INodeProperties[] = [
	{
		displayName:
			'Two logins are needed: your app on the developer portal (key and secret), and your marketplace account where tickets are sold (e-mail and password).',
		name: 'notice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Base URL',
		name: 'baseUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://api.example.com',
		description:
			"The marketplace API's address, without a path; for the sandbox, the one it prints",
	},
	{
		displayName: 'Consumer Key',
		name: 'consumerKey',
		type: 'string',
		default: '',
		required: true,
		description: "Shown on your app's page of the developer portal",
	},
	{
		displayName: 'Consumer Secret',
		name: 'consumerSecret',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		required: true,
		description: "Shown on your app's page of the developer portal, next to the consumer key",
	},
	{
		displayName: 'Marketplace Account E-Mail',
		name: 'email',
		type: 'string',
		placeholder: 'name@email.com',
		default: '',
		required: true,
		description:
			'E-mail of your marketplace account (where tickets are bought and sold), not of your developer-portal account',
	},
	{
		displayName: 'Marketplace Account Password',
		name: 'password',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		required: true,
		description: 'Password of your marketplace account, exactly as you type it to log in',
	},
	{
		displayName: 'Allow Proxy or Ignored SSL Issues',
		name: TRANSPORT_OPT_IN_FIELD,
		type: 'boolean',
		default: false,
		description:
			"Whether to send the token when the request node's Proxy or Ignore SSL Issues (Insecure) option is set; https:// only",
	},
	{
		displayName: 'Access Token',
		name: 'accessToken',
		type: 'hidden',
		typeOptions: { expirable: true, password: true },
		default: '',
	},
	{
		displayName: 'Refresh Token',
		name: 'refreshToken',
		type: 'hidden',
		typeOptions: { password: true },
		default: '',
	},
];
