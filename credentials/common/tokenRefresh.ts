/**
 * Renewing the access token with the refresh token the token answer carries, as the service recommends, instead of
 * sending the seller's password every time. n8n saves whatever preAuthentication returns into the credential, but
 * keeps across runs only the fields the credential declares: the refresh token lives in a hidden field of its own
 * (only the access token can be the expirable one). Its value is tied to the login it came from (a hash of the Base
 * URL's origin, the app's key and secret and the marketplace login), so that a credential edited to another account
 * or API never renews with the old account's refresh token: it logs in instead. The access token is tied to its login
 * the same way: n8n keeps hidden fields when the editor saves a credential, so after an edit of the Base URL the old
 * token is still there, and it is sent only when the field says it came from this very login.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { loginValues, normalizeBaseUrl } from './partnerApi';
import { baseUrlOrigin } from './tokenDestination';

/** The hidden field that keeps the refresh token. */
export const REFRESH_TOKEN_FIELD = 'refreshToken';

/** What the hidden field holds (as JSON text). */
interface KeptRefreshToken {
	/** The login the access token (and the refresh token) came from (loginFingerprint). */
	for: string;
	/** The refresh token ('' when the token answer carried none). */
	token: string;
	/** When the access token issued with it expires (epoch ms), when the answer said. */
	expiresAt?: number;
}

/** A hash of everything that decides whose token this is: a different login never uses another's refresh token. */
function loginFingerprint(credentials: ICredentialDataDecryptedObject): string {
	const login = loginValues(credentials);
	const parts = [
		// The origin, as the token is sent to it: letter case or a default port do not make another login.
		baseUrlOrigin(credentials.baseUrl) ?? normalizeBaseUrl(credentials.baseUrl),
		// As sent: a space pasted around the key does not make another login.
		login.consumerKey,
		login.consumerSecret,
		login.email,
		login.password,
	];
	return createHash('sha256').update(parts.join('\u0000'), 'utf8').digest('hex');
}

function parseKept(value: unknown): KeptRefreshToken | undefined {
	if (typeof value !== 'string' || value === '') return undefined;
	try {
		const parsed = JSON.parse(value) as Partial<KeptRefreshToken> | null;
		if (
			parsed !== null &&
			typeof parsed === 'object' &&
			typeof parsed.for === 'string' &&
			typeof parsed.token === 'string'
		)
			return {
				for: parsed.for,
				token: parsed.token,
				...(typeof parsed.expiresAt === 'number' && { expiresAt: parsed.expiresAt }),
			};
	} catch {
		// Not ours: ignored, the login is used.
	}
	return undefined;
}

/** What the field keeps for this very login, if anything (compared in constant time: the hash is of secrets). */
function keptForThisLogin(
	credentials: ICredentialDataDecryptedObject,
): KeptRefreshToken | undefined {
	const kept = parseKept(credentials[REFRESH_TOKEN_FIELD]);
	if (kept === undefined) return undefined;
	const expected = Buffer.from(loginFingerprint(credentials), 'utf8');
	const found = Buffer.from(kept.for, 'utf8');
	return found.length === expected.length && timingSafeEqual(found, expected) ? kept : undefined;
}

/** The refresh token kept for this very login, if any. */
export function keptRefreshToken(credentials: ICredentialDataDecryptedObject): string | undefined {
	const token = keptForThisLogin(credentials)?.token;
	return token ? token : undefined;
}

/**
 * The access token, when the field says it was issued for this very login (Base URL's origin, key, secret, e-mail,
 * password); '' otherwise: after an edit of the credential, and for a token saved before tokens were tied to their
 * login, which is then replaced by a fresh login.
 */
export function accessTokenForThisLogin(credentials: ICredentialDataDecryptedObject): string {
	const token = credentials.accessToken;
	if (typeof token !== 'string' || token === '') return '';
	return keptForThisLogin(credentials) === undefined ? '' : token;
}

/** Whether the access token is past the lifetime its answer gave (`now` in epoch ms); false when not known. */
export function accessTokenExpired(
	credentials: ICredentialDataDecryptedObject,
	now: number,
): boolean {
	const expiresAt = keptForThisLogin(credentials)?.expiresAt;
	return expiresAt !== undefined && now >= expiresAt;
}

/** Any refresh token the field holds, whatever login it is for: a secret to redact from every answer. */
export function anyKeptRefreshToken(
	credentials: ICredentialDataDecryptedObject | undefined,
): string[] {
	const kept = parseKept(credentials?.[REFRESH_TOKEN_FIELD]);
	return kept?.token ? [kept.token] : [];
}

/**
 * A lifetime shorter than this (seconds) is read as unknown: a token "expired" at once would make every request of a
 * run log in first. The API's 401 still says when the token really ends.
 */
export const MIN_KNOWN_LIFETIME_S = 60;

/**
 * The hidden field's new value after a token answer, tied to this login (always written: it is also what lets the
 * new access token be sent): the refresh token the answer carries, or else `keep` (a refresh answer need not repeat
 * it; after a login, nothing is kept), and when the new access token expires, if the answer said. `now` in epoch ms.
 */
export function refreshTokenFieldAfter(
	credentials: ICredentialDataDecryptedObject,
	answer: Record<string, unknown> | undefined,
	keep: string | undefined,
	now: number,
): string {
	const given = answer?.refresh_token;
	const token = typeof given === 'string' && given.trim() !== '' ? given : (keep ?? '');
	const givenSeconds = expiresInSeconds(answer);
	const seconds =
		givenSeconds !== undefined && givenSeconds >= MIN_KNOWN_LIFETIME_S ? givenSeconds : undefined;
	// A little early (a tenth, at most a minute): a token sent just before its end may arrive after it.
	const expiresAt =
		seconds === undefined ? undefined : now + (seconds - Math.min(60, seconds / 10)) * 1000;
	return JSON.stringify({
		for: loginFingerprint(credentials),
		token,
		...(expiresAt !== undefined && { expiresAt }),
	} satisfies KeptRefreshToken);
}

/** The form body of a refresh (the service documents form encoding). */
export function refreshRequestBody(refreshToken: string): string {
	return new URLSearchParams({
		grant_type: 'refresh_token',
		refresh_token: refreshToken,
	}).toString();
}

/**
 * The token answer's lifetime in seconds, read as a number or as text (Apigee sends `"expires_in": "15551999"`);
 * undefined when it is neither.
 */
export function expiresInSeconds(answer: Record<string, unknown> | undefined): number | undefined {
	const value = answer?.expires_in;
	const seconds =
		typeof value === 'number'
			? value
			: typeof value === 'string' && /^\s*\d+(?:\.\d+)?\s*$/.test(value)
				? Number(value)
				: undefined;
	return seconds !== undefined && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}
