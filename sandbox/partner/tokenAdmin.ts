/** The admin's operations on access tokens (spec 5): expire and revoke, by id or all of them. */
import { ERROR_CODE } from '../choices';
import { SandboxError } from '../errors';
import type { TokenRecord } from '../records';
import type { SandboxStore } from '../store';
import type { TokenSelector } from '../types';

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

/** Expires access tokens; their refresh tokens too only when asked (the common case: renew with the refresh token). */
export function expireTokens(store: SandboxStore, selector?: TokenSelector): number {
	const chosen = selectTokens(store, selector);
	const at = store.now();
	for (const record of chosen) {
		record.expiresAt = Math.min(record.expiresAt, at);
		const refresh = record.refreshToken && store.refreshTokens.get(record.refreshToken);
		if (selector?.refreshTokens === true && refresh)
			refresh.expiresAt = Math.min(refresh.expiresAt, at);
	}
	return chosen.length;
}

/** Revokes an access token and the refresh token issued with it. */
export function revokeRecord(store: SandboxStore, record: TokenRecord): void {
	record.revoked = true;
	const refresh = record.refreshToken && store.refreshTokens.get(record.refreshToken);
	if (refresh) refresh.revoked = true;
}

export function revokeTokens(store: SandboxStore, selector?: TokenSelector): number {
	const chosen = selectTokens(store, selector);
	for (const record of chosen) revokeRecord(store, record);
	return chosen.length;
}
