/** One listing checked from its rows: what they must agree on, the products, the seller's limits. */
import { seatIdentity } from '../../../schemas/listing';
import {
	apiValue,
	issuesOf,
	jsonProductSchema,
	labelOf,
	LISTING_FIELDS,
	productLabel,
	productSchema,
	rowsText,
} from './fields';
import type { ListedProduct, Listing, ListingLevel, ListingRow, Problem, Product } from './nouns';
import { LIMIT_OPTIONS, type InputShape, type ListingLimits } from './settings';

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
	const found: Problem[] = entries.length
		? []
		: [{ field: labelOf('products'), text: 'must hold at least one product', itemIndexes: rows }];
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
	return SHARED_FIELDS.flatMap((field) => {
		const byValue = groupBy(rows, (row) => JSON.stringify(apiValue(row.level!, field)));
		if (byValue.size < 2) return [];
		const variants = [...byValue].map(
			([value, group]) => `${value} in ${rowsText(group.map((row) => row.itemIndex))}`,
		);
		const shown = variants.slice(0, 5);
		if (variants.length > shown.length)
			shown.push(`and ${variants.length - shown.length} more values`);
		const text = `differs between the rows of one listing: ${shown.join('; ')}`;
		return [{ field: field.panel.displayName, text, itemIndexes }];
	});
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
