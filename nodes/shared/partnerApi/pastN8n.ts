// What node and credential tell each other past n8n (the cancel signal, a failed token exchange, the last request),
// on the credential object n8n-core passes to preAuthentication under non-enumerable symbol keys, never saved; and
// what it keeps saved: the tokens, in hidden fields tied to their login.
import { createHash, timingSafeEqual } from 'node:crypto';
import { UserError, type ICredentialDataDecryptedObject } from 'n8n-workflow';

import type { AnswerMeaning } from './answerTable';
import {
	baseUrlOrigin,
	loginValues,
	normalizeBaseUrl,
	tokenDestinationRefusal,
} from './partnerApi';

/** A one-line title (no answer text, no address), what to do, and the answer table's row when the API answered. */
export interface TokenDiagnosis {
	title: string;
	description: string;
	meaning?: AnswerMeaning;
}

export interface FailedTokenExchange {
	diagnosis: TokenDiagnosis;
	/** What the token endpoint answered (whether a later login may pass is its row's, on the diagnosis). */
	answer: { status?: number; retryAfter?: string };
	error: UserError;
}

const CANCEL_SIGNAL = Symbol.for('n8n-nodes-ticket-marketplace.runCancelSignal');
const FAILED_EXCHANGE = Symbol.for('n8n-nodes-ticket-marketplace.failedTokenExchange');
const HANDED_REQUEST = Symbol.for('n8n-nodes-ticket-marketplace.handedRequest');

/** What `authenticate` did with the last request: refused it, held it for a new token, or sent it (and how). */
type HandedRequest = 'refused' | 'needsToken' | 'sent' | 'sentLegacy';

function carry(holder: object, key: symbol, value: unknown): void {
	// Not enumerable (the default): never copied, saved or shown.
	Object.defineProperty(holder, key, { value, configurable: true, writable: true });
}

const carried = (holder: object, key: symbol) => (holder as Record<symbol, unknown>)[key];

/** Where n8n hands the exchange a copy, its timeout still ends it. */
export function carryCancelSignal(credential: object, signal: AbortSignal | undefined): void {
	if (signal !== undefined) carry(credential, CANCEL_SIGNAL, signal);
}

export const carriedCancelSignal = (credential: object) =>
	carried(credential, CANCEL_SIGNAL) as AbortSignal | undefined;

/** Notes a failed exchange on the credential, and returns the error to throw (as a credential test shows it). */
export function failTokenExchange(
	credential: object,
	diagnosis: TokenDiagnosis,
	answer: FailedTokenExchange['answer'] = {},
): UserError {
	const error = new UserError(`${diagnosis.title}. ${diagnosis.description}`);
	const failed: FailedTokenExchange = { diagnosis, answer, error };
	carry(error, FAILED_EXCHANGE, failed);
	carry(credential, FAILED_EXCHANGE, failed);
	return error;
}

export const forgetTokenExchange = (credential: object) =>
	carry(credential, FAILED_EXCHANGE, undefined);

/** The last exchange noted on this object, when it failed (and none began since). */
export const failedTokenExchange = (holder: object) =>
	carried(holder, FAILED_EXCHANGE) as FailedTokenExchange | undefined;

/** The failed exchange an error is, or keeps as its `cause` (a few wrappings deep). */
export function failedTokenExchangeOf(error: unknown, depth = 0): FailedTokenExchange | undefined {
	if (error === null || typeof error !== 'object' || depth === 4) return undefined;
	return failedTokenExchange(error) ?? failedTokenExchangeOf((error as Error).cause, depth + 1);
}

const LEGACY_OPTIONS = 'uri resolveWithFullResponse simple gzip useQuerystring formData'.split(' ');

/** Options for n8n's legacy request helper (the HTTP Request node's). */
export const isLegacyRequest = (options: object) => LEGACY_OPTIONS.some((key) => key in options);

/** Renew now? n8n's legacy helper asks after any failure (a 500 alike): not for a request it sent, or one refused. */
export function renewalWanted(credential: ICredentialDataDecryptedObject): boolean {
	const handed = carried(credential, HANDED_REQUEST) as HandedRequest | undefined;
	carry(credential, HANDED_REQUEST, undefined);
	if (credential.accessToken === '' || credential.accessToken === undefined) return true;
	return handed !== 'refused' && handed !== 'sentLegacy';
}

/** The login that just failed, when no request came since: the legacy helper would only repeat it. */
export function loginJustFailed(credential: object): UserError | undefined {
	if (carried(credential, HANDED_REQUEST) !== undefined) return undefined;
	return failedTokenExchange(credential)?.error;
}

/** The token for this request ('' for none), noted for renewalWanted; throws, nothing sent, when it may not go. */
export function tokenForRequest(
	credentials: ICredentialDataDecryptedObject,
	options: object,
): string {
	const refusal = tokenDestinationRefusal(credentials, options);
	if (refusal !== undefined) {
		carry(credentials, HANDED_REQUEST, 'refused' satisfies HandedRequest);
		throw new UserError(refusal);
	}
	const token = accessTokenForThisLogin(credentials);
	if (isLegacyRequest(options) && (token === '' || accessTokenExpired(credentials, Date.now()))) {
		carry(credentials, HANDED_REQUEST, 'needsToken' satisfies HandedRequest);
		throw new UserError(
			'The stored access token is not for this credential as it is now, or has expired: it was not sent. n8n logs in and sends the request with a new one.',
		);
	}
	sentAsHanded(credentials, options);
	return token;
}

