import { createHash, timingSafeEqual } from 'node:crypto';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

export const CALLBACK_CREDENTIAL_TYPE = 'ticketMarketplaceCallbackApi';

/** A shorter secret would let anyone holding one issued token guess the signing key offline. */
export const MIN_CLIENT_SECRET_LENGTH = 16;

export interface CallbackClient {
	clientId: string;
	clientSecret: string;
}

/** What to do about a callback credential that cannot be used, whatever is wrong with it. */
export const CALLBACK_FIX =
	'Open the Ticket Marketplace Callback API credential and fix it: a client ID without spaces at either end, and a client secret of at least 16 characters (a long random string is best).';

/** Returns the client, or a sentence (free of secrets) saying why the credential cannot be used. */
export function readCallbackClient(
	data: ICredentialDataDecryptedObject | undefined,
): CallbackClient | string {
	// Used exactly as typed: the Subscribe operation sends the same values to the marketplace.
	const clientId = typeof data?.clientId === 'string' ? data.clientId : '';
	const clientSecret = typeof data?.clientSecret === 'string' ? data.clientSecret : '';
	if (clientId.trim() === '') return 'The callback credential has no client ID';
	// A pasted space would be compared as typed and fail every token request: refuse it where it is typed.
	if (clientId !== clientId.trim())
		return "The callback credential's client ID starts or ends with a space";
	if (clientSecret !== clientSecret.trim())
		return "The callback credential's client secret starts or ends with a space";
	if (clientSecret.length < MIN_CLIENT_SECRET_LENGTH) {
		return `The callback credential's client secret must have at least ${MIN_CLIENT_SECRET_LENGTH} characters`;
	}
	return { clientId, clientSecret };
}

/**
 * Constant-time string equality: both sides are hashed first so that timingSafeEqual always compares equal-length
 * digests and the length of the secret does not show either.
 */
export function constantTimeEqual(presented: string, expected: string): boolean {
	const presentedDigest = createHash('sha256').update(presented, 'utf8').digest();
	const expectedDigest = createHash('sha256').update(expected, 'utf8').digest();
	return timingSafeEqual(presentedDigest, expectedDigest);
}

/**
 * Local check for the callback credential: there is nothing remote to call, since the marketplace presents these
 * values to us. The Ticket Marketplace action node reuses this for its Subscribe operation.
 */
export async function testCallbackCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const client = readCallbackClient(credential.data);
	if (typeof client === 'string') return { status: 'Error', message: `${client}. ${CALLBACK_FIX}` };
	return { status: 'OK', message: 'The client ID and secret can be used by the trigger' };
}
