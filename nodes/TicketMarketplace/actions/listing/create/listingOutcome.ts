/**
 * What became of each listing of a run: the transport's result for a listing sent (its effect says what it means:
 * created, unknown, not created), or why it was not sent. The one outcome every output, summary and memory
 * update reads.
 */
import type { NodeOperationError } from 'n8n-workflow';

import type { EarlierOutcome } from '../../../helpers/runMemory';
import type { RequestResult } from '../../../transport';
import type { Listing, ReadyListing } from './listingInput';

/** An exception in handling one listing's request: where it happened is unknown, so the request may have gone. */
export interface HandlingFailed {
	kind: 'failed';
	error: NodeOperationError;
	effect: 'unknown';
}

/** What became of a listing that was sent: the transport's result, with its effect (created, unknown, not). */
export type SentOutcome = RequestResult | HandlingFailed;

/**
 * What became of one listing: what became of its request, or why none was sent. A failure whose effect is
 * `created` is a 409 naming the External Listing ID: the API holds that listing already. An invalid listing's
 * problems are on the listing itself.
 */
export type ListingOutcome =
	| SentOutcome
	/** Not sent: this workflow sent it before; `earlier` is what the memory knows of that outcome. */
	| { kind: 'skipped'; earlier: EarlierOutcome }
	| { kind: 'invalid' };

/** The API answered 409 (conflict) naming the External Listing ID: it holds that listing already. */
export function isAlreadyListed(outcome: ListingOutcome): boolean {
	return outcome.kind === 'failed' && outcome.effect === 'created';
}

const NOT_SENT: ListingOutcome = { kind: 'notSent', effect: 'notCreated' };

/** Every listing with what became of it, in input order: invalid, skipped as sent before, or its request's result. */
export function reportsOf(
	listings: Listing[],
	alreadySent: Map<number, EarlierOutcome>,
	sent: Map<ReadyListing, SentOutcome>,
): ListingReport[] {
	return listings.map((listing): ListingReport => {
		if (listing.kind === 'invalid') return { listing, outcome: { kind: 'invalid' } };
		const earlier = alreadySent.get(listing.externalListingId);
		const outcome = earlier ? { kind: 'skipped' as const, earlier } : sent.get(listing);
		return { listing, outcome: outcome ?? NOT_SENT };
	});
}

/** A listing whose request failed, with that failure. */
export interface FailedReport {
	listing: Listing;
	outcome: SentOutcome & { kind: 'failed' };
}

/** The first failure that stops a run without Continue: any failed request but an already listed one. */
export function firstFailure(reports: ListingReport[]): FailedReport | undefined {
	for (const { listing, outcome } of reports) {
		if (outcome.kind === 'failed' && outcome.effect !== 'created') return { listing, outcome };
	}
	return undefined;
}

/** A listing with what became of it: the unit every output and summary is made of. */
export interface ListingReport {
	listing: Listing;
	outcome: ListingOutcome;
}
