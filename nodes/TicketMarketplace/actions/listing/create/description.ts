/** Listing → Create as the editor shows it: its parameters, their defaults and hints, in both node versions. */
import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { perVersion, v1Only } from '../../versions';
import { LISTING_DEFAULT_OPTIONS, optionsProperties } from './optionProperties';
import { productsProperties } from './productProperties';

/**
 * "Map Automatically": the sheet's own headers stand for the node's fields. Headers are compared without case,
 * spaces, underscores, hyphens or a byte-order mark, so listing_id, listingId, "Listing ID" and "\uFEFFlisting_id"
 * are one column.
 */
export const RECOGNISED_HEADERS: Record<string, { headers: string[]; required: boolean }> = {
	externalListingId: { headers: ['listing_id', 'external_listing_id', 'listing'], required: true },
	eventId: { headers: ['event_id', 'event'], required: true },
	priceAmount: { headers: ['price', 'price_amount', 'amount'], required: true },
	priceCurrency: { headers: ['currency', 'price_currency'], required: true },
	productExternalId: {
		headers: ['ticket_id', 'external_id', 'product_external_id', 'product_id', 'ticket'],
		required: true,
	},
	productRow: { headers: ['row'], required: false },
	productSeat: { headers: ['seat', 'seat_number'], required: false },
	productGa: { headers: ['ga', 'general_admission'], required: false },
	productType: { headers: ['product_type'], required: false },
};

/** The headers recognised for a field, for the node's messages. */
export function headerList(parameter: string): string {
	return RECOGNISED_HEADERS[parameter].headers.join(', ');
}

export { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './optionProperties';

const perTicket = { inputShape: ['ticketPerItem'] };
/**
 * Fields that recognised headers replace. `hide` rather than `show`: in "Each Item Is a Listing" the Columns
 * parameter is not displayed, so it has no value to show on.
 */
const recognisedByHeader = { columnMapping: ['auto'] };
/**
 * From 1.1, Row and Seat are hidden while General Admission is switched on. Only `true` hides them: General
 * Admission mapped to a column (an expression) leaves them shown. Version 1 keeps them shown, because n8n drops
 * the value of a hidden field and its workflows would then send a Row and Seat they sent before.
 */
const hiddenForStanding = { ...recognisedByHeader, productGa: [true] };

/**
 * Required numbers: 1.1 starts them empty (as n8n's own nodes do), so the placeholder shows and n8n marks the
 * field until it is set; version 1 keeps its 0.
 */
const emptyUntilSet = { v1: { default: 0 }, latest: { default: '' } };

export const properties: INodeProperties[] = [
	...perVersion(
		{
			displayName: 'Input Shape',
			name: 'inputShape',
			type: 'options',
			noDataExpression: true,
			default: 'ticketPerItem',
			options: [
				{
					name: 'Each Item Is a Ticket (Sheet Row)',
					value: 'ticketPerItem',
					description:
						'Every item is one ticket, and items with the same External Listing ID become one listing',
				},
				{
					name: 'Each Item Is a Listing',
					value: 'listingPerItem',
					description: 'Every item is one listing, with its tickets set below',
				},
			],
			description: 'What each input item stands for',
		},
		{ v1: { default: 'listingPerItem' }, latest: { default: 'ticketPerItem' } },
	),
	{
		displayName: 'Columns',
		name: 'columnMapping',
		type: 'options',
		noDataExpression: true,
		default: 'manual',
		displayOptions: { show: perTicket },
		options: [
			{
				name: 'Map Automatically',
				value: 'auto',
				description: "Read each field from the sheet's column of the same name, such as listing_id",
			},
			{
				name: 'Map Each Column Manually',
				value: 'manual',
				description: 'Set each field below, usually by dragging a column onto it',
			},
		],
		description: "How the sheet's columns become the listing's fields",
	},
	{
		displayName:
			'Needs the columns listing_id, event_id, price, currency and ticket_id, and reads row, seat and general_admission when present. Names such as "Listing ID" or listingId work too.',
		name: 'autoMappingNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { ...perTicket, columnMapping: ['auto'] } },
	},
	...perVersion(
		{
			displayName: 'Event ID',
			name: 'eventId',
			type: 'number',
			required: true,
			displayOptions: { hide: recognisedByHeader },
			default: '',
			placeholder: 'e.g. 123456',
			description: "The event's number on the marketplace",
		},
		emptyUntilSet,
	),
	...perVersion(
		{
			displayName: 'External Listing ID',
			name: 'externalListingId',
			type: 'number',
			required: true,
			displayOptions: { hide: recognisedByHeader },
			default: '',
			placeholder: 'e.g. 7001',
			description:
				'Your own number for the listing; sheet rows with the same one become one listing',
		},
		emptyUntilSet,
	),
	...perVersion(
		{
			displayName: 'Price Amount',
			name: 'priceAmount',
			type: 'number',
			required: true,
			displayOptions: { hide: recognisedByHeader },
			default: '',
			typeOptions: { numberPrecision: 2 },
			placeholder: 'e.g. 49.90',
			description: 'Price of each ticket, greater than 0',
		},
		emptyUntilSet,
	),
	{
		displayName: 'Currency',
		name: 'priceCurrency',
		type: 'string',
		required: true,
		displayOptions: { hide: recognisedByHeader },
		default: '',
		placeholder: 'e.g. EUR',
		description: 'Three-letter currency code, such as EUR',
	},
	...productsProperties,
	{
		displayName: 'Product External ID',
		name: 'productExternalId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. {{ $json.ticket_id }}',
		displayOptions: { show: perTicket, hide: recognisedByHeader },
		description: 'Your own identifier for this ticket, unique within its listing',
	},
	{
		displayName: 'General Admission',
		name: 'productGa',
		type: 'boolean',
		default: false,
		displayOptions: { show: perTicket, hide: recognisedByHeader },
		description: 'Whether this ticket has no assigned row and seat',
	},
	...perVersion(
		{
			displayName: 'Row',
			name: 'productRow',
			type: 'string',
			default: '',
			placeholder: 'e.g. {{ $json.row }}',
			displayOptions: { show: perTicket, hide: recognisedByHeader },
			description: 'Row of this ticket',
		},
		{ latest: { displayOptions: { show: perTicket, hide: hiddenForStanding } } },
	),
	...perVersion(
		{
			displayName: 'Seat',
			name: 'productSeat',
			type: 'string',
			default: '',
			placeholder: 'e.g. {{ $json.seat }}',
			displayOptions: { show: perTicket, hide: recognisedByHeader },
			description: 'Seat of this ticket',
		},
		{ latest: { displayOptions: { show: perTicket, hide: hiddenForStanding } } },
	),
	// Version 1 shows these in the main panel; from 1.1 they are under Options (optionProperties.ts).
	v1Only({
		...LISTING_DEFAULT_OPTIONS.productType,
		displayOptions: { show: perTicket, hide: recognisedByHeader },
		description: 'Product type of this ticket; TICKET is the one the marketplace documents',
	}),
	v1Only(LISTING_DEFAULT_OPTIONS.stockType),
	v1Only(LISTING_DEFAULT_OPTIONS.paymentType),
	v1Only(LISTING_DEFAULT_OPTIONS.acceptLanguage),
	...optionsProperties,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['listing'], operation: ['create'] } },
	properties,
);
