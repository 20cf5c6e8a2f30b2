/**
 * What the node and its credential tell each other past n8n, and how. Three facts cross:
 *
 * - node → credential: the run's cancel signal (Stop, the workflow timeout). n8n gives the credential's
 *   preAuthentication nothing of the run but the decrypted credential object, so the signal rides on that object.
 * - credential → node: a failed token exchange, as facts: its diagnosis (what to tell the user, title and
 *   description apart) and the token endpoint's answer (whether a later login could pass). n8n wraps the
 *   credential's error in a NodeApiError that keeps only its words, so the facts ride on the same object, and on the
 *   credential's own error for whoever holds it.
 *
 * The object is the one the node hands to httpRequestWithAuthentication (`credentialsDecrypted.data`): n8n-core
 * passes it, not a copy, to preAuthentication. Every fact sits under a symbol key and is not enumerable, so it is
 * never copied, saved with the credential or shown. Nothing here is read back from words meant for a user.
 */
import { UserError } from 'n8n-workflow';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { tokenDestinationRefusal } from './tokenDestination';
import { accessTokenExpired, accessTokenForThisLogin } from './tokenRefresh';

/**
 * What went wrong, in two parts as n8n shows an error: the title says what happened in one line (no text from the
 * answer, no address: nothing that could make it long), the description what to do.
 */
export interface TokenDiagnosis {
	title: string;
	description: string;
}

/** What the token endpoint answered: a 429 or a 5xx is worth a later retry, a refused login is not. */
export interface TokenEndpointAnswer {
	status?: number;
	/** The Retry-After header as sent, for the caller to read. */
	retryAfter?: string;
	/** The answer is final whatever its status (the plan's quota is used up): no later login would pass. */
	final?: boolean;
}

/** A token exchange that gave no usable token: what to say, and what the endpoint answered (if it did). */
export interface FailedTokenExchange {
	diagnosis: TokenDiagnosis;
	answer: TokenEndpointAnswer;
	/** The credential's own error, as it threw it. */
	error: UserError;
}

const CANCEL_SIGNAL = Symbol.for('n8n-nodes-ticket-marketplace.runCancelSignal');
const FAILED_EXCHANGE = Symbol.for('n8n-nodes-ticket-marketplace.failedTokenExchange');
const HANDED_REQUEST = Symbol.for('n8n-nodes-ticket-marketplace.handedRequest');

/**
 * What `authenticate` did with the last request: refused it (nothing sent), held it back because the token must be
 * renewed first (nothing sent), or let it go with the token, through n8n's legacy request helper or its newer one.
 */
export type HandedRequest =
	| { kind: 'refused' }
	| { kind: 'needsToken' }
	| { kind: 'sent'; legacy: boolean };

function carry(holder: object, key: symbol, value: unknown): void {
	Object.defineProperty(holder, key, {
		value,
		enumerable: false,
		configurable: true,
		writable: true,
	});
}

/** Hands the run's cancel signal to the token exchange. Where n8n hands over a copy, its timeout still ends it. */
export function carryCancelSignal(credential: object, signal: AbortSignal | undefined): void {
	if (signal !== undefined) carry(credential, CANCEL_SIGNAL, signal);
}

/** The run's cancel signal carried by carryCancelSignal, if any. */
export function carriedCancelSignal(credential: object): AbortSignal | undefined {
	const signal = (credential as Record<symbol, unknown>)[CANCEL_SIGNAL];
	return signal instanceof AbortSignal ? signal : undefined;
}

/** The diagnosis as one text, as a credential test in n8n shows it: the title, then the description. */
export function diagnosisText(diagnosis: TokenDiagnosis): string {
	return `${diagnosis.title}. ${diagnosis.description}`;
}

/**
 * The token exchange failed: notes it on the credential object and returns the error to throw, which carries the
 * same facts (a credential test shows its words).
 */
export function failTokenExchange(
	credential: object,
	diagnosis: TokenDiagnosis,
	answer: TokenEndpointAnswer = {},
): UserError {
	const error = new UserError(diagnosisText(diagnosis));
	const failed: FailedTokenExchange = { diagnosis, answer, error };
	carry(error, FAILED_EXCHANGE, failed);
	carry(credential, FAILED_EXCHANGE, failed);
	return error;
}

