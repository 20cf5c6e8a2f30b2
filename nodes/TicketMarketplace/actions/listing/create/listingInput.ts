/**
 * Listing → Create's input, from items to listings: read each row (listingRows.ts), group the rows of one listing
 * (a listing per item is a group of one), and validate each group into a Listing that is either ready to send,
 * with its fields and products, or invalid, with its problems. Nothing here sends or throws.
 */
import { seatIdentity } from '../../../schemas/listing';
import type { ListingLevel } from '../../../schemas/listing';
import { fieldLabel } from './fieldLabels';
import { checkProducts } from './listingProducts';
import type { ListedProduct } from './listingProducts';
import { readListingRow } from './listingRows';
import { V1_LAYOUT } from './rowProducts';
import type { InputShape, ListingRow, RowGroup } from './listingRows';
import type { ParameterLayout } from './rowProducts';
import type { Problem } from './problems';
import { rowsText } from './problems';
import type { ParameterSource } from './sheetColumns';

export type { InputShape } from './listingRows';

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

export interface ListingInput {
	/** In input order (of each listing's first row). */
	listings: Listing[];
	/** Rows whose every field read from the row was empty: not a listing, skipped and counted. */
	blankRows: number[];
}

/** The fields every row of one listing must agree on. */
const SHARED_FIELDS: Array<{ parameter: string; pick: (level: ListingLevel) => unknown }> = [
	{ parameter: 'eventId', pick: (level) => level.eventId },
	{ parameter: 'priceAmount', pick: (level) => level.pricePerProduct.amount },
	{ parameter: 'priceCurrency', pick: (level) => level.pricePerProduct.currency },
	{ parameter: 'stockType', pick: (level) => level.stockType },
	{ parameter: 'paymentType', pick: (level) => level.paymentType },
	{ parameter: 'acceptLanguage', pick: (level) => level.acceptLanguage },
];

/** Ticket rows that share an External Listing ID are one group; an unusable id's own text groups its rows. */
function groupTicketRows(rows: ListingRow[]): RowGroup[] {
	const groups = new Map<string, { rows: ListingRow[]; id?: number; text: string }>();
	for (const row of rows) {
		const { id, text } = row.listingId;
		const key = id !== undefined ? `#${id}` : `?${text}`;
		const group = groups.get(key) ?? { rows: [], id, text };
		group.rows.push(row);
		groups.set(key, group);
	}
	return [...groups.values()].map(({ rows: members, id, text }) => {
		const where = rowsText(members.map((row) => row.itemIndex));
		const label =
			id !== undefined
				? `listing ${id} (${where})`
				: text
					? `listing "${text}" (${where})`
					: `no External Listing ID (${where})`;
		return { rows: members, externalListingId: id, label, related: id !== undefined };
	});
}

/** The different values of one field a problem names; the rest are counted. */
const MAX_VALUES_LISTED = 5;

function disagreements(group: RowGroup): Problem[] {
	const levels = group.rows.map((row) => row.level);
	if (group.rows.length < 2 || !levels.every((level) => level !== undefined)) return [];
	const itemIndexes = group.rows.map((row) => row.itemIndex);
	const problems: Problem[] = [];
	for (const field of SHARED_FIELDS) {
		const byValue = new Map<string, number[]>();
		levels.forEach((level, index) => {
			const key = JSON.stringify(field.pick(level));
			byValue.set(key, [...(byValue.get(key) ?? []), itemIndexes[index]]);
		});
		if (byValue.size > 1) {
			const variants = [...byValue].map(([value, items]) => `${value} in ${rowsText(items)}`);
			const shown = variants.slice(0, MAX_VALUES_LISTED);
			if (variants.length > shown.length)
				shown.push(`and ${variants.length - shown.length} more values`);
			problems.push({
				field: fieldLabel(field.parameter),
				text: `differs between the rows of one listing: ${shown.join('; ')}`,
				itemIndexes,
			});
		}
	}
	return problems;
}

/** The rows of one listing, level fields and products together, validated into a listing. */
function validateGroup(group: RowGroup, shape: InputShape): Listing {
	const rows = group.rows.map((row) => row.itemIndex);
	const base = { rows, label: group.label, externalListingId: group.externalListingId };
	const problems = group.rows.flatMap((row) => [
		...row.problems,
		...(row.products?.problems ?? []),
	]);
	const readable = group.rows.every((row) => row.products !== undefined);
	const sourcesRead = group.rows.every((row) => row.products?.problems.length === 0);
	let products: ListedProduct[] = [];
	if (group.related && readable) {
		problems.push(...disagreements(group));
		if (sourcesRead) {
			const checked = checkProducts(group, shape);
			products = checked.products;
			problems.push(...checked.problems);
		}
	}
	const level = group.rows[0].level;
	if (problems.length > 0 || !level || !readable) return { kind: 'invalid', ...base, problems };
	return { kind: 'ready', ...base, externalListingId: level.externalListingId, level, products };
}

