/**
 * The run's use of the memory of listings sent (helpers/runMemory.ts): what it skips before sending, with the
 * notices that go with it, and what it remembers of each listing sent, by that listing's effect.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { RunMemory } from '../../../helpers/runMemory';
import type { EarlierOutcome } from '../../../helpers/runMemory';
import { nearCapNotice } from '../../../helpers/sentListings';
import type { SentListingsStoreError } from '../../../helpers/memoryMessages';
import type { Effect, RunCredential } from '../../../transport';
import type { ReadyListing } from './listingInput';
import { earlierUnknownNotice } from './listingResults';
import type { SentOutcome } from './listingOutcome';

/** One memory per marketplace account on one API. */
export function openMemory(context: IExecuteFunctions, credential: RunCredential): RunMemory {
	return new RunMemory(context, {
		baseUrl: credential.baseUrl,
		email: String(credential.decrypted.data?.email ?? ''),
	});
}

/**
 * Records the listings as sent before sending (a run that dies half-way must not leave a created listing
 * unremembered); returns those this workflow sent before, by External Listing ID, with what the memory knows.
 */
export async function recordBeforeSending(
	context: IExecuteFunctions,
	memory: RunMemory,
	ready: ReadyListing[],
): Promise<Map<number, EarlierOutcome>> {
	const { alreadySent, count } = await memory.recordBeforeSending(
		ready.map((listing) => listing.externalListingId),
	);
	const notice = nearCapNotice(count);
	if (notice)
		context.addExecutionHints({ message: notice, location: 'outputPane', type: 'warning' });
	const unknownBefore = ready.filter(
		(listing) => alreadySent.get(listing.externalListingId) === 'unknown',
	);
	if (unknownBefore.length)
		context.addExecutionHints({
			message: earlierUnknownNotice(unknownBefore),
			location: 'outputPane',
			type: 'warning',
		});
	return alreadySent;
}

/** The memory could not be updated: its error, and the listings not created that it still holds. */
export interface MemoryFailure {
	error: SentListingsStoreError;
	stillRemembered: ReadyListing[];
}

/**
 * After sending: a created listing (or one the API holds already) is remembered as created, one of unknown outcome
 * as such, and one the API provably did not create is forgotten, so a later run sends it. Another run's write may
 * have erased any of them meanwhile.
 */
export async function rememberOutcomes(
	memory: RunMemory,
	sent: Map<ReadyListing, SentOutcome>,
): Promise<MemoryFailure | undefined> {
	const withEffect = (effect: Effect) =>
		[...sent].filter(([, outcome]) => outcome.effect === effect).map(([listing]) => listing);
	const ids = (listings: ReadyListing[]) => listings.map((listing) => listing.externalListingId);
	const notCreated = withEffect('notCreated');
	const { error, notForgotten } = await memory.afterSending(
		ids(withEffect('created')),
		ids(withEffect('unknown')),
		ids(notCreated),
	);
	if (!error) return undefined;
	return {
		error,
		stillRemembered: notCreated.filter((listing) =>
			notForgotten.includes(listing.externalListingId),
		),
	};
}
