/**
 * Partner API resource: access tokens (spec 5), the refresh-token exchange. It authenticates the app and issues the
 * new tokens as the token endpoint does (tokens.ts).
 */
import type http from 'node:http';

import { requiredParam, SERVICE_TOKEN_ERROR } from '../answers';
import { ERROR_CODE } from '../choices';
import { mediaType } from '../http';
import type { SandboxStore } from '../store';
import { authenticateApp, grantTypeIs, issueToken, refuse } from './tokens';
import type { TokenIssue, TokenRefusal } from './tokens';

/**
 * `POST /sellers/oauth/refresh_accesstoken` (documented by the service): Basic consumer key and secret, a form body
 * `grant_type=refresh_token&refresh_token=<token>`. Answers a new access token and a new refresh token; the refresh
 * token used is spent. The access token it came with stays valid until it expires (a guess).
 */
export function handleRefresh(
	store: SandboxStore,
	req: http.IncomingMessage,
	res: http.ServerResponse,
	buffer: Buffer,
	issue: TokenIssue,
): void {
	const app = authenticateApp(store, req, res);
	if (!app) return;
	const form =
		mediaType(req.headers['content-type']) === 'application/x-www-form-urlencoded'
			? new URLSearchParams(buffer.toString('utf8'))
			: new URLSearchParams();
	if (!grantTypeIs(store, res, form.get('grant_type'), 'refresh_token', 'form field')) return;
	const value = form.get('refresh_token');
	if (!value) {
		refuse(store, res, {
			spec: {
				status: 400,
				code: ERROR_CODE.invalidRequest,
				description: 'The refresh_token form field is required',
			},
			service: requiredParam('refresh_token'),
		});
		return;
	}
	const record = store.refreshTokens.get(value);
	const invalidGrant = (description: string, service: TokenRefusal['service']) =>
		refuse(store, res, {
			spec: { status: 400, code: ERROR_CODE.invalidGrant, description },
			service,
		});
	if (!record || record.consumerKey !== app.consumerKey || record.used || record.revoked) {
		invalidGrant(
			'The refresh token is not recognised, was already used, or was revoked',
			SERVICE_TOKEN_ERROR.invalidRefreshToken,
		);
		return;
	}
	if (store.now() >= record.expiresAt) {
		invalidGrant('The refresh token has expired', SERVICE_TOKEN_ERROR.expiredRefreshToken);
		return;
	}
	record.used = true;
	issueToken(store, res, app, record.account, issue);
}