/** A listing that is not sent after all, with why. */
function refused(listing: Listing, problems: Problem[]): InvalidListing {
	return {
		kind: 'invalid',
		rows: listing.rows,
		label: listing.label,
		externalListingId: listing.externalListingId,
		problems,
	};
}

/**
 * A ticket row whose External Listing ID could not be read may belong to any listing of the run: sent without it,
 * that listing could never get the row's seat added (its ID is remembered as sent). Rows of one listing agree on
 * the event, so a row whose Event ID is usable holds back the listings of that event; a row without one holds back
 * every listing. Each listing held back is invalid, naming the row; the row itself is invalid on its own.
 */
function holdBackForUnknownRows(listings: Listing[], rows: ListingRow[]): Listing[] {
	const unknown = rows.filter((row) => row.unknownListing !== undefined);
	if (unknown.length === 0) return listings;
	return listings.map((listing) => {
		if (listing.kind !== 'ready') return listing;
		const { eventId } = listing.level;
		const problems: Problem[] = [];
		for (const row of unknown) {
			const { error, eventId: rowEvent } = row.unknownListing ?? { error: '' };
			if (rowEvent !== undefined && rowEvent !== eventId) continue;
			problems.push({
				field: fieldLabel('externalListingId'),
				text:
					rowEvent !== undefined
						? `could not be read (${error}): the row may belong to any listing of event ${rowEvent}, and none is sent without it`
						: `could not be read (${error}), and the row has no usable Event ID either: it may belong to any listing of this run, and none is sent without it`,
				itemIndexes: [row.itemIndex],
			});
		}
		return problems.length === 0 ? listing : refused(listing, problems);
	});
}

/** "listing 7001 (rows 1–2)", also for a listing per item ("row 3" alone does not name its ID). */
function listingName(listing: Listing): string {
	return listing.label.startsWith('listing ') || listing.externalListingId === undefined
		? listing.label
		: `listing ${listing.externalListingId} (${listing.label})`;
}

/**
 * A seat in two listings of one run for one event could be sold twice: the later listing is invalid, naming the
 * earlier one. Seats compare as seatIdentity does; General Admission has none.
 */
function refuseSeatsListedBefore(listings: Listing[]): Listing[] {
	const firstListing = new Map<string, Listing>();
	return listings.map((listing) => {
		if (listing.kind !== 'ready') return listing;
		const { eventId } = listing.level;
		const problems: Problem[] = [];
		const seats: string[] = [];
		for (const { product, itemIndex, seatField } of listing.products) {
			const seat = seatIdentity(product);
			if (seat === undefined) continue;
			const key = `${eventId}\u0000${seat}`;
			const earlier = firstListing.get(key);
			if (earlier === undefined) {
				seats.push(key);
				continue;
			}
			problems.push({
				field: seatField,
				text: `row "${String(product.row)}" seat "${String(product.seat)}" is also in ${listingName(earlier)} of event ${eventId}: a seat can be sold only once`,
				itemIndexes: [itemIndex],
			});
		}
		if (problems.length > 0) return refused(listing, problems);
		for (const key of seats) firstListing.set(key, listing);
		return listing;
	});
}

/** Two items with one External Listing ID would create the listing twice (or be refused the second time). */
function refuseRepeatedIds(listings: Listing[]): Listing[] {
	const firstRowById = new Map<number, number>();
	return listings.map((listing) => {
		const id = listing.externalListingId;
		if (id === undefined) return listing;
		const first = firstRowById.get(id);
		if (first === undefined) {
			firstRowById.set(id, listing.rows[0]);
			return listing;
		}
		const problem: Problem = {
			field: fieldLabel('externalListingId'),
			text: `${id} is already used by ${rowsText([first])}; to combine rows into one listing, choose Input Shape → Each Item Is a Ticket`,
			itemIndexes: listing.rows,
		};
		return refused(
			listing,
			listing.kind === 'invalid' ? [...listing.problems, problem] : [problem],
		);
	});
}

/** Reads and validates every input item before anything is sent. Listings come out in input order. */
export function readListings(
	params: ParameterSource,
	itemCount: number,
	shape: InputShape,
	layout: ParameterLayout = V1_LAYOUT,
): ListingInput {
	const blankRows: number[] = [];
	const rows: ListingRow[] = [];
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		const row = readListingRow(params, itemIndex, shape, layout);
		if (row) rows.push(row);
		else blankRows.push(itemIndex);
	}
	if (shape === 'ticketPerItem') {
		const validated = groupTicketRows(rows).map((group) => validateGroup(group, shape));
		return {
			// A listing held back is not sent: its seats hold no other listing back.
			listings: refuseSeatsListedBefore(holdBackForUnknownRows(validated, rows)),
			blankRows,
		};
	}
	const groups = rows.map((row) => ({
		rows: [row],
		externalListingId: row.level?.externalListingId,
		label: rowsText([row.itemIndex]),
		related: true,
	}));
	const listings = refuseRepeatedIds(groups.map((group) => validateGroup(group, shape)));
	// A listing refused for its repeated ID is not sent: its seats hold no other listing back.
	return { listings: refuseSeatsListedBefore(listings), blankRows };
}