/** A request sent (with the token, or a header of its own): an error after it renews nothing, so it goes once. */
export function sentAsHanded(credentials: object, options: object) {
	// On the request too: an error without a network code after this may come after it left.
	for (const holder of [credentials, options])
		carry(holder, HANDED_REQUEST, isLegacyRequest(options) ? 'sentLegacy' : 'sent');
}

/** The error of a request the credential had handed on to be sent, marked so (its own object, not n8n's copy). */
export function noteHandedOn(error: unknown, options: object): unknown {
	const handed = carried(options, HANDED_REQUEST) !== undefined;
	if (handed && error !== null && typeof error === 'object') carry(error, HANDED_REQUEST, 'sent');
	return error;
}

export const wasHandedOn = (error: object) => carried(error, HANDED_REQUEST) !== undefined;

// The refresh token's hidden field, tied by a hash to its login as is the access token: after an edit to another
// account (n8n keeps hidden fields), neither is used.
const REFRESH_TOKEN_FIELD = 'refreshToken';

/** The login's fingerprint, the refresh token ('' for none), the access token's end (ms). */
type KeptRefreshToken = { for: string; token: string; expiresAt?: number };

/** A hash of everything that decides whose token this is, as sent (letter case or a pasted space aside). */
function loginFingerprint(credentials: ICredentialDataDecryptedObject): string {
	const parts = [
		baseUrlOrigin(credentials.baseUrl) ?? normalizeBaseUrl(credentials.baseUrl),
		...Object.values(loginValues(credentials)),
	];
	return createHash('sha256').update(parts.join('\u0000'), 'utf8').digest('hex');
}

function parseKept(value: unknown): KeptRefreshToken | undefined {
	if (typeof value !== 'string' || value === '') return undefined;
	try {
		const { for: login, token, expiresAt } = (JSON.parse(value) ?? {}) as Partial<KeptRefreshToken>;
		if (typeof login !== 'string' || typeof token !== 'string') return undefined;
		return { for: login, token, ...(typeof expiresAt === 'number' && { expiresAt }) };
	} catch {
		return undefined; // Not ours: ignored, the login is used.
	}
}

/** What the field keeps for this very login (compared in constant time: the hash is of secrets). */
function keptForThisLogin(credentials: ICredentialDataDecryptedObject) {
	const kept = parseKept(credentials[REFRESH_TOKEN_FIELD]);
	if (kept === undefined) return undefined;
	const expected = Buffer.from(loginFingerprint(credentials), 'utf8');
	const found = Buffer.from(kept.for, 'utf8');
	return found.length === expected.length && timingSafeEqual(found, expected) ? kept : undefined;
}

export function keptRefreshToken(credentials: ICredentialDataDecryptedObject): string | undefined {
	return keptForThisLogin(credentials)?.token || undefined;
}

/** The access token if issued for this very login, else ''. */
export function accessTokenForThisLogin(credentials: ICredentialDataDecryptedObject): string {
	const token = credentials.accessToken;
	return typeof token === 'string' && keptForThisLogin(credentials) !== undefined ? token : '';
}

/** Past the lifetime its answer gave; false when not known. */
export function accessTokenExpired(
	credentials: ICredentialDataDecryptedObject,
	now: number,
): boolean {
	const expiresAt = keptForThisLogin(credentials)?.expiresAt;
	return expiresAt !== undefined && now >= expiresAt;
}

/** Any refresh token the field holds, whoever's: a secret to redact. */
export function anyKeptRefreshToken(credentials: ICredentialDataDecryptedObject): string[] {
	const kept = parseKept(credentials[REFRESH_TOKEN_FIELD]);
	return kept?.token ? [kept.token] : [];
}

/** A shorter lifetime (seconds) is read as unknown, lest every request log in first; the API's 401 still tells. */
export const MIN_KNOWN_LIFETIME_S = 60;

/** The hidden field after a token answer (always written: it lets the new token be sent); `keep` when none came. */
export function refreshTokenFieldAfter(
	credentials: ICredentialDataDecryptedObject,
	answer: Record<string, unknown> | undefined,
	keep: string | undefined,
	now: number,
): string {
	const given = answer?.refresh_token;
	const token = typeof given === 'string' && given.trim() !== '' ? given : (keep ?? '');
	// A number or text (Apigee sends `"expires_in": "15551999"`).
	const lifetime = answer?.expires_in;
	const isNumberText = typeof lifetime === 'string' && /^\s*\d+(?:\.\d+)?\s*$/.test(lifetime);
	const seconds = isNumberText ? Number(lifetime) : lifetime;
	const known = typeof seconds === 'number' && Number.isFinite(seconds);
	// A little early (a tenth, at most a minute): a token sent just before its end may arrive after it.
	const expiresAt =
		known && seconds >= MIN_KNOWN_LIFETIME_S
			? now + (seconds - Math.min(60, seconds / 10)) * 1000
			: undefined;
	return JSON.stringify({
		for: loginFingerprint(credentials),
		token,
		...(expiresAt !== undefined && { expiresAt }),
	} satisfies KeptRefreshToken);
}
