/**
 * What the node's options say for the whole run, read once, and the panel's constants they are checked against.
 * A leaf: the panel (description.ts) and every stage read these without reading each other.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { z } from 'zod';

import { currencyCode, isBlank, positiveAmount, positiveId } from '../../../schemas/sheetValues';
import type { PacingMode } from '../../../transport';

/**
 * The most requests in flight by default; adaptive pacing finds the API's own pace below it. Higher is faster
 * against an API without a limit, but sends more into a per-second limit before its first 429 comes back
 * (bench/README.md has the figures).
 */
export const DEFAULT_CONCURRENCY = 48;
export const MAX_CONCURRENCY = 100;

/** The limits a seller sets on every listing: option name → label. */
export const LIMIT_OPTIONS = {
	minPricePerTicket: 'Minimum Price per Ticket',
	minPriceCurrency: 'Minimum Price Currency',
	maxTicketsPerListing: 'Maximum Tickets per Listing',
} as const;

export type InputShape = 'listingPerItem' | 'ticketPerItem';

export interface SendSettings {
	validateOnly: boolean;
	mode: PacingMode;
	maxConcurrency: number;
	skipAlreadySent: boolean;
	perRow: boolean;
}

export function readSendSettings(context: IExecuteFunctions): SendSettings {
	const options = context.getNodeParameter('options', 0, {}) as IDataObject;
	const requested = Number(options.concurrency ?? DEFAULT_CONCURRENCY);
	return {
		validateOnly: options.validateOnly === true,
		mode: options.concurrencyMode === 'fixed' ? 'fixed' : 'adaptive',
		maxConcurrency: Number.isInteger(requested)
			? Math.min(Math.max(requested, 1), MAX_CONCURRENCY)
			: DEFAULT_CONCURRENCY,
		skipAlreadySent: options.skipAlreadySent !== false,
		perRow: options.output === 'row',
	};
}

/**
 * What the seller allows one listing, whatever the sheet or an AI Agent's model passes: each absent when not set.
 * A minimum price is in its own currency, and a listing in any other is refused: 20 EUR says nothing of 25 JPY.
 */
export interface ListingLimits {
	minPrice?: number;
	/** The only currency a listing may be priced in (upper case); set whenever minPrice is. */
	currency?: string;
	maxTickets?: number;
}

export const NO_LIMITS: ListingLimits = {};

/**
 * A limit as typed, checked as a listing's price and a count of tickets are: empty or 0 sets none. A limit that
 * cannot be used stops the run before anything is read or sent, rather than letting every listing through.
 */
function limitOf(
	context: IExecuteFunctions,
	value: unknown,
	option: keyof typeof LIMIT_OPTIONS,
	schema: z.ZodTypeAny,
): number | undefined {
	if (isBlank(value) || value === 0 || value === '0') return undefined;
	const parsed = schema.safeParse(value);
	if (parsed.success) return parsed.data as number;
	const label = LIMIT_OPTIONS[option];
	throw new NodeOperationError(context.getNode(), `${label} under Options cannot be used`, {
		description: `${label} ${parsed.error.issues[0]?.message ?? 'is not a number'}. Set it to a number, or remove the option to set no limit.`,
		itemIndex: 0,
	});
}

/** The currency of the limits; a minimum price without one stops the run, since no price can be compared to it. */
function limitCurrency(
	context: IExecuteFunctions,
	value: unknown,
	minPrice: number | undefined,
): string | undefined {
	const label = LIMIT_OPTIONS.minPriceCurrency;
	if (isBlank(value)) {
		if (minPrice === undefined) return undefined;
		throw new NodeOperationError(
			context.getNode(),
			`${LIMIT_OPTIONS.minPricePerTicket} under Options needs its currency`,
			{
				description: `Add Options → ${label}, the three-letter code the minimum is in (such as EUR); listings priced in any other currency are then refused. Nothing was sent.`,
				itemIndex: 0,
			},
		);
	}
	const parsed = currencyCode.safeParse(value);
	if (parsed.success) return parsed.data as string;
	throw new NodeOperationError(context.getNode(), `${label} under Options cannot be used`, {
		description: `${label} ${parsed.error.issues[0]?.message ?? 'is not a currency code'}. Nothing was sent.`,
		itemIndex: 0,
	});
}

export function readListingLimits(context: IExecuteFunctions): ListingLimits {
	const options = context.getNodeParameter('options', 0, {}) as IDataObject;
	const minPrice = limitOf(context, options.minPricePerTicket, 'minPricePerTicket', positiveAmount);
	const currency = limitCurrency(context, options.minPriceCurrency, minPrice);
	const maxTickets = limitOf(
		context,
		options.maxTicketsPerListing,
		'maxTicketsPerListing',
		positiveId,
	);
	return {
		...(minPrice !== undefined && { minPrice }),
		...(currency !== undefined && { currency }),
		...(maxTickets !== undefined && { maxTickets }),
	};
}
