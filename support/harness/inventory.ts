/**
 * The seller's inventory as an n8n Data Table (n8n's built-in tables), created and filled through the REST API that
 * n8n's own editor uses (`/rest/projects/<project>/data-tables`, signed in as the owner): the same on n8n 2.x and
 * 1.123 (whose public API has no data tables). One row per seat, the same columns as examples/seats.csv, plus the
 * columns the example workflows write back (the listing's status and marketplace id, an error, and when it sold).
 */
import { n8nRest, type N8nRestSession } from './n8n';

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

/** The owner's session and personal project, where the table lives (workflows imported by the CLI live there too). */
export async function dataTablesOf(n8nUrl: string): Promise<DataTables> {
	const session = await n8nRest(n8nUrl);
	const project = await session.call<{ id: string }>('GET', '/projects/personal');
	return { session, base: `/projects/${project.id}/data-tables` };
}

export interface DataTables {
	session: N8nRestSession;
	base: string;
}

export async function createInventoryTable(tables: DataTables): Promise<string> {
	const table = await tables.session.call<{ id: string }>('POST', tables.base, {
		name: INVENTORY_TABLE,
		columns: INVENTORY_COLUMNS,
	});
	return table.id;
}

export async function insertInventoryRows(
	tables: DataTables,
	tableId: string,
	rows: InventoryRow[],
): Promise<StoredInventoryRow[]> {
	return await tables.session.call<StoredInventoryRow[]>(
		'POST',
		`${tables.base}/${tableId}/insert`,
		{ data: rows, returnType: 'all' },
	);
}

/** Every row of the table, in id order (bounded: the examples' tables are small). */
export async function inventoryRows(
	tables: DataTables,
	tableId: string,
): Promise<StoredInventoryRow[]> {
	const rows: StoredInventoryRow[] = [];
	const pageSize = 250;
	for (let page = 0; page < 40; page += 1) {
		const query = `take=${pageSize}&skip=${page * pageSize}&sortBy=${encodeURIComponent('id:asc')}`;
		const answer = await tables.session.call<{ count: number; data: StoredInventoryRow[] }>(
			'GET',
			`${tables.base}/${tableId}/rows?${query}`,
		);
		rows.push(...answer.data);
		if (rows.length >= answer.count || answer.data.length === 0) return rows;
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
