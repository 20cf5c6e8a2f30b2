/** The run's options, read once, and the panel's constants: a leaf the panel and every stage read. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { z } from 'zod';

import { currencyCode, isBlank, positiveAmount, positiveId } from '../../../schemas/sheetValues';
import type { PacingMode } from '../../../transport';

/** The most in flight by default; adaptive pacing finds the API's pace below it (bench/README.md). */
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
	/** Opt-in: each listing's record for Pre-deliver takes about 80 entries of the memory instead of 1. */
	rememberForPreDeliver: boolean;
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
		rememberForPreDeliver: options.rememberForPreDeliver === true,
		perRow: options.output === 'row',
	};
}

/** What the seller allows one listing, whatever a sheet or an AI Agent passes; a minimum price has its currency. */
export interface ListingLimits {
	minPrice?: number;
	/** The only currency a listing may be priced in (upper case); set whenever minPrice is. */
	currency?: string;
	maxTickets?: number;
}

export const NO_LIMITS: ListingLimits = {};

/** The limits as typed (empty or 0 sets none); one that cannot be used stops the run before anything is read. */
export function readListingLimits(context: IExecuteFunctions): ListingLimits {
	const options = context.getNodeParameter('options', 0, {}) as IDataObject;
	const stop = (message: string, description: string) =>
		new NodeOperationError(context.getNode(), message, { description, itemIndex: 0 });
	const parse = <T>(
		option: keyof typeof LIMIT_OPTIONS,
		schema: z.ZodTypeAny,
		is: string,
		then: string,
	) => {
		const parsed = schema.safeParse(options[option]);
		if (parsed.success) return parsed.data as T;
		const label = LIMIT_OPTIONS[option];
		const issue = parsed.error.issues[0]?.message ?? is;
		throw stop(`${label} under Options cannot be used`, `${label} ${issue}. ${then}`);
	};
	const limit = (option: 'minPricePerTicket' | 'maxTicketsPerListing', schema: z.ZodTypeAny) => {
		const value = options[option];
		if (isBlank(value) || value === 0 || value === '0') return undefined;
		return parse<number>(
			option,
			schema,
			'is not a number',
			'Set it to a number, or remove the option to set no limit.',
		);
	};
	const minPrice = limit('minPricePerTicket', positiveAmount);
	let currency: string | undefined;
	if (!isBlank(options.minPriceCurrency))
		currency = parse<string>(
			'minPriceCurrency',
			currencyCode,
			'is not a currency code',
			'Nothing was sent.',
		);
	else if (minPrice !== undefined)
		throw stop(
			`${LIMIT_OPTIONS.minPricePerTicket} under Options needs its currency`,
			`Add Options → ${LIMIT_OPTIONS.minPriceCurrency}, the three-letter code the minimum is in (such as EUR); listings priced in any other currency are then refused. Nothing was sent.`,
		);
	const maxTickets = limit('maxTicketsPerListing', positiveId);
	return {
		...(minPrice !== undefined && { minPrice }),
		...(currency !== undefined && { currency }),
		...(maxTickets !== undefined && { maxTickets }),
	};
}
