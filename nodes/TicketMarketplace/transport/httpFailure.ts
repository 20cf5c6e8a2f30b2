/** A failed request (an answer, or a network code) and what it means by the answer table. */
import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { failedTokenExchangeOf } from '../../shared/partnerApi/pastN8n';
import { isJsonMediaType, redactSecrets } from '../../shared/partnerApi/apiAnswers';
import { meaningOf, readAnswer } from '../../shared/partnerApi/answerTable';
import type { AnswerFacts, AnswerMeaning, Outcome } from '../../shared/partnerApi/answerTable';
import type { TokenDiagnosis } from '../../shared/partnerApi/pastN8n';

export {
	CONNECTION_FAILED_BEFORE_SEND,
	REQUEST_NOT_BUILT,
} from '../../shared/partnerApi/apiAnswers';

/** What a request did, as far as anyone can tell (Create's memory and outputs read it). */
export type Effect = Outcome;

/** Its answer, or what kept one from coming, with what the run learnt (a renewal that failed, a wait too long). */
export function meaningOfFailure(
	failure: HttpFailure,
	context: { path: string; createsId?: string | number; secrets?: readonly string[] },
): AnswerMeaning {
	const { status, unreadableFile, tokenExchange, code } = failure;
	const noAnswer = unreadableFile ? 'unreadableFile' : tokenExchange ? 'tokenExchange' : code;
	const facts: AnswerFacts =
		status === undefined
			? { status: 0, failure: noAnswer ?? '' }
			: readAnswer(status, failure.headers, failure.body, context.secrets);
	// A failure is never the evidence that the request was done.
	facts.evidence = false;
	if (failure.refusedAfterRenewal) facts.renewal = 'freshTokenRefused';
	else if (failure.renewalsExhausted !== undefined) facts.renewal = 'renewalsExhausted';
	if (failure.spikeIntervalMs !== undefined) facts.tooLong = 'spikeInterval';
	else if (failure.retryAfterMs !== undefined) facts.tooLong = 'retryAfter';
	return meaningOf(facts, { endpoint: 'api', path: context.path, createsId: context.createsId });
}

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

/** The body as text, redacted before it is cut (a cut must not leave part of a secret). */
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
	/** No token could be had (what the credential said): nothing was sent. */
	tokenExchange?: TokenDiagnosis;
	/** A Retry-After longer than the policy honours. */
	retryAfterMs?: number;
	/** A spike arrest's interval (ms), longer than the longest wait this node takes. */
	spikeIntervalMs?: number;
	/** A 401 to a token just issued. */
	refusedAfterRenewal?: boolean;
	/** A 401 after the run's last renewal: how many it made. */
	renewalsExhausted?: number;
	/** Read once when it arrived. */
	meaning?: AnswerMeaning;
	/** The rate refusal that asked for a wait too long to take, as first read. */
	refusal?: AnswerMeaning;
	/** A file could not be read from n8n's binary data: nothing was sent. */
	unreadableFile?: boolean;
}

export class UnreadableFileError extends Error {}

/**
 * What a thrown error still tells: n8n's NodeApiError keeps the status or network code in `httpCode` and a JSON body
 * in `context.data`, but drops the headers. An axios error itself is read too.
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
	// NodeApiError may swap the original words for a generic text; it keeps them in `messages`.
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

/** An answer as it arrives: the caller's evidence first; a success reads nothing more. */
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
		? { status, evidence }
		: { ...readAnswer(status, headers as Record<string, unknown>, body, secrets()), evidence };
	return meaningOf(facts, { endpoint: 'api', path: rules.path, createsId: rules.createsId });
}

/** A rate refusal asking for a longer wait than this node takes: its own row from now on, the refusal kept. */
export function tooLongToWait(failure: HttpFailure, tooLong: 'retryAfter' | 'spikeInterval'): void {
	const refusal = failure.meaning;
	failure.refusal = refusal;
	const said = { code: refusal?.code, words: refusal?.words };
	failure.meaning = meaningOf(
		{ ...said, status: failure.status ?? 0, tooLong },
		{ endpoint: 'api' },
	);
}
