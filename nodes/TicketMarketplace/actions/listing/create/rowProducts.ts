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
import type { FieldLabeller, SeatRange } from '../../../schemas/listing';
import { labelOf, PRODUCT_KEYS, productLabel, seatRangeLabel } from './fields';
import type { ListedProduct, Problem, RowFields } from './nouns';

/** A product or seat range with the shared product type, unless it sets its own. */
function withProductType(raw: unknown, productType: unknown): unknown {
	if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
	return 'productType' in raw ? raw : { ...raw, productType };
}
type ProductsSource = 'defined' | 'json' | 'seatRange';

export function issuesOf(error: ZodError, label: FieldLabeller, itemIndexes: number[]): Problem[] {
	return labelIssues(error, label, PRODUCT_KEYS).map((issue) => ({ ...issue, itemIndexes }));
}

function expandSeatRange(
	range: SeatRange,
	listing: { externalListingId?: unknown; eventId?: unknown },
) {
	const products: Array<Record<string, unknown>> = [];
	for (let seat = range.firstSeat; seat <= range.lastSeat; seat++) {
		// One placeholder after the other, as written: a row may itself hold "{seat}".
		const values = [listing.externalListingId, listing.eventId, range.row, seat];
		const externalId = SEAT_PATTERN_PLACEHOLDERS.reduce(
			(id, placeholder, index) => id.split(placeholder).join(String(values[index])),
			range.externalIdPattern,
		);
		const { row, productType } = range;
		products.push({ externalId, row, seat: String(seat), productType, ga: false });
	}
	return products;
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

/**
 * Adds the products to `into`, seat ranges expanded for `listing` (its level fields, validated when valid); returns
 * why the source could not be read. May throw where the fields are not in n8n's shape.
 */
export function productsOf(
	fields: RowFields,
	itemIndex: number,
	listing: { externalListingId?: unknown; eventId?: unknown },
	into: Array<ListedProduct<unknown>>,
): Problem[] {
	const source = fields.productsSource as ProductsSource;
	// Read only from 1.1, where one Product Type applies to every product.
	const shared = fields.productType;
	const add = (entries: unknown[], fromJson: boolean, label: (index: number) => FieldLabeller) => {
		entries.forEach((entry, index) => {
			const product = shared === undefined ? entry : withProductType(entry, shared);
			into.push({ product, itemIndex, index, fromJson, label: label(index) });
		});
	};
	if (source === 'json') {
		const problem = (text: string) => [
			{ field: labelOf('productsJson'), text, itemIndexes: [itemIndex] },
		];
		let value = fields.productsJson;
		if (typeof value === 'string') {
			try {
				value = JSON.parse(value);
			} catch (error) {
				return problem(`is not valid JSON: ${errorText(error)}`);
			}
		}
		if (!Array.isArray(value)) return problem('must be an array of product objects');
		add(value, true, jsonProductLabel);
		return [];
	}
	if (source === 'seatRange') {
		const ranges = ((fields.seatRanges as IDataObject).range ?? []) as IDataObject[];
		const expanded: unknown[] = [];
		const problems: Problem[] = [];
		ranges.forEach((range, index) => {
			const typed = shared === undefined ? range : withProductType(range, shared);
			const parsed = seatRangeSchema.safeParse(typed);
			if (parsed.success) expanded.push(...expandSeatRange(parsed.data, listing));
			else problems.push(...issuesOf(parsed.error, seatRangeFieldLabel(index), [itemIndex]));
		});
		if (ranges.length === 0) {
			problems.push({
				field: labelOf('seatRanges'),
				text: 'needs at least one range',
				itemIndexes: [itemIndex],
			});
		}
		// Expanded seats carry their range's product type already.
		expanded.forEach((product, index) =>
			into.push({ product, itemIndex, index, fromJson: false, label: definedProductLabel(index) }),
		);
		return problems;
	}
	add(
		((fields.products as IDataObject).product ?? []) as IDataObject[],
		false,
		definedProductLabel,
	);
	return [];
}
