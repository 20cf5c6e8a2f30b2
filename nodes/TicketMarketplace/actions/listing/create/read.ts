/**
 * The read stage of Listing → Create, from items to listings, with every check: read each row once
 * (listingRows.ts), group the rows of one listing (a listing per item is a group of one), validate each group
 * (checkListing.ts) into a listing ready to send or invalid with its problems, then what listings of one run must
 * not share (acrossListings.ts). Without Continue, an invalid listing stops the run here, before anything is sent.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readsAsV1 } from '../../versions';
import {
	holdBackForUnknownRows,
	refuseRepeatedIds,
	refuseTicketsListedBefore,
} from './acrossListings';
import { validateListing } from './checkListing';
import { optionPaths } from './fields';
import { readListingRow } from './listingRows';
import type { InvalidListing, Listing, ListingRow } from './nouns';
import { blankRowsNotice } from './output';
import { missingColumns, parameterSource } from './parameterSource';
import type { ParameterSource } from './parameterSource';
import {
	CONTINUE_SETTING,
	mergeProblems,
	problemLine,
	ROWS_CONVENTION,
	rowsText,
} from './problems';
import { NO_LIMITS, readListingLimits, readSendSettings } from './settings';
import type { InputShape, ListingLimits, SendSettings } from './settings';

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
	const v1 = readsAsV1(context);
	const limits = readListingLimits(context);
	const defaultShape = v1 ? 'listingPerItem' : 'ticketPerItem';
	const shape = context.getNodeParameter('inputShape', 0, defaultShape) as InputShape;
	const source = parameterSource(context, items, shape, optionPaths(v1));
	// From 1.1 one Product Type (under Options) applies to every ticket that does not set its own (a JSON product
	// may); version 1 has a Product Type per ticket and per seat range.
	const { listings, blankRows } = listingsOf(source, items.length, shape, !v1, limits);
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

/**
 * Ticket rows that share an External Listing ID are one listing, named by it; an unusable id's own text groups
 * its rows.
 */
function ticketListings(rows: ListingRow[], limits: ListingLimits): Listing[] {
	const groups = new Map<string, ListingRow[]>();
	for (const row of rows) {
		const { id, text } = row.listingId;
		const key = id !== undefined ? `#${id}` : `?${text}`;
		const group = groups.get(key);
		if (group) group.push(row);
		else groups.set(key, [row]);
	}
	return [...groups.values()].map((members) => {
		const { id, text } = members[0].listingId;
		const where = rowsText(members.map((row) => row.itemIndex));
		const label =
			id !== undefined
				? `listing ${id} (${where})`
				: text
					? `listing "${text}" (${where})`
					: `no External Listing ID (${where})`;
		return validateListing(members, label, 'ticketPerItem', limits);
	});
}

/** Every input item read and validated into listings, in input order; nothing here sends or throws. */
export function listingsOf(
	params: ParameterSource,
	itemCount: number,
	shape: InputShape,
	sharedProductType = false,
	limits: ListingLimits = NO_LIMITS,
): Omit<ListingsRead, 'settings'> {
	const blankRows: number[] = [];
	const rows: ListingRow[] = [];
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		const row = readListingRow(params, itemIndex, shape, sharedProductType);
		if (row) rows.push(row);
		else blankRows.push(itemIndex);
	}
	if (shape === 'ticketPerItem') {
		const validated = ticketListings(rows, limits);
		return {
			// A listing held back is not sent: its tickets hold no other listing back.
			listings: refuseTicketsListedBefore(holdBackForUnknownRows(validated, rows)),
			blankRows,
		};
	}
	const listings = refuseRepeatedIds(
		rows.map((row) => validateListing([row], rowsText([row.itemIndex]), shape, limits)),
	);
	// A listing refused for its repeated ID is not sent: its tickets hold no other listing back.
	return { listings: refuseTicketsListedBefore(listings), blankRows };
}
