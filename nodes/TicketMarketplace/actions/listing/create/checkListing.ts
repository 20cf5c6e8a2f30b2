/** A listing's rows checked: a listing per item's products from their source, what rows agree on, the limits. */
import type { IDataObject } from 'n8n-workflow';
import type { z, ZodError } from 'zod';

import { errorText } from '../../../helpers/errors';
import {
	labelIssues,
	pathKey,
	SEAT_PATTERN_PLACEHOLDERS,
	seatIdentity,
	seatRangeSchema,
} from '../../../schemas/listing';
import type { FieldLabeller } from '../../../schemas/listing';
import {
	apiValue,
	fieldOf,
	jsonProductSchema,
	labelOf,
	LISTING_FIELDS,
	PRODUCT_KEYS,
	productLabel,
	productSchema,
	rowsText,
	seatRangeLabel,
} from './fields';
import type { ListedProduct, Listing, ListingLevel, ListingRow, Problem, Product } from './nouns';
import { LIMIT_OPTIONS } from './settings';
import type { InputShape, ListingLimits, ParameterSource } from './settings';

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
	if (typeof value === 'string') {
		try {
			value = JSON.parse(value);
		} catch (error) {
			return `is not valid JSON: ${errorText(error)}`;
		}
	}
	return Array.isArray(value) ? value : 'must be an array of product objects';
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
		const products = params.get('products', itemIndex, {}) as IDataObject;
		return listed((products.product ?? []) as IDataObject[], false, definedProductLabel);
	}
	const ranges = params.get('seatRanges', itemIndex, {}) as IDataObject;
	const problems: Problem[] = [];
	// Expanded seats carry their range's product type, which the shared one does not replace.
	const seats = ((ranges.range ?? []) as IDataObject[]).flatMap((raw, index) => {
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

/** Items grouped by key, in order of first appearance. */
export function groupBy<T, K>(items: T[], keyOf: (item: T) => K): Map<K, T[]> {
	const groups = new Map<K, T[]>();
	for (const item of items) {
		const key = keyOf(item);
		const group = groups.get(key);
		if (group) group.push(item);
		else groups.set(key, [item]);
	}
	return groups;
}

/** Products of one listing that repeat an External ID or a seat: by row for ticket rows, else by place. */
function repeatedProducts(entries: ListedProduct[], shape: InputShape): Problem[] {
	const byRow = shape === 'ticketPerItem';
	const problems: Problem[] = [];
	const repeats = (
		key: (product: Product) => string | undefined,
		field: string,
		says: (product: Product, where: string) => string,
	) => {
		for (const [value, repeated] of groupBy(entries, (entry) => key(entry.product))) {
			if (value === undefined || repeated.length < 2) continue;
			const rows = repeated.map((entry) => entry.itemIndex);
			const where = byRow
				? rowsText(rows)
				: `products ${repeated.map((entry) => entry.index + 1).join(' and ')}`;
			const itemIndexes = byRow ? rows : [entries[0].itemIndex];
			problems.push({ field, text: says(repeated[0].product, where), itemIndexes });
		}
	};
	repeats(
		(product) => product.externalId,
		byRow
			? labelOf('productExternalId')
			: entries[0].fromJson
				? `${labelOf('productsJson')} externalId`
				: `${labelOf('products')} → ${productLabel(['externalId'])}`,
		(product, where) =>
			`"${product.externalId}" is used more than once in one listing (${where}); each product needs its own`,
	);
	repeats(
		seatIdentity,
		productLabel(['seat']),
		(product, where) =>
			`row "${String(product.row)}" seat "${String(product.seat)}" is listed twice in one listing (${where}): a seat can be sold only once`,
	);
	return problems;
}

/** The products of a listing's rows, checked; problems name each product as its source does. */
function checkProducts(
	entries: Array<ListedProduct<unknown>>,
	rows: number[],
	shape: InputShape,
	problems: Problem[],
): ListedProduct[] {
	const parsed: ListedProduct[] = [];
	const found: Problem[] = [];
	if (entries.length === 0)
		found.push({
			field: labelOf('products'),
			text: 'must hold at least one product',
			itemIndexes: rows,
		});
	for (const entry of entries) {
		const result = (entry.fromJson ? jsonProductSchema : productSchema).safeParse(entry.product);
		if (result.success) parsed.push({ ...entry, product: result.data });
		else found.push(...issuesOf(result.error, entry.label, [entry.itemIndex]));
	}
	if (found.length === 0) found.push(...repeatedProducts(parsed, shape));
	problems.push(...found);
	return found.length ? [] : parsed;
}

/** What every row of one listing must agree on: its own fields but the External Listing ID that groups them. */
const SHARED_FIELDS = LISTING_FIELDS.filter((field) => field.parameter !== 'externalListingId');

/** A field's values its rows disagree on, five named and the rest counted. */
function disagreements(rows: ListingRow[]): Problem[] {
	if (rows.length < 2 || !rows.every((row) => row.level !== undefined)) return [];
	const itemIndexes = rows.map((row) => row.itemIndex);
	const problems: Problem[] = [];
	for (const field of SHARED_FIELDS) {
		const byValue = groupBy(rows, (row) => JSON.stringify(apiValue(row.level!, field)));
		if (byValue.size < 2) continue;
		const variants = [...byValue].map(
			([value, group]) => `${value} in ${rowsText(group.map((row) => row.itemIndex))}`,
		);
		const shown = variants.slice(0, 5);
		if (variants.length > shown.length)
			shown.push(`and ${variants.length - shown.length} more values`);
		problems.push({
			field: field.panel.displayName,
			text: `differs between the rows of one listing: ${shown.join('; ')}`,
			itemIndexes,
		});
	}
	return problems;
}

/** A valid listing against the seller's limits (Options): currency, minimum price, most tickets. */
function beyondLimits(
	level: ListingLevel,
	tickets: number,
	rows: number[],
	limits: ListingLimits,
): Problem[] {
	const problems: Problem[] = [];
	const { amount, currency } = level.pricePerProduct as { amount: number; currency: string };
	const problem = (parameter: string, text: string) =>
		problems.push({ field: parameter && labelOf(parameter), text, itemIndexes: rows });
	if (limits.currency !== undefined && currency !== limits.currency)
		problem(
			'priceCurrency',
			`${currency} is not ${limits.currency}, the ${LIMIT_OPTIONS.minPriceCurrency} set under Options: only listings priced in ${limits.currency} are sent`,
		);
	else if (limits.minPrice !== undefined && amount < limits.minPrice)
		problem(
			'priceAmount',
			`${amount} ${currency} is below the ${LIMIT_OPTIONS.minPricePerTicket} set under Options (${limits.minPrice} ${limits.currency}): correct the price, or lower the minimum`,
		);
	if (limits.maxTickets !== undefined && tickets > limits.maxTickets)
		problem(
			'',
			`${tickets} tickets in one listing are more than the ${LIMIT_OPTIONS.maxTicketsPerListing} set under Options (${limits.maxTickets}): split them into several listings, or raise the maximum`,
		);
	return problems;
}

/** The rows of one listing validated into a listing named `label`: ready, or invalid with every problem. */
export function validateListing(
	rows: ListingRow[],
	label: string,
	shape: InputShape,
	limits: ListingLimits,
): Listing {
	const problems = rows.flatMap((row) => row.problems);
	const level = rows[0].level;
	// Ticket rows share the id they are grouped by; a listing per item is known by its own, when it is valid.
	const sharedId = rows[0].listingId.id;
	const byRow = shape === 'ticketPerItem';
	const base = {
		rows: rows.map((row) => row.itemIndex),
		label,
		externalListingId: byRow ? sharedId : level?.externalListingId,
	};
	// Ticket rows gathered only because none has a usable id are not checked against each other.
	if (byRow && sharedId === undefined) return { kind: 'invalid', ...base, problems };
	problems.push(...disagreements(rows));
	const lists = rows.map((row) => row.products);
	const products = lists.every((list) => list !== undefined)
		? checkProducts(lists.flat(), base.rows, shape, problems)
		: [];
	if (problems.length > 0 || !level) return { kind: 'invalid', ...base, problems };
	const beyond = beyondLimits(level, products.length, base.rows, limits);
	if (beyond.length > 0) return { kind: 'invalid', ...base, problems: beyond };
	return { kind: 'ready', ...base, externalListingId: level.externalListingId, level, products };
}
