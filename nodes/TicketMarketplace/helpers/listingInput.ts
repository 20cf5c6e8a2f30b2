import type { IDataObject } from 'n8n-workflow';
import type { ZodError } from 'zod';

import {
	formatIssues,
	jsonProductSchema,
	listingLevelSchema,
	positiveId,
	productSchema,
	seatRangeSchema,
} from '../schemas/listing';
import type { ListingLevel, Product, SeatRange } from '../schemas/listing';
import type { ParameterSource } from './sheetColumns';

export const LISTING_PATH = '/sellers/inventory/listings/v3';

/** One listing to send (or to report as invalid), with every input item it came from. */
export interface ListingUnit {
	itemIndexes: number[];
	label: string;
	problems: string[];
	externalListingId?: number;
	body?: IDataObject;
	headers?: Record<string, string>;
}

export type InputShape = 'listingPerItem' | 'ticketPerItem';
type ProductsSource = 'defined' | 'json' | 'seatRange';

const LISTING_LEVEL_FIELDS: Array<{ path: string; pick: (level: ListingLevel) => unknown }> = [
	{ path: 'eventId', pick: (level) => level.eventId },
	{ path: 'pricePerProduct.amount', pick: (level) => level.pricePerProduct.amount },
	{ path: 'pricePerProduct.currency', pick: (level) => level.pricePerProduct.currency },
	{ path: 'stockType', pick: (level) => level.stockType },
	{ path: 'paymentType', pick: (level) => level.paymentType },
	{ path: 'Accept-Language', pick: (level) => level.acceptLanguage },
];

function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

function itemsLabel(itemIndexes: number[]): string {
	return itemIndexes.length === 1 ? `item ${itemIndexes[0]}` : `items ${itemIndexes.join(', ')}`;
}

