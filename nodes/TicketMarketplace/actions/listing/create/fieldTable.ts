/**
 * The field table of Listing → Create: one entry per field of a listing or of its tickets. The panel, the
 * recognised sheet headers, the labels in messages, the schemas, the check that rows of one listing agree, and the
 * request body are all derived from it (fields.ts). Adding an optional listing field is one entry here and a test.
 * Every label a message names comes from here, those of a product and of a seat range too.
 */
import type { INodeProperties, NodeParameterValueType } from 'n8n-workflow';
import type { z } from 'zod';

import {
	currencyCode,
	integerCode,
	languageTag,
	openEnumValue,
	optionalLabel,
	positiveAmount,
	positiveId,
	requiredLabel,
	sheetBoolean,
	stockTypeList,
} from '../../../schemas/sheetValues';

export interface Field {
	/** The node's parameter name. */
	parameter: string;
	/**
	 * `listing`: one value per listing, which every row of it must agree on; `ticket`: each row's own (a product).
	 */
	per: 'listing' | 'ticket';
	/** Where the value goes in the API's listing (or product), dotted; a header when `header` is set. */
	api: string;
	/** Sent as this request header instead of in the body. */
	header?: string;
	/** What a value must be, and what it becomes. */
	schema: z.ZodTypeAny;
	/** The value when the parameter is not set; a field without one is required. */
	default?: NodeParameterValueType;
	/** The sheet headers Map Automatically recognises for it, and whether a sheet must have one. */
	headers?: { names: string[]; required: boolean };
	/**
	 * Where the panel shows it: in the main panel in every version, under Options from 1.1 (in version 1's main
	 * panel), or under Options in every version (a field added later).
	 */
	place: 'main' | 'optionsFromV1_1' | 'options';
	/** Its look in the panel (name, default and display conditions are derived). */
	panel: Pick<INodeProperties, 'displayName' | 'type' | 'description'> &
		Partial<Pick<INodeProperties, 'placeholder' | 'typeOptions'>>;
	/** Only for a seated ticket: from 1.1 hidden while General Admission is switched on. */
	seated?: boolean;
	/** What version 1's panel says differently. */
	v1?: Partial<INodeProperties>;
	/** A ticket field's look in Products → Product, where it is named by its API key, where it differs. */
	product?: Partial<Pick<INodeProperties, 'displayName' | 'placeholder' | 'description'>>;
}

/**
 * Every field, in the API's order (the order problems are listed in): the listing's, then its tickets'. The
 * External Listing ID is read first, though: it names the listing a row belongs to.
 */
