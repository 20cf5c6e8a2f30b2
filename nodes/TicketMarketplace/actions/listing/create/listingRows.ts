/**
 * The first stage of Listing → Create: one input item read into what it says about a listing (its listing-level
 * fields, checked, and its products, still raw), or recognised as a blank row. Both input shapes read here.
 */
import type { NodeParameterValueType } from 'n8n-workflow';

import { errorText } from '../../../helpers/errors';
import { isBlank, listingLevelSchema, positiveId } from '../../../schemas/listing';
import type { ListingLevel } from '../../../schemas/listing';
import { levelLabel, ticketRowLabel } from './fieldLabels';
import type { Problem } from './problems';
import { issuesOf, readProducts, V1_LAYOUT } from './rowProducts';
import type { ParameterLayout, RowProducts } from './rowProducts';
import type { ParameterSource } from './sheetColumns';

export type InputShape = 'listingPerItem' | 'ticketPerItem';

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

/** Fields that never make a row blank or not: a choice of kind, payment or language, not the row's data. */
const NOT_ROW_DATA = new Set(['stockType', 'paymentType', 'acceptLanguage', 'productType']);

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
export function levelOf(fields: RowFields): Record<string, unknown> {
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
	for (const [name, value] of Object.entries(fields)) {
		if (NOT_ROW_DATA.has(name) || !params.readsItem(name)) continue;
		readsRow = true;
		if (!isBlank(value)) return false;
	}
	return readsRow;
}

/** The External Listing ID as grouping needs it: parsed once, here. */
function listingIdOf(raw: unknown): ListingId {
	const parsed = positiveId.safeParse(raw);
	if (parsed.success) return { id: parsed.data, text: String(parsed.data) };
	return { text: isBlank(raw) ? '' : String(raw).trim() };
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
