import type { INodeExecutionData, NodeParameterValueType } from 'n8n-workflow';

/** Reads a node parameter for an item: n8n's expression result, or a sheet cell the parameter stands for. */
export interface ParameterSource {
	get(name: string, itemIndex: number, fallback?: NodeParameterValueType): unknown;
	/** Whether the parameter's value can differ per item (a column or an expression), rather than one for the run. */
	readsItem(name: string): boolean;
	/** The sheet column the parameter reads directly, when it does. */
	columnOf(name: string): string | undefined;
}

/**
 * "Map Automatically": the sheet's own headers stand for the node's fields. Headers are compared without case,
 * spaces, underscores, hyphens or a byte-order mark, so listing_id, listingId, "Listing ID" and "\uFEFFlisting_id"
 * are one column.
 */
export const RECOGNISED_HEADERS: Record<string, { label: string; headers: string[]; required: boolean }> = {
	externalListingId: { label: 'External Listing ID', headers: ['listing_id', 'external_listing_id', 'listing'], required: true },
	eventId: { label: 'Event ID', headers: ['event_id', 'event'], required: true },
	priceAmount: { label: 'Price Amount', headers: ['price', 'price_amount', 'amount'], required: true },
	priceCurrency: { label: 'Currency', headers: ['currency', 'price_currency'], required: true },
	productExternalId: {
		label: 'Product External ID',
		headers: ['ticket_id', 'external_id', 'product_external_id', 'product_id', 'ticket'],
		required: true,
	},
	productRow: { label: 'Row', headers: ['row'], required: false },
	productSeat: { label: 'Seat', headers: ['seat', 'seat_number'], required: false },
	productGa: { label: 'General Admission', headers: ['ga', 'general_admission'], required: false },
	productType: { label: 'Product Type', headers: ['product_type'], required: false },
};

export function normaliseHeader(header: string): string {
	return header.replace(/^\uFEFF/, '').toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Every column name the items have, in first-seen order. */
export function columnsOf(items: INodeExecutionData[]): string[] {
	const seen = new Set<string>();
	for (const item of items) {
		for (const key of Object.keys(item.json ?? {})) seen.add(key);
	}
	return [...seen];
}

export interface HeaderMatch {
	/** Parameter name -> the sheet's column that stands for it. */
	columns: Map<string, string>;
	/** Required fields no column stands for. */
	missing: string[];
}

export function recogniseHeaders(columns: string[]): HeaderMatch {
	const byNormalised = new Map<string, string>();
	for (const column of columns) {
		const key = normaliseHeader(column);
		if (!byNormalised.has(key)) byNormalised.set(key, column);
	}
	const matched = new Map<string, string>();
	const missing: string[] = [];
	for (const [parameter, field] of Object.entries(RECOGNISED_HEADERS)) {
		const column = field.headers.map((header) => byNormalised.get(normaliseHeader(header))).find((found) => found !== undefined);
		if (column !== undefined) matched.set(parameter, column);
		else if (field.required) missing.push(parameter);
	}
	return { columns: matched, missing };
}

/** Recognised columns are read from the item; every other parameter comes from the node as usual. */
export class RecognisedColumns implements ParameterSource {
	constructor(
		private readonly items: INodeExecutionData[],
		private readonly match: HeaderMatch,
		private readonly fallbackSource: ParameterSource,
	) {}

	get(name: string, itemIndex: number, fallback?: NodeParameterValueType): unknown {
		const column = this.match.columns.get(name);
		if (column === undefined) return this.fallbackSource.get(name, itemIndex, fallback);
		return this.items[itemIndex]?.json?.[column];
	}

	readsItem(name: string): boolean {
		return this.match.columns.has(name) || this.fallbackSource.readsItem(name);
	}

	columnOf(name: string): string | undefined {
		return this.match.columns.get(name) ?? this.fallbackSource.columnOf(name);
	}
}
