/**
 * What became of each listing of a run, in one word per meaning. Where a request was sent, the answer table's
 * outcome names (nodes/shared/partnerApi/answerTable.ts): created, alreadyListed (the API holds it already), unknown (it
 * may have been created), notCreated. Where none was: notSent (the run stopped first), skipped (an earlier run of
 * this workflow sent it), invalid. A run's outcomes are a Map from each listing to its outcome, in input order:
 * every output, summary and memory update reads it.
 */
import type { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { EarlierOutcome } from '../memory/runMemory';
import type { Effect, RequestResult } from '../../../transport';
import type { Listing, ReadyListing } from './nouns';

/** A request that did not create the listing in this run, with the error that says why. */
export interface Failure {
	kind: Exclude<Effect, 'created'>;
	error: NodeApiError | NodeOperationError;
	/** The API's own error code, where its answer named one (kept beside its words for support). */
	apiCode?: string;
}

export type Outcome =
	| { kind: 'created'; /** The API's answer, secrets redacted. */ body: unknown }
	| Failure
	| { kind: 'notSent' }
	/** `earlier`: what the memory knows of the earlier run's outcome. */
	| { kind: 'skipped'; earlier: EarlierOutcome }
	| { kind: 'invalid' };

/** The transport's answer for one request, in the outcome's words. */
export function outcomeOfRequest(sent: RequestResult): Outcome {
	if (sent.kind === 'answered') return { kind: 'created', body: sent.body };
	if (sent.kind === 'notSent') return { kind: 'notSent' };
	return {
		// The transport answers what the table reads as created: a failure's effect is any other outcome, as is.
		kind: sent.effect as Failure['kind'],
		error: sent.error,
		...(sent.apiCode !== undefined && { apiCode: sent.apiCode }),
	};
}

/** What the memory keeps of a listing sent: created (or held already), unknown, or nothing (forgotten). */
export function rememberedAs(outcome: Outcome): 'created' | 'unknown' | 'notCreated' | undefined {
	switch (outcome.kind) {
		case 'created':
		case 'alreadyListed':
			return 'created';
		case 'unknown':
			return 'unknown';
		case 'notCreated':
		case 'notSent':
			return 'notCreated';
		default:
			return undefined;
	}
}

/** Every listing with what became of it, in input order: invalid, skipped as sent before, or what its request did. */
export function outcomesOf(
	listings: Listing[],
	alreadySent: Map<number, EarlierOutcome>,
	sent: Map<ReadyListing, Outcome>,
): Map<Listing, Outcome> {
	return new Map(
		listings.map((listing): [Listing, Outcome] => {
			if (listing.kind === 'invalid') return [listing, { kind: 'invalid' }];
			const earlier = alreadySent.get(listing.externalListingId);
			const outcome = earlier ? { kind: 'skipped' as const, earlier } : sent.get(listing);
			return [listing, outcome ?? { kind: 'notSent' }];
		}),
	);
}

/** The first failure that stops a run without Continue: any failed request but an already listed one. */
export function firstFailure(outcomes: Map<Listing, Outcome>): [Listing, Failure] | undefined {
	for (const [listing, outcome] of outcomes) {
		if (outcome.kind === 'unknown' || outcome.kind === 'notCreated') return [listing, outcome];
	}
	return undefined;
}
