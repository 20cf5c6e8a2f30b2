/** The Partner API credential as a run uses it: read once, with every secret an answer must never echo. */
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	IExecuteFunctions,
} from 'n8n-workflow';

import { anyKeptRefreshToken } from '../../shared/partnerApi/pastN8n';
import {
	basicAuthorization,
	loginValues,
	normalizeBaseUrl,
} from '../../shared/partnerApi/partnerApi';
import { TokenRenewal } from './tokenRenewal';

export const CREDENTIAL_NAME = 'ticketMarketplaceApi';

/**
 * Read once for a run: otherwise n8n decrypts it from its database on every request (as costly as the rest of one),
 * and the shared object carries a renewed token to every later request.
 */
export interface RunCredential {
	baseUrl: string;
	decrypted: ICredentialsDecrypted;
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

export async function getBaseUrl(this: IExecuteFunctions): Promise<string> {
	const credentials = await this.getCredentials(CREDENTIAL_NAME);
	return normalizeBaseUrl(credentials.baseUrl);
}

/** Never echoed into an output: the credential's values, and every token the run's requests carried. */
export function runSecrets(credential: RunCredential): string[] {
	const all = [
		...credentialSecrets(credential.decrypted.data),
		...credential.renewal.tokensCarried(),
	];
	return [...new Set(all)].filter((value) => value.length >= MIN_SECRET_LENGTH);
}

/** Shorter values are not redacted: they would blank out ordinary words and numbers. */
const MIN_SECRET_LENGTH = 4;

/** Every value an answer could echo (the Basic key:secret and refresh token too), read when asked. */
export function credentialSecrets(data: ICredentialDataDecryptedObject | undefined): string[] {
	if (!data) return [];
	const values = ['consumerKey', 'consumerSecret', 'email', 'password', 'accessToken']
		.map((key) => data[key])
		.filter((value): value is string => typeof value === 'string');
	// As sent, too (trimmed).
	values.push(...Object.values(loginValues(data)));
	values.push(basicAuthorization(data.consumerKey, data.consumerSecret).slice('Basic '.length));
	values.push(...anyKeptRefreshToken(data));
	return [...new Set(values)].filter((value) => value.length >= MIN_SECRET_LENGTH);
}
