import {
	NodeOperationError,
	type INodeParameters,
	type IWebhookDescription,
	type IWebhookFunctions,
} from 'n8n-workflow';

import { TRIGGER_PATHS } from '../shared/callbackCredential';

export const DEFAULT_TOKEN_LIFETIME_SECONDS = 3600;
export const MIN_TOKEN_LIFETIME_SECONDS = 60;
export const MAX_TOKEN_LIFETIME_SECONDS = 86400;
/** Empty: every notification with a valid token starts the workflow (the payload shape is not documented). */
export const DEFAULT_ACCEPTED_KINDS = '';
/** The Respond parameter's values: when the marketplace gets its answer to a notification. */
export const RESPOND = { immediately: 'immediately', whenFinished: 'whenFinished' } as const;

/** One word or words joined by `_ . - : /`, all lower or all upper case: `listing.sold`, not "Concert". */
const KIND_SHAPE = /^(?:[a-z0-9]+(?:[._:/-][a-z0-9]+)*|[A-Z0-9]+(?:[._:/-][A-Z0-9]+)*)$/;

/** Whether a text can be a kind: what Accepted Kinds must hold, lest a typo drop every sale for good. */
export const isKindShaped = (text: string) => text.length <= 64 && KIND_SHAPE.test(text);

function optionError(context: IWebhookFunctions, message: string, fix: string) {
	const description = `Open the trigger's Options → ${fix}`;
	return new NodeOperationError(context.getNode(), message, { description });
}

export function readTokenLifetime(context: IWebhookFunctions): number {
	const value = context.getNodeParameter('options.tokenLifetime', DEFAULT_TOKEN_LIFETIME_SECONDS);
	const [min, max] = [MIN_TOKEN_LIFETIME_SECONDS, MAX_TOKEN_LIFETIME_SECONDS];
	if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max)
		return value;
	throw optionError(
		context,
		`Token Lifetime must be a whole number of seconds from ${min} to ${max}`,
		`Token Lifetime (Seconds) and set a whole number from ${min} to ${max}, or remove the option to use ${DEFAULT_TOKEN_LIFETIME_SECONDS}.`,
	);
}

/** The subscription kinds to start executions for; an empty list accepts every kind. */
export function readAcceptedKinds(context: IWebhookFunctions): string[] {
	const value = context.getNodeParameter('options.acceptedKinds', DEFAULT_ACCEPTED_KINDS);
	if (typeof value !== 'string')
		throw optionError(
			context,
			'Accepted Kinds must be text: kinds separated by commas',
			'Accepted Kinds and type the kinds separated by commas (for example listing_sale), or leave it empty to accept every kind.',
		);
	const kinds = value.split(',').map((kind) => kind.trim().toLowerCase());
	const notAKind = kinds.find((kind) => kind !== '' && !isKindShaped(kind));
	if (notAKind === undefined) return kinds.filter((kind) => kind !== '');
	throw optionError(
		context,
		`Accepted Kinds holds "${notAKind.slice(0, 64)}", which is not a kind`,
		'Accepted Kinds and type kinds (words joined by _ . - : or /, no spaces) separated by commas, for example listing_sale, sale.provisional.',
	);
}

export function readIncludeHeaders(context: IWebhookFunctions): boolean {
	const value = context.getNodeParameter('options.includeHeaders', false);
	// Anything else (the text "true" from an expression) would change the item's shape by a guess.
	if (typeof value === 'boolean') return value;
	throw optionError(
		context,
		'Include Request Headers must be true or false',
		'Include Request Headers and switch it on or off, or make its expression give true or false.',
	);
}

/** n8n 2.41+ resolves a field still holding its template by this key, not per request; editor and older n8n ignore it. */
export const WEBHOOK_RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

/** One description field: the template n8n's editor and older n8n evaluate, and the same logic as a function. */
export interface ResolvableField {
	template: string;
	resolve: (parameters: INodeParameters) => string;
}

/** A field that follows the Respond parameter: one value when the workflow's end answers, another otherwise. */
const followsRespond = (whenFinished: string, immediately: string): ResolvableField => ({
	template: `={{$parameter["respond"] === "${RESPOND.whenFinished}" ? "${whenFinished}" : "${immediately}"}}`,
	resolve: (parameters) =>
		parameters.respond === RESPOND.whenFinished ? whenFinished : immediately,
});

/** The token endpoint: answered by the node itself, it never starts an execution. Plain values only. */
export const TOKEN_WEBHOOK: IWebhookDescription = {
	name: 'setup',
	httpMethod: 'POST',
	responseMode: 'onReceived',
	responseData: '',
	path: TRIGGER_PATHS.token,
};

const NOTIFICATION_FIELDS = {
	// lastNode answers 500 when the run failed, so the marketplace sends the notification again.
	responseMode: followsRespond('lastNode', 'onReceived'),
	// onReceived: empty lets webhookResponse through (n8n 2.8 would send "firstEntryJson"); noData sends nothing back.
	responseData: followsRespond('noData', ''),
};

export const NOTIFICATION_WEBHOOK: IWebhookDescription = {
	name: 'default',
	httpMethod: 'POST',
	responseMode: NOTIFICATION_FIELDS.responseMode.template,
	responseData: NOTIFICATION_FIELDS.responseData.template,
	path: TRIGGER_PATHS.notifications,
	[WEBHOOK_RESOLVERS]: NOTIFICATION_FIELDS,
};
