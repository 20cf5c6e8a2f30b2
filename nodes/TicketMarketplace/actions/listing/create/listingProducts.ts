/**
 * The products of one listing, checked together: each against its schema, then for a repeated External ID or a
 * seat listed twice. Problems name each product as the user knows it.
 */
import { jsonProductSchema, productSchema, seatIdentity } from '../../../schemas/listing';
import type { Product } from '../../../schemas/listing';
import { fieldLabel } from './fieldLabels';
import { issuesOf } from './listingRows';
import type { InputShape, ListingRow, RowGroup } from './listingRows';
import type { Problem } from './problems';
import { rowsText } from './problems';

interface ProductEntry {
	raw: unknown;
	itemIndex: number;
	/** Its place among its item's products. */
	index: number;
	row: ListingRow;
}

/**
 * Products of one listing that repeat an External ID, or a row and seat (a seat listed twice could be sold twice),
 * named as the user knows them: by row for ticket rows, by place in the Products list otherwise.
 */
function repeatedProducts(
	products: Product[],
	entries: ProductEntry[],
	shape: InputShape,
): Problem[] {
	const first = entries[0].row.products;
	const externalIdLabel =
		shape === 'ticketPerItem'
			? fieldLabel('productExternalId')
			: first?.fromJson
				? `${fieldLabel('productsJson')} externalId`
				: `${fieldLabel('products')} → ${fieldLabel('products.product.externalId')}`;
	const place = (indexes: number[]) => {
		if (shape === 'ticketPerItem') {
			const rows = indexes.map((index) => entries[index].itemIndex);
			return { text: rowsText(rows), itemIndexes: rows };
		}
		return {
			text: `products ${indexes.map((index) => entries[index].index + 1).join(' and ')}`,
			itemIndexes: [entries[0].itemIndex],
		};
	};
	const problems: Problem[] = [];
	const repeats = (
		key: (product: Product) => string | undefined,
		describe: (product: Product, where: string) => string,
		field: string,
	) => {
		const byKey = new Map<string, number[]>();
		products.forEach((product, index) => {
			const value = key(product);
			if (value !== undefined) byKey.set(value, [...(byKey.get(value) ?? []), index]);
		});
		for (const indexes of byKey.values()) {
			if (indexes.length < 2) continue;
			const where = place(indexes);
			problems.push({
				field,
				text: describe(products[indexes[0]], where.text),
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

/** Where a product came from: its item, and how a problem names its Seat field. */
export interface ProductOrigin {
	itemIndex: number;
	seatField: string;
}

export interface CheckedProducts {
	products: Product[];
	problems: Problem[];
	/** Without problems, one per product, in the same order. */
	origins: ProductOrigin[];
}

/** The products of a group, checked; problems name each product as its source does. */
export function checkProducts(group: RowGroup, shape: InputShape): CheckedProducts {
	const entries: ProductEntry[] = group.rows.flatMap((row) =>
		(row.products?.raw ?? []).map((raw, index) => ({ raw, itemIndex: row.itemIndex, index, row })),
	);
	if (entries.length === 0) {
		return {
			products: [],
			origins: [],
			problems: [
				{
					field: fieldLabel('products'),
					text: 'must hold at least one product',
					itemIndexes: group.rows.map((row) => row.itemIndex),
				},
			],
		};
	}
	const products: Product[] = [];
	const problems: Problem[] = [];
	for (const entry of entries) {
		const source = entry.row.products!;
		const parsed = (source.fromJson ? jsonProductSchema : productSchema).safeParse(entry.raw);
		if (parsed.success) products.push(parsed.data);
		else problems.push(...issuesOf(parsed.error, source.label(entry.index), [entry.itemIndex]));
	}
	const origins = entries.map((entry) => ({
		itemIndex: entry.itemIndex,
		seatField: entry.row.products!.label(entry.index)(['seat']),
	}));
	if (problems.length) return { products, problems, origins };
	return { products, problems: repeatedProducts(products, entries, shape), origins };
}
