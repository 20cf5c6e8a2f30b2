/** Read stage: each row read, rows grouped into listings and checked; an invalid one stops here without Continue. */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { z } from 'zod';

import { errorText } from '../../../helpers/errors';
import {
	isBlank,
	pathKey,
	positiveId,
	SEAT_PATTERN_PLACEHOLDERS,
	seatRangeSchema,
	type FieldLabeller,
} from '../../../schemas/listing';
import { readsAsV1 } from '../../versions';
import {
	holdBackForUnknownRows,
	refuseRepeatedIds,
	refuseTicketsListedBefore,
	validateListing,
} from './checkListing';
import {
	fieldLabel,
	fieldOf,
	groupBy,
	inApiShape,
	issuesOf,
	labelOf,
	levelOf,
	listingLevelSchema,
	optionPaths,
	productLabel,
	READ_ORDER,
	rowsText,
	seatRangeLabel,
	TICKET_FIELDS,
} from './fields';
import type { ListedProduct, Listing, ListingRow, Problem } from './nouns';
import { blankRowsNotice, validationError } from './output';
import { isBlankRow, missingColumns, parameterSource, readListingLimits } from './settings';
import type { InputShape, ListingLimits, ParameterSource } from './settings';

function listingIdOf(raw: unknown): ListingRow['listingId'] {
	const parsed = positiveId.safeParse(raw);
	if (parsed.success) return { id: parsed.data, text: String(parsed.data) };
	return { text: isBlank(raw) ? '' : String(raw).trim() };
}

/** One item read and checked on its own, unless blank: its level when valid, its products still unchecked. */
function readListingRow(
	params: ParameterSource,
	itemIndex: number,
	shape: InputShape,
	sharedProductType: boolean,
): ListingRow | undefined {
	// READ_ORDER reads the External Listing ID first: a row whose other parameters fail still blocks its listing,
	// which once sent could never get its seat.
	const fields: Record<string, unknown> = {};
	try {
		for (const field of READ_ORDER) {
			if (field.per === 'ticket' && shape !== 'ticketPerItem') continue;
			fields[field.parameter] = params.get(field.parameter, itemIndex, field.default);
		}
		if (isBlankRow(params, fields)) return undefined;
		const rawLevel = levelOf(fields);
		const { data: level, error } = listingLevelSchema.safeParse(rawLevel);
		const problems = error ? issuesOf(error, fieldLabel, [itemIndex]) : [];
		const row = { itemIndex, listingId: listingIdOf(fields.externalListingId), level, problems };
		if (shape === 'ticketPerItem') {
			const product = inApiShape(TICKET_FIELDS, (field) => fields[field.parameter]);
			const products = [{ product, itemIndex, index: 0, fromJson: false, label: fieldLabel }];
			return { ...row, products };
		}
		// Seat-range ids are built from the validated values (" 7001" gives 7001-A-1, not " 7001-A-1").
		const products = productsOf(params, itemIndex, sharedProductType, level ?? rawLevel, problems);
		return { ...row, products };
	} catch (error) {
		// Also fields not in the shape n8n gives them.
		const text = `could not read the parameters: ${errorText(error)}`;
		return {
			itemIndex,
			listingId: listingIdOf(fields.externalListingId),
			problems: [{ field: '', text, itemIndexes: [itemIndex] }],
			...(!('externalListingId' in fields) &&
				shape === 'ticketPerItem' && {
					unknownListing: { error: errorText(error), eventId: readableEventId(params, itemIndex) },
				}),
		};
	}
}

/** The row's Event ID, when it can be read and is valid (its expression may fail too). */
function readableEventId(params: ParameterSource, itemIndex: number): number | undefined {
	try {
		return positiveId.safeParse(params.get('eventId', itemIndex)).data;
	} catch {
		return undefined;
	}
}

/** Reads and checks every item; an invalid listing throws the one validation error, unless errors continue. */
export function readListings(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
): ReturnType<typeof listingsOf> {
	const v1 = readsAsV1(context);
	const limits = readListingLimits(context);
	const defaultShape = v1 ? 'listingPerItem' : 'ticketPerItem';
	const shape = context.getNodeParameter('inputShape', 0, defaultShape) as InputShape;
	const source = parameterSource(context, items, shape, optionPaths(v1));
	// From 1.1 one Product Type (Options) applies to every ticket without its own; version 1 has one per ticket.
	const { listings, blankRows } = listingsOf(source, items.length, shape, !v1, limits);
	if (blankRows.length)
		context.addExecutionHints({ message: blankRowsNotice(blankRows), location: 'outputPane' });
	const columns = () => missingColumns(items, source, new Set(blankRows));
	const invalid = validationError(context, listings, columns, blankRows);
	if (invalid) throw invalid;
	return { listings, blankRows };
}

