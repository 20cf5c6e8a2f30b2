import {
	NodeConnectionTypes,
	type INodeParameters,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { testCallbackCredential, TRIGGER_PATHS } from '../shared/callbackCredential';
import { answerUnexpected } from './httpAnswer';
import { answerNotification } from './notificationEndpoint';
import { DEFAULT_TOKEN_LIFETIME_SECONDS, TOKEN_LIFETIME_BOUNDS } from './options';
import { answerTokenRequest } from './tokenEndpoint';

/** n8n 2.41+ resolves a field still holding its template by this key, not per request; editor and older n8n ignore it. */
export const WEBHOOK_RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

/** A field that follows the Respond parameter: one value when the workflow's end answers, another otherwise. */
const followsRespond = (whenFinished: string, immediately: string) => ({
	template: `={{$parameter["respond"] === "whenFinished" ? "${whenFinished}" : "${immediately}"}}`,
	resolve: (parameters: INodeParameters) =>
		parameters.respond === 'whenFinished' ? whenFinished : immediately,
});

/** One description field: the template n8n's editor and older n8n evaluate, and the same logic as a function. */
export type ResolvableField = ReturnType<typeof followsRespond>;

const NOTIFICATION_FIELDS = {
	// lastNode answers 500 when the run failed, so the marketplace sends the notification again.
	responseMode: followsRespond('lastNode', 'onReceived'),
	// onReceived: empty lets webhookResponse through (n8n 2.8 would send "firstEntryJson"); noData sends nothing back.
	responseData: followsRespond('noData', ''),
};

export class TicketMarketplaceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Ticket Marketplace Trigger',
		name: 'ticketMarketplaceTrigger',
		icon: {
			light: 'file:../../icons/ticketMarketplaceTrigger.svg',
			dark: 'file:../../icons/ticketMarketplaceTrigger.dark.svg',
		},
		group: ['trigger'],
		// Both answer alike; for version 1, n8n evaluates its Webhook node 1's binaryData expression on every request.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: 'Listing notifications',
		description:
			'Starts the workflow when the ticket marketplace sends a listing notification, such as a sale',
		defaults: { name: 'Ticket Marketplace Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				// A literal: n8n's lint reads it from the source to pair it with testedBy.
				name: 'ticketMarketplaceCallbackApi',
				required: true,
				displayName: 'Ticket Marketplace Callback API',
				testedBy: 'ticketMarketplaceCallbackApiTest',
			},
		],
		webhooks: [
			// The token endpoint: answered by the node itself, it never starts an execution. Plain values only.
			{
				name: 'setup',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				responseData: '',
				path: TRIGGER_PATHS.token,
			},
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: NOTIFICATION_FIELDS.responseMode.template,
				responseData: NOTIFICATION_FIELDS.responseData.template,
				path: TRIGGER_PATHS.notifications,
				[WEBHOOK_RESOLVERS]: NOTIFICATION_FIELDS,
			},
		],
		properties: [
			{
				displayName:
					'Publish the workflow, then subscribe its production URLs with Webhook → Subscribe. Try a sale: npm run sandbox -- sample-sale in a clone of n8n-nodes-ticket-marketplace (steps in the docs).',
				name: 'setupNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Respond',
				name: 'respond',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Immediately',
						value: 'immediately',
						description:
							'As soon as the notification arrives; if the run then fails, the marketplace does not send it again',
					},
					{
						name: 'When Last Node Finishes',
						value: 'whenFinished',
						description:
							'Once the workflow has run; if the run fails, the marketplace sends the notification again',
					},
				],
				default: 'immediately',
				description: 'When the marketplace gets its answer',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Accepted Kinds',
						name: 'acceptedKinds',
						type: 'string',
						default: '',
						description:
							'Only these kinds start the workflow, separated by commas; another kind named plainly is dropped for good, an unclear one starts',
						placeholder: 'e.g. listing_sale',
					},
					{
						displayName: 'Include Request Headers',
						name: 'includeHeaders',
						type: 'boolean',
						default: false,
						description:
							'Whether to output the headers that came with each notification too, never its access token',
					},
					{
						displayName: 'Token Lifetime (Seconds)',
						name: 'tokenLifetime',
						type: 'number',
						typeOptions: {
							minValue: TOKEN_LIFETIME_BOUNDS.min,
							maxValue: TOKEN_LIFETIME_BOUNDS.max,
							numberPrecision: 0,
						},
						default: DEFAULT_TOKEN_LIFETIME_SECONDS,
						description:
							'How long an access token that the trigger gives the marketplace stays valid',
					},
				],
			},
		],
	};

	methods = { credentialTest: { ticketMarketplaceCallbackApiTest: testCallbackCredential } };

	// Nothing remote on (de)activation: subscribing is Webhook → Subscribe (manual approval), with no unsubscribe.
	webhookMethods = {
		default: { checkExists: async () => true, create: async () => true, delete: async () => true },
	};

	/** Never throws: n8n would answer 500 itself and record a failed execution for any stranger's request. */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		try {
			if (this.getWebhookName() === 'setup') return await answerTokenRequest.call(this);
			return await answerNotification.call(this);
		} catch (error) {
			return answerUnexpected(this, error);
		}
	}
}
