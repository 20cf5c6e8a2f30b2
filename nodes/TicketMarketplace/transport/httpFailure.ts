/**
 * A failed request as this module reads it (an answer's status, headers and body, or a network code), and what it
 * tells on its own: whether the request left this machine, what its answer means (by the answer table), whether an
 * answer is JSON, and what its body is, in words.
 */
import type { IN8nHttpFullResponse } from 'n8n-workflow';

import {
	failedTokenExchangeOf,
	isJsonMediaType,
	meaningOf,
	readAnswer,
	redactSecrets,
} from './fromCredential';
import type { AnswerFacts, AnswerMeaning, Outcome, TokenDiagnosis } from './fromCredential';

export { CONNECTION_FAILED_BEFORE_SEND, REQUEST_NOT_BUILT } from './fromCredential';

/**
 * What a request did, as far as anyone can tell: the answer table's outcome (Listing → Create's memory and outputs
 * read it): `created`, `alreadyListed` (an answer naming this External Listing ID says the API holds it: nothing
 * new was created), `notCreated` when it provably created nothing (never sent, a refusal, a connection that failed
 * before sending, a token that could not be obtained), `unknown` when it may have reached the API.
 */
export type Effect = Outcome;

/** What no answer is, as the answer table reads it. */
const NO_ANSWER: AnswerFacts = { status: 0, retryAfter: '', wwwAuthenticate: '', text: '' };

/**
 * What a failed request means, by the answer table (credentials/common/answerTable.ts): its answer as read once, or
 * what kept one from coming, with what the run learnt of it (a renewal that did not mend a 401, a wait too long).
 */
export function meaningOfFailure(
	failure: HttpFailure,
	context: { path: string; createsId?: string | number; secrets?: readonly string[] },
): AnswerMeaning {
	const answer =
		failure.status === undefined
			? {
					...NO_ANSWER,
					failure: failure.unreadableFile
						? 'unreadableFile'
						: failure.tokenExchange
							? 'tokenExchange'
							: (failure.code ?? ''),
				}
			: readAnswer(failure.status, failure.headers, failure.body, context.secrets);
	const facts: AnswerFacts = {
		...answer,
		// A failure is never the evidence that the request was done.
		evidence: false,
		renewal: failure.refusedAfterRenewal
			? 'freshTokenRefused'
			: failure.renewalsExhausted !== undefined
				? 'renewalsExhausted'
				: undefined,
		tooLong:
			failure.spikeIntervalMs !== undefined
				? 'spikeInterval'
				: failure.retryAfterMs !== undefined
					? 'retryAfter'
					: undefined,
	};
	return meaningOf(facts, { endpoint: 'api', path: context.path, createsId: context.createsId });
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
	/** The rate refusal that asked for a wait too long to take (retryAfterMs, spikeIntervalMs), as first read. */
	refusal?: AnswerMeaning;
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

/** What the answer table makes of an answer as it arrives: the caller's evidence first; a success reads nothing more. */
export function answerMeaning(
	response: IN8nHttpFullResponse,
	rules: {
		path: string;
		confirmedBy?: (answer: IN8nHttpFullResponse) => boolean;
		createsId?: string | number;
	},
	secrets: () => readonly string[],
): AnswerMeaning {
	const evidence = rules.confirmedBy?.(response);
	const { statusCode: status, headers, body } = response;
	const facts = evidence
		? { ...NO_ANSWER, status, evidence }
		: { ...readAnswer(status, headers as Record<string, unknown>, body, secrets()), evidence };
	return meaningOf(facts, { endpoint: 'api', path: rules.path, createsId: rules.createsId });
}

/**
 * A rate refusal that asks for a wait longer than this node takes: its own row from now on (not retried, and a spike
 * arrest's rate too slow for any run stops it), the refusal kept for its words.
 */
export function tooLongToWait(failure: HttpFailure, tooLong: 'retryAfter' | 'spikeInterval'): void {
	const refusal = failure.meaning;
	failure.refusal = refusal;
	const said = { code: refusal?.code, words: refusal?.words };
	failure.meaning = meaningOf(
		{ ...NO_ANSWER, ...said, status: failure.status ?? 0, tooLong },
		{ endpoint: 'api' },
	);
}
