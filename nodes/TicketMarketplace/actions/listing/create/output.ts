/** What Listing → Create says of each listing: output items (per listing, per row, or Validate Only's requests). */
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { errorText } from '../../../helpers/errors';
import { listingRequest, mergeProblems, problemLine, ROWS_CONVENTION, rowsText } from './fields';
import type { Failure, InvalidListing, Listing, Outcome } from './nouns';

/** The status an output item shows: "failed" if not created in this run, "unknown" if it may have been. */
function listingStatusOf(outcome: Outcome): string {
	if (outcome.kind === 'skipped') return outcome.earlier === 'unknown' ? 'unknown' : 'skipped';
	return outcome.kind === 'notCreated' || outcome.kind === 'notSent' ? 'failed' : outcome.kind;
}

/** The API's answer goes out as returned; an answer that is not a JSON object is wrapped, as n8n items need one. */
function toOutputJson(response: unknown): IDataObject {
	if (response && typeof response === 'object' && !Array.isArray(response))
		return response as IDataObject;
	return { response: (response ?? null) as IDataObject['response'] };
}

export const howMany = (listings: unknown[]): string =>
	`${listings.length} listing${listings.length === 1 ? '' : 's'}`;

export const ids = (listings: Listing[]): Array<string | number> =>
	listings.map((listing) => listing.externalListingId ?? listing.label);

/** A failed request's error, as an output item says it (Pre-deliver's says what may have been delivered). */
export function failureJson(outcome: Failure, mayHave = 'mayHaveBeenCreated'): IDataObject {
	const failure = outcome.error as { description?: string | null; httpCode?: string | null };
	return {
		error: errorText(outcome.error),
		description: failure?.description ?? null,
		httpCode: failure?.httpCode ?? null,
		// The service's own code, beside its words: support and the service's docs go by it.
		...(outcome.apiCode !== undefined && { apiCode: outcome.apiCode }),
		[mayHave]: outcome.kind === 'unknown',
	};
}

