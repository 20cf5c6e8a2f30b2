/**
 * One listing validated in one step, from the fields its rows gave: each row's listing-level fields and products
 * (seat ranges expanded from the valid level fields), then what the rows must agree on, then the products together:
 * each against its schema, then for a repeated External ID or a seat listed twice. Problems name each field and
 * product as the user knows it.
 */
import { seatIdentity } from '../../../schemas/listing';
import {
	apiValue,
	inApiShape,
	jsonProductSchema,
	levelLabel,
	LISTING_FIELDS,
	listingLevelSchema,
	productSchema,
	TICKET_FIELDS,
	ticketRowLabel,
} from './fields';
import type { ListingLevel, Product } from './fields';
import { fieldLabel } from './fieldLabels';
import { issuesOf, productsOf } from './rowProducts';
import type { RowProducts } from './rowProducts';
import { levelOf, unreadable } from './listingRows';
import type { ListingRow, RowFields, RowGroup } from './listingRows';
import { beyondLimits } from './limits';
import { NO_LIMITS } from './settings';
import type { InputShape, ListingLimits } from './settings';
import type { Problem } from './problems';
import { rowsText } from './problems';

interface ListingBase {
	/** The input items (0-based) the listing came from, in input order. */
	rows: number[];
	/** How messages name the listing: "row 3", "listing 7001 (rows 1–5)". */
	label: string;
}

export interface ReadyListing extends ListingBase {
	kind: 'ready';
	externalListingId: number;
	/** The listing-level fields, valid (listingRequest.ts makes them a request). */
	level: ListingLevel;
	/** Its products, valid, each with the item it came from. */
	products: ListedProduct[];
}

export interface InvalidListing extends ListingBase {
	kind: 'invalid';
	/** Known when the id itself was valid. */
	externalListingId?: number;
	problems: Problem[];
}

export type Listing = ReadyListing | InvalidListing;

/** One row of a listing, its own fields checked: the level fields when valid, its products still raw. */
interface CheckedRow {
	itemIndex: number;
	level?: ListingLevel;
	/** Problems of the level fields, or that the parameters could not be read. */
	problems: Problem[];
	/** Absent when the parameters could not be read at all. */
	products?: RowProducts;
}

/** One product of a listing as its source gave it, parsed in place: the product never parts from its origin. */
interface ProductEntry {
	raw: unknown;
	itemIndex: number;
	/** Its place among its item's products. */
	index: number;
	row: CheckedRow;
	product?: Product;
}

/** A valid product with where it came from: its item, and how a problem names its Seat and External ID fields. */
export interface ListedProduct {
	product: Product;
	itemIndex: number;
	seatField: string;
	externalIdField: string;
}

/**
 * Products of one listing that repeat an External ID, or a row and seat (a seat listed twice could be sold twice),
 * named as the user knows them: by row for ticket rows, by place in the Products list otherwise.
 */
function repeatedProducts(
	entries: Array<ProductEntry & { product: Product }>,
	shape: InputShape,
): Problem[] {
	const first = entries[0].row.products;
	const externalIdLabel =
		shape === 'ticketPerItem'
			? fieldLabel('productExternalId')
			: first?.fromJson
				? `${fieldLabel('productsJson')} externalId`
				: `${fieldLabel('products')} → ${fieldLabel('products.product.externalId')}`;
	const place = (repeated: ProductEntry[]) => {
		if (shape === 'ticketPerItem') {
			const rows = repeated.map((entry) => entry.itemIndex);
			return { text: rowsText(rows), itemIndexes: rows };
		}
		return {
			text: `products ${repeated.map((entry) => entry.index + 1).join(' and ')}`,
			itemIndexes: [entries[0].itemIndex],
		};
	};
	const problems: Problem[] = [];
	const repeats = (
		key: (product: Product) => string | undefined,
		describe: (product: Product, where: string) => string,
		field: string,
	) => {
		const byKey = new Map<string, Array<ProductEntry & { product: Product }>>();
		for (const entry of entries) {
			const value = key(entry.product);
			if (value !== undefined) byKey.set(value, [...(byKey.get(value) ?? []), entry]);
		}
		for (const repeated of byKey.values()) {
			if (repeated.length < 2) continue;
			const where = place(repeated);
			problems.push({
				field,
				text: describe(repeated[0].product, where.text),
				itemIndexes: where.itemIndexes,
			});
		}
	};
	repeats(
		(product) => product.externalId,
		(product, where) =>
			`"${product.externalId}" is used more than once in one listing (${where}); each product needs its own`,
		externalIdLabel,
	);
	repeats(
		seatIdentity,
		(product, where) =>
			`row "${String(product.row)}" seat "${String(product.seat)}" is listed twice in one listing (${where}): a seat can be sold only once`,
		fieldLabel('products.product.seat'),
	);
	return problems;
}

interface CheckedProducts {
	/** Without problems, every product of the listing, each with its origin. */
	products: ListedProduct[];
	problems: Problem[];
}

