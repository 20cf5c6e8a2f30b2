import { createHash, timingSafeEqual } from 'node:crypto';
import type { ICredentialDataDecryptedObject, ICredentialTestFunction } from 'n8n-workflow';

export const CALLBACK_CREDENTIAL_TYPE = 'ticketMarketplaceCallbackApi';

/** The trigger's two webhook paths; Subscribe reads them to judge its URLs. */
export const TRIGGER_PATHS = { token: 'token', notifications: 'notifications' };

/** A shorter secret would let anyone holding one issued token guess the signing key offline. */
const MIN_CLIENT_SECRET_LENGTH = 16;

export type CallbackClient = { clientId: string; clientSecret: string };

export const CALLBACK_FIX =
	'Open the Ticket Marketplace Callback API credential and fix it: a client ID without a colon and without spaces at either end, and a client secret of at least 16 characters (a long random string is best), both of letters, digits, spaces and the punctuation on a US keyboard.';

/** The client as the trigger serves it, or why it cannot (no secret): what a subscribed credential must meet. */
export function readStoredCallbackClient(
	data: ICredentialDataDecryptedObject | undefined,
): CallbackClient | string {
	// Used exactly as typed, as Subscribe sends them; a pasted space would fail every token request.
	const clientId = typeof data?.clientId === 'string' ? data.clientId : '';
	const clientSecret = typeof data?.clientSecret === 'string' ? data.clientSecret : '';
	if (clientId.trim() === '') return 'The callback credential has no client ID';
	if (clientId !== clientId.trim())
		return "The callback credential's client ID starts or ends with a space";
	if (clientSecret !== clientSecret.trim())
		return "The callback credential's client secret starts or ends with a space";
	if (clientSecret.length < MIN_CLIENT_SECRET_LENGTH)
		return `The callback credential's client secret must have at least ${MIN_CLIENT_SECRET_LENGTH} characters`;
	return { clientId, clientSecret };
}

/** Space to tilde: what every client sends alike, in HTTP Basic (whatever charset it assumes), a form or JSON. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** As readStoredCallbackClient, plus what the test and Subscribe refuse: values a client may send unreadably. */
export function readCallbackClient(
	data: ICredentialDataDecryptedObject | undefined,
): CallbackClient | string {
	const client = readStoredCallbackClient(data);
	if (typeof client === 'string') return client;
	// RFC 7617: Basic splits at the first colon, so an unencoded ID with a colon would arrive cut short.
	if (client.clientId.includes(':')) return "The callback credential's client ID contains a colon";
	// Basic allows no control characters and names no charset (Latin-1 or UTF-8) for the others.
	for (const [name, value] of Object.entries({ ID: client.clientId, secret: client.clientSecret }))
		if (!PRINTABLE_ASCII.test(value))
			return `The callback credential's client ${name} has a character other than letters, digits, spaces and US keyboard punctuation`;
	return client;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();
/** Constant-time string equality: hashed first, so the secret's length does not show either. */
export const constantTimeEqual = (presented: string, expected: string) =>
	timingSafeEqual(sha256(presented), sha256(expected));

/** Local check for the callback credential (nothing remote to call); Subscribe reuses it too. */
export const testCallbackCredential: ICredentialTestFunction = async (credential) => {
	const client = readCallbackClient(credential.data);
	if (typeof client === 'string') return { status: 'Error', message: `${client}. ${CALLBACK_FIX}` };
	return { status: 'OK', message: 'The client ID and secret can be used by the trigger' };
};
