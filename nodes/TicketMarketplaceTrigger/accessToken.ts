import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * Stateless access tokens for the marketplace's notifications: `tmt1.<claims>.<signature>`, where the signature is
 * HMAC-SHA256 under a key derived (HKDF) from the callback credential's client secret. Any n8n process that
 * serves webhooks can check them without shared state, and a new client secret revokes every token.
 */
const TOKEN_VERSION = 'tmt1';
const KEY_SALT = 'ticket-marketplace-trigger';
const KEY_INFO = 'access-token/v1';

export interface TokenSubject {
	/** The trigger node's webhook id: a token of one trigger is worthless at another. */
	audience: string;
	clientId: string;
	clientSecret: string;
}

interface TokenClaims {
	aud: string;
	cid: string;
	iat: number;
	exp: number;
}

export type TokenRefusal = 'malformed' | 'signature' | 'audience' | 'client' | 'expired';

export type TokenCheck =
	| { valid: true; expiresAt: number }
	| { valid: false; reason: TokenRefusal };

function signature(clientSecret: string, signedPart: string): Buffer {
	const key = Buffer.from(hkdfSync('sha256', clientSecret, KEY_SALT, KEY_INFO, 32));
	return createHmac('sha256', key).update(signedPart, 'utf8').digest();
}

export function issueAccessToken(
	subject: TokenSubject,
	lifetimeSeconds: number,
	nowSeconds: number,
): string {
	const claims: TokenClaims = {
		aud: subject.audience,
		cid: subject.clientId,
		iat: nowSeconds,
		exp: nowSeconds + lifetimeSeconds,
	};
	const signedPart = `${TOKEN_VERSION}.${Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url')}`;
	return `${signedPart}.${signature(subject.clientSecret, signedPart).toString('base64url')}`;
}

function parseClaims(encoded: string): TokenClaims | undefined {
	try {
		const parsed: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
		if (typeof parsed !== 'object' || parsed === null) return undefined;
		const { aud, cid, iat, exp } = parsed as Record<string, unknown>;
		if (typeof aud !== 'string' || typeof cid !== 'string') return undefined;
		if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
		return { aud, cid, iat, exp };
	} catch {
		// Only reachable for a token we signed ourselves, so a parse failure means a format change: refuse it.
		return undefined;
	}
}

export function verifyAccessToken(
	token: string,
	subject: TokenSubject,
	nowSeconds: number,
): TokenCheck {
	const parts = token.split('.');
	if (parts.length !== 3 || parts[0] !== TOKEN_VERSION)
		return { valid: false, reason: 'malformed' };
	const presented = Buffer.from(parts[2], 'base64url');
	// Node's base64url decoder skips stray characters; only the canonical spelling of a signature is accepted.
	if (presented.toString('base64url') !== parts[2]) return { valid: false, reason: 'malformed' };
	const expected = signature(subject.clientSecret, `${parts[0]}.${parts[1]}`);
	// Both are SHA-256 digests when the lengths match; the length itself is public.
	if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
		return { valid: false, reason: 'signature' };
	}
	const claims = parseClaims(parts[1]);
	if (claims === undefined) return { valid: false, reason: 'malformed' };
	if (claims.aud !== subject.audience) return { valid: false, reason: 'audience' };
	if (claims.cid !== subject.clientId) return { valid: false, reason: 'client' };
	if (claims.exp <= nowSeconds) return { valid: false, reason: 'expired' };
	return { valid: true, expiresAt: claims.exp };
}
