/**
 * The field table of Listing → Create: one entry per field of a listing or of its tickets. The panel (description.ts),
 * the recognised sheet headers, the labels in messages, the schemas, the check that rows of one listing agree, and
 * the request body are all derived from it. Adding an optional listing field is one entry here and a test.
 */
import type { IDataObject, INodeProperties, NodeParameterValueType } from 'n8n-workflow';
import { z } from 'zod';

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
import { pathKey, SEAT_NEEDED } from '../../../schemas/listing';
import type { FieldLabeller } from '../../../schemas/listing';

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

export const LISTING_FIELDS = FIELDS.filter((field) => field.per === 'listing');
export const TICKET_FIELDS = FIELDS.filter((field) => field.per === 'ticket');

export function fieldOf(parameter: string): Field {
	const field = FIELDS.find((entry) => entry.parameter === parameter);
	if (field === undefined) throw new Error(`No field ${parameter}`);
	return field;
}

/** The field's label, as the panel shows it and every message names it. */
export function labelOf(parameter: string): string {
	return fieldOf(parameter).panel.displayName;
}

/** The order fields are read from an item: the External Listing ID first (it names the row's listing). */
export const READ_ORDER: Field[] = [
	fieldOf('externalListingId'),
	...FIELDS.filter((field) => field.parameter !== 'externalListingId'),
];

/**
 * Map Automatically: the sheet's own headers stand for the node's fields, looked for in reading order. Headers are
 * compared without case, spaces, underscores, hyphens or a byte-order mark.
 */
export const RECOGNISED_HEADERS: Record<string, { headers: string[]; required: boolean }> =
	Object.fromEntries(
		READ_ORDER.flatMap((field) =>
			field.headers
				? [[field.parameter, { headers: field.headers.names, required: field.headers.required }]]
				: [],
		),
	);

/** The headers recognised for a field, for the node's messages. */
export function headerList(parameter: string): string {
	return RECOGNISED_HEADERS[parameter].headers.join(', ');
}

/** A choice under Options (a kind, a code, a language), not the row's data: it never makes a row blank or not. */
export function isRowData(parameter: string): boolean {
	const field = FIELDS.find((entry) => entry.parameter === parameter);
	return field === undefined || field.place === 'main';
}

/** Whether a field is under Options in this version of the node. */
export function isUnderOptions(field: Field, readsAsV1: boolean): boolean {
	return field.place === 'options' || (field.place === 'optionsFromV1_1' && !readsAsV1);
}

/** Where the fields under Options are read (ItemParameters' paths): `stockType` is `options.stockType`. */
export function optionPaths(readsAsV1: boolean): Record<string, string> {
	return Object.fromEntries(
		FIELDS.filter((field) => isUnderOptions(field, readsAsV1)).map((field) => [
			field.parameter,
			`options.${field.parameter}`,
		]),
	);
}

/** A zod object of the fields, nested by their dotted API paths, in table order. */
function schemaOf(fields: Field[]): z.AnyZodObject {
	const shape: Record<string, z.ZodTypeAny | Record<string, z.ZodTypeAny>> = {};
	for (const field of fields) {
		const [outer, inner] = field.api.split('.');
		if (inner === undefined) shape[outer] = field.schema;
		else
			shape[outer] = { ...(shape[outer] as Record<string, z.ZodTypeAny>), [inner]: field.schema };
	}
	return z.object(
		Object.fromEntries(
			Object.entries(shape).map(([key, value]) => [
				key,
				value instanceof z.ZodType ? value : z.object(value),
			]),
		),
	);
}

/** A listing's own fields, valid, in the API's shape (with the language its header carries). */
export type ListingLevel = IDataObject & { eventId: number; externalListingId: number };

/** A ticket, valid, in the API's shape: a row and seat, unless it is General Admission. */
export type Product = IDataObject & {
	externalId: string;
	row?: string;
	seat?: string;
	ga: boolean;
};

export const listingLevelSchema = schemaOf(LISTING_FIELDS) as unknown as z.ZodType<
	ListingLevel,
	z.ZodTypeDef,
	unknown
>;

const ticketSchema = schemaOf(TICKET_FIELDS);

export const productSchema = ticketSchema.superRefine((product, ctx) => {
	if (product.ga) return;
	for (const field of ['row', 'seat'] as const) {
		if (product[field] === undefined) {
			ctx.addIssue({ code: z.ZodIssueCode.custom, path: [field], message: SEAT_NEEDED });
		}
	}
}) as unknown as z.ZodType<Product, z.ZodTypeDef, unknown>;

/** A product's keys, as a JSON product writes them. */
export const PRODUCT_KEYS = TICKET_FIELDS.map((field) => field.api);

/** Products typed as JSON are checked for unknown keys: a typo such as "Seat" would otherwise drop data silently. */
export const jsonProductSchema = z
	.object(Object.fromEntries(PRODUCT_KEYS.map((key) => [key, z.unknown()])))
	.strict()
	.pipe(productSchema);

/** A labeller for zod paths of these fields: the API path names the field. */
function labeller(fields: Field[]): FieldLabeller {
	const labels = Object.fromEntries(fields.map((field) => [field.api, field.panel.displayName]));
	return (path) => labels[pathKey(path)] ?? pathKey(path);
}

/** The listing's own fields. */
export const levelLabel = labeller(LISTING_FIELDS);

/** The product of a ticket row ("Each Item Is a Ticket"). */
export const ticketRowLabel = labeller(TICKET_FIELDS);

/** The value at a field's API path. */
export function apiValue(values: IDataObject, field: Field): unknown {
	const [outer, inner] = field.api.split('.');
	const value = values[outer];
	return inner === undefined ? value : (value as IDataObject | undefined)?.[inner];
}

/** Values keyed by parameter, in the API's shape (nested by dotted path), for the fields' schema. */
export function inApiShape(
	fields: Field[],
	valueOf: (field: Field) => unknown,
): Record<string, unknown> {
	const shaped: Record<string, unknown> = {};
	for (const field of fields) {
		const [outer, inner] = field.api.split('.');
		if (inner === undefined) shaped[outer] = valueOf(field);
		else shaped[outer] = { ...(shaped[outer] as IDataObject), [inner]: valueOf(field) };
	}
	return shaped;
}
