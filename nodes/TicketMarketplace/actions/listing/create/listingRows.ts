/**
 * The first stage of Listing → Create: one input item read into what it says about a listing (its listing-level
 * fields, checked, and its products, still raw), or recognised as a blank row. Both input shapes read here.
 */
import type { IDataObject, NodeParameterValueType } from 'n8n-workflow';
import type { ZodError } from 'zod';

import { errorText } from '../../../helpers/errors';
import {
	isBlank,
	labelIssues,
	listingLevelSchema,
	pathKey,
	positiveId,
	seatRangeSchema,
} from '../../../schemas/listing';
import type { FieldLabeller, ListingLevel, SeatRange } from '../../../schemas/listing';
import {
	fieldLabel,
	levelLabel,
	productLabel,
	seatRangeLabel,
	ticketRowLabel,
} from './fieldLabels';
import type { Problem } from './problems';
import type { ParameterSource } from './sheetColumns';

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

/** A product or seat range with the shared product type, unless it sets its own. */
function withProductType(raw: unknown, productType: unknown): unknown {
	if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
	return 'productType' in raw ? raw : { ...raw, productType };
}
type ProductsSource = 'defined' | 'json' | 'seatRange';

/** The raw products an item gives, with how to name each one in a problem. */
export interface RowProducts {
	raw: unknown[];
	/** Products typed as JSON are checked for unknown keys. */
	fromJson: boolean;
	label: (index: number) => FieldLabeller;
	/** Why the products could not be read at all (bad JSON, no seat range, ...). */
	problems: Problem[];
}

/** The fields an item gives, read once, keyed by the node's parameter names. */
export type RowFields = Record<string, unknown>;

/** The External Listing ID of a row, parsed once: its number when usable, and its text as given. */
export interface ListingId {
	id?: number;
	text: string;
}

/** One input item as read: never thrown, every problem kept with its row. */
export interface ListingRow {
	itemIndex: number;
	/** The External Listing ID as read, for grouping the rows of one listing. */
	listingId: ListingId;
	/** The listing-level fields, when they are valid. */
	level?: ListingLevel;
	/** Problems of the listing-level fields, or that the parameters could not be read. */
	problems: Problem[];
	/** Absent when the parameters could not be read at all. */
	products?: RowProducts;
	/**
	 * Set when the External Listing ID itself could not be read (its expression failed), so the listing the row
	 * belongs to is unknown: with its Event ID when that could be read and is valid.
	 */
	unknownListing?: { error: string; eventId?: number };
}

export function issuesOf(error: ZodError, label: FieldLabeller, itemIndexes: number[]): Problem[] {
	return labelIssues(error, label).map((issue) => ({ ...issue, itemIndexes }));
}

/** The fields every item gives after its External Listing ID, in the order they are read, with their defaults. */
const LEVEL_FIELDS: Array<[string, NodeParameterValueType?]> = [
	['eventId'],
	['priceAmount'],
	['priceCurrency'],
	['stockType', 'PDF'],
	['paymentType', 1],
	['acceptLanguage', 'en-US'],
];

/** The fields a ticket row adds. */
const TICKET_FIELDS: Array<[string, NodeParameterValueType?]> = [
	['productExternalId'],
	['productRow', ''],
	['productSeat', ''],
	['productType', 'TICKET'],
	['productGa', false],
];

/** The fields whose values make a row blank when all are empty; a type, a language or a payment never do. */
const BLANK_FIELDS = [
	'externalListingId',
	'eventId',
	'priceAmount',
	'priceCurrency',
	'productExternalId',
	'productRow',
	'productSeat',
	'productGa',
];

function readFields(
	params: ParameterSource,
	itemIndex: number,
	fields: Array<[string, NodeParameterValueType?]>,
	into: RowFields,
): RowFields {
	for (const [name, fallback] of fields) into[name] = params.get(name, itemIndex, fallback);
	return into;
}

