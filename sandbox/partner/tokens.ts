/**
 * Partner API resource: access tokens (spec 5). The token endpoint (Basic app auth plus the marketplace account), the
 * checks and the issuing it shares with the refresh-token exchange (refreshToken.ts), and the Bearer check the other
 * resources use. The admin's expire and revoke are in tokenAdmin.ts.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';

import {
	requiredParam,
	sendApigeeOAuthError,
	sendGatewayFault,
	GATEWAY_FAULT,
	lacksApiProduct,
	SERVICE_TOKEN_ERROR,
	SERVICE_TOKEN_TYPE,
	unsupportedGrantType,
} from '../answers';
import {
	BASIC_CHALLENGE,
	BEARER_CHALLENGE,
	ERROR_CODE,
	ID_PREFIX,
	SUCCESS_STATUS,
	TOKEN_ERROR_TEXT,
} from '../choices';
import { isPlainObject, mediaType, parseJson, sendJson, sendOAuthError } from '../http';
import type { TokenRecord } from '../records';
import type { PartnerEndpoint } from '../faults';
import type { SandboxStore } from '../store';
import type { SandboxAccount, SandboxApp } from '../types';
import { revokeRecord } from './tokenAdmin';

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

/** A token-URL refusal in both shapes: the sandbox's own OAuth one (spec) and Apigee's (service). */
export interface TokenRefusal {
	spec: { status: number; code: string; description: string; challenge?: boolean };
	service: { status: number; ErrorCode: string; Error: string };
}

export function refuse(store: SandboxStore, res: http.ServerResponse, refusal: TokenRefusal): void {
	if (store.serviceShapes) {
		sendApigeeOAuthError(res, refusal.service);
		return;
	}
	const { status, code, description, challenge } = refusal.spec;
	sendOAuthError(
		res,
		status,
		code,
		description,
		challenge ? { 'WWW-Authenticate': BASIC_CHALLENGE } : {},
	);
}

/** The app of the request's HTTP Basic consumer key and secret, or undefined once refused. */
export function authenticateApp(
	store: SandboxStore,
	req: http.IncomingMessage,
	res: http.ServerResponse,
): SandboxApp | undefined {
	const header = req.headers.authorization;
	const basic = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
	if (!basic) {
		refuse(store, res, {
			spec: {
				status: 401,
				code: ERROR_CODE.invalidClient,
				description: 'HTTP Basic authentication with the consumer key and secret is required',
				challenge: true,
			},
			service: SERVICE_TOKEN_ERROR.missingClient,
		});
		return undefined;
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
		refuse(store, res, {
			spec: {
				status: 401,
				code: ERROR_CODE.invalidClient,
				description: 'The consumer key or consumer secret is not recognised',
				challenge: true,
			},
			service: SERVICE_TOKEN_ERROR.invalidClient,
		});
		return undefined;
	}
	return app;
}

/** Checks the grant_type (query or form field); false once refused. */
export function grantTypeIs(
	store: SandboxStore,
	res: http.ServerResponse,
	grantType: string | null,
	wanted: string,
	where: string,
): boolean {
	if (grantType === null || grantType === '') {
		refuse(store, res, {
			spec: {
				status: 400,
				code: ERROR_CODE.invalidRequest,
				description: `The grant_type ${where} is required (grant_type=${wanted})`,
			},
			service: SERVICE_TOKEN_ERROR.missingGrantType,
		});
		return false;
	}
	if (grantType !== wanted) {
		refuse(store, res, {
			spec: {
				status: 400,
				code: ERROR_CODE.unsupportedGrantType,
				description: `grant_type "${grantType}" is not supported; use ${wanted}`,
			},
			service: unsupportedGrantType(grantType),
		});
		return false;
	}
	return true;
}

