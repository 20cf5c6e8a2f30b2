import { createHash } from 'node:crypto';
import type { ICheckProcessedOptions, IDeduplicationOutput, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorText, oneLine } from './errors';

/**
 * "Nothing listed twice, across runs": the External Listing IDs this workflow has sent, kept in n8n's own
 * deduplication store (n8n's database, so queue-mode workers share it), scoped to the workflow. There is one memory
 * per marketplace account on one API: entries name the Base URL's origin (however it is spelled) and a hash of the
 * account's e-mail, so listings sent to a sandbox, or by another seller account, do not block the same IDs.
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

/** Whose memory: one marketplace account (its e-mail, as in the credential) on one API (its Base URL). */
export interface MemoryAccount {
	baseUrl: string;
	email: string;
}

/**
 * The Base URL as one API: scheme and host in lower case, a default port dropped, the path kept (without a trailing
 * slash). Text that is no URL is kept as typed: such a run fails at its first request anyway.
 */
export function apiOrigin(baseUrl: string): string {
	const text = baseUrl.trim();
	try {
		const url = new URL(text);
		return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
	} catch {
		return text.replace(/\/+$/, '');
	}
}

/** The account in the memory: a short hash of the trimmed, NFC, lower-case e-mail (not kept in clear). */
function accountTag(email: string): string {
	return createHash('sha256')
		.update(email.trim().normalize('NFC').toLowerCase(), 'utf8')
		.digest('hex')
		.slice(0, 16);
}

export function sentListingKey(account: MemoryAccount, externalListingId: number): string {
	return `ticket-marketplace listing ${externalListingId} at ${apiOrigin(account.baseUrl)} account ${accountTag(account.email)}`;
}

/** Held with the listing's key while its outcome is unknown: a later run then says so instead of "skipped". */
export function outcomeUnknownKey(account: MemoryAccount, externalListingId: number): string {
	return `${sentListingKey(account, externalListingId)} outcome unknown`;
}

/**
 * How versions before per-account memories wrote an ID (the Base URL as typed, trailing slash cut): still read, so
 * what they remember is not sent again, and never written. It does not tell accounts apart: such an ID counts as
 * sent for every account on that Base URL until it is forgotten.
 */
export function oldSentListingKey(baseUrl: string, externalListingId: number): string {
	return `ticket-marketplace listing ${externalListingId} at ${baseUrl.trim().replace(/\/+$/, '')}`;
}

export type KeyKind = 'sent' | 'old' | 'unknown';

/** Every key the memory may hold for the IDs, each with its ID and kind. */
export class MemoryKeys {
	private readonly byKey = new Map<string, { id: number; kind: KeyKind }>();

	constructor(account: MemoryAccount, ids: number[], kinds: KeyKind[]) {
		for (const id of ids) {
			for (const kind of kinds) {
				const key = {
					sent: () => sentListingKey(account, id),
					old: () => oldSentListingKey(account.baseUrl, id),
					unknown: () => outcomeUnknownKey(account, id),
				}[kind]();
				this.byKey.set(key, { id, kind });
			}
		}
	}

	all(): string[] {
		return [...this.byKey.keys()];
	}

	has(key: unknown): boolean {
		return this.byKey.has(String(key));
	}

	/** The keys given that are of these IDs and kinds (the store answers with the keys it was given). */
	of(keys: unknown[], kinds: KeyKind[], ids?: Set<number>): string[] {
		return keys.map(String).filter((key) => {
			const entry = this.byKey.get(key);
			return entry !== undefined && kinds.includes(entry.kind) && (!ids || ids.has(entry.id));
		});
	}

	/** The IDs behind the keys, each once, in the order first met. */
	ids(keys: unknown[]): number[] {
		const ids = keys
			.map((key) => this.byKey.get(String(key))?.id)
			.filter((id): id is number => id !== undefined);
		return [...new Set(ids)];
	}
}

/** The memory could not be read or written. Never advises turning it off: that would relist earlier runs' work. */
export class SentListingsStoreError extends NodeOperationError {}

