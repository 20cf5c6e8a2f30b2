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
	'Open the Ticket Marketplace Callback API credential and fix it: a client ID without a colon and without spaces at either end, and a client secret of at least 16 characters (a long random string is best), both of letters, digits, spaces and the punctuation on a US keyboard.';

/**
 * Returns the client as the trigger can serve it, or a sentence (free of secrets) saying why it cannot. These are
 * the rules a credential already subscribed must meet to keep working; readCallbackClient adds those for new values.
 */
export function readStoredCallbackClient(
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

/** Space to tilde: what every client sends alike, in HTTP Basic (whatever charset it assumes), a form or JSON. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Returns the client, or a sentence (free of secrets) saying why the credential cannot be used: the rules of the
 * credential test and of Subscribe, so that values the marketplace may send in a way the trigger cannot read are
 * refused where they are typed, before the days of activation.
 */
export function readCallbackClient(
	data: ICredentialDataDecryptedObject | undefined,
): CallbackClient | string {
	const client = readStoredCallbackClient(data);
	if (typeof client === 'string') return client;
	// RFC 7617: HTTP Basic splits at the first colon, so a client that does not form-encode first (RFC 6749 2.3.1)
	// would send an ID with a colon as a shorter ID and a longer secret.
	if (client.clientId.includes(':')) return "The callback credential's client ID contains a colon";
	// Control characters are not allowed in Basic; for other characters Basic names no charset, so a client may
	// encode them as Latin-1 or as UTF-8.
	if (!PRINTABLE_ASCII.test(client.clientId))
		return "The callback credential's client ID has a character other than letters, digits, spaces and US keyboard punctuation";
	if (!PRINTABLE_ASCII.test(client.clientSecret))
		return "The callback credential's client secret has a character other than letters, digits, spaces and US keyboard punctuation";
	return client;
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
