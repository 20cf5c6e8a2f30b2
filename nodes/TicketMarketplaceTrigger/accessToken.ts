/**
 * Stateless access tokens `tmt1.<claims>.<signature>`: HMAC-SHA256 under a key derived (HKDF) from the callback
 * client secret, so any webhook process can check them, and a new secret revokes them all. Checked against recent
 * reads of the callback credential, kept without the secret.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ICredentialDataDecryptedObject, IWebhookFunctions } from 'n8n-workflow';

import {
	CALLBACK_CREDENTIAL_TYPE,
	CALLBACK_FIX,
	constantTimeEqual,
	MIN_CLIENT_SECRET_LENGTH,
	readStoredCallbackClient,
	type CallbackClient,
} from '../shared/callbackCredential';
import { firstLineOf } from './httpAnswer';

/** The token's audience: the node's webhook id, or (served without one) its workflow id and node name. */
function readAudience(context: IWebhookFunctions): string {
	const node = context.getNode();
	return node.webhookId ?? `${context.getWorkflow().id ?? ''}/${node.name}`;
}

const nowInSeconds = () => Math.floor(Date.now() / 1000);

const TOKEN_VERSION = 'tmt1';
/** A SHA-256 digest. */
const SIGNATURE_LENGTH = 32;

/** `audience` is the trigger node's webhook id: a token of one trigger is worthless at another. */
type TokenSubject = { audience: string; clientId: string; clientSecret: string };
/** What checks a token: the client secret, or the key derived from it (kept instead of the secret). */
type Verifier = Omit<TokenSubject, 'clientSecret'> &
	({ clientSecret: string } | { signingKey: Buffer });
type TokenRefusal = 'malformed' | 'signature' | 'audience' | 'client' | 'expired';
type TokenCheck = { valid: true; expiresAt: number } | { valid: false; reason: TokenRefusal };

const signingKeyOf = (secret: string) =>
	Buffer.from(hkdfSync('sha256', secret, 'ticket-marketplace-trigger', 'access-token/v1', 32));
const signature = (key: Buffer, signedPart: string) =>
	createHmac('sha256', key).update(signedPart, 'utf8').digest();