/** Every input item read and validated into listings (in input order of first rows), and the blank rows. */
export function listingsOf(
	params: ParameterSource,
	itemCount: number,
	shape: InputShape,
	sharedProductType = false,
	limits: ListingLimits = {},
): { listings: Listing[]; blankRows: number[] } {
	const read = Array.from({ length: itemCount }, (_, itemIndex) =>
		readListingRow(params, itemIndex, shape, sharedProductType),
	);
	const rows = read.filter((row) => row !== undefined);
	const blankRows = read.flatMap((row, itemIndex) => (row ? [] : [itemIndex]));
	// Any shape but tickets (a hand-written workflow may hold another) reads each item as a listing.
	if (shape !== 'ticketPerItem') {
		const listings = rows.map((row) =>
			validateListing([row], rowsText([row.itemIndex]), shape, limits),
		);
		return { listings: refuseTicketsListedBefore(refuseRepeatedIds(listings)), blankRows };
	}
	// Ticket rows that share an External Listing ID are one listing; an unusable id's text groups its rows.
	const groups = groupBy(rows, ({ listingId: { id, text } }) => id ?? `?${text}`);
	const listings = [...groups.values()].map((members) => {
		const { id, text } = members[0].listingId;
		const where = rowsText(members.map((row) => row.itemIndex));
		const name =
			id !== undefined ? `listing ${id}` : text ? `listing "${text}"` : 'no External Listing ID';
		return validateListing(members, `${name} (${where})`, shape, limits);
	});
	// A listing held back or refused for its repeated ID is not sent: its tickets hold no other listing back.
	return { listings: refuseTicketsListedBefore(holdBackForUnknownRows(listings, rows)), blankRows };
}

/** A product or seat range with the shared product type (when there is one), unless it sets its own. */
function withProductType(raw: unknown, productType: unknown): unknown {
	if (productType === undefined || raw === null || typeof raw !== 'object' || Array.isArray(raw))
		return raw;
	return 'productType' in raw ? raw : { ...raw, productType };
}

/** How a problem names a value of the index-th entry of a list: "Products → Product 2 → Seat". */
const inList =
	(list: string, entry: string, value: FieldLabeller) =>
	(index: number): FieldLabeller =>
	(path) =>
		`${labelOf(list)} → ${labelOf(entry)} ${index + 1} → ${value(path)}`;
const definedProductLabel = inList('products', 'products.product', productLabel);
const seatRangeFieldLabel = inList('seatRanges', 'seatRanges.range', seatRangeLabel);
const jsonProductLabel =
	(index: number): FieldLabeller =>
	(path) =>
		`${labelOf('productsJson')} product ${index + 1}${path.length ? ` "${pathKey(path)}"` : ''}`;

/** A JSON product list, parsed when it is text; or why it cannot be read. */
function jsonList(value: unknown): unknown[] | string {
	try {
		const list: unknown = typeof value === 'string' ? JSON.parse(value) : value;
		return Array.isArray(list) ? list : 'must be an array of product objects';
	} catch (error) {
		return `is not valid JSON: ${errorText(error)}`;
	}
}

/** A valid seat range's tickets, one per seat, each External ID built from its pattern for `listing`. */
function seatsOf(
	range: z.infer<typeof seatRangeSchema>,
	listing: Record<string, unknown>,
): IDataObject[] {
	const { row, productType, firstSeat, lastSeat, externalIdPattern } = range;
	return Array.from({ length: lastSeat - firstSeat + 1 }, (_, offset) => {
		const seat = firstSeat + offset;
		// One placeholder after the other, as written: a row may itself hold "{seat}".
		const values = [listing.externalListingId, listing.eventId, row, seat];
		const externalId = SEAT_PATTERN_PLACEHOLDERS.reduce(
			(id, placeholder, at) => id.split(placeholder).join(String(values[at])),
			externalIdPattern,
		);
		return { externalId, row, seat: String(seat), productType, ga: false };
	});
}

/** The products of a listing per item from its source, seat ranges expanded for `listing`; none when it cannot. */
function productsOf(
	params: ParameterSource,
	itemIndex: number,
	sharedProductType: boolean,
	listing: Record<string, unknown>,
	problems: Problem[],
): Array<ListedProduct<unknown>> | undefined {
	const source = params.get('productsSource', itemIndex, 'defined');
	const shared = sharedProductType
		? params.get('productType', itemIndex, fieldOf('productType').default)
		: undefined;
	const listed = (entries: unknown[], fromJson: boolean, label: typeof jsonProductLabel) =>
		entries.map((entry, index) => {
			const product = withProductType(entry, shared);
			return { product, itemIndex, index, fromJson, label: label(index) };
		});
	const refused = (parameter: string, text: string) => {
		problems.push({ field: labelOf(parameter), text, itemIndexes: [itemIndex] });
		return undefined;
	};
	if (source === 'json') {
		const list = jsonList(params.get('productsJson', itemIndex, '[]'));
		if (typeof list === 'string') return refused('productsJson', list);
		return listed(list, true, jsonProductLabel);
	}
	if (source !== 'seatRange') {
		const products = (params.get('products', itemIndex, {}) as IDataObject).product ?? [];
		// Only a hand-edited or API-written workflow holds anything else.
		if (!Array.isArray(products)) return refused('products', 'must be a list of products');
		return listed(products, false, definedProductLabel);
	}
	const ranges = (params.get('seatRanges', itemIndex, {}) as IDataObject).range ?? [];
	if (!Array.isArray(ranges)) return refused('seatRanges', 'must be a list of ranges');
	const invalid: Problem[] = [];
	// Expanded seats carry their range's product type, which the shared one does not replace.
	const seats = ranges.flatMap((raw: unknown, index) => {
		const parsed = seatRangeSchema.safeParse(withProductType(raw, shared));
		if (parsed.success) return seatsOf(parsed.data, listing);
		invalid.push(...issuesOf(parsed.error, seatRangeFieldLabel(index), [itemIndex]));
		return [];
	});
	// A valid range has at least one seat: no seat and no problem is no range.
	if (seats.length === 0 && invalid.length === 0)
		return refused('seatRanges', 'needs at least one range');
	problems.push(...invalid);
	return invalid.length ? undefined : listed(seats, false, definedProductLabel);
}
