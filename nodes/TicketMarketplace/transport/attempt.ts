/** What one attempt tells: its answer or failure, its meaning by the answer table, and the wait before a retry. */
import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { headerValue } from '../../shared/partnerApi/apiAnswers';
import { meaningOf, readAnswer } from '../../shared/partnerApi/answerTable';
import type { AnswerFacts, AnswerMeaning } from '../../shared/partnerApi/answerTable';
import { failedTokenExchangeOf, wasHandedOn } from '../../shared/partnerApi/pastN8n';
import type { TokenDiagnosis } from '../../shared/partnerApi/pastN8n';
import type { AttemptOutcome, RequestPacer, Slot } from './pacing';
import { parseRetryAfter, retryWait, RETRY_POLICY } from './retryAfter';

export interface HttpFailure {
	status?: number;
	headers: Record<string, unknown>;
	body?: unknown;
	code?: string;
	message: string;
	/** No token could be had (what the credential said): nothing was sent. */
	tokenExchange?: TokenDiagnosis;
	/** A file could not be read from n8n's binary data: nothing was sent. */
	unreadableFile?: boolean;
	/** Thrown after the credential handed the request on to be sent: it may have left. */
	handedOn?: boolean;
	/** A Retry-After, or a spike arrest's interval, longer than this node waits. */
	retryAfterMs?: number;
	spikeIntervalMs?: number;
	/** A 401 to a token just issued, or after the run's last renewal (how many it made). */
	refusedAfterRenewal?: boolean;
	renewalsExhausted?: number;
	/** Read once when it arrived; `refusal`: the rate refusal that asked for a wait too long, as first read. */
	meaning?: AnswerMeaning;
	refusal?: AnswerMeaning;
}

export type Answer = { response: IN8nHttpFullResponse; meaning: AnswerMeaning };

export type AuthenticatedAnswer =
	| (Answer & Pick<HttpFailure, 'refusedAfterRenewal' | 'renewalsExhausted'> & { kind: 'response' })
	| { kind: 'thrown'; error: unknown }
	| { kind: 'notSent' };

export interface AuthenticatedSendOptions {
	/** Before an answered request goes again (the pacer counts it). */
	onResend?: () => void;
	/** Aborted once the run sends nothing more: no login and no resend either. */
	closed?: AbortSignal;
	/** Read once as it arrives: its row says whether a renewed token may mend it. */
	meaningOf?: (response: IN8nHttpFullResponse) => AnswerMeaning;
}

/** The counts one request keeps across its attempts: they bound its retries and its failure reports them. */
export interface RetryCounts {
	rateLimitRetries: number;
	connectionRetries: number;
	rateLimitAnswers: number;
	lastRetryAfterMs?: number;
}

export interface MeaningContext {
	path?: string;
	createsId?: string | number;
	secrets?: readonly string[];
}

/** What a failure means, with what the run learnt beside it. */
export function meaningOfFailure(failure: HttpFailure, context: MeaningContext): AnswerMeaning {
	const { status, refusal, unreadableFile, tokenExchange, code, handedOn } = failure;
	const noAnswer = unreadableFile
		? 'unreadableFile'
		: tokenExchange
			? 'tokenExchange'
			: (code ?? (handedOn ? 'handedOn' : undefined));
	const facts: AnswerFacts =
		status === undefined
			? { status: 0, failure: noAnswer ?? '' }
			: refusal
				? { status, code: refusal.code, words: refusal.words }
				: readAnswer(status, failure.headers, failure.body, context.secrets);
	facts.evidence = false;
	if (failure.refusedAfterRenewal) facts.renewal = 'freshTokenRefused';
	else if (failure.renewalsExhausted !== undefined) facts.renewal = 'renewalsExhausted';
	if (failure.spikeIntervalMs !== undefined) facts.tooLong = 'spikeInterval';
	else if (failure.retryAfterMs !== undefined) facts.tooLong = 'retryAfter';
	return meaningOf(facts, { endpoint: 'api', path: context.path, createsId: context.createsId });
}

/** An answer as it arrives: the caller's evidence first (an answer it confirms is not read for words). */
export function answerMeaning(
	response: IN8nHttpFullResponse,
	rules: MeaningContext & { confirmedBy?: (answer: IN8nHttpFullResponse) => boolean },
	secrets: () => readonly string[],
): AnswerMeaning {
	const { statusCode: status, headers, body } = response;
	const evidence = rules.confirmedBy?.(response);
	const facts = evidence ? { status } : readAnswer(status, headers, body, secrets());
	return meaningOf({ ...facts, evidence }, { ...rules, endpoint: 'api' });
}

