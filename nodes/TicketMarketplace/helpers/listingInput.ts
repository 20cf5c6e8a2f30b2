import type { IDataObject } from 'n8n-workflow';
import type { ZodError } from 'zod';

import {
	jsonProductSchema,
	labelIssues,
	LEVEL_LABELS,
	listingLevelSchema,
	pathKey,
	positiveId,
	PRODUCT_LABELS,
	productSchema,
	SEAT_RANGE_LABELS,
	seatRangeSchema,
} from '../schemas/listing';
import type { FieldLabeller, ListingLevel, Product, SeatRange } from '../schemas/listing';
import type { Problem } from './problems';
import { rowsText } from './problems';
import type { ParameterSource } from './sheetColumns';

export const LISTING_PATH = '/sellers/inventory/listings/v3';

/** One listing to send (or to report as invalid), with every input item it came from. */
export interface ListingUnit {
	itemIndexes: number[];
	label: string;
	problems: Problem[];
	externalListingId?: number;
	body?: IDataObject;
	headers?: Record<string, string>;
}

export interface ListingInput {
	/** In input order (of each listing's first row). */
	units: ListingUnit[];
	/** Rows whose every field read from the row was empty: not a listing, skipped and counted. */
	blankItemIndexes: number[];
}

export type InputShape = 'listingPerItem' | 'ticketPerItem';
type ProductsSource = 'defined' | 'json' | 'seatRange';

/** Ticket rows name the product fields as the node does in that shape. */
const TICKET_ROW_LABELS: Record<string, string> = {
	...PRODUCT_LABELS,
	externalId: 'Product External ID',
};

const LISTING_LEVEL_FIELDS: Array<{ label: string; pick: (level: ListingLevel) => unknown }> = [
	{ label: LEVEL_LABELS.eventId, pick: (level) => level.eventId },
	{ label: LEVEL_LABELS['pricePerProduct.amount'], pick: (level) => level.pricePerProduct.amount },
	{
		label: LEVEL_LABELS['pricePerProduct.currency'],
		pick: (level) => level.pricePerProduct.currency,
	},
	{ label: LEVEL_LABELS.stockType, pick: (level) => level.stockType },
	{ label: LEVEL_LABELS.paymentType, pick: (level) => level.paymentType },
	{ label: LEVEL_LABELS.acceptLanguage, pick: (level) => level.acceptLanguage },
];

const levelLabel: FieldLabeller = (path) => LEVEL_LABELS[pathKey(path)] ?? pathKey(path);

function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

function isEmptyValue(value: unknown): boolean {
	return (
		value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
	);
}

function issuesOf(error: ZodError, label: FieldLabeller, itemIndexes: number[]): Problem[] {
	return labelIssues(error, label).map((issue) => ({ ...issue, itemIndexes }));
}

function readListingLevel(params: ParameterSource, itemIndex: number): Record<string, unknown> {
	return {
		eventId: params.get('eventId', itemIndex),
		pricePerProduct: {
			amount: params.get('priceAmount', itemIndex),
			currency: params.get('priceCurrency', itemIndex),
		},
		externalListingId: params.get('externalListingId', itemIndex),
		stockType: params.get('stockType', itemIndex, 'PDF'),
		paymentType: params.get('paymentType', itemIndex, 1),
		acceptLanguage: params.get('acceptLanguage', itemIndex, 'en-US'),
	};
}

/** Blank: at least one field reads the row, and every field that does is empty. Constant fields do not count. */
function isBlankRow(params: ParameterSource, values: Record<string, unknown>): boolean {
	let readsRow = false;
	for (const [name, value] of Object.entries(values)) {
		if (!params.readsItem(name)) continue;
		readsRow = true;
		if (!isEmptyValue(value)) return false;
	}
	return readsRow;
}

function toRequest(
	level: ListingLevel,
	products: Product[],
): Pick<ListingUnit, 'body' | 'headers'> {
	return {
		body: {
			eventId: level.eventId,
			pricePerProduct: {
				amount: level.pricePerProduct.amount,
				currency: level.pricePerProduct.currency,
			},
			externalListingId: level.externalListingId,
			products: products.map((product) => {
				const sent: IDataObject = { externalId: product.externalId };
				if (product.row !== undefined) sent.row = product.row;
				if (product.seat !== undefined) sent.seat = product.seat;
				sent.productType = product.productType;
				sent.ga = product.ga;
				return sent;
			}),
			stockType: level.stockType,
			paymentType: level.paymentType,
		},
		headers: { 'Accept-Language': level.acceptLanguage },
	};
}