/** What an output item says about one listing (the per-listing and the per-row outputs share it). */
function describeOutcome(listing: Listing, outcome: Outcome): IDataObject {
	switch (outcome.kind) {
		case 'created':
			return {};
		// Never "turn off Skip Listings Already Sent": that would send again every listing earlier runs created.
		case 'skipped':
			return outcome.earlier === 'unknown'
				? {
						message: `Not sent, outcome unknown: External Listing ID ${listing.externalListingId} was sent by an earlier run that got no answer saying whether the API created it, so it may have been created. Look it up on the marketplace by its External Listing ID; if it is not there, forget it with Listing → Clear Sent Listings History and run the workflow again.`,
						mayHaveBeenCreated: true,
					}
				: {
						message: `Not sent: External Listing ID ${listing.externalListingId} was already sent by this workflow. To send it again, forget it first with Listing → Clear Sent Listings History.`,
					};
		case 'unknown':
		case 'notCreated':
			return failureJson(outcome);
		case 'alreadyListed': {
			const { description, httpCode, apiCode } = failureJson(outcome);
			const message = [
				`Already listed: the API holds a listing with External Listing ID ${listing.externalListingId}, so it was not created again (with Skip Listings Already Sent on, it stays remembered and later runs skip it).`,
				description,
				"If the API's words say something else, look it up on the marketplace by its External Listing ID.",
			];
			return {
				message: message.filter(Boolean).join(' '),
				httpCode,
				...(apiCode !== undefined && { apiCode }),
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

/** What the error output says of a listing; created, skipped and already listed ones (the API has them) stay off. */
const ERROR_OUTPUT_WHAT: Partial<Record<Outcome['kind'], string>> = {
	unknown: 'outcome unknown, it may have been created.',
	notCreated: 'not created.',
	notSent: 'not sent: the run stopped first; the next run sends it.',
	invalid: 'not sent: it failed validation.',
};

/** n8n's error output takes only `{ error }` or `{ error, message }` (it adds the row's fields): words say all. */
function errorOutputJson(listing: Listing, outcome: Outcome): IDataObject | undefined {
	const said = describeOutcome(listing, outcome);
	if (outcome.kind === 'skipped' && outcome.earlier === 'unknown')
		return { error: 'Not sent: outcome unknown (an earlier run sent it)', message: said.message };
	const what = ERROR_OUTPUT_WHAT[outcome.kind];
	if (what === undefined) return undefined;
	const id =
		listing.externalListingId === undefined
			? listing.label
			: `External Listing ID ${listing.externalListingId}`;
	const details = [said.description, ...((said.problems ?? []) as string[])].filter(Boolean);
	return { error: String(said.error), message: [`${id}: ${what}`, ...details].join('\n') };
}

export function listingItem(
	listing: Listing,
	outcome: Outcome,
	errorOutput = false,
): INodeExecutionData {
	const pairedItem = listing.rows.map((item) => ({ item }));
	if (outcome.kind === 'created') return { json: toOutputJson(outcome.body), pairedItem };
	const json: IDataObject =
		outcome.kind === 'skipped' || outcome.kind === 'alreadyListed'
			? {
					status: listingStatusOf(outcome),
					externalListingId: listing.externalListingId ?? null,
					...describeOutcome(listing, outcome),
				}
			: { ...describeOutcome(listing, outcome), itemIndexes: listing.rows };
	return { json: (errorOutput && errorOutputJson(listing, outcome)) || json, pairedItem };
}

/** What a blank row says in the per-row output: it is never a listing. */
const BLANK_ROW: IDataObject = {
	externalListingId: null,
	listingStatus: 'blank',
	listingMessage:
		'Blank row: every field read from it was empty, so it is not a listing. If it should be one, check that its columns are mapped.',
};

export function blankRowsNotice(blankItemIndexes: number[]): string {
	const count = blankItemIndexes.length;
	return `Skipped ${count} blank row${count === 1 ? '' : 's'} (${rowsText(blankItemIndexes)}): every field read from ${count === 1 ? 'it was' : 'them was'} empty. If a row should be a listing, check that its columns are mapped. ${ROWS_CONVENTION}`;
}

/** Validate Only: each valid listing's request as it would be sent; an invalid one as its error. */
export function validateOnlyItem(listing: Listing): INodeExecutionData {
	if (listing.kind === 'invalid') return listingItem(listing, { kind: 'invalid' });
	return {
		json: { validateOnly: true, ...listingRequest(listing) },
		pairedItem: listing.rows.map((item) => ({ item })),
	};
}

/** The run's output, in input order whatever order the requests finished in: per listing, or per input row (the
 * row's own fields, then what became of its listing, paired with that row). */
export function outputItems(
	items: INodeExecutionData[],
	outcomes: Map<Listing, Outcome>,
	blankRows: number[],
	perRow: boolean,
	errorOutput: boolean,
): INodeExecutionData[] {
	const done = [...outcomes];
	if (!perRow) return done.map(([listing, outcome]) => listingItem(listing, outcome, errorOutput));
	const byRow = new Array<INodeExecutionData>(items.length);
	const put = (item: number, json: IDataObject) => {
		byRow[item] = { json, pairedItem: { item } };
	};
	for (const item of blankRows) put(item, { ...items[item].json, ...BLANK_ROW });
	for (const [listing, outcome] of done) {
		const forErrorOutput = errorOutput ? errorOutputJson(listing, outcome) : undefined;
		const said: IDataObject = {
			externalListingId: listing.externalListingId ?? null,
			listingStatus: listingStatusOf(outcome),
			...(outcome.kind === 'created'
				? { listingResponse: toOutputJson(outcome.body) }
				: { listingError: describeOutcome(listing, outcome) }),
		};
		for (const item of listing.rows) put(item, forErrorOutput ?? { ...items[item].json, ...said });
	}
	return byRow;
}

/** What n8n 2.x calls the setting that turns a node's errors into error items. */
const CONTINUE_SETTING = 'Settings → On Error → Continue (using error output)';

/** Without Continue On Fail, a run with an invalid listing sends nothing: the one error that lists the problems. */
export function validationError(
	context: IExecuteFunctions,
	listings: Listing[],
	missing = (): string[] => [],
	blankRows: number[] = [],
): NodeOperationError | undefined {
	const invalid = listings.filter(
		(listing): listing is InvalidListing => listing.kind === 'invalid',
	);
	if (invalid.length === 0 || context.continueOnFail()) return undefined;
	const columns = missing();
	const lines = mergeProblems(invalid.flatMap((listing) => listing.problems)).map(problemLine);
	// A sheet with one wrong column fails on every row: ten lines say enough to fix it, the rest are counted.
	const shown = lines.slice(0, 10);
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