/** A token exchange begins: what an earlier one noted no longer holds. */
export function forgetTokenExchange(credential: object): void {
	carry(credential, FAILED_EXCHANGE, undefined);
}

function failedOn(holder: unknown): FailedTokenExchange | undefined {
	if (holder === null || typeof holder !== 'object') return undefined;
	const failed = (holder as Record<symbol, unknown>)[FAILED_EXCHANGE];
	return failed !== null && typeof failed === 'object'
		? (failed as FailedTokenExchange)
		: undefined;
}

/** The last token exchange on this credential object, when it failed (and no exchange began since). */
export function failedTokenExchange(credential: object): FailedTokenExchange | undefined {
	return failedOn(credential);
}

/** The failed token exchange an error is, as the credential threw it or kept as its `cause`. */
export function failedTokenExchangeOf(error: unknown): FailedTokenExchange | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
		const failed = failedOn(current);
		if (failed) return failed;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

function noteHandedRequest(credential: object, handed: HandedRequest): void {
	carry(credential, HANDED_REQUEST, handed);
}

/**
 * Whether the options go through n8n's legacy request helper (`requestWithAuthentication`, which the HTTP Request
 * node uses in every version, and its pagination): they carry the request library's own options (the HTTP Request
 * node always sets `uri`), which n8n's newer helper does not know.
 */
export function isLegacyRequest(options: object): boolean {
	return ['uri', 'resolveWithFullResponse', 'simple', 'gzip', 'useQuerystring', 'formData'].some(
		(key) => key in options,
	);
}

/**
 * Whether preAuthentication, called now, should renew the token. n8n calls it before a request when the token field
 * is empty (and when a credential is tested), and again after the request failed, then sends the request once more
 * if a token comes back. Its newer helper does so after a 401 only; its legacy one (the HTTP Request node) after any
 * failure, a 500 to a POST or a 429 alike, and never says which. So after a request that went with the token through
 * the legacy helper nothing is renewed, and n8n passes the API's answer on as it came; after a request refused before
 * it was sent, nothing either. A request held back for a new token gets one. The fact is used once.
 */
export function renewalWanted(credential: ICredentialDataDecryptedObject): boolean {
	const handed = (credential as Record<symbol, unknown>)[HANDED_REQUEST] as
		| HandedRequest
		| undefined;
	carry(credential, HANDED_REQUEST, undefined);
	// No request goes without a token: an empty field is always filled.
	if (credential.accessToken === '' || credential.accessToken === undefined) return true;
	if (handed === undefined || handed.kind === 'needsToken') return true;
	if (handed.kind === 'refused') return false;
	return !handed.legacy;
}

/**
 * The error of the login that failed last on this credential object, when no request was handed to `authenticate`
 * since: n8n's legacy helper calls preAuthentication again right after preAuthentication itself failed, and a second
 * login would only repeat the first (a second refused password, a second request to a busy token endpoint).
 */
export function loginJustFailed(credential: object): UserError | undefined {
	if ((credential as Record<symbol, unknown>)[HANDED_REQUEST] !== undefined) return undefined;
	return failedOn(credential)?.error;
}

/**
 * The token `authenticate` puts on the request n8n handed it ('' for none), noting what became of the request for
 * the preAuthentication n8n may call next (see renewalWanted). Throws, with nothing sent, when the request may not
 * carry the token (tokenDestination.ts), and, through the legacy helper, when the token must be renewed first: one
 * of another login (the credential was edited since), or past the lifetime its answer gave. n8n then logs in and
 * sends the request once, with the new token; the newer helper sends it as it is, and renews after the API's 401.
 */
export function tokenForRequest(
	credentials: ICredentialDataDecryptedObject,
	options: object,
): string {
	const refusal = tokenDestinationRefusal(credentials, options);
	if (refusal !== undefined) {
		noteHandedRequest(credentials, { kind: 'refused' });
		throw new UserError(refusal);
	}
	const legacy = isLegacyRequest(options);
	const token = accessTokenForThisLogin(credentials);
	if (legacy && (token === '' || accessTokenExpired(credentials, Date.now()))) {
		noteHandedRequest(credentials, { kind: 'needsToken' });
		throw new UserError(
			'The stored access token is not for this credential as it is now, or has expired: it was not sent. n8n logs in and sends the request with a new one.',
		);
	}
	noteHandedRequest(credentials, { kind: 'sent', legacy });
	return token;
}
