/**
 * The hidden field that ties the access token (and the refresh token) to the login that got it, and the lifetime
 * read from a token answer.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import {
	accessTokenExpired,
	accessTokenForThisLogin,
	MIN_KNOWN_LIFETIME_S,
	refreshTokenFieldAfter,
} from '../../../../../nodes/shared/partnerApi/pastN8n';

const NOW = 1_700_000_000_000;
const LOGIN: ICredentialDataDecryptedObject = {
	baseUrl: 'https://api.market.test/',
	consumerKey: 'ck',
	consumerSecret: 'cs',
	email: 'seller@example.test',
	password: 'pw',
};

function issued(answer: Record<string, unknown>, login = LOGIN): ICredentialDataDecryptedObject {
	return {
		...login,
		accessToken: String(answer.access_token),
		refreshToken: refreshTokenFieldAfter(login, answer, undefined, NOW),
	};
}

describe('the access token is tied to its login', () => {
	it('writes the field even when the answer has no refresh token and no lifetime', () => {
		const field = refreshTokenFieldAfter(LOGIN, { access_token: 'a' }, undefined, NOW);
		expect(field).not.toBe('');
		expect(accessTokenForThisLogin(issued({ access_token: 'a' }))).toBe('a');
	});

	it('keeps the token for the same origin spelled otherwise', () => {
		const stored = issued({ access_token: 'a' });
		expect(accessTokenForThisLogin({ ...stored, baseUrl: 'HTTPS://API.MARKET.TEST:443' })).toBe(
			'a',
		);
	});

	it.each([
		['baseUrl', 'https://other.market.test'],
		['consumerKey', 'ck2'],
		['consumerSecret', 'cs2'],
		['email', 'other@example.test'],
		['password', 'pw2'],
	])('gives no token once %s is edited', (field, value) => {
		expect(accessTokenForThisLogin({ ...issued({ access_token: 'a' }), [field]: value })).toBe('');
	});

	it('gives no token saved before tokens were tied to their login (no field, or not ours)', () => {
		expect(accessTokenForThisLogin({ ...LOGIN, accessToken: 'old', refreshToken: '' })).toBe('');
		expect(accessTokenForThisLogin({ ...LOGIN, accessToken: 'old' })).toBe('');
		expect(accessTokenForThisLogin({ ...LOGIN, accessToken: 'old', refreshToken: 'x' })).toBe('');
	});
});

describe('the lifetime a token answer gives', () => {
	it.each(['0', '1', 0, 59])(
		'reads expires_in %j as unknown, not as expired at once',
		(expiresIn) => {
			const stored = issued({ access_token: 'a', expires_in: expiresIn });
			expect(accessTokenExpired(stored, NOW)).toBe(false);
			expect(accessTokenExpired(stored, NOW + 365 * 24 * 3_600_000)).toBe(false);
		},
	);

	it('keeps a lifetime from the floor up, renewed a little early', () => {
		const stored = issued({ access_token: 'a', expires_in: String(MIN_KNOWN_LIFETIME_S) });
		expect(accessTokenExpired(stored, NOW)).toBe(false);
		expect(accessTokenExpired(stored, NOW + MIN_KNOWN_LIFETIME_S * 1000)).toBe(true);
	});
});
