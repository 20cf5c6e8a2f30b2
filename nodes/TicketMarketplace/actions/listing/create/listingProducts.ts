/**
 * The products of one listing, checked together: each against its schema, then for a repeated External ID or a
 * seat listed twice. Problems name each product as the user knows it.
 */
import { jsonProductSchema, productSchema, seatIdentity } from '../../../schemas/listing';
import type { Product } from '../../../schemas/listing';
import { fieldLabel } from './fieldLabels';
import { issuesOf } from './rowProducts';
import type { InputShape, ListingRow, RowGroup } from './listingRows';
import type { Problem } from './problems';
import { rowsText } from './problems';

/** One product of a listing as its source gave it, parsed in place: the product never parts from its origin. */
interface ProductEntry {
	raw: unknown;
	itemIndex: number;
	/** Its place among its item's products. */
	index: number;
	row: ListingRow;
	product?: Product;
}

/** A valid product with where it came from: its item, and how a problem names its Seat field. */
export interface ListedProduct {
	product: Product;
	itemIndex: number;
	seatField: string;
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

export interface CheckedProducts {
	/** Without problems, every product of the listing, each with its origin. */
	products: ListedProduct[];
	problems: Problem[];
}

/** The products of a group, checked; problems name each product as its source does. */
export function checkProducts(group: RowGroup, shape: InputShape): CheckedProducts {
	const entries: ProductEntry[] = group.rows.flatMap((row) =>
		(row.products?.raw ?? []).map((raw, index) => ({ raw, itemIndex: row.itemIndex, index, row })),
	);
	if (entries.length === 0) {
		return {
			products: [],
			problems: [
				{
					field: fieldLabel('products'),
					text: 'must hold at least one product',
					itemIndexes: group.rows.map((row) => row.itemIndex),
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
		})),
		problems: [],
	};
}
