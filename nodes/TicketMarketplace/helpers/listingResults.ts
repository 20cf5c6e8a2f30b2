/**
 * What Listing → Create says about each listing once the run is over: the output items (one per listing, or one
 * per input row) and the error of a stopped run, which puts every listing in exactly one group.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { FailureOutcome } from '../transport';
import type { ListingUnit } from './listingInput';
import { toOutputJson } from './output';
import { mergeProblems, problemLine, ROWS_CONVENTION, rowsText } from './problems';

export type ListingResult =
	| { status: 'created'; response: unknown }
	| { status: 'skipped' }
	| { status: 'failed'; error: unknown; outcome: FailureOutcome }
	| { status: 'notSent' }
	| { status: 'invalid' };

function skippedMessage(unit: ListingUnit): string {
	return `Not sent: External Listing ID ${unit.externalListingId} was already sent by this workflow. To send it again, forget it first (Listing → Forget Sent Listings) or turn off the option Skip Listings Already Sent.`;
}

function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/** What an output item says about one listing (the per-listing and the per-row outputs share it). */
export function describeResult(unit: ListingUnit, result: ListingResult): IDataObject {
	switch (result.status) {
		case 'created':
			return {};
		case 'skipped':
			return { message: skippedMessage(unit) };
		case 'failed': {
			const failure = result.error as { description?: string | null; httpCode?: string | null };
			return {
				error: errorText(result.error),
				description: failure?.description ?? null,
				httpCode: failure?.httpCode ?? null,
				mayHaveBeenCreated: result.outcome === 'unknown',
			};
		}
		case 'notSent':
			return { error: 'Not sent: the run stopped before this listing was sent' };
		case 'invalid':
			return {
				error: `${unit.label[0].toUpperCase()}${unit.label.slice(1)} failed validation`,
				problems: mergeProblems(unit.problems).map(problemLine),
			};
	}
}

export function listingItem(unit: ListingUnit, result: ListingResult): INodeExecutionData {
	const pairedItem = unit.itemIndexes.map((item) => ({ item }));
	if (result.status === 'created') return { json: toOutputJson(result.response), pairedItem };
	const json: IDataObject =
		result.status === 'skipped'
			? {
					status: 'skipped',
					externalListingId: unit.externalListingId ?? null,
					...describeResult(unit, result),
				}
			: { ...describeResult(unit, result), itemIndexes: unit.itemIndexes };
	return { json, pairedItem };
}

/** One item per input row: the row's own fields, then what became of its listing, paired with that row. */
export function rowItems(
	items: INodeExecutionData[],
	unit: ListingUnit,
	result: ListingResult,
): Array<[number, INodeExecutionData]> {
	const status = result.status === 'notSent' ? 'failed' : result.status;
	const outcome: IDataObject =
		result.status === 'created'
			? { listingResponse: toOutputJson(result.response) }
			: { listingError: describeResult(unit, result) };
	return unit.itemIndexes.map((itemIndex) => [
		itemIndex,
		{
			json: {
				...items[itemIndex].json,
				externalListingId: unit.externalListingId ?? null,
				listingStatus: status,
				...outcome,
			},
			pairedItem: { item: itemIndex },
		},
	]);
}

function listingNames(units: ListingUnit[]): string {
	// Grouped listings are labelled by their id already ("listing 7001 (rows 1, 2)").
	return units
		.map((unit) =>
			unit.externalListingId === undefined || unit.label.startsWith('listing ')
				? unit.label
				: `${unit.externalListingId} (${unit.label})`,
		)
		.join(', ');
}

/**
 * The error of a stopped run. Every listing appears in exactly one group, so that nobody re-sends one that may
 * exist; requests ran at once, so no group claims an order.
 */
export function stopSummary(
	units: ListingUnit[],
	results: Map<ListingUnit, ListingResult>,
	skipAlreadySent: boolean,
): string {
	const group = (status: ListingResult['status'], outcome?: FailureOutcome) =>
		units.filter((unit) => {
			const result = results.get(unit);
			return (
				result?.status === status &&
				(outcome === undefined || (result.status === 'failed' && result.outcome === outcome))
			);
		});
	const failureLines = (members: ListingUnit[]) =>
		members.map((unit) => {
			const result = results.get(unit) as { error: unknown };
			return `  - ${listingNames([unit])}: ${errorText(result.error)}`;
		});
	const created = group('created');
	const refused = group('failed', 'refused');
	const unknown = group('failed', 'unknown');
	const notSent = group('notSent');
	const skipped = group('skipped');
	const lines: string[] = [ROWS_CONVENTION];
	lines.push(
		created.length
			? `Created in this run: ${listingNames(created)}. Do not send these again.`
			: 'No listing was created in this run.',
	);
	if (refused.length) lines.push('Refused by the API, not created:', ...failureLines(refused));
	if (unknown.length) {
		lines.push(
			'Outcome unknown, may have been created (the request may have reached the API; check before sending again):',
			...failureLines(unknown),
		);
	}
	if (notSent.length) lines.push(`Not sent, the run stopped first: ${listingNames(notSent)}.`);
	if (skipped.length)
		lines.push(`Skipped, already sent by this workflow: ${listingNames(skipped)}.`);
	if (skipAlreadySent) {
		lines.push(
			'Skip Listings Already Sent is on: running the workflow again sends only the refused and the unsent listings; created and unknown ones are skipped.',
		);
	}
	return lines.join('\n');
}

/** A blank row in the per-row output: paired with itself, never a listing. */
export function blankRowItem(items: INodeExecutionData[], itemIndex: number): INodeExecutionData {
	return {
		json: {
			...items[itemIndex].json,
			externalListingId: null,
			listingStatus: 'blank',
			listingMessage: 'Blank row: every field read from it was empty, so it is not a listing',
		},
		pairedItem: { item: itemIndex },
	};
}

export function blankRowsNotice(blankItemIndexes: number[]): string {
	const count = blankItemIndexes.length;
	return `Skipped ${count} blank row${count === 1 ? '' : 's'} (${rowsText(blankItemIndexes)}): every field read from ${count === 1 ? 'it was' : 'them was'} empty. ${ROWS_CONVENTION}`;
}
