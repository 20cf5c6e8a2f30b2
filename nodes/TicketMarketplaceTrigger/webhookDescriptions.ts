import type { INodeParameters, IWebhookDescription } from 'n8n-workflow';

import { RESPOND } from './options';

/**
 * The key under which n8n 2.41 and later look for native resolvers of a webhook description's fields (n8n-workflow's
 * WEBHOOK_RESOLVERS, a registered symbol). For a node whose parameters hold no expression, n8n then reads such a
 * field by calling its resolver instead of evaluating its `={{...}}` template in the expression engine (under n8n
 * 2.41's default engine, inside an isolate, for every notification). n8n uses a resolver only while the field still
 * holds the exact template it was declared with. Older n8n ignore the key and evaluate the template; the editor
 * never sees it (JSON drops symbol keys).
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

/** The notifications endpoint's fields that depend on the Respond parameter. */
export const NOTIFICATION_FIELDS = {
	// Respond: at once (n8n's onReceived) or once the workflow has run (lastNode: 500 when it failed).
	responseMode: followsRespond('lastNode', 'onReceived'),
	// onReceived: empty lets webhookResponse through (n8n 2.8 would answer the literal text "firstEntryJson").
	// lastNode: no data, so nothing the workflow produced is sent back to the marketplace.
	responseData: followsRespond('noData', ''),
};

/** The notifications endpoint, with its templates and, under WEBHOOK_RESOLVERS, their native resolvers. */
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
