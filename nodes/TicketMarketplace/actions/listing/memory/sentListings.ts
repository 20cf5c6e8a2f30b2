/** The IDs sent, one memory per account (its e-mail's hash) and API (Base URL origin): docs/sent-listings-memory.md */
import { createHash } from 'node:crypto';

/** Whose memory: one marketplace account (its e-mail, as in the credential) on one API (its Base URL). */
export type MemoryAccount = { baseUrl: string; email: string };

/** Scheme and host in lower case, a default port dropped, the path without a trailing slash; no URL: as typed. */
function apiOrigin(baseUrl: string): string {
	const text = baseUrl.trim();
	try {
		const url = new URL(text);
		return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
	} catch {
		return text.replace(/\/+$/, '');
	}
}

/** The account as a short hash of its trimmed, NFC, lower-case e-mail (not kept in clear). */
export function sentListingKey(account: MemoryAccount, externalListingId: number): string {
	const email = account.email.trim().normalize('NFC').toLowerCase();
	const tag = createHash('sha256').update(email, 'utf8').digest('hex').slice(0, 16);
	return `ticket-marketplace listing ${externalListingId} at ${apiOrigin(account.baseUrl)} account ${tag}`;
}

/** Held with the listing's key while its outcome is unknown: a later run then says so instead of "skipped". */
export function outcomeUnknownKey(account: MemoryAccount, externalListingId: number): string {
	return `${sentListingKey(account, externalListingId)} outcome unknown`;
}

export type KeyKind = 'sent' | 'old' | 'unknown';

/** Every key the memory may hold for the IDs, each with its ID and kind. */
export class MemoryKeys {
	private readonly byKey = new Map<string, { id: number; kind: KeyKind }>();

	constructor(account: MemoryAccount, ids: number[], kinds: KeyKind[]) {
		const keyOf: Record<KeyKind, (id: number) => string> = {
			sent: (id) => sentListingKey(account, id),
			// Earlier versions' key (Base URL as typed, no account): only forgotten, never read or written.
			old: (id) =>
				`ticket-marketplace listing ${id} at ${account.baseUrl.trim().replace(/\/+$/, '')}`,
			unknown: (id) => outcomeUnknownKey(account, id),
		};
		for (const id of ids) for (const kind of kinds) this.byKey.set(keyOf[kind](id), { id, kind });
	}

	all(): string[] {
		return [...this.byKey.keys()];
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
		return [...new Set(keys.flatMap((key) => this.byKey.get(String(key))?.id ?? []))];
	}
}
