/**
 * The seller's inventory as an n8n Data Table (n8n 2.x's built-in tables), created and filled through n8n's public
 * API (`/api/v1/data-tables`): one row per seat, the same columns as examples/seats.csv, plus the columns the
 * example workflows write back (the listing's status and marketplace id, an error, and when the seat was sold).
 */
import type { N8nPublicApi } from './n8n';

/** The name the example workflows look the table up by (n8n compares table names in lower case). */
export const INVENTORY_TABLE = 'ticket_inventory';

export const INVENTORY_COLUMNS = [
	{ name: 'listing_id', type: 'number' },
	{ name: 'event_id', type: 'number' },
	{ name: 'price', type: 'number' },
	{ name: 'currency', type: 'string' },
	{ name: 'row', type: 'string' },
	{ name: 'seat', type: 'string' },
	{ name: 'ticket_id', type: 'string' },
	{ name: 'listing_status', type: 'string' },
	{ name: 'marketplace_listing_id', type: 'string' },
	{ name: 'listing_error', type: 'string' },
	{ name: 'sold_at', type: 'string' },
] as const;

export interface InventoryRow {
	listing_id: number;
	event_id: number;
	price: number;
	currency: string;
	row: string;
	seat: string;
	ticket_id: string;
	listing_status?: string | null;
	marketplace_listing_id?: string | null;
	listing_error?: string | null;
	sold_at?: string | null;
}

export type StoredInventoryRow = InventoryRow & { id: number };

export async function createInventoryTable(api: N8nPublicApi): Promise<string> {
	const table = await api.request<{ id: string }>('POST', '/data-tables', { name: INVENTORY_TABLE, columns: INVENTORY_COLUMNS });
	return table.id;
}

export async function insertInventoryRows(api: N8nPublicApi, tableId: string, rows: InventoryRow[]): Promise<StoredInventoryRow[]> {
	const answer = await api.request<StoredInventoryRow[] | { data?: StoredInventoryRow[] }>('POST', `/data-tables/${tableId}/rows`, { data: rows, returnType: 'all' });
	return Array.isArray(answer) ? answer : (answer.data ?? []);
}

/** Every row of the table, in id order (bounded: the examples' tables are small). */
export async function inventoryRows(api: N8nPublicApi, tableId: string): Promise<StoredInventoryRow[]> {
	const rows: StoredInventoryRow[] = [];
	let cursor: string | undefined;
	for (let page = 0; page < 50; page += 1) {
		const query = `limit=250&sortBy=${encodeURIComponent('id:asc')}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
		const answer = await api.request<{ data: StoredInventoryRow[]; nextCursor?: string | null }>('GET', `/data-tables/${tableId}/rows?${query}`);
		rows.push(...answer.data);
		if (!answer.nextCursor) return rows;
		cursor = answer.nextCursor;
	}
	throw new Error(`data table ${tableId} has more rows than this helper reads`);
}

/** Rows of a CSV seat sheet (examples/seats.csv's columns) as inventory rows. */
export function inventoryRowsFromCsv(csv: string): InventoryRow[] {
	const [header, ...lines] = csv.trim().split(/\r?\n/);
	const columns = header.split(',');
	return lines.map((line) => {
		const cells = Object.fromEntries(line.split(',').map((cell, index) => [columns[index], cell]));
		return {
			listing_id: Number(cells.listing_id),
			event_id: Number(cells.event_id),
			price: Number(cells.price),
			currency: cells.currency,
			row: cells.row,
			seat: cells.seat,
			ticket_id: cells.ticket_id,
		};
	});
}
