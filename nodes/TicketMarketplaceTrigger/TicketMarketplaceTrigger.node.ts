import {
	NodeConnectionTypes,
	type IHookFunctions,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { testCallbackCredential } from '../shared/callbackCredential';
import { answerNotification } from './notificationEndpoint';
import {
	DEFAULT_ACCEPTED_KINDS,
	RESPOND,
	DEFAULT_TOKEN_LIFETIME_SECONDS,
	MAX_TOKEN_LIFETIME_SECONDS,
	MIN_TOKEN_LIFETIME_SECONDS,
} from './options';
import { answerTokenRequest } from './tokenEndpoint';
import { NOTIFICATION_WEBHOOK, TOKEN_WEBHOOK } from './webhookDescriptions';

export class TicketMarketplaceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Ticket Marketplace Trigger',
		name: 'ticketMarketplaceTrigger',
		icon: {
			light: 'file:../../icons/ticketMarketplaceTrigger.svg',
			dark: 'file:../../icons/ticketMarketplaceTrigger.dark.svg',
		},
		group: ['trigger'],
		// 1.1 differs from 1 only in what n8n does before the node runs: for a start node of version 1 it evaluates the
		// expression of its own Webhook node 1's binaryData option (in n8n 2.41, inside an isolate) on every request.
		// Both versions answer alike; new nodes get 1.1.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: 'Listing notifications',
		description:
			'Starts the workflow when the ticket marketplace sends a listing notification, such as a sale',
		defaults: {
			name: 'Ticket Marketplace Trigger',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				// A literal, not CALLBACK_CREDENTIAL_TYPE: n8n's lint reads it from the source to pair it with testedBy.
				name: 'ticketMarketplaceCallbackApi',
				required: true,
				// The same label as on the Ticket Marketplace node's Subscribe, where it stands next to the API account.
				displayName: 'Callback Client (Given to the Marketplace)',
				testedBy: 'ticketMarketplaceCallbackApiTest',
			},
		],
		// Token endpoint (`setup`) and notifications (`default`); see webhookDescriptions.ts.
		webhooks: [TOKEN_WEBHOOK, NOTIFICATION_WEBHOOK],
		properties: [
			{
				displayName:
					"Setup: 1) Activate this workflow. 2) Copy the production URLs of both webhooks below: the token URL (ending in /token) and the callback URL (ending in /notifications). 3) Run the Ticket Marketplace node's Webhook → Subscribe operation with these two URLs and this same Ticket Marketplace Callback credential. 4) E-mail the subscription identifier it returns to the marketplace's API support for activation (24 to 48 hours). 5) Create listings only after activation: earlier listings never send notifications. Activating or deactivating this workflow never creates or removes a subscription.",
				name: 'setupNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName:
					"Get a sample sale into the editor: click Listen for test event (or Execute workflow). For two minutes n8n then serves both Test URLs below (token and notifications, under /webhook-test/): token requests and refused notifications keep it listening, the first notification with a valid token ends it. Meanwhile, run the sample-sale command of the sandbox in this package's repository with the two Test URLs and this credential's client (README: Build the sale alert without waiting for a sale). Real sales go to the production URLs only; they show under Executions once the workflow is active. The notification's payload shape is not documented by the marketplace: in later nodes, read every field defensively, e.g. $json.listing?.eventId ?? 'unknown'.",
				name: 'testNotice',
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
						value: RESPOND.immediately,
						description:
							'Answer 200 as soon as the notification is accepted. If a later step fails (the chat is down), the marketplace is not told and does not send it again.',
					},
					{
						name: 'When the Workflow Finishes',
						value: RESPOND.whenFinished,
						description:
							"Answer once the workflow has run: 200 when it succeeded, 500 when it failed, so the marketplace sends the notification again. Later steps then see repeats: drop them with a Remove Duplicates node on the notification's ID.",
					},
				],
				// A literal: n8n's lint reads the default from the source.
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
						default: DEFAULT_ACCEPTED_KINDS,
						description:
							'Only these notification kinds start the workflow, separated by commas, compared without case (e.g. listing_sale). Empty (the default) starts the workflow for every notification with a valid token. The kind is read from the eventType, event_type, notificationType, notification_type, kind, event or type field; a notification naming no kind is accepted. A notification of another kind is answered 200, starts nothing and is never sent again: filter only when you are sure of the kinds.',
						placeholder: 'e.g. listing_sale',
					},
					{
						displayName: 'Include Request Headers',
						name: 'includeHeaders',
						type: 'boolean',
						default: false,
						description:
							'Whether to output { headers, body } instead of the notification body alone. The Authorization header is never included.',
					},
					{
						displayName: 'Token Lifetime (Seconds)',
						name: 'tokenLifetime',
						type: 'number',
						typeOptions: {
							minValue: MIN_TOKEN_LIFETIME_SECONDS,
							maxValue: MAX_TOKEN_LIFETIME_SECONDS,
							numberPrecision: 0,
						},
						default: DEFAULT_TOKEN_LIFETIME_SECONDS,
						description:
							'How long an access token issued to the marketplace stays valid. Changing the client secret revokes all tokens within 10 seconds.',
					},
				],
			},
		],
	};

	methods = {
		credentialTest: {
			ticketMarketplaceCallbackApiTest: testCallbackCredential,
		},
	};

	/**
	 * Nothing is registered remotely on activation: the marketplace has no unsubscribe call and every subscription
	 * needs a manual approval, so subscribing is an explicit step (the action node's Webhook → Subscribe).
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				// Reporting "exists" keeps n8n from calling create; there is nothing remote to look up.
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				// Subscriptions are created on purpose with Webhook → Subscribe, never by activation.
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				// No unsubscribe call exists; the subscription outlives deactivation and keeps the same URLs.
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		if (this.getWebhookName() === 'setup') return await answerTokenRequest.call(this);
		return await answerNotification.call(this);
	}
}