/** The products of a listing's rows, checked; problems name each product as its source does. */
function checkProducts(rows: CheckedRow[], shape: InputShape): CheckedProducts {
	const entries: ProductEntry[] = rows.flatMap((row) =>
		(row.products?.raw ?? []).map((raw, index) => ({ raw, itemIndex: row.itemIndex, index, row })),
	);
	if (entries.length === 0) {
		return {
			products: [],
			problems: [
				{
					field: fieldLabel('products'),
					text: 'must hold at least one product',
					itemIndexes: rows.map((row) => row.itemIndex),
				},
			],
		};
	}
	const problems: Problem[] = [];
	for (const entry of entries) {
		const source = entry.row.products!;
		const parsed = (source.fromJson ? jsonProductSchema : productSchema).safeParse(entry.raw);
		if (parsed.success) entry.product = parsed.data;
		else problems.push(...issuesOf(parsed.error, source.label(entry.index), [entry.itemIndex]));
	}
	if (problems.length) return { products: [], problems };
	const parsed = entries as Array<ProductEntry & { product: Product }>;
	const repeated = repeatedProducts(parsed, shape);
	if (repeated.length) return { products: [], problems: repeated };
	return {
		products: parsed.map((entry) => ({
			product: entry.product,
			itemIndex: entry.itemIndex,
			seatField: entry.row.products!.label(entry.index)(['seat']),
			externalIdField: entry.row.products!.label(entry.index)(['externalId']),
		})),
		problems: [],
	};
}

/** A ticket row's product in the API's shape, for its schema. */
function ticketOf(fields: RowFields): Record<string, unknown> {
	return inApiShape(TICKET_FIELDS, (field) => fields[field.parameter]);
}

/** One row's own fields: its level fields against their schema, its products from its source. */
function checkRow(row: ListingRow, shape: InputShape): CheckedRow {
	const { itemIndex, fields } = row;
	if (fields === undefined) return { itemIndex, problems: row.problems };
	try {
		const rawLevel = levelOf(fields);
		const level = listingLevelSchema.safeParse(rawLevel);
		return {
			itemIndex,
			level: level.success ? level.data : undefined,
			problems: level.success ? [] : issuesOf(level.error, levelLabel, [itemIndex]),
			products:
				shape === 'ticketPerItem'
					? { raw: [ticketOf(fields)], fromJson: false, label: () => ticketRowLabel, problems: [] }
					: // Seat-range ids are built from the validated values (" 7001" gives 7001-A-1, not " 7001-A-1").
						productsOf(fields, itemIndex, level.success ? level.data : rawLevel),
		};
	} catch (error) {
		// Fields not in the shape n8n gives them: as if they could not be read.
		return { itemIndex, problems: [unreadable(error, itemIndex)] };
	}
}

/** The fields every row of one listing must agree on: the listing's own, but the External Listing ID that groups them. */
const SHARED_FIELDS = LISTING_FIELDS.filter((field) => field.parameter !== 'externalListingId');

/** The different values of one field a problem names; the rest are counted. */
const MAX_VALUES_LISTED = 5;

function disagreements(rows: CheckedRow[]): Problem[] {
	const levels = rows.map((row) => row.level);
	if (rows.length < 2 || !levels.every((level) => level !== undefined)) return [];
	const itemIndexes = rows.map((row) => row.itemIndex);
	const problems: Problem[] = [];
	for (const field of SHARED_FIELDS) {
		const byValue = new Map<string, number[]>();
		levels.forEach((level, index) => {
			const key = JSON.stringify(apiValue(level, field));
			byValue.set(key, [...(byValue.get(key) ?? []), itemIndexes[index]]);
		});
		if (byValue.size > 1) {
			const variants = [...byValue].map(([value, items]) => `${value} in ${rowsText(items)}`);
			const shown = variants.slice(0, MAX_VALUES_LISTED);
			if (variants.length > shown.length)
				shown.push(`and ${variants.length - shown.length} more values`);
			problems.push({
				field: field.panel.displayName,
				text: `differs between the rows of one listing: ${shown.join('; ')}`,
				itemIndexes,
			});
		}
	}
	return problems;
}

/**
 * The rows of one listing, as read, validated into a listing: ready with its level fields and products, or invalid
 * with every problem, in row order, then what the rows disagree on, then the products', then the seller's limits.
 */
export function validateListing(
	group: RowGroup,
	shape: InputShape,
	limits: ListingLimits = NO_LIMITS,
): Listing {
	const checked = group.rows.map((row) => checkRow(row, shape));
	const level = checked[0].level;
	const base = {
		rows: checked.map((row) => row.itemIndex),
		label: group.label,
		// Ticket rows share the id they are grouped by; a listing per item is known by its own, when it is valid.
		externalListingId:
			shape === 'ticketPerItem' ? group.externalListingId : level?.externalListingId,
	};
	const problems = checked.flatMap((row) => [...row.problems, ...(row.products?.problems ?? [])]);
	const readable = checked.every((row) => row.products !== undefined);
	const sourcesRead = checked.every((row) => row.products?.problems.length === 0);
	let products: ListedProduct[] = [];
	if (group.related && readable) {
		problems.push(...disagreements(checked));
		if (sourcesRead) {
			const listed = checkProducts(checked, shape);
			products = listed.products;
			problems.push(...listed.problems);
		}
	}
	if (problems.length > 0 || !level || !readable) return { kind: 'invalid', ...base, problems };
	const beyond = beyondLimits(level, products, base.rows, limits);
	if (beyond.length > 0) return { kind: 'invalid', ...base, problems: beyond };
	return { kind: 'ready', ...base, externalListingId: level.externalListingId, level, products };
}
