/**
 * What the node and its credential tell each other past n8n, and how. Two facts cross:
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
