/** The Partner API credential as a run uses it: read once, with every secret an answer must never echo. */
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	IExecuteFunctions,
} from 'n8n-workflow';

import {
	anyKeptRefreshToken,
	basicAuthorization,
	loginValues,
	normalizeBaseUrl,
} from './fromCredential';
import { TokenRenewal } from './tokenRenewal';

export const CREDENTIAL_NAME = 'ticketMarketplaceApi';

/**
 * The credential as read once for a run: its Base URL, and the decrypted credential handed to n8n with each
 * request. Without it, n8n reads and decrypts the credential from its database on every request, which costs the
 * event loop about as much as the rest of a request; a shared object also carries a renewed token to every later
 * request of the run (n8n's preAuthentication writes it there and into the database).
 */
export interface RunCredential {
	baseUrl: string;
	decrypted: ICredentialsDecrypted;
	/** One renewal of the token at a time for every request of the run. */
	renewal: TokenRenewal;
}

export async function readRunCredential(this: IExecuteFunctions): Promise<RunCredential> {
	const data = await this.getCredentials(CREDENTIAL_NAME);
	const reference = this.getNode().credentials?.[CREDENTIAL_NAME];
	return {
		baseUrl: normalizeBaseUrl(data.baseUrl),
		decrypted: {
			id: reference?.id ?? '',
			name: reference?.name ?? '',
			type: CREDENTIAL_NAME,
			data,
		},
		renewal: new TokenRenewal(data, this.getExecutionCancelSignal?.()),
	};
}

/** The base URL is the only thing read from the credential here; auth itself is left to n8n. */
export async function getBaseUrl(this: IExecuteFunctions): Promise<string> {
	const credentials = await this.getCredentials(CREDENTIAL_NAME);
	return normalizeBaseUrl(credentials.baseUrl);
}

/**
 * What an answer to this run must never echo into an output: the credential's values now, and every token the
 * run's requests carried (a renewal replaces the one an answer still on its way may echo).
 */
export function runSecrets(credential: RunCredential): string[] {
	return [
		...new Set([
			...credentialSecrets(credential.decrypted.data),
			...credential.renewal.tokensCarried().filter((token) => token.length >= MIN_SECRET_LENGTH),
		]),
	];
}

/** Shorter values are not redacted: they would blank out ordinary words and numbers. */
const MIN_SECRET_LENGTH = 4;

/**
 * Every value of the API credential an answer could echo, and the Basic header's key:secret. redactSecrets finds
 * each in every form it could be echoed in (URL-, form-, HTML- or JSON-encoded, base64). The access token is read
 * at the moment of asking, so a token renewed during the run is covered too; so is the refresh token.
 */
export function credentialSecrets(data: ICredentialDataDecryptedObject | undefined): string[] {
	if (!data) return [];
	const values = ['consumerKey', 'consumerSecret', 'email', 'password', 'accessToken']
		.map((key) => data[key])
		.filter((value): value is string => typeof value === 'string');
	// As sent, too: the key, secret and e-mail go without the spaces a paste may have put around them.
	values.push(...Object.values(loginValues(data)));
	values.push(basicAuthorization(data.consumerKey, data.consumerSecret).slice('Basic '.length));
	values.push(...anyKeptRefreshToken(data));
	return [...new Set(values)].filter((value) => value.length >= MIN_SECRET_LENGTH);
}
