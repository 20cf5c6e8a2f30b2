/**
 * Partner API resource: access tokens (spec 5). The token endpoint (Basic app auth plus the marketplace account), the
 * Bearer check the other resources use, and the admin's expire and revoke.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';

import {
	BASIC_CHALLENGE,
	BEARER_CHALLENGE,
	ERROR_CODE,
	ID_PREFIX,
	SUCCESS_STATUS,
	TOKEN_ERROR_TEXT,
} from '../choices';
import { SandboxError } from '../errors';
import { isPlainObject, mediaType, parseJson, sendJson, sendOAuthError } from '../http';
import type { TokenRecord } from '../records';
import type { SandboxStore } from '../store';
import type { SandboxAccount, TokenSelector } from '../types';

function digest(value: string): Buffer {
	return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time equality of two secrets (equal-length digests, so lengths leak nothing either). */
function secretsEqual(a: string, b: string): boolean {
	return timingSafeEqual(digest(a), digest(b));
}

/** How the token endpoint issues a token, as the faults on the request decide. */
export interface TokenIssue {
	/** The `expireToken` fault hands out a token that is already expired, as if it lapsed on the way. */
	expired: boolean;
	/** The `revokeEarlierTokens` fault: an API whose new token revokes every earlier token of the account. */
	revokeEarlier: boolean;
}

export function handleToken(
	store: SandboxStore,
	req: http.IncomingMessage,
	res: http.ServerResponse,
	url: URL,
	buffer: Buffer,
	issue: TokenIssue,
): void {
	const challenge = { 'WWW-Authenticate': BASIC_CHALLENGE };
	const header = req.headers.authorization;
	const basic = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
	if (!basic) {
		sendOAuthError(
			res,
			401,
			ERROR_CODE.invalidClient,
			'HTTP Basic authentication with the consumer key and secret is required',
			challenge,
		);
		return;
	}
	const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
	const colon = decoded.indexOf(':');
	const app = colon > 0 ? store.apps.get(decoded.slice(0, colon)) : undefined;
	// The secret is compared even for an unknown key, so both failures take the same path.
	const secretMatches = secretsEqual(
		colon > 0 ? decoded.slice(colon + 1) : '',
		app?.consumerSecret ?? '\u0000no-app',
	);
	if (!app || !secretMatches) {
		sendOAuthError(
			res,
			401,
			ERROR_CODE.invalidClient,
			'The consumer key or consumer secret is not recognised',
			challenge,
		);
		return;
	}
	const grantType = url.searchParams.get('grant_type');
	if (grantType === null || grantType === '') {
		sendOAuthError(
			res,
			400,
			ERROR_CODE.invalidRequest,
			'The grant_type query parameter is required (grant_type=client_credentials)',
		);
		return;
	}
	if (grantType !== 'client_credentials') {
		sendOAuthError(
			res,
			400,
			ERROR_CODE.unsupportedGrantType,
			`grant_type "${grantType}" is not supported; use client_credentials`,
		);
		return;
	}
	if (mediaType(req.headers['content-type']) !== 'application/json') {
		sendOAuthError(res, 400, ERROR_CODE.invalidRequest, 'Content-Type must be application/json');
		return;
	}
	const parsed = parseJson(buffer);
	if (!parsed.ok) {
		sendOAuthError(res, 400, ERROR_CODE.invalidRequest, parsed.message);
		return;
	}
	const body = parsed.value;
	if (!isPlainObject(body)) {
		sendOAuthError(
			res,
			400,
			ERROR_CODE.invalidRequest,
			'The body must be a JSON object with username and password',
		);
		return;
	}
	const missing = ['username', 'password'].filter(
		(key) => typeof body[key] !== 'string' || (body[key] as string).length === 0,
	);
	if (missing.length > 0) {
		sendOAuthError(
			res,
			400,
			ERROR_CODE.invalidRequest,
			`The body needs ${missing.join(' and ')} (${missing.length > 1 ? 'non-empty strings' : 'a non-empty string'})`,
		);
		return;
	}
	const username = (body.username as string).trim().toLowerCase();
	const password = body.password as string;
	const matching = (kind: SandboxAccount['kind']) =>
		store.accounts.find(
			(a) =>
				a.kind === kind && a.email.toLowerCase() === username && secretsEqual(password, a.password),
		);
	const account = matching('marketplace');
	if (!account) {
		const description = matching('developer')
			? TOKEN_ERROR_TEXT.developerAccount
			: TOKEN_ERROR_TEXT.wrongAccount;
		sendOAuthError(res, 401, ERROR_CODE.invalidGrant, description);
		return;
	}
	const issuedAt = store.now();
	if (issue.revokeEarlier) {
		for (const record of store.tokens.values())
			if (record.account === account.email) record.revoked = true;
	}
	const value = randomBytes(32).toString('base64url');
	store.tokens.set(value, {
		id: `${ID_PREFIX.token}${store.tokens.size + 1}_${randomBytes(3).toString('hex')}`,
		consumerKey: app.consumerKey,
		account: account.email,
		issuedAt,
		expiresAt: issue.expired ? issuedAt : issuedAt + store.tokenLifetimeSeconds * 1000,
		revoked: false,
	});
	sendJson(
		res,
		SUCCESS_STATUS.token,
		{ access_token: value, token_type: 'Bearer', expires_in: store.tokenLifetimeSeconds },
		{ 'Cache-Control': 'no-store', Pragma: 'no-cache' },
	);
}

/** The token a request presents and, when it may not be used, why. */
export function bearerRecord(
	store: SandboxStore,
	req: http.IncomingMessage,
): { record?: TokenRecord; problem?: string } {
	const header = req.headers.authorization;
	const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
	if (!match) return { problem: 'An Authorization: Bearer <access token> header is required' };
	const record = store.tokens.get(match[1]);
	if (!record) return { problem: 'The access token is not recognised' };
	if (record.revoked) return { record, problem: 'The access token has been revoked' };
	if (store.now() >= record.expiresAt) return { record, problem: 'The access token has expired' };
	return { record };
}

/** The Bearer check of the listings and webhooks resources: answers 401 itself and returns undefined. */
export function requireBearer(
	store: SandboxStore,
	req: http.IncomingMessage,
	res: http.ServerResponse,
): TokenRecord | undefined {
	const { record, problem } = bearerRecord(store, req);
	if (problem || !record) {
		sendJson(
			res,
			401,
			{ error: ERROR_CODE.invalidToken, message: problem },
			{ 'WWW-Authenticate': BEARER_CHALLENGE },
		);
		return undefined;
	}
	return record;
}

function selectTokens(store: SandboxStore, selector: TokenSelector = {}): TokenRecord[] {
	if (selector.ids !== undefined) {
		if (!Array.isArray(selector.ids) || selector.ids.some((id) => typeof id !== 'string')) {
			throw new SandboxError(400, ERROR_CODE.invalidRequest, 'ids must be an array of token ids');
		}
		const wanted = new Set(selector.ids);
		return [...store.tokens.values()].filter((record) => wanted.has(record.id));
	}
	// No ids means every token: the common case is "make the client fetch a new one".
	return [...store.tokens.values()];
}

export function expireTokens(store: SandboxStore, selector?: TokenSelector): number {
	const chosen = selectTokens(store, selector);
	const at = store.now();
	for (const record of chosen) record.expiresAt = Math.min(record.expiresAt, at);
	return chosen.length;
}

export function revokeTokens(store: SandboxStore, selector?: TokenSelector): number {
	const chosen = selectTokens(store, selector);
	for (const record of chosen) record.revoked = true;
	return chosen.length;
}
