/** Listing → Create as the editor shows it: its parameters, their defaults and hints. */
import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsProperty } from './optionProperties';
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

/** The headers recognised for a field, for the node's hint and its messages. */
export function headerList(parameter: string): string {
	return RECOGNISED_HEADERS[parameter].headers.join(', ');
}

export { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './optionProperties';

/** The hidden parameter that chooses the pacer (transport/pacerChoice.ts); only the bench sets it. */
export const PACING_CONTROLLER_PARAMETER = 'pacingController';

const perTicket = { inputShape: ['ticketPerItem'] };
/**
 * Fields that recognised headers replace. `hide` rather than `show`: in "Each Item Is a Listing" the Columns
 * parameter is not displayed, so it has no value to show on.
 */
const recognisedByHeader = { columnMapping: ['auto'] };

export const properties: INodeProperties[] = [
	{
		displayName: 'Input Shape',
		name: 'inputShape',
		type: 'options',
		noDataExpression: true,
		default: 'listingPerItem',
		options: [
			{
				name: 'Each Item Is a Listing',
				value: 'listingPerItem',
				description: 'Every input item creates one listing; its products are defined below',
			},
			{
				name: 'Each Item Is a Ticket (Group Sheet Rows)',
				value: 'ticketPerItem',
				description:
					'Every input item is one ticket, e.g. a spreadsheet row. Items that share an External Listing ID become one listing with one product per item.',
			},
		],
		description: 'How input items map to listings',
	},
	{
		displayName:
			'Each item is one ticket. Rows with the same External Listing ID are sent as one listing; they must agree on event, price, currency, stock type, payment type and language, or the listing is reported as invalid with the rows named.',
		name: 'groupingNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: perTicket },
	},
	{
		displayName: 'Columns',
		name: 'columnMapping',
		type: 'options',
		noDataExpression: true,
		default: 'manual',
		displayOptions: { show: perTicket },
		options: [
			{
				name: 'Map Each Field Below',
				value: 'manual',
				description: 'Set every field, usually by dragging a sheet column onto it',
			},
			{
				name: 'Map Automatically',
				value: 'auto',
				description:
					'Recognise the sheet\'s own headers (listing_id, event_id, price, currency, row, seat, ticket_id, also as listingId or "Listing ID")',
			},
		],
		description: "How the sheet's columns map to the listing fields",
	},
	{
		displayName: `Recognised headers, compared without case, spaces, underscores or hyphens. External Listing ID: ${headerList('externalListingId')}. Event ID: ${headerList('eventId')}. Price Amount: ${headerList('priceAmount')}. Currency: ${headerList('priceCurrency')}. Product External ID: ${headerList('productExternalId')}. Row: ${headerList('productRow')}. Seat: ${headerList('productSeat')}. General Admission: ${headerList('productGa')}. Product Type: ${headerList('productType')}.`,
		name: 'autoMappingNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { ...perTicket, columnMapping: ['auto'] } },
	},
	{
		displayName: 'Event ID',
		name: 'eventId',
		type: 'number',
		required: true,
		displayOptions: { hide: recognisedByHeader },
		default: 0,
		placeholder: 'e.g. 123456',
		description:
			'Identifier of the event on the marketplace (eventId). Whole number; text such as "123456" from a sheet is accepted.',
	},
	{
		displayName: 'External Listing ID',
		name: 'externalListingId',
		type: 'number',
		required: true,
		displayOptions: { hide: recognisedByHeader },
		default: 0,
		placeholder: 'e.g. 7001',
		description: 'Your own whole-number identifier for the listing (externalListingId)',
		hint: 'In "Each Item Is a Ticket" mode, rows with the same value are grouped into one listing',
	},
	{
		displayName: 'Price Amount',
		name: 'priceAmount',
		type: 'number',
		required: true,
		displayOptions: { hide: recognisedByHeader },
		default: 0,
		typeOptions: { numberPrecision: 2 },
		placeholder: 'e.g. 49.90',
		description:
			'Price of each product (pricePerProduct.amount). Must be greater than 0; text such as "49.90" is accepted.',
	},
	{
		displayName: 'Currency',
		name: 'priceCurrency',
		type: 'string',
		required: true,
		displayOptions: { hide: recognisedByHeader },
		default: '',
		placeholder: 'e.g. EUR',
		description: 'Three-letter currency code (pricePerProduct.currency), sent in upper case',
	},
	...productsProperties,
	{
		displayName: 'Product External ID',
		name: 'productExternalId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. {{ $json.ticketId }}',
		displayOptions: { show: perTicket, hide: recognisedByHeader },
		description: 'Your own identifier for the ticket of this item; unique within its listing',
	},
	{
		displayName: 'Row',
		name: 'productRow',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.row }}',
		displayOptions: { show: perTicket, hide: recognisedByHeader },
		description: 'Row label of this ticket; required unless General Admission is on',
	},
	{
		displayName: 'Seat',
		name: 'productSeat',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.seat }}',
		displayOptions: { show: perTicket, hide: recognisedByHeader },
		description: 'Seat label of this ticket; required unless General Admission is on',
	},
	{
		displayName: 'General Admission',
		name: 'productGa',
		type: 'boolean',
		default: false,
		displayOptions: { show: perTicket, hide: recognisedByHeader },
		description:
			'Whether this ticket has no assigned row and seat (ga). Sheet text "true"/"false" is accepted.',
	},
	{
		displayName: 'Product Type',
		name: 'productType',
		type: 'string',
		default: 'TICKET',
		displayOptions: { show: perTicket, hide: recognisedByHeader },
		description: 'Product type of this ticket; "TICKET" is the value the API documents',
	},
	{
		displayName: 'Stock Type',
		name: 'stockType',
		type: 'string',
		default: 'PDF',
		description:
			'Kind of ticket stock (stockType); "PDF" is the value the API documents. Separate several with commas.',
	},
	{
		displayName: 'Payment Type',
		name: 'paymentType',
		type: 'number',
		default: 1,
		description: 'Payment type code (paymentType); 1 is the value the API documents',
	},
	{
		displayName: 'Accept-Language',
		name: 'acceptLanguage',
		type: 'string',
		default: 'en-US',
		placeholder: 'e.g. en-US',
		description: 'Language tag sent in the Accept-Language header',
	},
	optionsProperty,
	{
		// Never shown: the bench sets it to weigh a simple pacer against today's (transport/pacerChoice.ts).
		displayName: 'Pacing Controller',
		name: PACING_CONTROLLER_PARAMETER,
		type: 'hidden',
		default: 'current',
		description: "Which pacer sends the listings: today's (current) or the simple one (simple)",
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['listing'], operation: ['create'] } },
	properties,
);