export function issueAccessToken(subject: TokenSubject, lifetime: number, now: number): string {
	const claims = { aud: subject.audience, cid: subject.clientId, iat: now, exp: now + lifetime };
	const signedPart = `${TOKEN_VERSION}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
	return `${signedPart}.${signature(signingKeyOf(subject.clientSecret), signedPart).toString('base64url')}`;
}

/** A token for this trigger node and the stored client, valid for `lifetime` seconds from now. */
export const accessTokenFor = (
	context: IWebhookFunctions,
	client: CallbackClient,
	lifetime: number,
) => issueAccessToken({ audience: readAudience(context), ...client }, lifetime, nowInSeconds());

function parseClaims(encoded: string) {
	try {
		const parsed: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
		if (typeof parsed !== 'object' || parsed === null) return undefined;
		const { aud, cid, iat, exp } = parsed as Record<string, unknown>;
		if (typeof aud !== 'string' || typeof cid !== 'string') return undefined;
		if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
		return { aud, cid, exp };
	} catch {
		return undefined; // Claims that do not parse are no token of ours.
	}
}

/** The token's claims and signature, or undefined when it is not shaped as one of ours. */
function parseToken(token: string) {
	const [version, claimsPart, signaturePart, ...rest] = token.split('.');
	if (version !== TOKEN_VERSION || signaturePart === undefined || rest.length > 0) return undefined;
	const presented = Buffer.from(signaturePart, 'base64url');
	// Node's base64url decoder skips stray characters; only the canonical spelling of a signature is accepted.
	if (presented.length !== SIGNATURE_LENGTH || presented.toString('base64url') !== signaturePart)
		return undefined;
	const claims = parseClaims(claimsPart);
	return claims && { claims, presented, signedPart: `${version}.${claimsPart}` };
}

const refused = (reason: TokenRefusal): TokenCheck => ({ valid: false, reason });

/** A token that cannot be ours, judged without the secret (so only to refuse); undefined when it may be. */
function refusalBeforeSignature(token: string, audience: string, now: number) {
	const parsed = parseToken(token);
	if (parsed === undefined) return refused('malformed');
	if (parsed.claims.aud !== audience) return refused('audience');
	return parsed.claims.exp <= now ? refused('expired') : undefined;
}

export function verifyAccessToken(token: string, subject: Verifier, now: number): TokenCheck {
	const parsed = parseToken(token);
	if (parsed === undefined) return refused('malformed');
	if (parsed.claims.aud !== subject.audience) return refused('audience');
	// An expired token is told so only once its signature shows it is ours.
	const key = 'signingKey' in subject ? subject.signingKey : signingKeyOf(subject.clientSecret);
	if (!timingSafeEqual(parsed.presented, signature(key, parsed.signedPart)))
		return refused('signature');
	if (parsed.claims.cid !== subject.clientId) return refused('client');
	if (parsed.claims.exp <= now) return refused('expired');
	return { valid: true, expiresAt: parsed.claims.exp };
}

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
const secretDigestOf = (secret: string) =>
	createHmac('sha256', DIGEST_KEY).update(secret, 'utf8').digest();

/** Per credential id, in this process: what the last read left, and when. */
const recentReads = new Map<string, { client: RecentClient; readAt: number }>();

function credentialIdOf(context: IWebhookFunctions): string | undefined {
	const id = context.getNode().credentials?.[CALLBACK_CREDENTIAL_TYPE]?.id;
	return typeof id === 'string' && id !== '' ? id : undefined;
}

/** What a read of this node's credential less than CREDENTIAL_REUSE_MS ago left, if any. */
function recentCallbackClient(context: IWebhookFunctions) {
	const nowMs = Date.now();
	const id = credentialIdOf(context);
	const entry = id === undefined ? undefined : recentReads.get(id);
	if (id === undefined || entry === undefined) return undefined;
	if (nowMs - entry.readAt < CREDENTIAL_REUSE_MS && nowMs >= entry.readAt) return entry.client;
	recentReads.delete(id);
	return undefined;
}

/** Remembers a usable client just read from the credential (a credential that cannot be used is never kept). */
function rememberCallbackClient(
	context: IWebhookFunctions,
	{ clientId, clientSecret }: CallbackClient,
	readForRefusal: boolean,
): void {
	const id = credentialIdOf(context);
	if (id === undefined) return;
	const nowMs = Date.now();
	// Entries of credentials no longer used would otherwise stay: drop every stale one on the way.
	for (const [otherId, entry] of recentReads)
		if (nowMs - entry.readAt >= CREDENTIAL_REUSE_MS) recentReads.delete(otherId);
	const secretDigest = secretDigestOf(clientSecret);
	const client = { clientId, signingKey: signingKeyOf(clientSecret), secretDigest, readForRefusal };
	recentReads.set(id, { client, readAt: nowMs });
}

/** Every presented reading is compared, so the time taken does not depend on which one matched. */
export const matchesAny = (presented: string[], expected: string) =>
	presented.map((text) => constantTimeEqual(text, expected)).includes(true);

/** What no usable callback credential holds: too short (an empty ID), a space at either end. */
const cannotBeStored = (text: string, minLength: number) =>
	text.length < minLength || text !== text.trim();

/**
 * The stored client when a presented one (every reading of ID and secret) matches it, false when not, or a sentence
 * for the owner when the credential cannot be used. Every comparison runs, in constant time.
 */
export async function authenticateClient(
	context: IWebhookFunctions,
	ids: string[],
	secrets: string[],
): Promise<CallbackClient | false | string> {
	// Strangers cost no read of the credential (n8n 2.41 starts an expression sandbox for each): refused when no
	// usable credential holds what they present, or the recent read differs.
	if (ids.every((id) => cannotBeStored(id, 1))) return false;
	if (secrets.every((secret) => cannotBeStored(secret, MIN_CLIENT_SECRET_LENGTH))) return false;
	const recent = recentCallbackClient(context);
	if (recent !== undefined) {
		const idMatches = matchesAny(ids, recent.clientId);
		const secretMatches = secrets.map((secret) =>
			timingSafeEqual(secretDigestOf(secret), recent.secretDigest),
		);
		if (!idMatches || !secretMatches.includes(true)) return false;
	}
	const client = await readCurrentCallbackClient(context);
	if (typeof client === 'string') return client;
	const idMatches = matchesAny(ids, client.clientId);
	const secretMatches = matchesAny(secrets, client.clientSecret);
	// A read that refused a client is as fresh for the notifications URL: forged tokens there reuse it.
	rememberCallbackClient(context, client, !(idMatches && secretMatches));
	return idMatches && secretMatches && client;
}

const UNREADABLE_FIX =
	"Open the trigger and choose a Ticket Marketplace Callback API credential that exists and that this workflow's project can use; on a webhook process, check that it has the same encryption key (N8N_ENCRYPTION_KEY) as the main process.";

/** The callback client as stored now, or a sentence for the owner (no secret) saying why it cannot be used. */
async function readCurrentCallbackClient(
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

/**
 * Checks a notification's token: one that cannot be ours costs no read of the credential; a recent read is reused
 * to accept, and to refuse once a refusal read it. A sentence for the owner when the credential cannot be used.
 */
export async function checkAccessToken(
	context: IWebhookFunctions,
	token: string,
): Promise<TokenCheck | string> {
	const audience = readAudience(context);
	const refusal = refusalBeforeSignature(token, audience, nowInSeconds());
	if (refusal !== undefined) return refusal;
	const recent = recentCallbackClient(context);
	if (recent !== undefined) {
		const check = verifyAccessToken(token, { audience, ...recent }, nowInSeconds());
		if (check.valid || recent.readForRefusal) return check;
	}
	const client = await readCurrentCallbackClient(context);
	if (typeof client === 'string') return client;
	const check = verifyAccessToken(token, { audience, ...client }, nowInSeconds());
	rememberCallbackClient(context, client, !check.valid);
	return check;
}
