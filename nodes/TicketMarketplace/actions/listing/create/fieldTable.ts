/** One entry per field of a listing or its tickets: panel, headers, labels, schemas and request derive from it. */
import type { INodeProperties, NodeParameterValueType, NodePropertyTypes } from 'n8n-workflow';
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
} from '../../../schemas/listing';

export interface Field {
	parameter: string;
	/** `listing`: one value every row of a listing must agree on; `ticket`: each row's own. */
	per: 'listing' | 'ticket';
	/** Where the value goes in the API's listing (or product), dotted; a header when `header` is set. */
	api: string;
	/** Sent as this request header instead of in the body. */
	header?: string;
	schema: z.ZodTypeAny;
	/** The value when the parameter is not set; a field without one is required. */
	default?: NodeParameterValueType;
	/** The sheet headers Map Automatically recognises; a required field's column must be there. */
	headers?: string[];
	/** The main panel in every version, under Options from 1.1, or under Options in every version. */
	place: 'main' | 'optionsFromV1_1' | 'options';
	/** Its look in the panel (name, default and display conditions are derived). */
	panel: Required<Pick<INodeProperties, 'displayName' | 'type' | 'description'>> &
		Partial<Pick<INodeProperties, 'placeholder' | 'typeOptions'>>;
	/** A seated ticket's: from 1.1 hidden while General Admission is switched on. */
	seated?: boolean;
	/** What version 1's panel says differently. */
	v1?: Partial<INodeProperties>;
	/** Its look in Products → Product (named by its API key), where it differs. */
	product?: Partial<Pick<INodeProperties, 'displayName' | 'placeholder' | 'description'>>;
}

const look = (
	displayName: string,
	type: NodePropertyTypes,
	description: string,
	placeholder?: string,
): Field['panel'] => ({
	displayName,
	type,
	...(placeholder !== undefined && { placeholder }),
	description,
});

const of = (
	per: Field['per'],
	parameter: string,
	api: string,
	schema: z.ZodTypeAny,
	place: Field['place'] = 'main',
) => ({ per, parameter, api, schema, place });

const TICKET_TYPE = 'Product type of this ticket; TICKET is the one the marketplace documents';

/** In the API's order (the order problems are listed in): the listing's fields, then its tickets'. */
export const FIELDS: Field[] = [
	{
		...of('listing', 'eventId', 'eventId', positiveId),
		headers: ['event_id', 'event'],
		panel: look('Event ID', 'number', "The event's number on the marketplace", 'e.g. 123456'),
	},
	{
		...of('listing', 'priceAmount', 'pricePerProduct.amount', positiveAmount),
		headers: ['price', 'price_amount', 'amount'],
		panel: {
			...look('Price Amount', 'number', 'Price of each ticket, greater than 0', 'e.g. 49.90'),
			typeOptions: { numberPrecision: 2 },
		},
	},
	{
		...of('listing', 'priceCurrency', 'pricePerProduct.currency', currencyCode),
		headers: ['currency', 'price_currency'],
		panel: look('Currency', 'string', 'Three-letter currency code, such as EUR', 'e.g. EUR'),
	},
	{
		...of('listing', 'externalListingId', 'externalListingId', positiveId),
		headers: ['listing_id', 'external_listing_id', 'listing'],
		panel: look(
			'External Listing ID',
			'number',
			'Your own number for the listing; sheet rows with the same one become one listing',
			'e.g. 7001',
		),
	},
	{
		...of('listing', 'stockType', 'stockType', stockTypeList, 'optionsFromV1_1'),
		default: 'PDF',
		panel: look(
			'Stock Type',
			'string',
			'Kind of ticket stock, such as PDF; separate several with commas',
		),
	},
	{
		...of('listing', 'paymentType', 'paymentType', integerCode, 'optionsFromV1_1'),
		default: 1,
		panel: look(
			'Payment Type',
			'number',
			'Payment type code; 1 is the one the marketplace documents',
		),
	},
	{
		...of('listing', 'acceptLanguage', 'acceptLanguage', languageTag, 'optionsFromV1_1'),
		header: 'Accept-Language',
		default: 'en-US',
		panel: look(
			'Language',
			'string',
			'Language tag sent with each listing, such as en-US',
			'e.g. en-US',
		),
	},
	{
		...of('ticket', 'productExternalId', 'externalId', requiredLabel('"7001-A-12"')),
		headers: ['ticket_id', 'external_id', 'product_external_id', 'product_id', 'ticket'],
		panel: look(
			'Product External ID',
			'string',
			'Your own identifier for this ticket, unique within its listing',
			'e.g. {{ $json.ticket_id }}',
		),
		product: {
			displayName: 'External ID',
			placeholder: 'e.g. 7001-A-12',
			description: 'Your own identifier for this ticket, unique within the listing',
		},
	},
	{
		...of('ticket', 'productRow', 'row', optionalLabel),
		default: '',
		headers: ['row'],
		seated: true,
		panel: look('Row', 'string', 'Row of this ticket', 'e.g. {{ $json.row }}'),
		product: { placeholder: 'e.g. A' },
	},
	{
		...of('ticket', 'productSeat', 'seat', optionalLabel),
		default: '',
		headers: ['seat', 'seat_number'],
		seated: true,
		panel: look('Seat', 'string', 'Seat of this ticket', 'e.g. {{ $json.seat }}'),
		product: { placeholder: 'e.g. 12' },
	},
	{
		...of('ticket', 'productType', 'productType', openEnumValue('TICKET'), 'optionsFromV1_1'),
		default: 'TICKET',
		// When the sheet has this column, it decides for every row.
		headers: ['product_type'],
		panel: look(
			'Product Type',
			'string',
			'Product type of the tickets; TICKET is the one the marketplace documents',
		),
		v1: { description: TICKET_TYPE },
		product: { description: TICKET_TYPE },
	},
	{
		...of('ticket', 'productGa', 'ga', sheetBoolean),
		default: false,
		headers: ['ga', 'general_admission'],
		panel: look('General Admission', 'boolean', 'Whether this ticket has no assigned row and seat'),
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

/** A property of the panel; `more` holds the rest (placeholder, options, typeOptions, hint). */
export const property = (
	displayName: string,
	name: string,
	type: NodePropertyTypes,
	value: NodeParameterValueType,
	description: string,
	more: Partial<INodeProperties> = {},
): INodeProperties => ({ displayName, name, type, default: value, ...more, description });

/** A seat range's values, in the order one is read; Product Type is version 1's alone (from 1.1 it is shared). */
export const SEAT_RANGE_FIELDS: INodeProperties[] = [
	property('First Seat', 'firstSeat', 'number', 1, 'Number of the first seat of the range'),
	property('Last Seat', 'lastSeat', 'number', 1, 'Number of the last seat of the range, included'),
	property('Row', 'row', 'string', '', 'Row of every seat of the range', { placeholder: 'e.g. A' }),
	property(
		'External ID Pattern',
		'externalIdPattern',
		'string',
		'{listing}-{row}-{seat}',
		"How each ticket's External ID is built from {listing}, {event}, {row} and {seat}",
		{ hint: 'Row A, seats 1 to 3 of listing 7001 give 7001-A-1, 7001-A-2 and 7001-A-3' },
	),
	property(
		'Product Type',
		'productType',
		'string',
		'TICKET',
		'Product type of every seat of the range',
	),
];