/** Issues an access token (and, in the service's shapes, a refresh token) and answers it. */
export function issueToken(
	store: SandboxStore,
	res: http.ServerResponse,
	app: SandboxApp,
	accountEmail: string,
	issue: TokenIssue,
): void {
	const issuedAt = store.now();
	if (issue.revokeEarlier) {
		for (const record of store.tokens.values())
			if (record.account === accountEmail) revokeRecord(store, record);
	}
	const value = randomBytes(32).toString('base64url');
	const record: TokenRecord = {
		id: `${ID_PREFIX.token}${store.tokens.size + 1}_${randomBytes(3).toString('hex')}`,
		consumerKey: app.consumerKey,
		account: accountEmail,
		issuedAt,
		expiresAt: issue.expired ? issuedAt : issuedAt + store.tokenLifetimeSeconds * 1000,
		revoked: false,
	};
	store.tokens.set(value, record);
	const noStore = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
	if (!store.serviceShapes) {
		sendJson(
			res,
			SUCCESS_STATUS.token,
			{ access_token: value, token_type: 'Bearer', expires_in: store.tokenLifetimeSeconds },
			noStore,
		);
		return;
	}
	const refreshToken = randomBytes(24).toString('base64url');
	record.refreshToken = refreshToken;
	store.refreshTokens.set(refreshToken, {
		tokenId: record.id,
		consumerKey: app.consumerKey,
		account: accountEmail,
		expiresAt: Number.POSITIVE_INFINITY,
		used: false,
		revoked: false,
	});
	// Apigee's token answer: numbers as text, its own token type.
	sendJson(
		res,
		SUCCESS_STATUS.token,
		{
			access_token: value,
			refresh_token: refreshToken,
			token_type: SERVICE_TOKEN_TYPE,
			expires_in: String(Math.max(0, Math.round((record.expiresAt - issuedAt) / 1000))),
			refresh_token_expires_in: '0',
			issued_at: String(issuedAt),
			status: 'approved',
		},
		noStore,
	);
}

export function handleToken(
	store: SandboxStore,
	req: http.IncomingMessage,
	res: http.ServerResponse,
	url: URL,
	buffer: Buffer,
	issue: TokenIssue,
): void {
	const app = authenticateApp(store, req, res);
	if (!app) return;
	const grantType = url.searchParams.get('grant_type');
	if (!grantTypeIs(store, res, grantType, 'client_credentials', 'query parameter')) return;
	const badBody = (description: string, param: string) =>
		refuse(store, res, {
			spec: { status: 400, code: ERROR_CODE.invalidRequest, description },
			service: requiredParam(param),
		});
	if (mediaType(req.headers['content-type']) !== 'application/json') {
		badBody('Content-Type must be application/json', 'username');
		return;
	}
	const parsed = parseJson(buffer);
	if (!parsed.ok) {
		badBody(parsed.message, 'username');
		return;
	}
	const body = parsed.value;
	if (!isPlainObject(body)) {
		badBody('The body must be a JSON object with username and password', 'username');
		return;
	}
	const missing = ['username', 'password'].filter(
		(key) => typeof body[key] !== 'string' || (body[key] as string).length === 0,
	);
	if (missing.length > 0) {
		badBody(
			`The body needs ${missing.join(' and ')} (${missing.length > 1 ? 'non-empty strings' : 'a non-empty string'})`,
			missing[0],
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
		refuse(store, res, {
			spec: {
				status: 401,
				code: ERROR_CODE.invalidGrant,
				description: matching('developer')
					? TOKEN_ERROR_TEXT.developerAccount
					: TOKEN_ERROR_TEXT.wrongAccount,
			},
			// The service is not expected to tell a developer-portal login from a wrong one.
			service: SERVICE_TOKEN_ERROR.wrongLogin,
		});
		return;
	}
	issueToken(store, res, app, account.email, issue);
}

/** The token a request presents and, when it may not be used, why (`expired` tells the gateway's two faults apart). */
export function bearerRecord(
	store: SandboxStore,
	req: http.IncomingMessage,
): { record?: TokenRecord; problem?: string; expired?: boolean } {
	const header = req.headers.authorization;
	const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
	if (!match) return { problem: 'An Authorization: Bearer <access token> header is required' };
	const record = store.tokens.get(match[1]);
	if (!record) return { problem: 'The access token is not recognised' };
	if (record.revoked) return { record, problem: 'The access token has been revoked' };
	if (store.now() >= record.expiresAt)
		return { record, problem: 'The access token has expired', expired: true };
	return { record };
}

/**
 * The Bearer check of the listings and webhooks resources, then (service shapes) whether the app has the API product
 * of this endpoint: answers 401 or 403 itself and returns undefined.
 */
export function requireBearer(
	store: SandboxStore,
	req: http.IncomingMessage,
	res: http.ServerResponse,
	endpoint: PartnerEndpoint,
): TokenRecord | undefined {
	const { record, problem, expired } = bearerRecord(store, req);
	if (problem || !record) {
		if (store.serviceShapes)
			sendGatewayFault(
				res,
				expired ? GATEWAY_FAULT.accessTokenExpired : GATEWAY_FAULT.invalidAccessToken,
			);
		else
			sendJson(
				res,
				401,
				{ error: ERROR_CODE.invalidToken, message: problem },
				{ 'WWW-Authenticate': BEARER_CHALLENGE },
			);
		return undefined;
	}
	if (lacksApiProduct(store.answers, endpoint)) {
		sendGatewayFault(res, GATEWAY_FAULT.noApiProduct);
		return undefined;
	}
	return record;
}
