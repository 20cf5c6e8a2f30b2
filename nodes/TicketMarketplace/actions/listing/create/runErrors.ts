/**
 * The errors of a run, each built once with its whole description: the validation error of a sheet that cannot be
 * sent, and the error of a stopped run (a failed listing's, or the memory's), which puts every listing in exactly
 * one group.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { errorText, listFirst, withMoreDescription } from '../../../helpers/errors';
import type { EarlierOutcome } from '../../../helpers/runMemory';
import {
	notCreatedStillRememberedLine,
	SentListingsStoreError,
} from '../../../helpers/memoryMessages';
import type { Effect } from '../../../transport';
import type { InvalidListing, Listing } from './listingInput';
import { isAlreadyListed } from './listingOutcome';
import type { FailedReport, ListingOutcome, ListingReport } from './listingOutcome';
import { blankRowsNotice, howMany, ids } from './listingResults';
import { CONTINUE_SETTING, mergeProblems, problemLine, ROWS_CONVENTION } from './problems';
import { missingColumns } from './parameterSource';
import type { ParameterSource } from './parameterSource';

/** Problems spelled out in the one validation error; the rest are counted. */
export const MAX_PROBLEMS_LISTED = 10;

export function validationError(
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

/** Said when the memory could not forget listings the API did not create: without this, they are skipped unseen. */
export function stillRememberedLine(listings: Listing[]): string | undefined {
	if (listings.length === 0) return undefined;
	return notCreatedStillRememberedLine(ids(listings));
}

/** Reasons of failure named in a stopped run's error; the listings of other reasons are put together. */
const MAX_REASONS_LISTED = 3;

/**
 * A group of failed listings with why: one reason on the group's line ("Not created: 1 listing (7): Login refused:
 * …"), several on a line each, a few reasons at most.
 */
function withReasons(heading: string, members: ListingReport[]): string[] {
	const byReason = new Map<string, Listing[]>();
	for (const { listing, outcome } of members) {
		const reason = outcome.kind === 'failed' ? errorText(outcome.error) : '';
		byReason.set(reason, [...(byReason.get(reason) ?? []), listing]);
	}
	const reasons = [...byReason];
	if (reasons.length === 1) {
		const [[reason, listings]] = reasons;
		return [`${heading}: ${howMany(listings)} (${listFirst(ids(listings))}): ${reason}.`];
	}
	const lines = reasons
		.slice(0, MAX_REASONS_LISTED)
		.map(([reason, listings]) => `  - ${reason}: ${listFirst(ids(listings))}`);
	const others = reasons.slice(MAX_REASONS_LISTED).flatMap(([, listings]) => listings);
	if (others.length) lines.push(`  - for other reasons: ${listFirst(ids(others))}`);
	return [`${heading}: ${howMany(members)}:`, ...lines];
}

/**
 * The error of a stopped run. Every listing appears in exactly one group, so that nobody re-sends one that may
 * exist; requests ran at once, so no group claims an order. Each group counts its listings and names the first.
 */
export function stopSummary(reports: ListingReport[], skipAlreadySent: boolean): string {
	const group = (test: (outcome: ListingOutcome) => boolean) =>
		reports.filter(({ outcome }) => test(outcome));
	const listed = (members: ListingReport[]) =>
		`${howMany(members)} (${listFirst(ids(members.map((report) => report.listing)))})`;
	const failed = (effect: Effect) => (outcome: ListingOutcome) =>
		outcome.kind === 'failed' && outcome.effect === effect;
	const skippedAs = (earlier: EarlierOutcome) => (outcome: ListingOutcome) =>
		outcome.kind === 'skipped' && outcome.earlier === earlier;
	const created = group((outcome) => outcome.kind === 'answered');
	const refused = group(failed('notCreated'));
	const unknown = group(failed('unknown'));
	const notSent = group((outcome) => outcome.kind === 'notSent');
	const skipped = group(skippedAs('created'));
	const skippedUnknown = group(skippedAs('unknown'));
	const alreadyListed = group(isAlreadyListed);
	const lines: string[] = [
		created.length
			? `Created in this run: ${listed(created)}.`
			: 'No listing was created in this run.',
	];
	if (refused.length) lines.push(...withReasons('Not created', refused));
	if (unknown.length) {
		lines.push(
			...withReasons('Outcome unknown, may have been created', unknown),
			'  Look these up on the marketplace by External Listing ID before sending them again.',
		);
	}
	if (notSent.length) lines.push(`Not sent, the run stopped first: ${listed(notSent)}.`);
	if (skipped.length) lines.push(`Skipped, already sent by this workflow: ${listed(skipped)}.`);
	if (skippedUnknown.length)
		lines.push(
			`Skipped, outcome unknown (sent by an earlier run, may have been created; look them up on the marketplace by External Listing ID): ${listed(skippedUnknown)}.`,
		);
	if (alreadyListed.length) {
		lines.push(
			`Already listed (the API holds a listing with this External Listing ID), not created again: ${listed(alreadyListed)}.`,
		);
	}
	if (skipAlreadySent) {
		lines.push(
			'Skip Listings Already Sent is on: once the cause is fixed, run the workflow again; it sends only the listings not created and not sent, and skips the others.',
		);
	}
	return lines.join('\n');
}

/** The memory could not be updated after sending: its error, with what became of every listing. */
export function memoryError(
	context: IExecuteFunctions,
	failure: { error: SentListingsStoreError; stillRemembered: Listing[] },
	reports: ListingReport[],
): SentListingsStoreError {
	const { error, stillRemembered } = failure;
	return new SentListingsStoreError(context.getNode(), error.message, {
		description: [
			error.description,
			stillRememberedLine(stillRemembered),
			stopSummary(reports, false),
		]
			.filter(Boolean)
			.join('\n'),
	});
}

/** The error of a run stopped by a failed listing: that listing's error, with what became of every listing. */
export function stopError(
	context: IExecuteFunctions,
	report: FailedReport,
	reports: ListingReport[],
	skipAlreadySent: boolean,
): NodeApiError | NodeOperationError {
	return withMoreDescription(
		context.getNode(),
		report.outcome.error,
		[stopSummary(reports, skipAlreadySent)],
		report.listing.rows[0],
	);
}
