/**
 * The report stage of Listing → Create: what the run says once every listing has its outcome. The output items
 * (output.ts), or the error of a stopped run (a failed listing's, or the memory's), which puts every
 * listing in exactly one group.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { errorText, listFirst, withMoreDescription } from '../../../helpers/errors';
import type { EarlierOutcome } from '../memory/runMemory';
import { notCreatedStillRememberedLine, SentListingsStoreError } from '../memory/memoryMessages';
import type { Listing, ReadyListing } from './nouns';
import { howMany, ids, outputItems } from './output';
import { firstFailure } from './outcome';
import type { Outcome } from './outcome';
import type { SendSettings } from './settings';

/** The run's output, or the error of the first failed listing that stops it (without Continue). */
export function reportListings(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	outcomes: Map<Listing, Outcome>,
	read: { blankRows: number[]; settings: SendSettings },
): INodeExecutionData[] {
	const failed = context.continueOnFail() ? undefined : firstFailure(outcomes);
	if (failed) {
		const [listing, { error }] = failed;
		const summary = stopSummary(outcomes, read.settings.skipAlreadySent);
		throw withMoreDescription(context.getNode(), error, [summary], listing.rows[0]);
	}
	const errorOutput = context.getNode().onError === 'continueErrorOutput';
	return outputItems(items, outcomes, read.blankRows, read.settings.perRow, errorOutput);
}

/**
 * The memory could not be updated after sending: its error, with what became of every listing and the listings not
 * created that it still holds (without this, later runs skip them unseen). It stops the run; with Continue it is a
 * warning above the outputs, which still come out.
 */
export function reportMemoryFailure(
	context: IExecuteFunctions,
	failure: { error: SentListingsStoreError; stillRemembered: ReadyListing[] },
	outcomes: Map<Listing, Outcome>,
): void {
	const { error: said, stillRemembered } = failure;
	const error = new SentListingsStoreError(context.getNode(), said.message, {
		description: [
			said.description,
			stillRemembered.length > 0 && notCreatedStillRememberedLine(ids(stillRemembered)),
			stopSummary(outcomes, false),
		]
			.filter(Boolean)
			.join('\n'),
	});
	if (!context.continueOnFail()) throw error;
	const message = `${error.message}. ${error.description}`;
	context.addExecutionHints({ message, location: 'outputPane', type: 'warning' });
}

/** Reasons of failure named in a stopped run's error; the listings of other reasons are put together. */
const MAX_REASONS_LISTED = 3;

/**
 * A group of failed listings with why: one reason on the group's line ("Not created: 1 listing (7): Login refused:
 * …"), several on a line each, a few reasons at most.
 */
function withReasons(heading: string, members: Array<[Listing, Outcome]>): string[] {
	const byReason = new Map<string, Listing[]>();
	for (const [listing, outcome] of members) {
		const reason = 'error' in outcome ? errorText(outcome.error) : '';
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
export function stopSummary(outcomes: Map<Listing, Outcome>, skipAlreadySent: boolean): string {
	const group = (test: (outcome: Outcome) => boolean) =>
		[...outcomes].filter(([, outcome]) => test(outcome));
	const listed = (members: Array<[Listing, Outcome]>) =>
		`${howMany(members)} (${listFirst(ids(members.map(([listing]) => listing)))})`;
	const kind = (word: Outcome['kind']) => (outcome: Outcome) => outcome.kind === word;
	const skippedAs = (earlier: EarlierOutcome) => (outcome: Outcome) =>
		outcome.kind === 'skipped' && outcome.earlier === earlier;
	const created = group(kind('created'));
	const refused = group(kind('notCreated'));
	const unknown = group(kind('unknown'));
	const notSent = group(kind('notSent'));
	const skipped = group(skippedAs('created'));
	const skippedUnknown = group(skippedAs('unknown'));
	const alreadyListed = group(kind('alreadyListed'));
	const lines: string[] = [
		created.length
			? `Created in this run: ${listed(created)}.`
			: 'No listing was created in this run.',
	];
	if (refused.length) lines.push(...withReasons('Not created', refused));
	if (unknown.length)
		lines.push(
			...withReasons('Outcome unknown, may have been created', unknown),
			'  Look these up on the marketplace by External Listing ID before sending them again.',
		);
	if (notSent.length) lines.push(`Not sent, the run stopped first: ${listed(notSent)}.`);
	if (skipped.length) lines.push(`Skipped, already sent by this workflow: ${listed(skipped)}.`);
	if (skippedUnknown.length)
		lines.push(
			`Skipped, outcome unknown (sent by an earlier run, may have been created; look them up on the marketplace by External Listing ID): ${listed(skippedUnknown)}.`,
		);
	if (alreadyListed.length)
		lines.push(
			`Already listed (the API holds a listing with this External Listing ID), not created again: ${listed(alreadyListed)}.`,
		);
	if (skipAlreadySent)
		lines.push(
			'Skip Listings Already Sent is on: once the cause is fixed, run the workflow again; it sends only the listings not created and not sent, and skips the others.',
		);
	return lines.join('\n');
}
