import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ICredentialDataDecryptedObject, IWebhookFunctions } from 'n8n-workflow';

import { signingKeyOf } from './accessToken';

import {
	CALLBACK_CREDENTIAL_TYPE,
	CALLBACK_FIX,
	constantTimeEqual,
	MIN_CLIENT_SECRET_LENGTH,
	readStoredCallbackClient,
	type CallbackClient,
} from '../shared/callbackCredential';
import { firstLineOf } from './ownerLog';

/**
 * How long a read of the callback credential may be reused: to accept a notification, and to refuse a token request
 * from another client. n8n 2.41 starts a fresh expression sandbox for every credential read in a webhook, a cost
 * every request paid (bench/README.md); one read per credential every ten seconds keeps that off almost every
 * request, also when sales come one at a time and when strangers knock. A new client secret therefore stops tokens
 * of the old one, and is accepted at the token URL, within this time.
 */
export const CREDENTIAL_REUSE_MS = 10_000;

/**
 * What a read leaves behind, without the client secret: the key that checks tokens (derived from it) and a digest
 * of it under a key of this process alone, enough to tell that a presented secret is another one.
 */
export interface RecentClient {
	clientId: string;
	signingKey: Buffer;
	secretDigest: Buffer;
	/**
	 * The read refused a token or a client: a further token it refuses is refused without another read, so forged
	 * tokens (their audience is in the public URL) cost one read per reuse time, not one each.
	 */
	readForRefusal: boolean;
}

/** Never leaves this process: a digest kept under it cannot be tried against guesses elsewhere. */
const DIGEST_KEY = randomBytes(32);

function secretDigestOf(secret: string): Buffer {
	return createHmac('sha256', DIGEST_KEY).update(secret, 'utf8').digest();
}

/** Per credential id, in this process: what the last read left, and when. */
const recentReads = new Map<string, { client: RecentClient; readAt: number }>();

function credentialIdOf(context: IWebhookFunctions): string | undefined {
	const id = context.getNode().credentials?.[CALLBACK_CREDENTIAL_TYPE]?.id;
	return typeof id === 'string' && id !== '' ? id : undefined;
}

/** What a read of this node's credential less than CREDENTIAL_REUSE_MS ago left, if any. */
export function recentCallbackClient(
	context: IWebhookFunctions,
	nowMs: number,
): RecentClient | undefined {
	const id = credentialIdOf(context);
	if (id === undefined) return undefined;
	const entry = recentReads.get(id);
	if (entry === undefined) return undefined;
	if (nowMs - entry.readAt >= CREDENTIAL_REUSE_MS || nowMs < entry.readAt) {
		recentReads.delete(id);
		return undefined;
	}
	return entry.client;
}

/** Remembers a usable client just read from the credential (a credential that cannot be used is never kept). */
export function rememberCallbackClient(
	context: IWebhookFunctions,
	client: CallbackClient,
	nowMs: number,
	readForRefusal = false,
): void {
	const id = credentialIdOf(context);
	if (id === undefined) return;
	// Entries of credentials no longer used would otherwise stay: drop every stale one on the way.
	for (const [otherId, entry] of recentReads)
		if (nowMs - entry.readAt >= CREDENTIAL_REUSE_MS) recentReads.delete(otherId);
	const recent: RecentClient = {
		clientId: client.clientId,
		signingKey: signingKeyOf(client.clientSecret),
		secretDigest: secretDigestOf(client.clientSecret),
		readForRefusal,
	};
	recentReads.set(id, { client: recent, readAt: nowMs });
}

/** What no usable callback credential holds: too short (an empty ID), a space at either end. */
function cannotBeStored(text: string, minLength: number): boolean {
	return text.length < minLength || text !== text.trim();
}

/**
 * Whether a presented client (every reading of its ID and secret) cannot match the callback credential, known
 * without reading it: no usable credential could hold it, or it differs from the credential read less than
 * CREDENTIAL_REUSE_MS ago. Every reading is compared in constant time, so the time taken does not show which part
 * differed.
 */
export function cannotMatchClient(
	context: IWebhookFunctions,
	ids: string[],
	secrets: string[],
	nowMs: number,
): boolean {
	if (ids.every((id) => cannotBeStored(id, 1))) return true;
	if (secrets.every((secret) => cannotBeStored(secret, MIN_CLIENT_SECRET_LENGTH))) return true;
	const recent = recentCallbackClient(context, nowMs);
	if (recent === undefined) return false;
	const idMatches = ids.map((id) => constantTimeEqual(id, recent.clientId));
	const secretMatches = secrets.map((secret) =>
		timingSafeEqual(secretDigestOf(secret), recent.secretDigest),
	);
	return !idMatches.includes(true) || !secretMatches.includes(true);
}

/** What to do when n8n cannot hand the trigger its credential at all. */
const UNREADABLE_FIX =
	"Open the trigger and choose a Ticket Marketplace Callback API credential that exists and that this workflow's project can use; on a webhook process, check that it has the same encryption key (N8N_ENCRYPTION_KEY) as the main process.";

/**
 * The callback client as stored now, or a sentence for the owner (free of secrets) saying why the trigger cannot
 * use it. n8n throws when the credential was deleted, is not shared with the workflow's project, or cannot be
 * decrypted with this process's encryption key; the trigger answers those requests itself instead.
 */
export async function readCurrentCallbackClient(
	context: IWebhookFunctions,
): Promise<CallbackClient | string> {
	let data: ICredentialDataDecryptedObject;
	try {
		data = await context.getCredentials<ICredentialDataDecryptedObject>(CALLBACK_CREDENTIAL_TYPE);
	} catch (error) {
		return `n8n could not read its Ticket Marketplace Callback API credential (${firstLineOf(error)}). ${UNREADABLE_FIX}`;
	}
	const client = readStoredCallbackClient(data);
	return typeof client === 'string' ? `${client}. ${CALLBACK_FIX}` : client;
}