/** The listing-level fields in the API's shape, for their schema. */
function levelOf(fields: RowFields): Record<string, unknown> {
	return {
		eventId: fields.eventId,
		pricePerProduct: { amount: fields.priceAmount, currency: fields.priceCurrency },
		externalListingId: fields.externalListingId,
		stockType: fields.stockType,
		paymentType: fields.paymentType,
		acceptLanguage: fields.acceptLanguage,
	};
}

/** A ticket row's product in the API's shape, for its schema. */
function ticketOf(fields: RowFields): Record<string, unknown> {
	return {
		externalId: fields.productExternalId,
		row: fields.productRow,
		seat: fields.productSeat,
		productType: fields.productType,
		ga: fields.productGa,
	};
}

/** Blank: at least one field reads the row, and every field that does is empty. Constant fields do not count. */
function isBlankRow(params: ParameterSource, fields: RowFields): boolean {
	let readsRow = false;
	for (const name of BLANK_FIELDS) {
		if (!(name in fields) || !params.readsItem(name)) continue;
		readsRow = true;
		if (!isBlank(fields[name])) return false;
	}
	return readsRow;
}

/** The External Listing ID as grouping needs it: parsed once, here. */
function listingIdOf(raw: unknown): ListingId {
	const parsed = positiveId.safeParse(raw);
	if (parsed.success) return { id: parsed.data, text: String(parsed.data) };
	return { text: isBlank(raw) ? '' : String(raw).trim() };
}

export function expandSeatRange(
	range: SeatRange,
	listing: { externalListingId?: unknown; eventId?: unknown },
) {
	const products: Array<Record<string, unknown>> = [];
	for (let seat = range.firstSeat; seat <= range.lastSeat; seat++) {
		const externalId = range.externalIdPattern
			.split('{listing}')
			.join(String(listing.externalListingId))
			.split('{event}')
			.join(String(listing.eventId))
			.split('{row}')
			.join(range.row)
			.split('{seat}')
			.join(String(seat));
		products.push({
			externalId,
			row: range.row,
			seat: String(seat),
			productType: range.productType,
			ga: false,
		});
	}
	return products;
}

const definedProductLabel =
	(index: number): FieldLabeller =>
	(path) =>
		`${fieldLabel('products')} → ${fieldLabel('products.product')} ${index + 1} → ${productLabel(path)}`;
const jsonProductLabel =
	(index: number): FieldLabeller =>
	(path) =>
		`${fieldLabel('productsJson')} product ${index + 1}${path.length ? ` "${pathKey(path)}"` : ''}`;
const seatRangeFieldLabel =
	(index: number): FieldLabeller =>
	(path) =>
		`${fieldLabel('seatRanges')} → ${fieldLabel('seatRanges.range')} ${index + 1} → ${seatRangeLabel(path)}`;

function unreadableProducts(text: string, field: string, itemIndex: number): RowProducts {
	return {
		raw: [],
		fromJson: true,
		label: jsonProductLabel,
		problems: [{ field, text, itemIndexes: [itemIndex] }],
	};
}

