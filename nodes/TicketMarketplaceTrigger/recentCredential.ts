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
 * How long a read of the callback credential is reused: n8n 2.41 starts an expression sandbox for each read
 * (bench/README.md). A new client secret takes effect within this time.
 */
export const CREDENTIAL_REUSE_MS = 10_000;

/** What a read leaves behind, without the secret: the key that checks tokens, and a digest of the secret. */
interface RecentClient {
	clientId: string;
	signingKey: Buffer;
	secretDigest: Buffer;
	/** The read refused a token or client: further refusals reuse it, so forged tokens cost one read per period. */
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
	const entry = id === undefined ? undefined : recentReads.get(id);
	if (id === undefined || entry === undefined) return undefined;
	if (nowMs - entry.readAt < CREDENTIAL_REUSE_MS && nowMs >= entry.readAt) return entry.client;
	recentReads.delete(id);
	return undefined;
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
	const { clientId, clientSecret } = client;
	const signingKey = signingKeyOf(clientSecret);
	const recent = {
		clientId,
		signingKey,
		secretDigest: secretDigestOf(clientSecret),
		readForRefusal,
	};
	recentReads.set(id, { client: recent, readAt: nowMs });
}

/** What no usable callback credential holds: too short (an empty ID), a space at either end. */
function cannotBeStored(text: string, minLength: number): boolean {
	return text.length < minLength || text !== text.trim();
}

/**
 * Whether a presented client (every reading of ID and secret) cannot match the credential, known without reading
 * it: no usable credential holds it, or the recent read differs. Every comparison runs, in constant time.
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

const UNREADABLE_FIX =
	"Open the trigger and choose a Ticket Marketplace Callback API credential that exists and that this workflow's project can use; on a webhook process, check that it has the same encryption key (N8N_ENCRYPTION_KEY) as the main process.";

/** The callback client as stored now, or a sentence for the owner (no secret) saying why it cannot be used. */
export async function readCurrentCallbackClient(
	context: IWebhookFunctions,
): Promise<CallbackClient | string> {
	let data: ICredentialDataDecryptedObject;
	try {
		data = await context.getCredentials<ICredentialDataDecryptedObject>(CALLBACK_CREDENTIAL_TYPE);
	} catch (error) {
		// Deleted, not shared with the workflow's project, or not decryptable with this process's key.
		return `n8n could not read its Ticket Marketplace Callback API credential (${firstLineOf(error)}). ${UNREADABLE_FIX}`;
	}
	const client = readStoredCallbackClient(data);
	return typeof client === 'string' ? `${client}. ${CALLBACK_FIX}` : client;
}