/** Another run's stale writes undid this run's change to the memory at every attempt. */
export class ContendedMemoryError extends Error {
	constructor(readonly attempts: number) {
		super('other runs kept changing it');
	}
}

/** The store did not answer whether a change stands (or what it holds), at every attempt. */
export class UnconfirmedMemoryError extends Error {
	constructor(message = "n8n's database did not confirm the change") {
		super(message);
	}
}

/**
 * The run needs more room in the memory than n8n's cap leaves: writing anyway would make n8n drop the oldest IDs,
 * which later runs would send again.
 */
export class MemoryFullError extends Error {
	constructor(held: number, needed: number) {
		super(
			`It holds ${held} entries and this run needs room for ${needed} more, beyond the ${SENT_LISTINGS_CAP} that n8n keeps`,
		);
	}
}

const KEEP_IT_ON =
	'Keep Skip Listings Already Sent on: without it, a run sends again every listing earlier runs created.';

/** The memory's failure: what happened in the title, what was done and what to do in the description. */
export function storeError(
	context: IExecuteFunctions,
	error: unknown,
	stage: 'before' | 'after' | 'forget',
): SentListingsStoreError {
	const contended = error instanceof ContendedMemoryError;
	const full = error instanceof MemoryFullError;
	const title = `n8n's memory of listings already sent could not be used${contended ? `: ${error.message}` : full ? ': it is full' : ''}`;
	const said = {
		before: 'Nothing was sent.',
		after: 'The listings below were sent before this happened.',
		forget: 'Nothing was forgotten.',
	}[stage];
	const cause = contended
		? ''
		: full || error instanceof UnconfirmedMemoryError
			? `${error.message}.`
			: `n8n said: ${oneLine(errorText(error))}.`;
	const why = full
		? 'Clear the IDs you no longer list (Listing → Clear Sent Listings History), or move old sheets to another workflow, then run it again.'
		: contended
			? `Runs of one workflow that overlap share its memory: start them further apart (a longer schedule interval). ${KEEP_IT_ON}`
			: `Check that n8n can write to its database. If a Remove Duplicates node of this workflow uses the scope "Workflow", give it the scope "Node": the two share one memory. ${KEEP_IT_ON}`;
	return new SentListingsStoreError(context.getNode(), title, {
		description: [said, cause, why].filter(Boolean).join(' '),
	});
}

/**
 * A look at the memory, which n8n's store only offers as a record: the keys it finds held, having removed again the
 * keys the look added. Its answer is trusted only when the store answered at once: a failed call may have written,
 * and a retry would find that call's keys and call them held. Undefined when the store failed (nothing known).
 * `added` are the keys the look added and could not remove again (the removal failed).
 */
export async function lookAt(
	record: (keys: string[]) => Promise<IDeduplicationOutput>,
	remove: (keys: string[]) => Promise<void>,
	keys: string[],
): Promise<{ held: Set<string>; addedNotRemoved: string[]; failure?: unknown } | undefined> {
	let answer: IDeduplicationOutput;
	try {
		answer = await record(keys);
	} catch {
		return undefined;
	}
	const held = new Set(answer.processed.map(String));
	const added = answer.new.map(String);
	if (added.length === 0) return { held, addedNotRemoved: [] };
	try {
		await remove(added);
		return { held, addedNotRemoved: [] };
	} catch (failure) {
		return { held, addedNotRemoved: added, failure };
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
	return `n8n remembers ${count} sent listing IDs for this workflow, of at most ${SENT_LISTINGS_CAP}: beyond that it forgets the IDs least recently sent or skipped first, and a forgotten ID would be sent again. Forget IDs you no longer list (Listing → Clear Sent Listings History), or move old sheets to another workflow.`;
}

/** Forgets everything this workflow remembers in n8n's deduplication store with the scope "workflow". */
export async function forgetAllSent(context: IExecuteFunctions): Promise<void> {
	try {
		await context.helpers.clearAllProcessedItems(SCOPE, STORE_OPTIONS);
	} catch (error) {
		throw storeError(context, error, 'forget');
	}
}