export const FIELDS: Field[] = [
	{
		parameter: 'eventId',
		per: 'listing',
		api: 'eventId',
		schema: positiveId,
		headers: { names: ['event_id', 'event'], required: true },
		place: 'main',
		panel: {
			displayName: 'Event ID',
			type: 'number',
			placeholder: 'e.g. 123456',
			description: "The event's number on the marketplace",
		},
	},
	{
		parameter: 'priceAmount',
		per: 'listing',
		api: 'pricePerProduct.amount',
		schema: positiveAmount,
		headers: { names: ['price', 'price_amount', 'amount'], required: true },
		place: 'main',
		panel: {
			displayName: 'Price Amount',
			type: 'number',
			typeOptions: { numberPrecision: 2 },
			placeholder: 'e.g. 49.90',
			description: 'Price of each ticket, greater than 0',
		},
	},
	{
		parameter: 'priceCurrency',
		per: 'listing',
		api: 'pricePerProduct.currency',
		schema: currencyCode,
		headers: { names: ['currency', 'price_currency'], required: true },
		place: 'main',
		panel: {
			displayName: 'Currency',
			type: 'string',
			placeholder: 'e.g. EUR',
			description: 'Three-letter currency code, such as EUR',
		},
	},
	{
		parameter: 'externalListingId',
		per: 'listing',
		api: 'externalListingId',
		schema: positiveId,
		headers: { names: ['listing_id', 'external_listing_id', 'listing'], required: true },
		place: 'main',
		panel: {
			displayName: 'External Listing ID',
			type: 'number',
			placeholder: 'e.g. 7001',
			description:
				'Your own number for the listing; sheet rows with the same one become one listing',
		},
	},
	{
		parameter: 'stockType',
		per: 'listing',
		api: 'stockType',
		schema: stockTypeList,
		default: 'PDF',
		place: 'optionsFromV1_1',
		panel: {
			displayName: 'Stock Type',
			type: 'string',
			description: 'Kind of ticket stock, such as PDF; separate several with commas',
		},
	},
	{
		parameter: 'paymentType',
		per: 'listing',
		api: 'paymentType',
		schema: integerCode,
		default: 1,
		place: 'optionsFromV1_1',
		panel: {
			displayName: 'Payment Type',
			type: 'number',
			description: 'Payment type code; 1 is the one the marketplace documents',
		},
	},
	{
		parameter: 'acceptLanguage',
		per: 'listing',
		api: 'acceptLanguage',
		header: 'Accept-Language',
		schema: languageTag,
		default: 'en-US',
		place: 'optionsFromV1_1',
		panel: {
			displayName: 'Language',
			type: 'string',
			placeholder: 'e.g. en-US',
			description: 'Language tag sent with each listing, such as en-US',
		},
	},
	{
		parameter: 'productExternalId',
		per: 'ticket',
		api: 'externalId',
		schema: requiredLabel('"7001-A-12"'),
		headers: {
			names: ['ticket_id', 'external_id', 'product_external_id', 'product_id', 'ticket'],
			required: true,
		},
		place: 'main',
		panel: {
			displayName: 'Product External ID',
			type: 'string',
			placeholder: 'e.g. {{ $json.ticket_id }}',
			description: 'Your own identifier for this ticket, unique within its listing',
		},
		product: {
			displayName: 'External ID',
			placeholder: 'e.g. 7001-A-12',
			description: 'Your own identifier for this ticket, unique within the listing',
		},
	},
	{
		parameter: 'productRow',
		per: 'ticket',
		api: 'row',
		schema: optionalLabel,
		default: '',
		headers: { names: ['row'], required: false },
		place: 'main',
		seated: true,
		panel: {
			displayName: 'Row',
			type: 'string',
			placeholder: 'e.g. {{ $json.row }}',
			description: 'Row of this ticket',
		},
		product: { placeholder: 'e.g. A' },
	},
	{
		parameter: 'productSeat',
		per: 'ticket',
		api: 'seat',
		schema: optionalLabel,
		default: '',
		headers: { names: ['seat', 'seat_number'], required: false },
		place: 'main',
		seated: true,
		panel: {
			displayName: 'Seat',
			type: 'string',
			placeholder: 'e.g. {{ $json.seat }}',
			description: 'Seat of this ticket',
		},
		product: { placeholder: 'e.g. 12' },
	},
	{
		parameter: 'productType',
		per: 'ticket',
		api: 'productType',
		schema: openEnumValue('TICKET'),
		default: 'TICKET',
		// When the sheet has this column, it decides for every row.
		headers: { names: ['product_type'], required: false },
		place: 'optionsFromV1_1',
		panel: {
			displayName: 'Product Type',
			type: 'string',
			description: 'Product type of the tickets; TICKET is the one the marketplace documents',
		},
		v1: { description: 'Product type of this ticket; TICKET is the one the marketplace documents' },
		product: {
			description: 'Product type of this ticket; TICKET is the one the marketplace documents',
		},
	},
	{
		parameter: 'productGa',
		per: 'ticket',
		api: 'ga',
		schema: sheetBoolean,
		default: false,
		headers: { names: ['ga', 'general_admission'], required: false },
		place: 'main',
		panel: {
			displayName: 'General Admission',
			type: 'boolean',
			description: 'Whether this ticket has no assigned row and seat',
		},
		product: { description: 'Whether the ticket has no assigned row and seat' },
	},
];

/** Where a listing per item's tickets come from, as the panel names them (productProperties.ts places them). */
export const SOURCE_LABELS: Record<string, string> = {
	products: 'Products',
	'products.product': 'Product',
	productsJson: 'Products (JSON)',
	seatRanges: 'Seat Ranges',
	'seatRanges.range': 'Range',
};

/** A seat range's values, in the order one is read; Product Type is version 1's alone (from 1.1 it is shared). */
export const SEAT_RANGE_FIELDS: INodeProperties[] = [
	{
		displayName: 'First Seat',
		name: 'firstSeat',
		type: 'number',
		default: 1,
		description: 'Number of the first seat of the range',
	},
	{
		displayName: 'Last Seat',
		name: 'lastSeat',
		type: 'number',
		default: 1,
		description: 'Number of the last seat of the range, included',
	},
	{
		displayName: 'Row',
		name: 'row',
		type: 'string',
		default: '',
		placeholder: 'e.g. A',
		description: 'Row of every seat of the range',
	},
	{
		displayName: 'External ID Pattern',
		name: 'externalIdPattern',
		type: 'string',
		default: '{listing}-{row}-{seat}',
		description: "How each ticket's External ID is built from {listing}, {event}, {row} and {seat}",
		hint: 'Row A, seats 1 to 3 of listing 7001 give 7001-A-1, 7001-A-2 and 7001-A-3',
	},
	{
		displayName: 'Product Type',
		name: 'productType',
		type: 'string',
		default: 'TICKET',
		description: 'Product type of every seat of the range',
	},
];
