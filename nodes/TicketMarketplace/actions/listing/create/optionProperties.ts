/**
 * Listing → Create's Options: how fast it sends, what it outputs, the memory of sent listings, Validate Only, and
 * from 1.1 the listing values that have a default (in version 1 these are in the main panel).
 */
import type { INodeProperties } from 'n8n-workflow';

import { optionsCollection } from '../../optionsCollection';
import { perVersion } from '../../versions';

/**
 * The most requests in flight by default; adaptive pacing finds the API's own pace below it. Higher is faster
 * against an API without a limit, but sends more into a per-second limit before its first 429 comes back
 * (bench/README.md has the figures).
 */
export const DEFAULT_CONCURRENCY = 48;
export const MAX_CONCURRENCY = 100;

/**
 * The listing values that have a default: under Options from 1.1, in the main panel in version 1 (description.ts).
 */
export const LISTING_DEFAULT_OPTIONS = {
	acceptLanguage: {
		displayName: 'Language',
		name: 'acceptLanguage',
		type: 'string',
		default: 'en-US',
		placeholder: 'e.g. en-US',
		description: 'Language tag sent with each listing, such as en-US',
	},
	paymentType: {
		displayName: 'Payment Type',
		name: 'paymentType',
		type: 'number',
		default: 1,
		description: 'Payment type code; 1 is the one the marketplace documents',
	},
	productType: {
		displayName: 'Product Type',
		name: 'productType',
		type: 'string',
		default: 'TICKET',
		description: 'Product type of the tickets; TICKET is the one the marketplace documents',
	},
	stockType: {
		displayName: 'Stock Type',
		name: 'stockType',
		type: 'string',
		default: 'PDF',
		description: 'Kind of ticket stock, such as PDF; separate several with commas',
	},
} satisfies Record<string, INodeProperties>;

/** Every option of 1.1, in alphabetical order as n8n lists them. */
const options: INodeProperties[] = [
	LISTING_DEFAULT_OPTIONS.acceptLanguage,
	{
		displayName: 'Max Listings at Once',
		name: 'concurrency',
		type: 'number',
		default: DEFAULT_CONCURRENCY,
		typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
		description: `The most listings sent at the same time, from 1 to ${MAX_CONCURRENCY}; 1 sends them one after another`,
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		default: 'listing',
		options: [
			{
				name: 'One Item per Listing',
				value: 'listing',
				description: "The marketplace's answer for each listing",
			},
			{
				name: 'One Item per Input Row',
				value: 'row',
				description: "Each input row with its listing's result, ready to write back to the sheet",
			},
		],
		description: 'What the node outputs',
	},
	{
		displayName: 'Pace',
		name: 'concurrencyMode',
		type: 'options',
		default: 'adaptive',
		options: [
			{
				name: 'Adaptive',
				value: 'adaptive',
				description:
					'Send more at once while the marketplace keeps up, and fewer when it asks to slow down',
			},
			{
				name: 'Fixed',
				value: 'fixed',
				description: 'Always send Max Listings at Once at the same time',
			},
		],
		description: 'How the number of listings sent at the same time is chosen',
	},
	LISTING_DEFAULT_OPTIONS.paymentType,
	LISTING_DEFAULT_OPTIONS.productType,
	{
		displayName: 'Skip Listings Already Sent',
		name: 'skipAlreadySent',
		type: 'boolean',
		default: true,
		description:
			'Whether to skip listings this workflow has sent before, so that a sheet run again lists nothing twice',
	},
	LISTING_DEFAULT_OPTIONS.stockType,
	{
		displayName: 'Validate Only',
		name: 'validateOnly',
		type: 'boolean',
		default: false,
		description:
			'Whether to only check the input and show the listings that would be sent, without sending anything',
	},
];

/** Listing values that version 1 shows in the main panel, and 1.1 under Options. */
const MAIN_PANEL_IN_V1 = Object.keys(LISTING_DEFAULT_OPTIONS);

/** Where 1.1 keeps those values, for reading them (ItemParameters' paths). */
export const OPTION_PATHS_FROM_V1_1: Record<string, string> = Object.fromEntries(
	MAIN_PANEL_IN_V1.map((name) => [name, `options.${name}`]),
);

export const optionsProperties: INodeProperties[] = perVersion(optionsCollection(options), {
	v1: { options: options.filter((option) => !MAIN_PANEL_IN_V1.includes(option.name)) },
});