/**
 * Products of one listing that repeat an External ID, or a row and seat (a seat listed twice could be sold twice).
 * `where(index)` names a product as the user knows it (its row, or its place in the Products list).
 */
function repeatedProducts(
	products: Product[],
	externalIdLabel: string,
	where: (indexes: number[]) => { text: string; itemIndexes: number[] },
): Problem[] {
	const problems: Problem[] = [];
	const repeats = (
		key: (product: Product) => string | undefined,
		describe: (product: Product, place: string) => Problem['text'],
		field: string,
	) => {
		const byKey = new Map<string, number[]>();
		products.forEach((product, index) => {
			const value = key(product);
			if (value !== undefined) byKey.set(value, [...(byKey.get(value) ?? []), index]);
		});
		for (const indexes of byKey.values()) {
			if (indexes.length < 2) continue;
			const place = where(indexes);
			problems.push({
				field,
				text: describe(products[indexes[0]], place.text),
				itemIndexes: place.itemIndexes,
			});
		}
	};
	repeats(
		(product) => product.externalId,
		(product, place) =>
			`"${product.externalId}" is used more than once in one listing (${place}); each product needs its own`,
		externalIdLabel,
	);
	repeats(
		(product) =>
			product.ga || product.row === undefined || product.seat === undefined
				? undefined
				: JSON.stringify([product.row, product.seat]),
		(product, place) =>
			`row "${String(product.row)}" seat "${String(product.seat)}" is listed twice in one listing (${place}): a seat can be sold only once`,
		PRODUCT_LABELS.seat,
	);
	return problems;
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

type ProductsLabeller = (index: number) => FieldLabeller;

const definedProductLabel: ProductsLabeller = (index) => (path) =>
	`Products → Product ${index + 1} → ${PRODUCT_LABELS[pathKey(path)] ?? pathKey(path)}`;
const jsonProductLabel: ProductsLabeller = (index) => (path) =>
	`Products (JSON) product ${index + 1}${path.length ? ` "${pathKey(path)}"` : ''}`;
const seatRangeLabel: ProductsLabeller = (index) => (path) =>
	`Seat Ranges → Range ${index + 1} → ${SEAT_RANGE_LABELS[pathKey(path)] ?? pathKey(path)}`;

/** Raw products of one listing-per-item, or problems explaining why they could not be read. */
function readProducts(
	params: ParameterSource,
	itemIndex: number,
	listing: { externalListingId?: unknown; eventId?: unknown },
): { raw: unknown[]; label: ProductsLabeller; problems: Problem[] } {
	const source = params.get('productsSource', itemIndex, 'defined') as ProductsSource;
	const at = [itemIndex];
	if (source === 'json') {
		let value = params.get('productsJson', itemIndex, '[]') as unknown;
		if (typeof value === 'string') {
			try {
				value = JSON.parse(value);
			} catch (error) {
				return {
					raw: [],
					label: jsonProductLabel,
					problems: [
						{
							field: 'Products (JSON)',
							text: `is not valid JSON: ${errorText(error)}`,
							itemIndexes: at,
						},
					],
				};
			}
		}
		if (!Array.isArray(value)) {
			return {
				raw: [],
				label: jsonProductLabel,
				problems: [
					{
						field: 'Products (JSON)',
						text: 'must be an array of product objects',
						itemIndexes: at,
					},
				],
			};
		}
		return { raw: value, label: jsonProductLabel, problems: [] };
	}
	if (source === 'seatRange') {
		const ranges = ((params.get('seatRanges', itemIndex, {}) as IDataObject).range ??
			[]) as IDataObject[];
		const raw: unknown[] = [];
		const problems: Problem[] = [];
		ranges.forEach((range, index) => {
			const parsed = seatRangeSchema.safeParse(range);
			if (parsed.success) raw.push(...expandSeatRange(parsed.data, listing));
			else problems.push(...issuesOf(parsed.error, seatRangeLabel(index), at));
		});
		if (ranges.length === 0)
			problems.push({ field: 'Seat Ranges', text: 'needs at least one range', itemIndexes: at });
		return { raw, label: definedProductLabel, problems };
	}
	const defined = ((params.get('products', itemIndex, {}) as IDataObject).product ??
		[]) as IDataObject[];
	return { raw: defined, label: definedProductLabel, problems: [] };
}

function parseProducts(
	raw: unknown[],
	fromJson: boolean,
	label: ProductsLabeller,
	itemIndexOf: (index: number) => number,
): { products: Product[]; problems: Problem[] } {
	const products: Product[] = [];
	const problems: Problem[] = [];
	raw.forEach((entry, index) => {
		const parsed = (fromJson ? jsonProductSchema : productSchema).safeParse(entry);
		if (parsed.success) products.push(parsed.data);
		else problems.push(...issuesOf(parsed.error, label(index), [itemIndexOf(index)]));
	});
	return { products, problems };
}

function listingPerItem(
	params: ParameterSource,
	itemIndex: number,
	blank: number[],
): ListingUnit | undefined {
	const unit: ListingUnit = {
		itemIndexes: [itemIndex],
		label: rowsText([itemIndex]),
		problems: [],
	};
	try {
		const rawLevel = readListingLevel(params, itemIndex);
		const amount = (rawLevel.pricePerProduct as Record<string, unknown>).amount;
		const currency = (rawLevel.pricePerProduct as Record<string, unknown>).currency;
		const rowValues = {
			externalListingId: rawLevel.externalListingId,
			eventId: rawLevel.eventId,
			priceAmount: amount,
			priceCurrency: currency,
		};
		if (isBlankRow(params, rowValues)) {
			blank.push(itemIndex);
			return undefined;
		}
		const level = listingLevelSchema.safeParse(rawLevel);
		if (!level.success) unit.problems.push(...issuesOf(level.error, levelLabel, [itemIndex]));
		// Seat-range ids are built from the validated values (" 7001" from a sheet gives 7001-A-1, not " 7001-A-1").
		const source = readProducts(params, itemIndex, level.success ? level.data : rawLevel);
		unit.problems.push(...source.problems);
		if (source.problems.length === 0) {
			const fromJson = source.label === jsonProductLabel;
			const parsed = parseProducts(source.raw, fromJson, source.label, () => itemIndex);
			unit.problems.push(...parsed.problems);
			if (source.raw.length === 0)
				unit.problems.push({
					field: 'Products',
					text: 'must hold at least one product',
					itemIndexes: [itemIndex],
				});
			else if (parsed.problems.length === 0) {
				unit.problems.push(
					...repeatedProducts(
						parsed.products,
						fromJson ? 'Products (JSON) externalId' : 'Products → External ID',
						(indexes) => ({
							text: `products ${indexes.map((index) => index + 1).join(' and ')}`,
							itemIndexes: [itemIndex],
						}),
					),
				);
			}
			if (level.success && unit.problems.length === 0)
				Object.assign(unit, toRequest(level.data, parsed.products));
		}
		if (level.success) unit.externalListingId = level.data.externalListingId;
	} catch (error) {
		unit.problems.push({
			field: '',
			text: `could not read the parameters: ${errorText(error)}`,
			itemIndexes: [itemIndex],
		});
	}
	return unit;
}

interface TicketRow {
	itemIndex: number;
	level?: ListingLevel;
	product: Record<string, unknown>;
	problems: Problem[];
	rawListingId?: unknown;
	blank?: boolean;
}

function readTicketRow(params: ParameterSource, itemIndex: number): TicketRow {
	try {
		const rawLevel = readListingLevel(params, itemIndex);
		const product = {
			externalId: params.get('productExternalId', itemIndex),
			row: params.get('productRow', itemIndex, ''),
			seat: params.get('productSeat', itemIndex, ''),
			productType: params.get('productType', itemIndex, 'TICKET'),
			ga: params.get('productGa', itemIndex, false),
		};
		const price = rawLevel.pricePerProduct as Record<string, unknown>;
		const rowValues: Record<string, unknown> = {
			externalListingId: rawLevel.externalListingId,
			eventId: rawLevel.eventId,
			priceAmount: price.amount,
			priceCurrency: price.currency,
			productExternalId: product.externalId,
			productRow: product.row,
			productSeat: product.seat,
			productGa: product.ga,
		};
		if (isBlankRow(params, rowValues)) return { itemIndex, product, problems: [], blank: true };
		const level = listingLevelSchema.safeParse(rawLevel);
		return {
			itemIndex,
			level: level.success ? level.data : undefined,
			product,
			problems: level.success ? [] : issuesOf(level.error, levelLabel, [itemIndex]),
			rawListingId: rawLevel.externalListingId,
		};
	} catch (error) {
		return {
			itemIndex,
			product: {},
			problems: [
				{
					field: '',
					text: `could not read the parameters: ${errorText(error)}`,
					itemIndexes: [itemIndex],
				},
			],
		};
	}
}

/** The group a row belongs to: its listing id, or (when unusable) the id's own text, so one bad id is one listing. */
function groupKey(row: TicketRow): { key: string; id?: number; text: string } {
	const parsed = positiveId.safeParse(row.rawListingId);
	if (parsed.success) return { key: `#${parsed.data}`, id: parsed.data, text: String(parsed.data) };
	const text = isEmptyValue(row.rawListingId) ? '' : String(row.rawListingId).trim();
	return { key: `?${text}`, text };
}

/** Sheet rows that share an External Listing ID become one listing, one product per row, in input order. */
function ticketRowsToListings(
	params: ParameterSource,
	itemIndexes: number[],
	blank: number[],
): ListingUnit[] {
	const groups = new Map<string, { unit: ListingUnit; rows: TicketRow[]; text: string }>();
	for (const itemIndex of itemIndexes) {
		const row = readTicketRow(params, itemIndex);
		if (row.blank) {
			blank.push(itemIndex);
			continue;
		}
		const { key, id, text } = groupKey(row);
		let group = groups.get(key);
		if (!group) {
			group = {
				unit: { itemIndexes: [], label: '', problems: [], externalListingId: id },
				rows: [],
				text,
			};
			groups.set(key, group);
		}
		group.rows.push(row);
	}

	const units: ListingUnit[] = [];
	for (const { unit, rows, text } of groups.values()) {
		units.push(unit);
		unit.itemIndexes = rows.map((row) => row.itemIndex);
		const where = rowsText(unit.itemIndexes);
		unit.label =
			unit.externalListingId !== undefined
				? `listing ${unit.externalListingId} (${where})`
				: text
					? `listing "${text}" (${where})`
					: `no External Listing ID (${where})`;
		for (const row of rows) unit.problems.push(...row.problems);
		if (unit.externalListingId === undefined) continue;

		const levels = rows.map((row) => row.level);
		if (levels.every((level): level is ListingLevel => level !== undefined)) {
			for (const field of LISTING_LEVEL_FIELDS) {
				const byValue = new Map<string, number[]>();
				levels.forEach((level, index) => {
					const key = JSON.stringify(field.pick(level));
					byValue.set(key, [...(byValue.get(key) ?? []), rows[index].itemIndex]);
				});
				if (byValue.size > 1) {
					const variants = [...byValue].map(([value, items]) => `${value} in ${rowsText(items)}`);
					unit.problems.push({
						field: field.label,
						text: `differs between the rows of one listing: ${variants.join('; ')}`,
						itemIndexes: unit.itemIndexes,
					});
				}
			}
		}
		const parsed = parseProducts(
			rows.map((row) => row.product),
			false,
			() => (path) => TICKET_ROW_LABELS[pathKey(path)] ?? pathKey(path),
			(index) => rows[index].itemIndex,
		);
		unit.problems.push(...parsed.problems);
		if (parsed.problems.length === 0) {
			unit.problems.push(
				...repeatedProducts(parsed.products, TICKET_ROW_LABELS.externalId, (indexes) => {
					const repeated = indexes.map((index) => rows[index].itemIndex);
					return { text: rowsText(repeated), itemIndexes: repeated };
				}),
			);
		}
		if (unit.problems.length === 0 && levels[0])
			Object.assign(unit, toRequest(levels[0], parsed.products));
	}
	return units;
}

/** Reads and validates every input item before anything is sent. Units come out in input order. */
export function buildListingUnits(
	params: ParameterSource,
	itemCount: number,
	shape: InputShape,
): ListingInput {
	const blankItemIndexes: number[] = [];
	const itemIndexes = Array.from({ length: itemCount }, (_, index) => index);
	if (shape === 'ticketPerItem')
		return { units: ticketRowsToListings(params, itemIndexes, blankItemIndexes), blankItemIndexes };
	const units = itemIndexes
		.map((itemIndex) => listingPerItem(params, itemIndex, blankItemIndexes))
		.filter((unit): unit is ListingUnit => unit !== undefined);
	// Two items with one External Listing ID would create the listing twice (or be refused the second time).
	const firstItemById = new Map<number, number>();
	for (const unit of units) {
		if (unit.externalListingId === undefined) continue;
		const first = firstItemById.get(unit.externalListingId);
		if (first === undefined) firstItemById.set(unit.externalListingId, unit.itemIndexes[0]);
		else {
			unit.problems.push({
				field: LEVEL_LABELS.externalListingId,
				text: `${unit.externalListingId} is already used by ${rowsText([first])}; to combine rows into one listing, choose Input Shape → Each Item Is a Ticket`,
				itemIndexes: unit.itemIndexes,
			});
			delete unit.body;
		}
	}
	return { units, blankItemIndexes };
}
