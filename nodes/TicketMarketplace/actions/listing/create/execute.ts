/**
 * Listing → Create, start to end: read and validate every item (nothing is sent while any listing is invalid,
 * unless errors continue), skip what this workflow sent before, send the rest through the pacer, and report one
 * outcome per listing, in input order.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asNodeError, errorText, oneLine } from '../../../helpers/errors';
import { RunMemory } from '../../../helpers/runMemory';
import { nearCapNotice } from '../../../helpers/sentListings';
import { readRunCredential, redactSecrets, sendRequest } from '../../../transport';
import { showsListingCreated } from './createdEvidence';
import { credentialSecrets } from '../../../transport/failures';
import type { RunCredential } from '../../../transport';
import { RequestPacer } from '../../../transport/pacing';
import type { PacingMode } from '../../../transport/pacing';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './description';
import { ItemParameters } from './itemParameters';
import { readListings } from './listingInput';
import { listingRequest } from './listingRequest';
import { versionReading } from './versionReading';
import type { InputShape, InvalidListing, Listing, ReadyListing } from './listingInput';
import {
	blankRowItem,
	blankRowsNotice,
	earlierUnknownNotice,
	listingItem,
	rowItems,
	stillRememberedLine,
	stopSummary,
} from './listingResults';
import type { ListingOutcome, ListingReport } from './listingResults';
import { CONTINUE_SETTING, mergeProblems, problemLine, ROWS_CONVENTION } from './problems';
import { missingColumns, recognisedColumns } from './sheetColumns';
import type { ParameterSource } from './sheetColumns';

/** Problems spelled out in the one validation error; the rest are counted. */
export const MAX_PROBLEMS_LISTED = 10;

interface SendSettings {
	validateOnly: boolean;
	mode: PacingMode;
	maxConcurrency: number;
	skipAlreadySent: boolean;
	perRow: boolean;
}

function readSendSettings(options: IDataObject): SendSettings {
	const requested = Number(options.concurrency ?? DEFAULT_CONCURRENCY);
	return {
		validateOnly: options.validateOnly === true,
		mode: options.concurrencyMode === 'fixed' ? 'fixed' : 'adaptive',
		maxConcurrency: Number.isInteger(requested)
			? Math.min(Math.max(requested, 1), MAX_CONCURRENCY)
			: DEFAULT_CONCURRENCY,
		skipAlreadySent: options.skipAlreadySent !== false,
		perRow: options.output === 'row',
	};
}

/** Where each field's value comes from: the node's parameters, or the sheet's recognised headers. */
function parameterSource(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	shape: InputShape,
) {
	const params = new ItemParameters(context, items, versionReading(context).paths);
	const auto =
		shape === 'ticketPerItem' &&
		context.getNodeParameter('columnMapping', 0, 'manual') === 'auto' &&
		items.length > 0;
	return auto ? recognisedColumns(context, items, params) : params;
}

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

/** Sends every listing through one pacer; each listing's outcome is returned, in the order given. */
async function sendListings(
	context: IExecuteFunctions,
	listings: ReadyListing[],
	settings: SendSettings,
	credential: RunCredential,
	stopOnFailure: boolean,
): Promise<ListingOutcome[]> {
	const pacer = new RequestPacer(settings.mode, settings.maxConcurrency, stopOnFailure);
	// Stop during a pause (a per-second limit's Retry-After) ends the waiting at once: they come out not sent.
	const unsubscribe = pacer.closeOn(context.getExecutionCancelSignal?.());
	try {
		return await Promise.all(
			listings.map(async (listing): Promise<ListingOutcome> => {
				try {
					const result = await sendRequest.call(context, {
						request: listingRequest(listing),
						itemIndex: listing.rows[0],
						pacer,
						credential,
						confirmedBy: (answer) => showsListingCreated(answer, listing.externalListingId),
					});
					if (result.kind === 'answered') return { status: 'created', response: result.body };
					if (result.kind === 'notSent') return { status: 'notSent' };
					if (result.outcome === 'alreadyExists')
						return { status: 'alreadyListed', error: result.error };
					// Without Continue On Fail the pacer has stopped: requests in flight finish and are reported.
					return { status: 'failed', error: result.error, outcome: result.outcome };
				} catch (error) {
					// A failure in handling one listing must not escape: the other listings, the memory update and
					// the summary still need their turn. Where it happened is unknown, so the request may have gone.
					if (stopOnFailure) pacer.close();
					return {
						status: 'failed',
						error: unexpectedFailure(context, listing, error, credential),
						outcome: 'unknown',
					};
				}
			}),
		);
	} finally {
		unsubscribe();
	}
}

/** An exception from handling one listing, as that listing's error: in words, without a secret. */
function unexpectedFailure(
	context: IExecuteFunctions,
	listing: ReadyListing,
	error: unknown,
	credential: RunCredential,
): NodeOperationError {
	const said = redactSecrets(errorText(error), credentialSecrets(credential.decrypted.data));
	return new NodeOperationError(
		context.getNode(),
		`Outcome unknown: handling External Listing ID ${listing.externalListingId} failed unexpectedly`,
		{
			description: `n8n said: ${oneLine(said)}. The request may have reached the API: the listing may or may not have been created. Look it up on the marketplace by its External Listing ID before sending it again.`,
			itemIndex: listing.rows[0],
		},
	);
}

/**
 * After sending: a created or possibly created listing must stay remembered (another run's write may have erased
 * it), one of unknown outcome as such, and a listing the API provably did not create is forgotten, so a later run
 * sends it.
 */
