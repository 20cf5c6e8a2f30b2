/**
 * "Nothing listed twice, across runs": the External Listing IDs this workflow has sent, kept in n8n's own
 * deduplication store (n8n's database, so queue-mode workers share it), scoped to the workflow. There is one memory
 * per marketplace account on one API: entries name the Base URL's origin (however it is spelled) and a hash of the
 * account's e-mail, so listings sent to a sandbox, or by another seller account, do not block the same IDs.
 *
 * n8n keeps the store as one list per workflow that every call reads and writes back whole: past its cap it drops
 * the oldest entries, and two runs writing at once can lose one's writes. Hence the refresh of IDs seen again,
 * the notice near the cap, and the verified writes of a run (runMemory.ts, verifiedStore.ts).
 */
import { createHash } from 'node:crypto';
import type { IExecuteFunctions } from 'n8n-workflow';

import { nearCapWords, storeError } from './memoryMessages';
import { SCOPE, SENT_LISTINGS_CAP, STORE_OPTIONS } from './verifiedStore';

// Also offered here, where the rest of the memory's vocabulary is.
export { SCOPE, SENT_LISTINGS_CAP, STORE_OPTIONS };
export { ContendedMemoryError } from './memoryFailure';
export { storeError } from './memoryMessages';

/** From this share of the cap on, each run says how close the memory is to forgetting. */
const NEAR_CAP_SHARE = 0.9;

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

export async function countSent(context: IExecuteFunctions): Promise<number> {
	try {
		return await context.helpers.getProcessedDataCount(SCOPE, STORE_OPTIONS);
	} catch (error) {
		throw storeError(context, error, 'forget');
	}
}

/** Whether the memory holds most of what n8n keeps (false when it could not count). */
export function nearCap(count: number | undefined): count is number {
	return count !== undefined && count >= SENT_LISTINGS_CAP * NEAR_CAP_SHARE;
}

/** A notice once the memory holds most of what n8n keeps; undefined well below. */
export function nearCapNotice(count: number | undefined): string | undefined {
	return nearCap(count) ? nearCapWords(count, SENT_LISTINGS_CAP) : undefined;
}

/** Forgets everything this workflow remembers in n8n's deduplication store with the scope "workflow". */
export async function forgetAllSent(context: IExecuteFunctions): Promise<void> {
	try {
		await context.helpers.clearAllProcessedItems(SCOPE, STORE_OPTIONS);
	} catch (error) {
		throw storeError(context, error, 'forget');
	}
}
