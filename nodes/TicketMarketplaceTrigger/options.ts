import { NodeOperationError, type IWebhookFunctions } from 'n8n-workflow';

export const DEFAULT_TOKEN_LIFETIME_SECONDS = 3600;
export const TOKEN_LIFETIME_BOUNDS = { min: 60, max: 86400 };

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
	const { min, max } = TOKEN_LIFETIME_BOUNDS;
	if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max)
		return value;
	throw optionError(
		context,
		`Token Lifetime must be a whole number of seconds from ${min} to ${max}`,
		`Token Lifetime (Seconds) and set a whole number from ${min} to ${max}, or remove the option to use ${DEFAULT_TOKEN_LIFETIME_SECONDS}.`,
	);
}

/** The kinds to start executions for; none (the default, as the payload shape is not documented) accepts every kind. */
export function readAcceptedKinds(context: IWebhookFunctions): string[] {
	const value = context.getNodeParameter('options.acceptedKinds', '');
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