async function updateMemory(
	memory: RunMemory,
	sent: ReadyListing[],
	outcomes: Map<Listing, ListingOutcome>,
) {
	const notCreated = sent.filter((listing) => provablyNotCreated(outcomes.get(listing)!));
	// Only what the API said it holds counts as known (created, or already listed: a 409 on its ID); any other
	// kept outcome stays "unknown" for later runs.
	const created = sent.filter((listing) =>
		['created', 'alreadyListed'].includes(outcomes.get(listing)!.status),
	);
	const unknown = sent.filter(
		(listing) => !notCreated.includes(listing) && !created.includes(listing),
	);
	const ids = (listings: ReadyListing[]) => listings.map((listing) => listing.externalListingId);
	const { error, notForgotten } = await memory.afterSending(
		ids(created),
		ids(unknown),
		ids(notCreated),
	);
	return (
		error && {
			error,
			stillRemembered: notCreated.filter((listing) =>
				notForgotten.includes(listing.externalListingId),
			),
		}
	);
}

function provablyNotCreated(outcome: ListingOutcome): boolean {
	return (
		outcome.status === 'notSent' || (outcome.status === 'failed' && outcome.outcome === 'refused')
	);
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const reading = versionReading(this);
	const shape = this.getNodeParameter('inputShape', 0, reading.defaultShape) as InputShape;
	const source = parameterSource(this, items, shape);
	const { listings, blankRows } = readListings(source, items.length, shape, reading.layout);
	const continueOnFail = this.continueOnFail();
	if (blankRows.length) {
		this.addExecutionHints({ message: blankRowsNotice(blankRows), location: 'outputPane' });
	}
	const ready = listings.filter((listing): listing is ReadyListing => listing.kind === 'ready');
	if (ready.length < listings.length && !continueOnFail) {
		throw validationError(this, items, source, listings, blankRows);
	}

	const settings = readSendSettings(this.getNodeParameter('options', 0, {}) as IDataObject);
	if (settings.validateOnly) {
		return listings.map((listing) =>
			listing.kind === 'invalid'
				? listingItem({ listing, outcome: { status: 'invalid' } })
				: {
						json: { validateOnly: true, ...listingRequest(listing) },
						pairedItem: listing.rows.map((item) => ({ item })),
					},
		);
	}

	const outcomes = new Map<Listing, ListingOutcome>();
	for (const listing of listings) {
		if (listing.kind === 'invalid') outcomes.set(listing, { status: 'invalid' });
	}
	let toSend = ready;
	// Read once for the run rather than once per request.
	const credential = ready.length > 0 ? await readRunCredential.call(this) : undefined;
	// One memory per marketplace account on one API.
	const memory =
		settings.skipAlreadySent && credential
			? new RunMemory(this, {
					baseUrl: credential.baseUrl,
					email: String(credential.decrypted.data?.email ?? ''),
				})
			: undefined;
	if (memory) {
		// Recorded before sending: a run that dies half-way must not leave a created listing unremembered.
		const { alreadySent, count } = await memory.recordBeforeSending(
			ready.map((listing) => listing.externalListingId),
		);
		const notice = nearCapNotice(count);
		if (notice)
			this.addExecutionHints({ message: notice, location: 'outputPane', type: 'warning' });
		toSend = ready.filter((listing) => !alreadySent.has(listing.externalListingId));
		for (const listing of ready) {
			const earlier = alreadySent.get(listing.externalListingId);
			if (earlier) outcomes.set(listing, { status: 'skipped', earlier });
		}
		const unknownBefore = ready.filter(
			(listing) => alreadySent.get(listing.externalListingId) === 'unknown',
		);
		if (unknownBefore.length)
			this.addExecutionHints({
				message: earlierUnknownNotice(unknownBefore),
				location: 'outputPane',
				type: 'warning',
			});
	}

	if (credential) {
		const sent = await sendListings(this, toSend, settings, credential, !continueOnFail);
		toSend.forEach((listing, index) => outcomes.set(listing, sent[index]));
	}
	const reports: ListingReport[] = listings.map((listing) => ({
		listing,
		outcome: outcomes.get(listing) ?? { status: 'notSent' },
	}));

	let memoryUpdated = true;
	if (memory && toSend.length === 0) await memory.release();
	if (memory && toSend.length > 0) {
		const failure = await updateMemory(memory, toSend, outcomes);
		if (failure) {
			memoryUpdated = false;
			const { error } = failure;
			// What was sent and created is said either way; with Continue the outputs still come out.
			error.description = [
				error.description,
				stillRememberedLine(failure.stillRemembered),
				stopSummary(reports, false),
			]
				.filter(Boolean)
				.join('\n');
			if (!continueOnFail) throw error;
			this.addExecutionHints({
				message: `${error.message}. ${error.description}`,
				location: 'outputPane',
				type: 'warning',
			});
		}
	}

	if (!continueOnFail) {
		const firstFailed = reports.find((report) => report.outcome.status === 'failed');
		if (firstFailed?.outcome.status === 'failed') {
			const nodeError = asNodeError(
				this.getNode(),
				firstFailed.outcome.error,
				firstFailed.listing.rows[0],
			);
			nodeError.description = [
				nodeError.description,
				stopSummary(reports, settings.skipAlreadySent && memoryUpdated),
			]
				.filter(Boolean)
				.join('\n');
			throw nodeError;
		}
	}

	const errorOutput = this.getNode().onError === 'continueErrorOutput';
	// Results come out in input order, whatever order the requests finished in.
	if (settings.perRow) {
		const byRow = new Array<INodeExecutionData>(items.length);
		for (const report of reports) {
			for (const [itemIndex, item] of rowItems(items, report, errorOutput)) byRow[itemIndex] = item;
		}
		for (const itemIndex of blankRows) byRow[itemIndex] = blankRowItem(items, itemIndex);
		return byRow;
	}
	return reports.map((report) => listingItem(report, errorOutput));
}
