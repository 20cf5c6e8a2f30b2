import type { ICredentialDataDecryptedObject, IWebhookFunctions } from 'n8n-workflow';

import {
	CALLBACK_CREDENTIAL_TYPE,
	CALLBACK_FIX,
	readStoredCallbackClient,
	type CallbackClient,
} from '../shared/callbackCredential';
import { firstLineOf } from './ownerLog';

/**
 * How long a read of the callback credential may be reused to accept a notification. n8n 2.41 starts a fresh
 * expression sandbox for every credential read in a webhook, a cost every notification paid (bench/README.md); one read per credential every ten seconds keeps that off almost every request, also when
 * sales come one at a time. A new client secret therefore stops tokens of the old one within this time.
 */
export const CREDENTIAL_REUSE_MS = 10_000;

/** Per credential id, in this process: the client last read and when. Only ever used to accept, never to refuse. */
const recentReads = new Map<string, { client: CallbackClient; readAt: number }>();

function credentialIdOf(context: IWebhookFunctions): string | undefined {
	const id = context.getNode().credentials?.[CALLBACK_CREDENTIAL_TYPE]?.id;
	return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The client read for this node's credential less than CREDENTIAL_REUSE_MS ago, if any. */
export function recentCallbackClient(
	context: IWebhookFunctions,
	nowMs: number,
): CallbackClient | undefined {
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
): void {
	const id = credentialIdOf(context);
	if (id === undefined) return;
	// Entries of credentials no longer used would otherwise stay: drop every stale one on the way.
	for (const [otherId, entry] of recentReads)
		if (nowMs - entry.readAt >= CREDENTIAL_REUSE_MS) recentReads.delete(otherId);
	recentReads.set(id, { client, readAt: nowMs });
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
