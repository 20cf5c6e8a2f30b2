/**
 * The read stage of Listing → Create, from items to listings, with every check: read each row once
 * (listingRows.ts), group the rows of one listing (a listing per item is a group of one), and validate each group
 * in one step (validateListing.ts) into a Listing that is either ready to send, with its fields and products, or
 * invalid, with its problems; then what listings of one run must not share. Without Continue, an invalid listing
 * stops the run here, before anything is sent.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { seatIdentity } from '../../../schemas/listing';
import type { Product } from './fields';
import { fieldLabel } from './fieldLabels';
import { blankRowsNotice } from './output';
import { readListingRow } from './listingRows';
import type { ListingRow, RowGroup } from './listingRows';
import { missingColumns, parameterSource } from './parameterSource';
import type { ParameterSource } from './parameterSource';
import type { Problem } from './problems';
import {
	CONTINUE_SETTING,
	mergeProblems,
	problemLine,
	ROWS_CONVENTION,
	rowsText,
} from './problems';
import {
	NO_LIMITS,
	readListingLimits,
	readSendSettings,
	V1_LAYOUT,
	versionReading,
} from './settings';
import type { InputShape, ListingLimits, ParameterLayout, SendSettings } from './settings';
import { validateListing } from './validateListing';
import type { InvalidListing, Listing } from './validateListing';

export type { InvalidListing, Listing, ReadyListing } from './validateListing';

/** What the read stage hands on: every listing, the blank rows, and how to send. */
export interface ListingsRead {
	/** In input order (of each listing's first row). */
	listings: Listing[];
	/** Rows whose every field read from the row was empty: not a listing, skipped and counted. */
	blankRows: number[];
	settings: SendSettings;
}

/**
 * Reads and checks every item. Blank rows are counted in a notice; an invalid listing throws the one validation
 * error, unless errors continue.
 */
export function readListings(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
): ListingsRead {
	const reading = versionReading(context);
	const limits = readListingLimits(context);
	const shape = context.getNodeParameter('inputShape', 0, reading.defaultShape) as InputShape;
	const source = parameterSource(context, items, shape, reading);
	const { listings, blankRows } = listingsOf(source, items.length, shape, reading.layout, limits);
	if (blankRows.length)
		context.addExecutionHints({ message: blankRowsNotice(blankRows), location: 'outputPane' });
	if (listings.some((listing) => listing.kind === 'invalid') && !context.continueOnFail())
		throw validationError(context, items, source, listings, blankRows);
	return { listings, blankRows, settings: readSendSettings(context) };
}

/** Problems spelled out in the one validation error; the rest are counted. */
const MAX_PROBLEMS_LISTED = 10;

function validationError(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	source: ParameterSource,
	listings: Listing[],
	blankRows: number[],
): NodeOperationError {
	const invalid = listings.filter(
		(listing): listing is InvalidListing => listing.kind === 'invalid',
	);
	const columns = missingColumns(items, source, new Set(blankRows));
	const lines = mergeProblems(invalid.flatMap((listing) => listing.problems)).map(problemLine);
	// A sheet with one wrong column fails on every row: show enough to fix it, and count the rest.
	const shown = lines.slice(0, MAX_PROBLEMS_LISTED);
	if (lines.length > shown.length)
		shown.push(`… and ${lines.length - shown.length} more problems.`);
	const noun = listings.length === 1 ? 'listing' : 'listings';
	return new NodeOperationError(
		context.getNode(),
		`${invalid.length} of ${listings.length} ${noun} failed validation; nothing was sent`,
		{
			description: [
				...columns,
				...shown,
				"Fix these values in the sheet or the node's fields, then run the workflow again.",
				`To send the valid listings and get one error item per invalid one, set ${CONTINUE_SETTING}.`,
				ROWS_CONVENTION,
				...(blankRows.length ? [blankRowsNotice(blankRows)] : []),
			].join('\n'),
			itemIndex: invalid[0].rows[0],
		},
	);
}

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

/** A listing that is not sent after all, with why. */
export function refused(listing: Listing, problems: Problem[]): InvalidListing {
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
 * A ticket in two listings of one run for one event could be sold twice: the later listing is invalid, naming the
 * earlier one. A seated ticket is its seat (seats compare as seatIdentity does); a General Admission ticket has
 * none, and is its product External ID (compared as within one listing: as written, trimmed). The partner's ID
 * names a ticket of one event: the same ID under another event is another ticket, as the same seat there is.
 */
/** A ticket of one event, as compared across listings: its seat, or its External ID when it has none. */
export function ticketIdentity(eventId: unknown, product: Product): string {
	const seat = seatIdentity(product);
	return seat !== undefined
		? `${String(eventId)}\u0000seat\u0000${seat}`
		: `${String(eventId)}\u0000id\u0000${product.externalId}`;
}

function refuseTicketsListedBefore(listings: Listing[]): Listing[] {
	const firstListing = new Map<string, Listing>();
	return listings.map((listing) => {
		if (listing.kind !== 'ready') return listing;
		const { eventId } = listing.level;
		const problems: Problem[] = [];
		const tickets: string[] = [];
		for (const { product, itemIndex, seatField, externalIdField } of listing.products) {
			const seat = seatIdentity(product);
			const key = ticketIdentity(eventId, product);
			const earlier = firstListing.get(key);
			if (earlier === undefined) {
				tickets.push(key);
				continue;
			}
			problems.push(
				seat !== undefined
					? {
							field: seatField,
							text: `row "${String(product.row)}" seat "${String(product.seat)}" is also in ${listingName(earlier)} of event ${eventId}: a seat can be sold only once`,
							itemIndexes: [itemIndex],
						}
					: {
							field: externalIdField,
							text: `"${product.externalId}" (General Admission) is also in ${listingName(earlier)} of event ${eventId}: a ticket can be sold only once`,
							itemIndexes: [itemIndex],
						},
			);
		}
		if (problems.length > 0) return refused(listing, problems);
		for (const key of tickets) firstListing.set(key, listing);
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

/** Every input item read and validated into listings, in input order; nothing here sends or throws. */
export function listingsOf(
	params: ParameterSource,
	itemCount: number,
	shape: InputShape,
	layout: ParameterLayout = V1_LAYOUT,
	limits: ListingLimits = NO_LIMITS,
): Omit<ListingsRead, 'settings'> {
	const blankRows: number[] = [];
	const rows: ListingRow[] = [];
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		const row = readListingRow(params, itemIndex, shape, layout);
		if (row) rows.push(row);
		else blankRows.push(itemIndex);
	}
	if (shape === 'ticketPerItem') {
		const validated = groupTicketRows(rows).map((group) => validateListing(group, shape, limits));
		return {
			// A listing held back is not sent: its tickets hold no other listing back.
			listings: refuseTicketsListedBefore(holdBackForUnknownRows(validated, rows)),
			blankRows,
		};
	}
	const groups = rows.map((row) => ({
		rows: [row],
		label: rowsText([row.itemIndex]),
		related: true,
	}));
	const listings = refuseRepeatedIds(groups.map((group) => validateListing(group, shape, limits)));
	// A listing refused for its repeated ID is not sent: its tickets hold no other listing back.
	return { listings: refuseTicketsListedBefore(listings), blankRows };
}
