/**
 * The field table of Listing → Create: one entry per field of a listing or of its tickets. The panel, the
 * recognised sheet headers, the labels in messages, the schemas, the check that rows of one listing agree, and the
 * request body are all derived from it (fields.ts). Adding an optional listing field is one entry here and a test.
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
	},
];