/** Accept-Language is a header, not a body field; its issues are named after the header. */
function formatLevelIssues(error: ZodError): string[] {
	return formatIssues(error).map((line) => line.replace(/^acceptLanguage\b/, 'Accept-Language'));
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

function toRequest(level: ListingLevel, products: Product[]): Pick<ListingUnit, 'body' | 'headers'> {
	return {
		body: {
			eventId: level.eventId,
			pricePerProduct: { amount: level.pricePerProduct.amount, currency: level.pricePerProduct.currency },
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

function duplicateExternalIds(products: Product[]): string[] {
	const firstSeen = new Map<string, number>();
	const problems: string[] = [];
	products.forEach((product, index) => {
		const earlier = firstSeen.get(product.externalId);
		if (earlier === undefined) firstSeen.set(product.externalId, index);
		else problems.push(`products[${index}].externalId "${product.externalId}" repeats products[${earlier}].externalId`);
	});
	return problems;
}

export function expandSeatRange(range: SeatRange, listing: { externalListingId?: unknown; eventId?: unknown }) {
	const products: Array<Record<string, unknown>> = [];
	for (let seat = range.firstSeat; seat <= range.lastSeat; seat++) {
		const externalId = range.externalIdPattern
			.split('{listing}').join(String(listing.externalListingId))
			.split('{event}').join(String(listing.eventId))
			.split('{row}').join(range.row)
			.split('{seat}').join(String(seat));
		products.push({ externalId, row: range.row, seat: String(seat), productType: range.productType, ga: false });
	}
	return products;
}

/** Raw products of one listing-per-item, or problems explaining why they could not be read. */
function readProducts(
	params: ParameterSource,
	itemIndex: number,
	listing: { externalListingId?: unknown; eventId?: unknown },
): { raw: unknown[]; fromJson: boolean; problems: string[] } {
	const source = params.get('productsSource', itemIndex, 'defined') as ProductsSource;
	if (source === 'json') {
		let value = params.get('productsJson', itemIndex, '[]') as unknown;
		if (typeof value === 'string') {
			try {
				value = JSON.parse(value);
			} catch (error) {
				return { raw: [], fromJson: true, problems: [`products (JSON) is not valid JSON: ${errorText(error)}`] };
			}
		}
		if (!Array.isArray(value)) {
			return { raw: [], fromJson: true, problems: ['products (JSON) must be an array of product objects'] };
		}
		return { raw: value, fromJson: true, problems: [] };
	}
	if (source === 'seatRange') {
		const ranges = ((params.get('seatRanges', itemIndex, {}) as IDataObject).range ?? []) as IDataObject[];
		const raw: unknown[] = [];
		const problems: string[] = [];
		ranges.forEach((range, index) => {
			const parsed = seatRangeSchema.safeParse(range);
			if (parsed.success) raw.push(...expandSeatRange(parsed.data, listing));
			else problems.push(...formatIssues(parsed.error, ['seatRanges', index]));
		});
		if (ranges.length === 0) problems.push('seatRanges needs at least one range');
		return { raw, fromJson: false, problems };
	}
	const defined = ((params.get('products', itemIndex, {}) as IDataObject).product ?? []) as IDataObject[];
	return { raw: defined, fromJson: false, problems: [] };
}

function parseProducts(raw: unknown[], fromJson: boolean): { products: Product[]; problems: string[] } {
	const products: Product[] = [];
	const problems: string[] = [];
	raw.forEach((entry, index) => {
		const parsed = (fromJson ? jsonProductSchema : productSchema).safeParse(entry);
		if (parsed.success) products.push(parsed.data);
		else problems.push(...formatIssues(parsed.error, ['products', index]));
	});
	if (raw.length === 0) problems.push('products must hold at least one product');
	return { products, problems: problems.length ? problems : duplicateExternalIds(products) };
}

function listingPerItem(params: ParameterSource, itemIndex: number): ListingUnit {
	const unit: ListingUnit = { itemIndexes: [itemIndex], label: `item ${itemIndex}`, problems: [] };
	try {
		const rawLevel = readListingLevel(params, itemIndex);
		const level = listingLevelSchema.safeParse(rawLevel);
		if (!level.success) unit.problems.push(...formatLevelIssues(level.error));
		// Seat-range ids are built from the validated values (" 7001" from a sheet gives 7001-A-1, not " 7001-A-1").
		const source = readProducts(params, itemIndex, level.success ? level.data : rawLevel);
		unit.problems.push(...source.problems);
		const products = source.problems.length ? undefined : parseProducts(source.raw, source.fromJson);
		if (products) unit.problems.push(...products.problems);
		if (level.success) unit.externalListingId = level.data.externalListingId;
		if (level.success && products && unit.problems.length === 0) {
			Object.assign(unit, toRequest(level.data, products.products));
		}
	} catch (error) {
		unit.problems.push(`could not read the parameters: ${errorText(error)}`);
	}
	return unit;
}

interface TicketRow {
	itemIndex: number;
	level?: ListingLevel;
	product: Record<string, unknown>;
	problems: string[];
}

function readTicketRow(params: ParameterSource, itemIndex: number): TicketRow & { rawListingId?: unknown } {
	try {
		const rawLevel = readListingLevel(params, itemIndex);
		const product = {
			externalId: params.get('productExternalId', itemIndex),
			row: params.get('productRow', itemIndex, ''),
			seat: params.get('productSeat', itemIndex, ''),
			productType: params.get('productType', itemIndex, 'TICKET'),
			ga: params.get('productGa', itemIndex, false),
		};
		const level = listingLevelSchema.safeParse(rawLevel);
		return {
			itemIndex,
			level: level.success ? level.data : undefined,
			product,
			problems: level.success ? [] : formatLevelIssues(level.error),
			rawListingId: rawLevel.externalListingId,
		};
	} catch (error) {
		return { itemIndex, product: {}, problems: [`could not read the parameters: ${errorText(error)}`] };
	}
}

/** Sheet rows that share an External Listing ID become one listing, one product per row, in input order. */
function ticketRowsToListings(params: ParameterSource, itemCount: number): ListingUnit[] {
	const groups = new Map<number, Array<ReturnType<typeof readTicketRow>>>();
	const units: ListingUnit[] = [];
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		const row = readTicketRow(params, itemIndex);
		const listingId = positiveId.safeParse(row.rawListingId);
		if (!listingId.success) {
			// Without a usable listing id a row cannot be grouped: it fails on its own.
			units.push({ itemIndexes: [itemIndex], label: `item ${itemIndex}`, problems: row.problems });
			continue;
		}
		const group = groups.get(listingId.data) ?? [];
		if (!groups.has(listingId.data)) {
			groups.set(listingId.data, group);
			units.push({ itemIndexes: [], label: '', problems: [], externalListingId: listingId.data });
		}
		group.push(row);
	}

	for (const unit of units) {
		if (unit.externalListingId === undefined) continue;
		const rows = groups.get(unit.externalListingId) ?? [];
		unit.itemIndexes = rows.map((row) => row.itemIndex);
		unit.label = `listing ${unit.externalListingId} (${itemsLabel(unit.itemIndexes)})`;
		for (const row of rows) {
			unit.problems.push(...row.problems.map((problem) => `${problem} (item ${row.itemIndex})`));
		}
		const levels = rows.map((row) => row.level);
		if (levels.every((level): level is ListingLevel => level !== undefined)) {
			for (const field of LISTING_LEVEL_FIELDS) {
				const byValue = new Map<string, number[]>();
				levels.forEach((level, index) => {
					const key = JSON.stringify(field.pick(level));
					byValue.set(key, [...(byValue.get(key) ?? []), rows[index].itemIndex]);
				});
				if (byValue.size > 1) {
					const variants = [...byValue].map(([value, items]) => `${value} (${itemsLabel(items)})`);
					unit.problems.push(`${field.path} differs between rows of one listing: ${variants.join(', ')}`);
				}
			}
		}
		const parsed = parseProducts(
			rows.map((row) => row.product),
			false,
		);
		unit.problems.push(
			...parsed.problems.map((problem) => {
				const position = /^products\[(\d+)\]/.exec(problem);
				return position ? `${problem} (item ${rows[Number(position[1])].itemIndex})` : problem;
			}),
		);
		if (unit.problems.length === 0 && levels[0]) Object.assign(unit, toRequest(levels[0], parsed.products));
	}
	return units;
}

/** Reads and validates every input item before anything is sent. Units come out in input order. */
export function buildListingUnits(params: ParameterSource, itemCount: number, shape: InputShape): ListingUnit[] {
	if (itemCount === 0) return [];
	if (shape === 'ticketPerItem') return ticketRowsToListings(params, itemCount);
	const units = Array.from({ length: itemCount }, (_, itemIndex) => listingPerItem(params, itemIndex));
	// Two items with one External Listing ID would create the listing twice (or be refused the second time).
	const firstItemById = new Map<number, number>();
	for (const unit of units) {
		if (unit.externalListingId === undefined) continue;
		const first = firstItemById.get(unit.externalListingId);
		if (first === undefined) firstItemById.set(unit.externalListingId, unit.itemIndexes[0]);
		else {
			unit.problems.push(
				`externalListingId ${unit.externalListingId} is already used by item ${first}; to combine rows into one listing, choose "Each Item Is a Ticket"`,
			);
			delete unit.body;
		}
	}
	return units;
}
