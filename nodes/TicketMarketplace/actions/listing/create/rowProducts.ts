/** A listing per item's products, still unchecked, from its chosen source (list, JSON, seat ranges), each labelled. */
import type { IDataObject } from 'n8n-workflow';
import type { z, ZodError } from 'zod';

import { errorText } from '../../../helpers/errors';
import {
	labelIssues,
	pathKey,
	SEAT_PATTERN_PLACEHOLDERS,
	seatRangeSchema,
} from '../../../schemas/listing';
import type { FieldLabeller } from '../../../schemas/listing';
import { fieldOf, labelOf, PRODUCT_KEYS, productLabel, seatRangeLabel } from './fields';
import type { ListingRow, Problem } from './nouns';
import type { ParameterSource } from './settings';

type ListingIds = { externalListingId?: unknown; eventId?: unknown };

/** A product or seat range with the shared product type (when there is one), unless it sets its own. */
function withProductType(raw: unknown, productType: unknown): unknown {
	if (productType === undefined || raw === null || typeof raw !== 'object' || Array.isArray(raw))
		return raw;
	return 'productType' in raw ? raw : { ...raw, productType };
}

export function issuesOf(error: ZodError, label: FieldLabeller, itemIndexes: number[]): Problem[] {
	return labelIssues(error, label, PRODUCT_KEYS).map((issue) => ({ ...issue, itemIndexes }));
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
function seatsOf(range: z.infer<typeof seatRangeSchema>, listing: ListingIds): IDataObject[] {
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
export function productsOf(
	params: ParameterSource,
	itemIndex: number,
	sharedProductType: boolean,
	listing: ListingIds,
): Pick<ListingRow, 'products' | 'problems'> {
	const source = params.get('productsSource', itemIndex, 'defined');
	// From 1.1 one Product Type (Options) applies to every product without its own.
	const shared = sharedProductType
		? params.get('productType', itemIndex, fieldOf('productType').default)
		: undefined;
	const listed = (entries: unknown[], fromJson: boolean, label: typeof jsonProductLabel) => ({
		problems: [],
		products: entries.map((entry, index) => {
			const product = withProductType(entry, shared);
			return { product, itemIndex, index, fromJson, label: label(index) };
		}),
	});
	const refused = (parameter: string, text: string) => ({
		problems: [{ field: labelOf(parameter), text, itemIndexes: [itemIndex] }],
	});
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
	const problems: Problem[] = [];
	// Expanded seats carry their range's product type, which the shared one does not replace.
	const seats = ranges.flatMap((raw: unknown, index) => {
		const parsed = seatRangeSchema.safeParse(withProductType(raw, shared));
		if (parsed.success) return seatsOf(parsed.data, listing);
		problems.push(...issuesOf(parsed.error, seatRangeFieldLabel(index), [itemIndex]));
		return [];
	});
	// A valid range has at least one seat: no seat and no problem is no range.
	if (seats.length === 0 && problems.length === 0)
		return refused('seatRanges', 'needs at least one range');
	return problems.length ? { problems } : listed(seats, false, definedProductLabel);
}
