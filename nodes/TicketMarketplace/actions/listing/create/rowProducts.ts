/**
 * The products one listing-per-item gives, still raw, from the fields read for the source it chose (the Products
 * list, JSON or seat ranges), with how a problem names each one; what differs between the node's versions in
 * reading them.
 */
import type { IDataObject } from 'n8n-workflow';
import type { ZodError } from 'zod';

import { errorText } from '../../../helpers/errors';
import { labelIssues, pathKey, seatRangeSchema } from '../../../schemas/listing';
import type { FieldLabeller, SeatRange } from '../../../schemas/listing';
import { fieldLabel, productLabel, seatRangeLabel } from './fieldLabels';
import { PRODUCT_KEYS } from './fields';
import type { RowFields } from './listingRows';
import type { Problem } from './problems';

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

export function issuesOf(error: ZodError, label: FieldLabeller, itemIndexes: number[]): Problem[] {
	return labelIssues(error, label, PRODUCT_KEYS).map((issue) => ({ ...issue, itemIndexes }));
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

/**
 * The products of one listing-per-item, from the source the item chose, seat ranges expanded for `listing` (its
 * level fields, validated when they are valid). May throw where the fields are not the shape n8n gives them.
 */
export function productsOf(
	fields: RowFields,
	itemIndex: number,
	listing: { externalListingId?: unknown; eventId?: unknown },
): RowProducts {
	const source = fields.productsSource as ProductsSource;
	// Read only from 1.1, where one Product Type applies to every product.
	const shared = fields.productType;
	const typed = <T>(entries: T[]): T[] =>
		shared === undefined ? entries : entries.map((entry) => withProductType(entry, shared) as T);
	if (source === 'json') {
		const field = fieldLabel('productsJson');
		let value = fields.productsJson;
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
		const ranges = typed(((fields.seatRanges as IDataObject).range ?? []) as IDataObject[]);
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
	const defined = typed(((fields.products as IDataObject).product ?? []) as IDataObject[]);
	return { raw: defined, fromJson: false, label: definedProductLabel, problems: [] };
}
