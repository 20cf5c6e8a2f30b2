/**
 * What Listing → Create says about each listing once the run is over: the output items (one per listing, or one
 * per input row) and the error of a stopped run, which puts every listing in exactly one group.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { errorText, listFirst } from '../../../helpers/errors';
import { notCreatedStillRememberedLine } from '../../../helpers/memoryMessages';
import type { FailureOutcome } from '../../../transport';
import type { Listing } from './listingInput';
import { mergeProblems, problemLine, ROWS_CONVENTION, rowsText } from './problems';

/** What became of one listing. An invalid listing's problems are on the listing itself. */
export type ListingOutcome =
	| { status: 'created'; response: unknown }
	/** Not sent: this workflow sent it before; `earlier` is what the memory knows of that outcome. */
	| { status: 'skipped'; earlier: 'created' | 'unknown' }
	/** The API answered 409 (conflict): it holds a listing with this External Listing ID already. */
	| { status: 'alreadyListed'; error: Error }
	| { status: 'failed'; error: Error; outcome: FailureOutcome }
	| { status: 'notSent' }
	| { status: 'invalid' };

/** A listing with what became of it: the unit every output and summary is made of. */
export interface ListingReport {
	listing: Listing;
	outcome: ListingOutcome;
}

/** The API's answer goes out as returned; an answer that is not a JSON object is wrapped, as n8n items need one. */
export function toOutputJson(response: unknown): IDataObject {
	if (response && typeof response === 'object' && !Array.isArray(response))
		return response as IDataObject;
	return { response: (response ?? null) as IDataObject['response'] };
}

/** Never "turn off Skip Listings Already Sent": that would send again every listing earlier runs created. */
const SEND_AGAIN = 'To send it again, forget it first with Listing → Clear Sent Listings History.';

/** How a listing of unknown outcome is checked, with what the node offers. */
const LOOK_IT_UP = 'Look it up on the marketplace by its External Listing ID';

function skippedMessage(listing: Listing, earlier: 'created' | 'unknown'): string {
	return earlier === 'unknown'
		? `Not sent, outcome unknown: External Listing ID ${listing.externalListingId} was sent by an earlier run that got no answer saying whether the API created it, so it may have been created. ${LOOK_IT_UP}; if it is not there, forget it with Listing → Clear Sent Listings History and run the workflow again.`
		: `Not sent: External Listing ID ${listing.externalListingId} was already sent by this workflow. ${SEND_AGAIN}`;
}

/** The status an output item shows for a skipped listing: what the memory knows of the earlier request. */
function skippedStatus(earlier: 'created' | 'unknown'): string {
	return earlier === 'unknown' ? 'unknown' : 'skipped';
}

/** Said in the output pane when listings were skipped whose earlier outcome is unknown (a green run hides it). */
export function earlierUnknownNotice(listings: Listing[]): string {
	return `Skipped, outcome unknown: ${howMany(listings)} sent by an earlier run that got no answer saying whether the API created them (${listFirst(ids(listings))}). Look them up on the marketplace by External Listing ID; forget those that are not there with Listing → Clear Sent Listings History, then run the workflow again.`;
}

/** What an output item says about one listing (the per-listing and the per-row outputs share it). */
export function describeOutcome({ listing, outcome }: ListingReport): IDataObject {
	switch (outcome.status) {
		case 'created':
			return {};
		case 'skipped':
			return {
				message: skippedMessage(listing, outcome.earlier),
				...(outcome.earlier === 'unknown' && { mayHaveBeenCreated: true }),
			};
		case 'alreadyListed': {
			const said = (outcome.error as { description?: string | null }).description;
			return {
				message: [
					`Already listed: the API holds a listing with External Listing ID ${listing.externalListingId}, so it was not created again (with Skip Listings Already Sent on, it stays remembered and later runs skip it).`,
					said,
					`If the API's words say something else, ${LOOK_IT_UP.charAt(0).toLowerCase()}${LOOK_IT_UP.slice(1)}.`,
				]
					.filter(Boolean)
					.join(' '),
				httpCode: '409',
			};
		}
		case 'failed': {
			const failure = outcome.error as { description?: string | null; httpCode?: string | null };
			return {
				error: errorText(outcome.error),
				description: failure?.description ?? null,
				httpCode: failure?.httpCode ?? null,
				mayHaveBeenCreated: outcome.outcome === 'unknown',
			};
		}
		case 'notSent':
			return {
				error: 'Not sent: the run stopped before this listing was sent',
				description:
					'Another listing stopped the run, or it was stopped, before this listing was sent. Nothing was sent for it: run the workflow again to send it, once the cause is fixed.',
			};
		case 'invalid':
			return {
				error: `${listing.label[0].toUpperCase()}${listing.label.slice(1)} failed validation`,
				description:
					"Fix these values in the sheet or the node's fields, then run the workflow again.",
				problems:
					listing.kind === 'invalid' ? mergeProblems(listing.problems).map(problemLine) : [],
			};
	}
}

/**
 * For n8n's error output (On Error → Continue (using error output)), which routes an item there only when its json
 * is exactly `{ error }` or `{ error, message }` (n8n-core replaces the json of an item that carries an `error`
 * object with its message alone, so the words must say everything): failed, invalid and unsent listings become
 * such items, and n8n adds the input row's fields beneath them. Created, skipped and already listed listings stay
 * as they are: the API holds each of them.
 */
