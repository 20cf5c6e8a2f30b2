import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * "Nothing listed twice, across runs": the External Listing IDs this workflow has sent, kept in n8n's own
 * deduplication store (n8n's database, so queue-mode workers share it), scoped to the workflow. Entries name the
 * API's Base URL too, so listings sent to a sandbox do not block the same IDs in production.
 */
const SCOPE = 'workflow';
const STORE_OPTIONS: ICheckProcessedOptions = { mode: 'entries', maxEntries: 100_000 };

export function sentListingKey(baseUrl: string, externalListingId: number): string {
	return `ticket-marketplace listing ${externalListingId} at ${baseUrl}`;
}

function storeError(context: IExecuteFunctions, error: unknown): NodeOperationError {
	const text = error instanceof Error ? error.message : String(error);
	return new NodeOperationError(
		context.getNode(),
		`n8n's memory of listings already sent could not be used: ${text}`,
		{
			description:
				'This n8n may be too old for it, or another node of this workflow (Remove Duplicates with the scope "Workflow") keeps its memory in another mode. Turn off the option "Skip Listings Already Sent" to send without it; nothing was sent.',
		},
	);
}

/** Records the IDs as sent, before sending; returns those this workflow had sent already (left unsent). */
export async function recordBeforeSending(
	context: IExecuteFunctions,
	baseUrl: string,
	externalListingIds: number[],
): Promise<Set<number>> {
	if (externalListingIds.length === 0) return new Set();
	const byKey = new Map(externalListingIds.map((id) => [sentListingKey(baseUrl, id), id]));
	try {
		const result = await context.helpers.checkProcessedAndRecord(
			[...byKey.keys()],
			SCOPE,
			STORE_OPTIONS,
		);
		return new Set(
			result.processed
				.map((key) => byKey.get(String(key)))
				.filter((id): id is number => id !== undefined),
		);
	} catch (error) {
		throw storeError(context, error);
	}
}

/** Forgets IDs again: the API provably did not create them, so a later run may send them. */
export async function forgetSent(
	context: IExecuteFunctions,
	baseUrl: string,
	externalListingIds: number[],
): Promise<void> {
	if (externalListingIds.length === 0) return;
	try {
		await context.helpers.removeProcessed(
			externalListingIds.map((id) => sentListingKey(baseUrl, id)),
			SCOPE,
			STORE_OPTIONS,
		);
	} catch (error) {
		throw storeError(context, error);
	}
}

export async function countSent(context: IExecuteFunctions): Promise<number> {
	try {
		return await context.helpers.getProcessedDataCount(SCOPE, STORE_OPTIONS);
	} catch (error) {
		throw storeError(context, error);
	}
}

/** Forgets everything this workflow remembers in n8n's deduplication store with the scope "workflow". */
export async function forgetAllSent(context: IExecuteFunctions): Promise<void> {
	try {
		await context.helpers.clearAllProcessedItems(SCOPE, STORE_OPTIONS);
	} catch (error) {
		throw storeError(context, error);
	}
}
