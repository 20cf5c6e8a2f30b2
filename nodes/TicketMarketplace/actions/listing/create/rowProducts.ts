/** A listing per item's products, still raw, from its chosen source (list, JSON, seat ranges), each labelled. */
import type { IDataObject } from 'n8n-workflow';
import type { ZodError } from 'zod';

import { errorText } from '../../../helpers/errors';
import {
	labelIssues,
	pathKey,
	SEAT_PATTERN_PLACEHOLDERS,
	seatRangeSchema,
} from '../../../schemas/listing';
import type { FieldLabeller } from '../../../schemas/listing';
import { labelOf, PRODUCT_KEYS, productLabel, seatRangeLabel } from './fields';
import type { ListedProduct, Problem, RowFields } from './nouns';

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
	if (typeof value === 'string') {
		try {
			value = JSON.parse(value);
		} catch (error) {
			return `is not valid JSON: ${errorText(error)}`;
		}
	}
	return Array.isArray(value) ? value : 'must be an array of product objects';
}

/** Every valid seat range expanded for `listing`, and the problems of the others. */
function seatRangeProducts(
	fields: RowFields,
	itemIndex: number,
	listing: { externalListingId?: unknown; eventId?: unknown },
) {
	const ranges = ((fields.seatRanges as IDataObject).range ?? []) as IDataObject[];
	const products: unknown[] = [];
	const problems: Problem[] = [];
	ranges.forEach((raw, index) => {
		const parsed = seatRangeSchema.safeParse(withProductType(raw, fields.productType));
		if (!parsed.success) {
			problems.push(...issuesOf(parsed.error, seatRangeFieldLabel(index), [itemIndex]));
			return;
		}
		const { row, productType, firstSeat, lastSeat, externalIdPattern } = parsed.data;
		for (let seat = firstSeat; seat <= lastSeat; seat++) {
			// One placeholder after the other, as written: a row may itself hold "{seat}".
			const values = [listing.externalListingId, listing.eventId, row, seat];
			const externalId = SEAT_PATTERN_PLACEHOLDERS.reduce(
				(id, placeholder, at) => id.split(placeholder).join(String(values[at])),
				externalIdPattern,
			);
			products.push({ externalId, row, seat: String(seat), productType, ga: false });
		}
	});
	if (ranges.length === 0)
		problems.push({
			field: labelOf('seatRanges'),
			text: 'needs at least one range',
			itemIndexes: [itemIndex],
		});
	return { products, problems };
}

/** Adds the products to `into`, seat ranges expanded for `listing`; returns why the source cannot be read. */
export function productsOf(
	fields: RowFields,
	itemIndex: number,
	listing: { externalListingId?: unknown; eventId?: unknown },
	into: Array<ListedProduct<unknown>>,
): Problem[] {
	// Read only from 1.1, where one Product Type applies to every product.
	const shared = fields.productType;
	const add = (entries: unknown[], fromJson: boolean, label: (index: number) => FieldLabeller) =>
		entries.forEach((entry, index) => {
			const product = withProductType(entry, shared);
			into.push({ product, itemIndex, index, fromJson, label: label(index) });
		});
	if (fields.productsSource === 'json') {
		const list = jsonList(fields.productsJson);
		if (typeof list === 'string')
			return [{ field: labelOf('productsJson'), text: list, itemIndexes: [itemIndex] }];
		add(list, true, jsonProductLabel);
		return [];
	}
	if (fields.productsSource === 'seatRange') {
		const { products, problems } = seatRangeProducts(fields, itemIndex, listing);
		// Expanded seats carry their range's product type, which the shared one does not replace.
		add(products, false, definedProductLabel);
		return problems;
	}
	add(
		((fields.products as IDataObject).product ?? []) as IDataObject[],
		false,
		definedProductLabel,
	);
	return [];
}
