/**
 * What the node's parameters say for the whole run, read once: how items are read in the node's version (see
 * ../../versions.ts), and how listings are sent.
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { z } from 'zod';

import { currencyCode, isBlank, positiveAmount, positiveId } from '../../../schemas/sheetValues';

import type { PacingMode } from '../../../transport';
import { readsAsV1 } from '../../versions';
import { DEFAULT_CONCURRENCY, LIMIT_OPTIONS, MAX_CONCURRENCY } from './description';
import { optionPaths } from './fields';

export type InputShape = 'listingPerItem' | 'ticketPerItem';

/**
 * What differs between the node's versions in reading products. From 1.1 one Product Type (under Options) applies
 * to every ticket that does not set its own (a JSON product may); version 1 has a Product Type per ticket and per
 * seat range.
 */
export interface ParameterLayout {
	sharedProductType: boolean;
}
export const V1_LAYOUT: ParameterLayout = { sharedProductType: false };
export const V1_1_LAYOUT: ParameterLayout = { sharedProductType: true };

export interface VersionReading {
	/** The Input Shape when none is stored: the parameter's default in this version. */
	defaultShape: InputShape;
	/** Where fields live that are not top-level parameters of their own name. */
	paths: Record<string, string>;
	layout: ParameterLayout;
}

export function versionReading(context: { getNode(): INode }): VersionReading {
	return readsAsV1(context)
		? { defaultShape: 'listingPerItem', paths: optionPaths(true), layout: V1_LAYOUT }
		: { defaultShape: 'ticketPerItem', paths: optionPaths(false), layout: V1_1_LAYOUT };
}

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
