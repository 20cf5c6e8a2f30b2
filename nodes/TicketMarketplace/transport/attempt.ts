/**
 * What one attempt at a request tells (sendRequest sends it): its answer or its failure, what the pacer learns from
 * it, whether it stops every send, and how long to wait before trying it again, if at all.
 */
import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { CONNECTION_FAILED_BEFORE_SEND, describeThrown, meaningOfFailure } from './httpFailure';
import type { HttpFailure } from './httpFailure';
import type { AttemptOutcome, RequestPacer, Slot } from './pacing';
import { backoffMs, rateRetryWaitMs, retryAfterOf, RETRY_POLICY } from './retryAfter';
import type { AuthenticatedAnswer } from './tokenRenewal';

/** The counts one request keeps across its attempts: they bound its retries and its failure reports them. */
export interface RetryCounts {
	rateLimitRetries: number;
	connectionRetries: number;
	rateLimitAnswers: number;
	lastRetryAfterMs?: number;
}

/**
 * The pacer's slot for the next attempt (undefined without a pacer), or null when the run stopped before it: a
 * stopped run closes the pacer, so nothing more starts.
 */
export async function slotForAttempt(
	pacer: RequestPacer | undefined,
	retryFirst: boolean,
	cancel?: AbortSignal,
): Promise<Slot | undefined | null> {
	const slot = pacer ? await pacer.acquire(retryFirst) : undefined;
	if (slot === null) return null;
	if (cancel?.aborted) {
		pacer?.close();
		slot?.release({ kind: 'failed' });
		return null;
	}
	return slot;
}

/** What an attempt is checked against: the request's path and, if any, its confirmation and what it creates. */
export interface AttemptRules {
	path: string;
	confirmedBy?: (answer: IN8nHttpFullResponse) => boolean;
	createsId?: string | number;
}

/**
 * An attempt that went out: the API's answer when a 2xx confirms it, else the failure with what it means (read once,
 * as it arrives). `secrets` are read only for a failure, whose answer must never echo them.
 */
export function readAttempt(
	sent: Exclude<AuthenticatedAnswer, { kind: 'notSent' }>,
	rules: AttemptRules,
	secrets: () => string[],
): { answer: unknown; failure?: undefined } | { answer?: undefined; failure: HttpFailure } {
	let failure: HttpFailure;
	if (sent.kind === 'thrown') failure = describeThrown(sent.error);
	else {
		const unconfirmedAnswer = unconfirmed(sent, rules.confirmedBy);
		if (unconfirmedAnswer === undefined) return { answer: sent.response.body };
		failure = unconfirmedAnswer;
	}
	failure.meaning = meaningOfFailure(failure, {
		path: rules.path,
		createsId: rules.createsId,
		secrets: secrets(),
	});
	return { failure };
}

type AnsweredAttempt = Extract<AuthenticatedAnswer, { kind: 'response' }>;

/** The failure an answer is, or undefined when it is a 2xx that confirms the request did what it asked. */
function unconfirmed(
	sent: AnsweredAttempt,
	confirmedBy?: (answer: IN8nHttpFullResponse) => boolean,
): HttpFailure | undefined {
	const { response } = sent;
	if (response.statusCode >= 200 && response.statusCode < 300 && (confirmedBy?.(response) ?? true))
		return undefined;
	return {
		status: response.statusCode,
		headers: (response.headers ?? {}) as Record<string, unknown>,
		body: response.body,
		message: `HTTP ${response.statusCode}`,
		refusedAfterRenewal: sent.refusedAfterRenewal,
		renewalsExhausted: sent.renewalsExhausted,
	};
}

/**
 * What the pacer learns from an attempt: a rate refusal (a 429 or a spike arrest: the gateway refused it before the
 * API saw it), an answer and its round trip, or a failure without an answer.
 */
