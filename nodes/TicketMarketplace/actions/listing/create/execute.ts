/**
 * Listing → Create, start to end: read and validate every item (nothing is sent while any listing is invalid,
 * unless errors continue), skip what this workflow sent before, send the rest through the pacer, and report one
 * outcome per listing, in input order.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { EarlierOutcome } from '../../../helpers/runMemory';
import { readRunCredential } from '../../../transport';
import { readListings } from './listingInput';
import type { ReadyListing } from './listingInput';
import type { InputShape } from './settings';
import { firstFailure, reportsOf } from './listingOutcome';
import type { SentOutcome } from './listingOutcome';
import { blankRowsNotice, outputItems, validateOnlyItem } from './listingResults';
import { memoryError, stopError, validationError } from './runErrors';
import { parameterSource } from './parameterSource';
import { readSendSettings, versionReading } from './settings';
import { sendListings } from './sendListings';
import { openMemory, recordBeforeSending, rememberOutcomes } from './sentMemory';

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	// 1. Read and validate every item.
	const reading = versionReading(this);
	const shape = this.getNodeParameter('inputShape', 0, reading.defaultShape) as InputShape;
	const source = parameterSource(this, items, shape, reading);
	const { listings, blankRows } = readListings(source, items.length, shape, reading.layout);
	const continueOnFail = this.continueOnFail();
	if (blankRows.length)
		this.addExecutionHints({ message: blankRowsNotice(blankRows), location: 'outputPane' });
	const ready = listings.filter((listing): listing is ReadyListing => listing.kind === 'ready');
	if (ready.length < listings.length && !continueOnFail)
		throw validationError(this, items, source, listings, blankRows);
	const settings = readSendSettings(this);
	if (settings.validateOnly) return listings.map(validateOnlyItem);

	// 2. Skip what this workflow sent before; send the rest.
	const credential = ready.length > 0 ? await readRunCredential.call(this) : undefined;
	const memory = settings.skipAlreadySent && credential ? openMemory(this, credential) : undefined;
	const alreadySent = memory
		? await recordBeforeSending(this, memory, ready)
		: new Map<number, EarlierOutcome>();
	const toSend = ready.filter((listing) => !alreadySent.has(listing.externalListingId));
	const sent = credential
		? await sendListings(this, toSend, settings, credential, !continueOnFail)
		: new Map<ReadyListing, SentOutcome>();
	const reports = reportsOf(listings, alreadySent, sent);

	// 3. Remember what became of each listing sent.
	if (memory && toSend.length === 0) await memory.release();
	const memoryFailure = memory && toSend.length > 0 && (await rememberOutcomes(memory, sent));
	if (memoryFailure) {
		// What was sent and created is said either way; with Continue the outputs still come out.
		const error = memoryError(this, memoryFailure, reports);
		if (!continueOnFail) throw error;
		const message = `${error.message}. ${error.description}`;
		this.addExecutionHints({ message, location: 'outputPane', type: 'warning' });
	}

	// 4. Stop at a failure, or report every listing.
	const failed = continueOnFail ? undefined : firstFailure(reports);
	if (failed) throw stopError(this, failed, reports, settings.skipAlreadySent);
	const errorOutput = this.getNode().onError === 'continueErrorOutput';
	return outputItems(items, reports, blankRows, settings.perRow, errorOutput);
}
