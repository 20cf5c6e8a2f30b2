/**
 * The refresh token, in a hidden field tied by a hash to its login, as is the access token: after an edit to another
 * account (n8n keeps hidden fields), neither is used.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { loginValues, normalizeBaseUrl } from './partnerApi';
import { baseUrlOrigin } from './tokenDestination';

const REFRESH_TOKEN_FIELD = 'refreshToken';

/** The login's fingerprint, the refresh token ('' for none), the access token's end (ms). */
type KeptRefreshToken = { for: string; token: string; expiresAt?: number };

/** A hash of everything that decides whose token this is. */
function loginFingerprint(credentials: ICredentialDataDecryptedObject): string {
	// As sent: letter case, a default port or a pasted space do not make another login.
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
	const token = keptForThisLogin(credentials)?.token;
	return token ? token : undefined;
}

/** The access token if issued for this very login, else ''. */
export function accessTokenForThisLogin(credentials: ICredentialDataDecryptedObject): string {
	const token = credentials.accessToken;
	if (typeof token !== 'string' || token === '') return '';
	return keptForThisLogin(credentials) === undefined ? '' : token;
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
export function anyKeptRefreshToken(
	credentials: ICredentialDataDecryptedObject | undefined,
): string[] {
	const kept = parseKept(credentials?.[REFRESH_TOKEN_FIELD]);
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
	const seconds = expiresInSeconds(answer);
	// A little early (a tenth, at most a minute): a token sent just before its end may arrive after it.
	const expiresAt =
		seconds !== undefined && seconds >= MIN_KNOWN_LIFETIME_S
			? now + (seconds - Math.min(60, seconds / 10)) * 1000
			: undefined;
	return JSON.stringify({
		for: loginFingerprint(credentials),
		token,
		...(expiresAt !== undefined && { expiresAt }),
	} satisfies KeptRefreshToken);
}

export function refreshRequestBody(refreshToken: string): string {
	return new URLSearchParams({
		grant_type: 'refresh_token',
		refresh_token: refreshToken,
	}).toString();
}

/** The answer's lifetime in seconds, as a number or text (Apigee sends `"expires_in": "15551999"`). */
function expiresInSeconds(answer: Record<string, unknown> | undefined): number | undefined {
	const value = answer?.expires_in;
	const isNumberText = typeof value === 'string' && /^\s*\d+(?:\.\d+)?\s*$/.test(value);
	const seconds = typeof value === 'number' ? value : isNumberText ? Number(value) : undefined;
	return seconds !== undefined && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}
