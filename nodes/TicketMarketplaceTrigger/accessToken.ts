import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * Stateless access tokens `tmt1.<claims>.<signature>`: HMAC-SHA256 under a key derived (HKDF) from the callback
 * client secret, so any webhook process can check them, and a new secret revokes them all.
 */
const TOKEN_VERSION = 'tmt1';
const KEY_SALT = 'ticket-marketplace-trigger';
const KEY_INFO = 'access-token/v1';
/** A SHA-256 digest: 32 bytes. */
const SIGNATURE_LENGTH = 32;

/** `audience` is the trigger node's webhook id: a token of one trigger is worthless at another. */
type TokenSubject = { audience: string; clientId: string; clientSecret: string };

/** What checks a token: the client secret, or the key derived from it (kept instead of the secret). */
type VerifyingSubject = Omit<TokenSubject, 'clientSecret'> &
	({ clientSecret: string } | { signingKey: Buffer });

type TokenClaims = { aud: string; cid: string; iat: number; exp: number };

export type TokenRefusal = 'malformed' | 'signature' | 'audience' | 'client' | 'expired';

export type TokenCheck =
	| { valid: true; expiresAt: number }
	| { valid: false; reason: TokenRefusal };

export function signingKeyOf(clientSecret: string): Buffer {
	return Buffer.from(hkdfSync('sha256', clientSecret, KEY_SALT, KEY_INFO, 32));
}

function signature(key: Buffer, signedPart: string): Buffer {
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
	const signedPart = `${TOKEN_VERSION}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
	return `${signedPart}.${signature(signingKeyOf(subject.clientSecret), signedPart).toString('base64url')}`;
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
		return undefined; // Claims that do not parse are no token of ours.
	}
}

/** Why a token cannot be ours, judged without the secret (so only to refuse); undefined when it may be. */
export function refusalBeforeSignature(
	token: string,
	audience: string,
	nowSeconds: number,
): TokenRefusal | undefined {
	const parts = token.split('.');
	if (parts.length !== 3 || parts[0] !== TOKEN_VERSION) return 'malformed';
	const presented = Buffer.from(parts[2], 'base64url');
	// Node's base64url decoder skips stray characters; only the canonical spelling of a signature is accepted.
	if (presented.length !== SIGNATURE_LENGTH || presented.toString('base64url') !== parts[2])
		return 'malformed';
	const claims = parseClaims(parts[1]);
	if (claims === undefined) return 'malformed';
	if (claims.aud !== audience) return 'audience';
	if (claims.exp <= nowSeconds) return 'expired';
	return undefined;
}

export function verifyAccessToken(
	token: string,
	subject: VerifyingSubject,
	nowSeconds: number,
): TokenCheck {
	const before = refusalBeforeSignature(token, subject.audience, nowSeconds);
	// An expired token is told so only once its signature shows it is ours.
	if (before !== undefined && before !== 'expired') return { valid: false, reason: before };
	const [version, claimsPart, signaturePart] = token.split('.');
	const presented = Buffer.from(signaturePart, 'base64url');
	const key = 'signingKey' in subject ? subject.signingKey : signingKeyOf(subject.clientSecret);
	const expected = signature(key, `${version}.${claimsPart}`);
	if (!timingSafeEqual(presented, expected)) return { valid: false, reason: 'signature' };
	const claims = parseClaims(claimsPart) as TokenClaims;
	if (claims.cid !== subject.clientId) return { valid: false, reason: 'client' };
	if (claims.exp <= nowSeconds) return { valid: false, reason: 'expired' };
	return { valid: true, expiresAt: claims.exp };
}