export function errorOutputJson(report: ListingReport): IDataObject | undefined {
	const { listing, outcome } = report;
	if (outcome.status === 'created' || outcome.status === 'alreadyListed') return undefined;
	if (outcome.status === 'skipped') {
		if (outcome.earlier === 'created') return undefined;
		return {
			error: `Not sent: outcome unknown (an earlier run sent it)`,
			message: String(describeOutcome(report).message),
		};
	}
	const said = describeOutcome(report);
	const id =
		listing.externalListingId === undefined
			? listing.label
			: `External Listing ID ${listing.externalListingId}`;
	const what = {
		failed:
			outcome.status === 'failed' && outcome.outcome === 'unknown'
				? 'outcome unknown, it may have been created.'
				: 'not created.',
		notSent: 'not sent: the run stopped first; the next run sends it.',
		invalid: 'not sent: it failed validation.',
	}[outcome.status];
	const details = [
		said.description,
		...(Array.isArray(said.problems) ? (said.problems as string[]) : []),
	].filter((line): line is string => typeof line === 'string' && line !== '');
	return { error: String(said.error), message: [`${id}: ${what}`, ...details].join('\n') };
}

export function listingItem(report: ListingReport, errorOutput = false): INodeExecutionData {
	const { listing, outcome } = report;
	const pairedItem = listing.rows.map((item) => ({ item }));
	if (outcome.status === 'created') return { json: toOutputJson(outcome.response), pairedItem };
	const json: IDataObject =
		outcome.status === 'skipped' || outcome.status === 'alreadyListed'
			? {
					status: outcome.status === 'skipped' ? skippedStatus(outcome.earlier) : outcome.status,
					externalListingId: listing.externalListingId ?? null,
					...describeOutcome(report),
				}
			: { ...describeOutcome(report), itemIndexes: listing.rows };
	return { json: (errorOutput && errorOutputJson(report)) || json, pairedItem };
}

/** One item per input row: the row's own fields, then what became of its listing, paired with that row. */
export function rowItems(
	items: INodeExecutionData[],
	report: ListingReport,
	errorOutput = false,
): Array<[number, INodeExecutionData]> {
	const forErrorOutput = errorOutput ? errorOutputJson(report) : undefined;
	const { listing, outcome } = report;
	const status =
		outcome.status === 'notSent'
			? 'failed'
			: outcome.status === 'skipped'
				? skippedStatus(outcome.earlier)
				: outcome.status;
	const result: IDataObject =
		outcome.status === 'created'
			? { listingResponse: toOutputJson(outcome.response) }
			: { listingError: describeOutcome(report) };
	return listing.rows.map((itemIndex) => [
		itemIndex,
		{
			json: forErrorOutput ?? {
				...items[itemIndex].json,
				externalListingId: listing.externalListingId ?? null,
				listingStatus: status,
				...result,
			},
			pairedItem: { item: itemIndex },
		},
	]);
}

/** "1 listing", "400 listings". */
function howMany(listings: unknown[]): string {
	return `${listings.length} listing${listings.length === 1 ? '' : 's'}`;
}

/** The External Listing IDs (or, for a listing without one, its label). */
function ids(listings: Listing[]): Array<string | number> {
	return listings.map((listing) => listing.externalListingId ?? listing.label);
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
		const reason = outcome.status === 'failed' ? errorText(outcome.error) : '';
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
	const group = (status: ListingOutcome['status'], failure?: FailureOutcome) =>
		reports.filter(
			({ outcome }) =>
				outcome.status === status &&
				(failure === undefined || (outcome.status === 'failed' && outcome.outcome === failure)),
		);
	const listed = (members: ListingReport[]) =>
		`${howMany(members)} (${listFirst(ids(members.map((report) => report.listing)))})`;
	const created = group('created');
	const refused = group('failed', 'refused');
	const unknown = group('failed', 'unknown');
	const notSent = group('notSent');
	const skipped = group('skipped').filter(
		({ outcome }) => outcome.status === 'skipped' && outcome.earlier === 'created',
	);
	const skippedUnknown = group('skipped').filter(
		({ outcome }) => outcome.status === 'skipped' && outcome.earlier === 'unknown',
	);
	const alreadyListed = group('alreadyListed');
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

/** A blank row in the per-row output: paired with itself, never a listing. */
export function blankRowItem(items: INodeExecutionData[], itemIndex: number): INodeExecutionData {
	return {
		json: {
			...items[itemIndex].json,
			externalListingId: null,
			listingStatus: 'blank',
			listingMessage:
				'Blank row: every field read from it was empty, so it is not a listing. If it should be one, check that its columns are mapped.',
		},
		pairedItem: { item: itemIndex },
	};
}

export function blankRowsNotice(blankItemIndexes: number[]): string {
	const count = blankItemIndexes.length;
	return `Skipped ${count} blank row${count === 1 ? '' : 's'} (${rowsText(blankItemIndexes)}): every field read from ${count === 1 ? 'it was' : 'them was'} empty. If a row should be a listing, check that its columns are mapped. ${ROWS_CONVENTION}`;
}
