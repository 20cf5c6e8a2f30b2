/** Stateless access tokens `tmt1.<claims>.<signature>`, HMAC-SHA256 under a key derived (HKDF) from the callback
 * client secret: any webhook process can check them, and a new secret revokes them all. */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { IWebhookFunctions } from 'n8n-workflow';

import {
	CALLBACK_CREDENTIAL_TYPE,
	CALLBACK_FIX,
	constantTimeEqual,
	readStoredCallbackClient,
	type CallbackClient,
} from '../shared/callbackCredential';
import { answerJson, firstLineOf, hasSeveralAuthorizations, REALM, warnOwner } from './httpAnswer';

const TOKEN_VERSION = 'tmt1';
const nowInSeconds = () => Math.floor(Date.now() / 1000);

/** The audience: the node's webhook id (else workflow id/node name); one trigger's token is worthless at another. */
export function readAudience(context: IWebhookFunctions): string {
	const node = context.getNode();
	return node.webhookId ?? `${context.getWorkflow().id ?? ''}/${node.name}`;
}

type TokenSubject = { audience: string; clientId: string; clientSecret: string };
/** What checks a token: the client secret, or the key derived from it (kept instead of the secret). */
type Verifier = TokenSubject | (Omit<TokenSubject, 'clientSecret'> & { signingKey: Buffer });

const signingKeyOf = (secret: string) =>
	Buffer.from(hkdfSync('sha256', secret, 'ticket-marketplace-trigger', 'access-token/v1', 32));
const signature = (key: Buffer, signedPart: string) =>
	createHmac('sha256', key).update(signedPart, 'utf8').digest();

export function issueAccessToken(subject: TokenSubject, lifetime: number, now = nowInSeconds()) {
	const claims = { aud: subject.audience, cid: subject.clientId, iat: now, exp: now + lifetime };
	const signedPart = `${TOKEN_VERSION}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
	return `${signedPart}.${signature(signingKeyOf(subject.clientSecret), signedPart).toString('base64url')}`;
}

function parseClaims(encoded: string) {
	try {
		const parsed: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
		const { aud, cid, iat, exp } = (parsed ?? {}) as Record<string, unknown>;
		if (typeof aud !== 'string' || typeof cid !== 'string') return undefined;
		return typeof iat === 'number' && typeof exp === 'number' ? { aud, cid, exp } : undefined;
	} catch {
		return undefined; // Claims that do not parse are no token of ours.
	}
}

const refused = (reason: 'malformed' | 'signature' | 'audience' | 'client' | 'expired') =>
	({ valid: false, reason }) as const;

/** The token's parts, or why it is no token of ours for `audience`: judged without the secret, so only to refuse. */
function parseToken(token: string, audience: string) {
	const [version, claimsPart, signaturePart, ...rest] = token.split('.');
	if (version !== TOKEN_VERSION || signaturePart === undefined || rest.length > 0)
		return refused('malformed');
	const presented = Buffer.from(signaturePart, 'base64url');
	// A SHA-256 digest; Node's base64url decoder skips stray characters, so only its canonical spelling is accepted.
	if (presented.length !== 32 || presented.toString('base64url') !== signaturePart)
		return refused('malformed');
	const claims = parseClaims(claimsPart);
	if (claims === undefined) return refused('malformed');
	if (claims.aud !== audience) return refused('audience');
	return { claims, presented, signedPart: `${version}.${claimsPart}` };
}

export function verifyAccessToken(token: string, subject: Verifier, now: number) {
	const parsed = parseToken(token, subject.audience);
	if ('reason' in parsed) return parsed;
	// An expired token is told so only once its signature shows it is ours.
	const key = 'signingKey' in subject ? subject.signingKey : signingKeyOf(subject.clientSecret);
	if (!timingSafeEqual(parsed.presented, signature(key, parsed.signedPart)))
		return refused('signature');
	if (parsed.claims.cid !== subject.clientId) return refused('client');
	if (parsed.claims.exp <= now) return refused('expired');
	return { valid: true, expiresAt: parsed.claims.exp } as const;
}

/** How long a credential read is reused (n8n 2.41 starts an expression sandbox per read, bench/README.md). */
export const CREDENTIAL_REUSE_MS = 10_000;

/** What a read leaves behind, without the secret: the key that checks tokens, and (compared with it) secrets. */
interface RecentClient {
	clientId: string;
	signingKey: Buffer;
	readAt: number;
	/** The read refused a token or client: further refusals reuse it, so forged tokens cost one read per period. */
	readForRefusal: boolean;
}

/** Per credential id, in this process: what the last read left. */
const recentReads = new Map<string, RecentClient>();

/** The id of this node's callback credential; '' (none) is never remembered. */
function credentialIdOf(context: IWebhookFunctions): string {
	const id: unknown = context.getNode().credentials?.[CALLBACK_CREDENTIAL_TYPE]?.id;
	return typeof id === 'string' ? id : '';
}

function recentRead(context: IWebhookFunctions) {
	const id = credentialIdOf(context);
	const recent = recentReads.get(id);
	const ageMs = recent === undefined ? Infinity : Date.now() - recent.readAt;
	if (ageMs >= 0 && ageMs < CREDENTIAL_REUSE_MS) return recent;
	// Out of date, or the clock stepped back: never used again, even once the clock comes back to its window.
	recentReads.delete(id);
	return undefined;
}

/** Remembers a usable client just read from the credential (a credential that cannot be used is never kept). */
function rememberRead(context: IWebhookFunctions, client: CallbackClient, readForRefusal: boolean) {
	const id = credentialIdOf(context);
	if (id === '') return;
	const readAt = Date.now();
	// Entries of credentials no longer used would otherwise stay: drop every stale one on the way.
	for (const [otherId, entry] of recentReads)
		if (readAt - entry.readAt >= CREDENTIAL_REUSE_MS) recentReads.delete(otherId);
	const { clientId, clientSecret } = client;
	recentReads.set(id, { clientId, signingKey: signingKeyOf(clientSecret), readAt, readForRefusal });
}

/** Every presented reading is compared, so the time taken does not depend on which one matched. */
export const matchesAny = (presented: string[], expected: string) =>
	presented.map((text) => constantTimeEqual(text, expected)).includes(true);

/** The stored client if any presented reading matches it (all compared in constant time), else false or why not. */
export async function authenticateClient(
	context: IWebhookFunctions,
	ids: string[],
	secrets: string[],
): Promise<CallbackClient | false | string> {
	// Strangers cost no read of the credential (n8n 2.41 starts an expression sandbox for each): refused when no
	// usable credential holds what they present, or the recent read differs.
	const storable = (clientId: string, clientSecret: string) =>
		typeof readStoredCallbackClient({ clientId, clientSecret }) !== 'string';
	if (!ids.some((id) => secrets.some((secret) => storable(id, secret)))) return false;
	// The signing key stands in for the secret, as a recent read keeps only the key.
	const presents = (clientId: string, signingKey: Buffer) => {
		const keys = secrets.map((secret) => timingSafeEqual(signingKeyOf(secret), signingKey));
		return matchesAny(ids, clientId) && keys.includes(true);
	};
	const recent = recentRead(context);
	if (recent !== undefined && !presents(recent.clientId, recent.signingKey)) return false;
	const client = await readCurrentCallbackClient(context);
	if (typeof client === 'string') return client;
	const matches = presents(client.clientId, signingKeyOf(client.clientSecret));
	// A read that refused a client is as fresh for the notifications URL: forged tokens there reuse it.
	rememberRead(context, client, !matches);
	return matches && client;
}

/** The callback client as stored now, or a sentence for the owner (no secret) saying why it cannot be used. */
async function readCurrentCallbackClient(context: IWebhookFunctions) {
	try {
		const data = await context.getCredentials(CALLBACK_CREDENTIAL_TYPE);
		const client = readStoredCallbackClient(data);
		return typeof client === 'string' ? `${client}. ${CALLBACK_FIX}` : client;
	} catch (error) {
		// Deleted, not shared with the workflow's project, or not decryptable with this process's key.
		return `n8n could not read its Ticket Marketplace Callback API credential (${firstLineOf(error)}). Open the trigger and choose a Ticket Marketplace Callback API credential that exists and that this workflow's project can use; on a webhook process, check that it has the same encryption key (N8N_ENCRYPTION_KEY) as the main process.`;
	}
}

