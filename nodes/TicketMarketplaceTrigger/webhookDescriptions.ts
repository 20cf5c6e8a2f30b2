import type { INodeParameters, IWebhookDescription } from 'n8n-workflow';

import { RESPOND } from './options';

/**
 * n8n 2.41+ reads a description field through a native resolver under this key (while the field holds its declared
 * template) instead of evaluating the template per request; older n8n and the editor ignore it.
 */
export const WEBHOOK_RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

/** One description field: the template n8n's editor and older n8n evaluate, and the same logic as a function. */
export interface ResolvableField {
	template: string;
	resolve: (parameters: INodeParameters) => string;
}

/** A field that follows the Respond parameter: one value when the workflow's end answers, another otherwise. */
function followsRespond(whenFinished: string, immediately: string): ResolvableField {
	return {
		template: `={{$parameter["respond"] === "${RESPOND.whenFinished}" ? "${whenFinished}" : "${immediately}"}}`,
		resolve: (parameters) =>
			parameters.respond === RESPOND.whenFinished ? whenFinished : immediately,
	};
}

/** The token endpoint: answered by the node itself, it never starts an execution. Plain values only. */
export const TOKEN_WEBHOOK: IWebhookDescription = {
	name: 'setup',
	httpMethod: 'POST',
	responseMode: 'onReceived',
	responseData: '',
	path: 'token',
};

const NOTIFICATION_FIELDS = {
	// lastNode answers 500 when the run failed, so the marketplace sends the notification again.
	responseMode: followsRespond('lastNode', 'onReceived'),
	// onReceived: empty lets webhookResponse through (n8n 2.8 would send "firstEntryJson"); noData sends nothing back.
	responseData: followsRespond('noData', ''),
};

export const NOTIFICATION_WEBHOOK: IWebhookDescription = Object.assign(
	{
		name: 'default',
		httpMethod: 'POST',
		responseMode: NOTIFICATION_FIELDS.responseMode.template,
		responseData: NOTIFICATION_FIELDS.responseData.template,
		path: 'notifications',
	} satisfies IWebhookDescription,
	{ [WEBHOOK_RESOLVERS]: NOTIFICATION_FIELDS },
);
