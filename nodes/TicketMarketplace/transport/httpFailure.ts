/**
 * A failed request as this module reads it (an answer's status, headers and body, or a network code), and what it
 * tells on its own: whether the request left this machine, what its answer means (by the answer table), whether an
 * answer is JSON, and what its body is, in words.
 */
import { failedTokenExchangeOf, meaningOf, readAnswer, redactSecrets } from './fromCredential';
import type { AnswerMeaning, TokenDiagnosis } from './fromCredential';

/**
 * What a request did, as far as anyone can tell, the one answer every caller reads (Listing → Create's memory, its
 * outputs): `created` when the API holds what it asked for (it answered so, or an answer naming this External
 * Listing ID says it holds it already, and nothing new was created), `notCreated` when it provably created nothing (never
 * sent, an HTTP 4xx answer, a connection that failed before sending, a token that could not be obtained),
 * `unknown` when the request may have reached the API (timeout, reset, 5xx, or a 2xx that does not show it was
 * done).
 */
export type Effect = 'created' | 'unknown' | 'notCreated';

/**
 * What a failed request's answer means, by the answer table (credentials/common/answerTable.ts): undefined when it
 * is no HTTP answer (a network failure, the token exchange) or one the table leaves to the caller (2xx, 3xx).
 */
export function meaningOfFailure(
	failure: HttpFailure,
	context: { path: string; createsId?: string | number; secrets?: readonly string[] },
): AnswerMeaning | undefined {
	if (failure.status === undefined || failure.tokenExchange) return undefined;
	return meaningOf(readAnswer(failure.status, failure.headers, failure.body, context.secrets), {
		endpoint: 'api',
		path: context.path,
		createsId: context.createsId,
	});
}

/** application/json or a JSON-based type (application/problem+json), with or without parameters. */
export function isJsonMediaType(contentType: string): boolean {
	return /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i.test(contentType.trim());
}

/** An error document (RFC 9457, application/problem+json): JSON, but never the thing asked for. */
export function isProblemMediaType(contentType: string): boolean {
	return /^application\/problem\+json\s*(?:;|$)/i.test(contentType.trim());
}

/** The longest part of an unexpected answer's body shown in its error. */
const MAX_BODY_SHOWN = 300;

/** What kind of body a 2xx came with, in words. */
export function bodyInWords(body: unknown, contentType: string): string {
	if (body === undefined || body === null || (typeof body === 'string' && body.trim() === ''))
		return 'an empty body';
	if (/html/i.test(contentType)) return 'an HTML page';
	if (typeof body === 'string') return 'a text body';
	if (Array.isArray(body)) return 'a JSON array';
	if (typeof body === 'object')
		return isJsonMediaType(contentType) ? 'a JSON object' : 'a JSON object not marked as JSON';
	return 'a bare JSON value';
}

/** The body as text, secrets redacted before it is cut (a cut must not leave part of one), bounded. */
export function bodyShown(body: unknown, secrets: string[] | undefined): string {
	let text: string;
	try {
		text = typeof body === 'string' ? body : (JSON.stringify(body) ?? '');
	} catch {
		return '(a body too deeply nested to show)';
	}
	text = redactSecrets(text, secrets).replace(/\s+/g, ' ').trim();
	return text.length > MAX_BODY_SHOWN ? `${text.slice(0, MAX_BODY_SHOWN)}…` : text;
}

/** Failures where the request never left this machine: nothing can have been created, so a retry is safe. */
export const CONNECTION_FAILED_BEFORE_SEND = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'EADDRNOTAVAIL',
]);

/**
 * Failures Node.js throws while it builds the request, before anything is written to the connection (a header
 * value with a line break, say): nothing was sent. Never retried: the same request would fail the same way.
 */
export const REQUEST_NOT_BUILT = new Set([
	'ERR_INVALID_CHAR',
	'ERR_HTTP_INVALID_HEADER_VALUE',
	'ERR_INVALID_HTTP_TOKEN',
	'ERR_UNESCAPED_CHARACTERS',
]);

export interface HttpFailure {
	status?: number;
	headers: Record<string, unknown>;
	body?: unknown;
	code?: string;
	message: string;
	/** The credential could not obtain an access token (what it said): the request itself was never sent. */
	tokenExchange?: TokenDiagnosis;
	/** A Retry-After longer than the policy honours. */
	retryAfterMs?: number;
	/**
	 * A spike arrest whose named rate admits one request less often than the longest wait this node takes (the
	 * interval, ms): no listing can be sent at that rate within a run.
	 */
	spikeIntervalMs?: number;
	/** A 401 to an access token issued a moment ago: the login works, the app may not make this request. */
	refusedAfterRenewal?: boolean;
	/** A 401 to a token that had worked, after the run's last renewal: how many renewals the run made. */
	renewalsExhausted?: number;
	/** What the answer means (meaningOfFailure), read once when it arrived. */
	meaning?: AnswerMeaning;
	/** A file of the request could not be read from n8n's binary data: nothing was sent. */
	unreadableFile?: boolean;
}

/** A file of an upload that n8n's binary data could not hand over when the request was to be sent. */
export class UnreadableFileError extends Error {}

/**
 * What an exception from httpRequestWithAuthentication still tells. n8n wraps every failure in a NodeApiError
 * that keeps the status (or, without a response, the network code such as ECONNREFUSED) in `httpCode` and a JSON
 * body in `context.data`, but drops the axios error and its headers. An axios error itself is read too.
 */
export function describeThrown(error: unknown): HttpFailure {
	if (error instanceof UnreadableFileError)
		return { headers: {}, message: error.message, unreadableFile: true };
	const thrown = (error ?? {}) as {
		httpCode?: unknown;
		code?: unknown;
		context?: { data?: unknown };
		response?: { status?: number; headers?: Record<string, unknown>; data?: unknown };
		message?: unknown;
		messages?: unknown;
	};
	// NodeApiError may swap the original words (e.g. the credential's diagnosis) for a generic text; it keeps them
	// in `messages`.
	const original = Array.isArray(thrown.messages)
		? thrown.messages.find((entry) => typeof entry === 'string')
		: undefined;
	const message = original ?? (typeof thrown.message === 'string' ? thrown.message : String(error));
	const exchange = failedTokenExchangeOf(error);
	if (exchange) return { headers: {}, message, tokenExchange: exchange.diagnosis };
	if (thrown.response) {
		return {
			status: thrown.response.status,
			headers: thrown.response.headers ?? {},
			body: thrown.response.data,
			code: typeof thrown.code === 'string' ? thrown.code : undefined,
			message,
		};
	}
	const rawCode = thrown.httpCode ?? thrown.code;
	const code =
		typeof rawCode === 'string' || typeof rawCode === 'number' ? String(rawCode) : undefined;
	const isStatus = code !== undefined && /^\d{3}$/.test(code);
	return {
		status: isStatus ? Number(code) : undefined,
		headers: {},
		body: thrown.context?.data,
		code: isStatus ? undefined : code,
		message,
	};
}
