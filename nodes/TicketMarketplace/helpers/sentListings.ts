import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorText } from './errors';

/**
 * "Nothing listed twice, across runs": the External Listing IDs this workflow has sent, kept in n8n's own
 * deduplication store (n8n's database, so queue-mode workers share it), scoped to the workflow. Entries name the
 * API's Base URL too, so listings sent to a sandbox do not block the same IDs in production.
 *
 * n8n keeps the store as one list per workflow that every call reads and writes back whole: past its cap it drops
 * the oldest entries, and two runs writing at once can lose one's writes. Hence the refresh of IDs seen again,
 * the notice near the cap, and the verified writes of a run (runMemory.ts).
 */
export const SCOPE = 'workflow';
/** n8n's store drops the oldest entries beyond this. */
export const SENT_LISTINGS_CAP = 100_000;
/** From this share of the cap on, each run says how close the memory is to forgetting. */
const NEAR_CAP_SHARE = 0.9;
export const STORE_OPTIONS: ICheckProcessedOptions = {
	mode: 'entries',
	maxEntries: SENT_LISTINGS_CAP,
};

export function sentListingKey(baseUrl: string, externalListingId: number): string {
	return `ticket-marketplace listing ${externalListingId} at ${baseUrl}`;
}

/** The memory could not be read or written. Never advises turning it off: that would relist earlier runs' work. */
export class SentListingsStoreError extends NodeOperationError {}

/** Another run's stale writes undid this run's change to the memory at every attempt. */
export class ContendedMemoryError extends Error {
	constructor(attempts: number) {
		super(
			`another run of this workflow rewrote it at the same moments, ${attempts} times in a row`,
		);
	}
}

const KEEP_IT_ON =
	'Keep Skip Listings Already Sent on: without it, a run sends again every listing earlier runs created.';

export function storeError(
	context: IExecuteFunctions,
	error: unknown,
	stage: 'before' | 'after' | 'forget',
): SentListingsStoreError {
	const cause = `n8n's memory of listings already sent could not be used: ${errorText(error)}`;
	const why =
		error instanceof ContendedMemoryError
			? `Runs of one workflow that overlap share its memory: start them further apart (a longer schedule interval). ${KEEP_IT_ON}`
			: `Check that n8n can write to its database. If a Remove Duplicates node of this workflow uses the scope "Workflow", give it the scope "Node": the two share one memory. ${KEEP_IT_ON}`;
	const said = {
		before: 'Nothing was sent.',
		after: 'The listings below were sent before this happened.',
		forget: 'Nothing was forgotten.',
	}[stage];
	return new SentListingsStoreError(context.getNode(), cause, { description: `${said} ${why}` });
}

export function keysOf(baseUrl: string, ids: number[]): Map<string, number> {
	return new Map(ids.map((id) => [sentListingKey(baseUrl, id), id]));
}

/** The IDs behind the store's keys (the store answers with the keys it was given). */
export function idsOf(byKey: Map<string, number>, keys: unknown[]): number[] {
	return keys.map((key) => byKey.get(String(key))).filter((id): id is number => id !== undefined);
}

/**
 * Forgets IDs on request (Listing → Forget Sent Listings) and says which the memory held. n8n's store has no
 * read-only look-up: recording tells held from not held, and the removal then forgets both.
 */
export async function forgetOnRequest(
	context: IExecuteFunctions,
	baseUrl: string,
	externalListingIds: number[],
): Promise<{ forgotten: Set<number>; notHeld: Set<number> }> {
	if (externalListingIds.length === 0) return { forgotten: new Set(), notHeld: new Set() };
	const byKey = keysOf(baseUrl, externalListingIds);
	try {
		const result = await context.helpers.checkProcessedAndRecord(
			[...byKey.keys()],
			SCOPE,
			STORE_OPTIONS,
		);
		await context.helpers.removeProcessed([...byKey.keys()], SCOPE, STORE_OPTIONS);
		return {
			forgotten: new Set(idsOf(byKey, result.processed)),
			notHeld: new Set(idsOf(byKey, result.new)),
		};
	} catch (error) {
		throw storeError(context, error, 'forget');
	}
}

export async function countSent(context: IExecuteFunctions): Promise<number> {
	try {
		return await context.helpers.getProcessedDataCount(SCOPE, STORE_OPTIONS);
	} catch (error) {
		throw storeError(context, error, 'forget');
	}
}

/** A notice once the memory holds most of what n8n keeps; undefined well below. */
export function nearCapNotice(count: number | undefined): string | undefined {
	if (count === undefined || count < SENT_LISTINGS_CAP * NEAR_CAP_SHARE) return undefined;
	return `n8n remembers ${count} sent listing IDs for this workflow, of at most ${SENT_LISTINGS_CAP}; beyond that it forgets the least recently seen first, and a forgotten ID would be sent again. Forget IDs you no longer list (Listing → Forget Sent Listings), or move old sheets to another workflow.`;
}

/** Forgets everything this workflow remembers in n8n's deduplication store with the scope "workflow". */
export async function forgetAllSent(context: IExecuteFunctions): Promise<void> {
	try {
		await context.helpers.clearAllProcessedItems(SCOPE, STORE_OPTIONS);
	} catch (error) {
		throw storeError(context, error, 'forget');
	}
}