/** The products of one listing-per-item, from the source the item chose. */
function readProducts(
	params: ParameterSource,
	itemIndex: number,
	listing: { externalListingId?: unknown; eventId?: unknown },
	layout: ParameterLayout,
): RowProducts {
	const source = params.get('productsSource', itemIndex, 'defined') as ProductsSource;
	const shared = layout.sharedProductType
		? params.get('productType', itemIndex, 'TICKET')
		: undefined;
	const typed = <T>(entries: T[]): T[] =>
		shared === undefined ? entries : entries.map((entry) => withProductType(entry, shared) as T);
	if (source === 'json') {
		const field = fieldLabel('productsJson');
		let value = params.get('productsJson', itemIndex, '[]') as unknown;
		if (typeof value === 'string') {
			try {
				value = JSON.parse(value);
			} catch (error) {
				return unreadableProducts(`is not valid JSON: ${errorText(error)}`, field, itemIndex);
			}
		}
		if (!Array.isArray(value)) {
			return unreadableProducts('must be an array of product objects', field, itemIndex);
		}
		return { raw: typed(value), fromJson: true, label: jsonProductLabel, problems: [] };
	}
	if (source === 'seatRange') {
		const ranges = typed(
			((params.get('seatRanges', itemIndex, {}) as IDataObject).range ?? []) as IDataObject[],
		);
		const raw: unknown[] = [];
		const problems: Problem[] = [];
		ranges.forEach((range, index) => {
			const parsed = seatRangeSchema.safeParse(range);
			if (parsed.success) raw.push(...expandSeatRange(parsed.data, listing));
			else problems.push(...issuesOf(parsed.error, seatRangeFieldLabel(index), [itemIndex]));
		});
		if (ranges.length === 0) {
			problems.push({
				field: fieldLabel('seatRanges'),
				text: 'needs at least one range',
				itemIndexes: [itemIndex],
			});
		}
		return { raw, fromJson: false, label: definedProductLabel, problems };
	}
	const defined = typed(
		((params.get('products', itemIndex, {}) as IDataObject).product ?? []) as IDataObject[],
	);
	return { raw: defined, fromJson: false, label: definedProductLabel, problems: [] };
}

/** Reads one item; undefined for a blank row. */
export function readListingRow(
	params: ParameterSource,
	itemIndex: number,
	shape: InputShape,
	layout: ParameterLayout = V1_LAYOUT,
): ListingRow | undefined {
	// Read first: a row whose other parameters cannot be read still belongs to its listing, and blocks it (sent
	// without the row, the listing could never get that seat added: its ID is remembered as sent).
	let rawListingId: unknown;
	let listingIdRead = false;
	try {
		rawListingId = params.get('externalListingId', itemIndex);
		listingIdRead = true;
		const fields = readFields(params, itemIndex, LEVEL_FIELDS, { externalListingId: rawListingId });
		if (shape === 'ticketPerItem') readFields(params, itemIndex, TICKET_FIELDS, fields);
		if (isBlankRow(params, fields)) return undefined;
		const rawLevel = levelOf(fields);
		const level = listingLevelSchema.safeParse(rawLevel);
		return {
			itemIndex,
			listingId: listingIdOf(rawListingId),
			level: level.success ? level.data : undefined,
			problems: level.success ? [] : issuesOf(level.error, levelLabel, [itemIndex]),
			products:
				shape === 'ticketPerItem'
					? { raw: [ticketOf(fields)], fromJson: false, label: () => ticketRowLabel, problems: [] }
					: // Seat-range ids are built from the validated values (" 7001" gives 7001-A-1, not " 7001-A-1").
						readProducts(params, itemIndex, level.success ? level.data : rawLevel, layout),
		};
	} catch (error) {
		return {
			itemIndex,
			listingId: listingIdOf(rawListingId),
			problems: [
				{
					field: '',
					text: `could not read the parameters: ${errorText(error)}`,
					itemIndexes: [itemIndex],
				},
			],
			...(!listingIdRead &&
				shape === 'ticketPerItem' && {
					unknownListing: { error: errorText(error), eventId: readableEventId(params, itemIndex) },
				}),
		};
	}
}

/** The row's Event ID, when it can be read and is valid; undefined otherwise (its expression may fail too). */
function readableEventId(params: ParameterSource, itemIndex: number): number | undefined {
	try {
		const parsed = positiveId.safeParse(params.get('eventId', itemIndex));
		return parsed.success ? parsed.data : undefined;
	} catch {
		return undefined;
	}
}

/** The rows of one listing: one row per listing, or the sheet rows that share an External Listing ID. */
export interface RowGroup {
	rows: ListingRow[];
	externalListingId?: number;
	label: string;
	/** False for ticket rows gathered only because none has a usable id: nothing else is checked between them. */
	related: boolean;
}