/** A notification's token checked, reusing a recent read to accept, or to refuse once a refusal made it. */
async function checkAccessToken(context: IWebhookFunctions, token: string) {
	const audience = readAudience(context);
	const parsed = parseToken(token, audience);
	if ('reason' in parsed) return parsed;
	if (parsed.claims.exp <= nowInSeconds()) return refused('expired');
	const recent = recentRead(context);
	if (recent !== undefined) {
		const check = verifyAccessToken(token, { audience, ...recent }, nowInSeconds());
		if (check.valid || recent.readForRefusal) return check;
	}
	const client = await readCurrentCallbackClient(context);
	if (typeof client === 'string') {
		// Refused as a bad token (RFC 6750 3.1): the caller learns nothing of the trigger's configuration.
		const answered = 'Notifications are refused 401 (invalid_token) until this is fixed.';
		warnOwner(context, client, answered);
		return refused('signature');
	}
	const check = verifyAccessToken(token, { audience, ...client }, nowInSeconds());
	rememberRead(context, client, !check.valid);
	return check;
}

/** The answer refusing a notification without one valid Bearer access token, or undefined when it has one. */
export async function refusedAccess(context: IWebhookFunctions, authorization: string | undefined) {
	// Node keeps the first of several headers, a proxy in front may keep another: refuse rather than pick one.
	if (hasSeveralAuthorizations(context))
		return bearerError(context, 400, 'The request has more than one Authorization header');
	// No Bearer credentials at all: RFC 6750 3.1 gives the challenge no error code.
	const match = /^bearer(?:\s+(.*))?$/i.exec((authorization ?? '').trim());
	if (match === null) {
		const message = 'A Bearer access token from the token endpoint is required';
		return answerJson(context, 401, { message }, { 'WWW-Authenticate': `Bearer realm="${REALM}"` });
	}
	const check = await checkAccessToken(context, (match[1] ?? '').trim());
	if (check.valid) return undefined;
	const description =
		check.reason === 'expired' ? 'The access token expired' : 'The access token is invalid';
	return bearerError(context, 401, description);
}

/** An RFC 6750 error (400 invalid_request, else 401 invalid_token): in the body and the WWW-Authenticate header. */
function bearerError(context: IWebhookFunctions, status: 400 | 401, description: string) {
	const error = status === 400 ? 'invalid_request' : 'invalid_token';
	const challenge = `Bearer realm="${REALM}", error="${error}", error_description="${description}"`;
	const body = { error, error_description: description };
	return answerJson(context, status, body, { 'WWW-Authenticate': challenge });
}