export function attemptOutcome(
	failure: HttpFailure | undefined,
	retryAfterMs: number | undefined,
	startedAt: number,
): AttemptOutcome {
	if (failure?.meaning?.retry === 'rateLimit')
		return {
			kind: 'rateLimited',
			retryAfterMs,
			spikeArrest: failure.meaning.row === 'spikeArrest',
			allowedPerSecond: failure.meaning.allowedPerSecond,
		};
	if (failure === undefined || failure.status !== undefined)
		return {
			kind: 'answered',
			roundTripMs: Date.now() - startedAt,
			accepted: failure === undefined,
		};
	return { kind: 'failed' };
}

/**
 * The wait before trying a failed attempt again, or undefined when it is not tried again. Only what provably created
 * nothing is retried: rate refusals and connections refused before the request left. Counts the attempt in `counts`;
 * a Retry-After longer than the policy honours is kept on the failure, to be reported.
 */
export function retryWaitMs(
	failure: HttpFailure,
	retryAfterMs: number | undefined,
	counts: RetryCounts,
): number | undefined {
	if (failure.meaning?.retry === 'rateLimit') {
		counts.rateLimitAnswers++;
		const allowed = failure.meaning.allowedPerSecond;
		if (failure.meaning.row === 'spikeArrest' && allowed !== undefined && allowed > 0) {
			const intervalMs = 1000 / allowed;
			if (intervalMs > RETRY_POLICY.maxWaitMs) {
				failure.spikeIntervalMs = intervalMs;
				return undefined;
			}
		}
		if (retryAfterMs !== undefined) counts.lastRetryAfterMs = retryAfterMs;
		if (retryAfterMs !== undefined && retryAfterMs > RETRY_POLICY.maxRetryAfterMs) {
			failure.retryAfterMs = retryAfterMs;
			return undefined;
		}
		if (counts.rateLimitRetries >= RETRY_POLICY.maxRateLimitRetries) return undefined;
		// Every 429 counts, whatever wait it names: a Retry-After of 0 or in the past is not a free retry.
		return rateRetryWaitMs(
			retryAfterMs,
			counts.rateLimitRetries++,
			failure.meaning.allowedPerSecond,
		);
	}
	if (
		failure.status === undefined &&
		CONNECTION_FAILED_BEFORE_SEND.has(failure.code ?? '') &&
		counts.connectionRetries < RETRY_POLICY.maxConnectionRetries
	)
		return backoffMs(counts.connectionRetries++);
	return undefined;
}

/**
 * Whether a failure stops every send. A refused login does: one failed login per listing could lock the seller's
 * account. So does a token refused right after it was issued (no login would help), or once the run's renewals ran
 * out. The plan's quota used up stops it too: every later request would be refused the same, and count against it;
 * so does a spike arrest that admits one request less often than this node ever waits.
 */
export function stopsEverySend(failure: HttpFailure): boolean {
	return Boolean(
		failure.tokenExchange ||
			failure.refusedAfterRenewal ||
			failure.renewalsExhausted !== undefined ||
			failure.spikeIntervalMs !== undefined ||
			failure.meaning?.stopsRun,
	);
}

/**
 * Ends an attempt that was answered or failed: counts it, closes the pacer when it stops every send, and frees its
 * slot with what the pacer should learn. Returns the wait before trying it again, or undefined when it is not.
 */
export function settleAttempt(
	failure: HttpFailure | undefined,
	startedAt: number,
	counts: RetryCounts,
	pacer?: RequestPacer,
	slot?: Slot,
): number | undefined {
	const retryAfterMs = failure ? retryAfterOf(failure, Date.now()) : undefined;
	const attempt = attemptOutcome(failure, retryAfterMs, startedAt);
	const waitMs = failure ? retryWaitMs(failure, retryAfterMs, counts) : undefined;
	if (failure && stopsEverySend(failure)) pacer?.close();
	// A request that ends in an error says so as it frees its slot, so a stopping run starts nothing new.
	// A taken ID ends this request only: the API holds what it would create, which stops nothing else.
	slot?.release({
		...attempt,
		final:
			failure !== undefined && waitMs === undefined && failure.meaning?.outcome !== 'alreadyListed',
	});
	return waitMs;
}
