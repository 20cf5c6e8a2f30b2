/** Sending: every listing through one pacer, each listing's result kept with it. */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorText, oneLine } from '../../../helpers/errors';
import { credentialSecrets, redactSecrets, RequestPacer, sendRequest } from '../../../transport';
import type { RunCredential } from '../../../transport';
import { showsListingCreated } from './createdEvidence';
import type { ReadyListing } from './listingInput';
import { listingRequest } from './listingRequest';
import type { HandlingFailed, SentOutcome } from './listingOutcome';
import type { SendSettings } from './settings';

/** Sends every listing through one pacer; returns each listing's outcome, keyed by the listing. */
export async function sendListings(
	context: IExecuteFunctions,
	listings: ReadyListing[],
	settings: SendSettings,
	credential: RunCredential,
	stopOnFailure: boolean,
): Promise<Map<ReadyListing, SentOutcome>> {
	const pacer = new RequestPacer(settings.mode, settings.maxConcurrency, stopOnFailure);
	// Stop during a pause (a per-second limit's Retry-After) ends the waiting at once: they come out not sent.
	const unsubscribe = pacer.closeOn(context.getExecutionCancelSignal?.());
	const sendOne = async (listing: ReadyListing): Promise<SentOutcome> => {
		try {
			// Without Continue On Fail a failure closes the pacer: requests in flight finish and are reported.
			return await sendRequest.call(context, {
				request: listingRequest(listing),
				itemIndex: listing.rows[0],
				pacer,
				credential,
				confirmedBy: (answer) => showsListingCreated(answer, listing.externalListingId),
				createsId: listing.externalListingId,
			});
		} catch (error) {
			// A failure in handling one listing must not escape: the other listings, the memory update and
			// the summary still need their turn. Where it happened is unknown, so the request may have gone.
			if (stopOnFailure) pacer.close();
			return unexpectedFailure(context, listing, error, credential);
		}
	};
	try {
		return new Map(
			await Promise.all(
				listings.map(async (listing) => [listing, await sendOne(listing)] as const),
			),
		);
	} finally {
		unsubscribe();
	}
}

/** An exception from handling one listing, as that listing's outcome: in words, without a secret. */
function unexpectedFailure(
	context: IExecuteFunctions,
	listing: ReadyListing,
	error: unknown,
	credential: RunCredential,
): HandlingFailed {
	const said = redactSecrets(errorText(error), credentialSecrets(credential.decrypted.data));
	return {
		kind: 'failed',
		effect: 'unknown',
		error: new NodeOperationError(
			context.getNode(),
			`Outcome unknown: handling External Listing ID ${listing.externalListingId} failed unexpectedly`,
			{
				description: `n8n said: ${oneLine(said)}. The request may have reached the API: the listing may or may not have been created. Look it up on the marketplace by its External Listing ID before sending it again.`,
				itemIndex: listing.rows[0],
			},
		),
	};
}