export class UnreadableFileError extends Error {}

/** What a thrown error tells: NodeApiError keeps the status or network code and the body, not the headers. */
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
	// n8n wraps what it throws, but an error in axios' shape still carries the answer.
	if (thrown.response) {
		const { status, headers, data } = thrown.response;
		const code = typeof thrown.code === 'string' ? thrown.code : undefined;
		return { status, headers: headers ?? {}, body: data, code, message };
	}
	const rawCode = thrown.httpCode ?? thrown.code;
	const code =
		typeof rawCode === 'string' || typeof rawCode === 'number' ? String(rawCode) : undefined;
	const body = thrown.context?.data;
	if (code !== undefined && /^\d{3}$/.test(code))
		return { status: Number(code), headers: {}, body, message };
	return { headers: {}, body, code, message, handedOn: wasHandedOn(thrown) };
}

/** A failed attempt and its meaning: as read on arrival, again only when a renewal said a 401 was no expiry. */
export function readFailure(
	sent: Exclude<AuthenticatedAnswer, { kind: 'notSent' }>,
	context: MeaningContext,
): HttpFailure {
	const failure: HttpFailure =
		sent.kind === 'thrown'
			? describeThrown(sent.error)
			: {
					status: sent.response.statusCode,
					headers: sent.response.headers ?? {},
					body: sent.response.body,
					message: `HTTP ${sent.response.statusCode}`,
					refusedAfterRenewal: sent.refusedAfterRenewal,
					renewalsExhausted: sent.renewalsExhausted,
					meaning: sent.meaning,
				};
	const renewal = failure.refusedAfterRenewal || failure.renewalsExhausted !== undefined;
	if (failure.meaning === undefined || renewal)
		failure.meaning = meaningOfFailure(failure, context);
	return failure;
}

/** Ends a failed attempt: counts it, closes the pacer if it stops every send, frees its slot; the wait, if any. */
export function settleFailure(
	failure: HttpFailure,
	counts: RetryCounts,
	startedAt: number,
	pacer?: RequestPacer,
	slot?: Slot,
): number | undefined {
	const { meaning, status } = failure;
	// Read only where the row is a rate refusal (retryWaitMs).
	const retryAfterMs = parseRetryAfter(headerValue(failure.headers, 'retry-after'), Date.now());
	// What the pacer learns: a rate refusal (by the gateway), a round trip, or no answer.
	const outcome: AttemptOutcome =
		meaning?.retry === 'rateLimit'
			? {
					kind: 'rateLimited',
					retryAfterMs,
					spikeArrest: meaning.row === 'spikeArrest',
					allowedPerSecond: meaning.allowedPerSecond,
				}
			: status === undefined
				? { kind: 'failed' }
				: { kind: 'answered', roundTripMs: Date.now() - startedAt, accepted: false };
	const waitMs = retryWaitMs(failure, retryAfterMs, counts);
	// Read after retryWaitMs: a wait too long makes a row of its own.
	if (failure.meaning?.stopsRun) pacer?.close();
	// Said as the slot is freed, so a stopping run starts nothing new; a taken ID ends this request only.
	slot?.release({
		...outcome,
		final: waitMs === undefined && failure.meaning?.outcome !== 'alreadyListed',
	});
	return waitMs;
}

/** The wait before a retry (undefined: none), as its row says, counted; one too long becomes its own row. */
function retryWaitMs(
	failure: HttpFailure,
	retryAfterMs: number | undefined,
	counts: RetryCounts,
): number | undefined {
	const meaning = failure.meaning;
	if (meaning?.retry === 'rateLimit') {
		// A longer wait than this node takes: its own row from now on, the refusal kept.
		const tooLong = (wait: { retryAfterMs: number } | { spikeIntervalMs: number }) => {
			Object.assign(failure, wait, { refusal: meaning });
			failure.meaning = meaningOfFailure(failure, {});
			return undefined;
		};
		counts.rateLimitAnswers++;
		const allowed = meaning.allowedPerSecond;
		if (allowed !== undefined && 1000 / allowed > RETRY_POLICY.maxWaitMs)
			return tooLong({ spikeIntervalMs: 1000 / allowed });
		if (retryAfterMs !== undefined) counts.lastRetryAfterMs = retryAfterMs;
		if (retryAfterMs !== undefined && retryAfterMs > RETRY_POLICY.maxRetryAfterMs)
			return tooLong({ retryAfterMs });
	}
	// Every 429 counts, whatever wait it names: a Retry-After of 0 or in the past is not a free retry.
	return retryWait(meaning?.retry, counts, retryAfterMs, meaning?.allowedPerSecond);
}
