/**
 * What one attempt at a request tells (sendRequest sends it): its answer or its failure, what the pacer learns from
 * it, whether it stops every send, and how long to wait before trying it again, if at all.
 */
import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { describeThrown, meaningOfFailure, tooLongToWait } from './httpFailure';
import type { HttpFailure } from './httpFailure';
import type { AttemptOutcome, RequestPacer, Slot } from './pacing';
import { backoffMs, rateRetryWaitMs, retryAfterOf, RETRY_POLICY } from './retryAfter';
import type { AuthenticatedAnswer } from './request';

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
 * An attempt that went out: the API's answer when its row says it created what it asked for, else the failure with
 * what it means (read once, as it arrived; again only when the renewal says a 401 was no expiry). `secrets` are read
 * only to read an answer's words, which must never echo them.
 */
export function readAttempt(
	sent: Exclude<AuthenticatedAnswer, { kind: 'notSent' }>,
	rules: AttemptRules,
	secrets: () => string[],
): { answer: unknown; failure?: undefined } | { answer?: undefined; failure: HttpFailure } {
	if (sent.kind === 'response' && sent.meaning.outcome === 'created')
		return { answer: sent.response.body };
	const failure: HttpFailure =
		sent.kind === 'thrown'
			? describeThrown(sent.error)
			: {
					status: sent.response.statusCode,
					headers: (sent.response.headers ?? {}) as Record<string, unknown>,
					body: sent.response.body,
					message: `HTTP ${sent.response.statusCode}`,
					refusedAfterRenewal: sent.refusedAfterRenewal,
					renewalsExhausted: sent.renewalsExhausted,
					meaning: sent.meaning,
				};
	const renewal = failure.refusedAfterRenewal || failure.renewalsExhausted !== undefined;
	if (failure.meaning === undefined || renewal)
		failure.meaning = meaningOfFailure(failure, {
			path: rules.path,
			createsId: rules.createsId,
			secrets: secrets(),
		});
	return { failure };
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
 * The wait before trying a failed attempt again, or undefined when it is not tried again: as its row says (only what
 * provably created nothing is retried: rate refusals and connections refused before the request left), within the
 * policy's budgets. Counts the attempt in `counts`; a wait longer than this node takes turns the failure into its
 * own row (tooLongToWait), to be reported.
 */
export function retryWaitMs(
	failure: HttpFailure,
	retryAfterMs: number | undefined,
	counts: RetryCounts,
): number | undefined {
	const meaning = failure.meaning;
	if (meaning?.retry === 'rateLimit') {
		counts.rateLimitAnswers++;
		const allowed = meaning.allowedPerSecond;
		if (allowed !== undefined && 1000 / allowed > RETRY_POLICY.maxWaitMs) {
			failure.spikeIntervalMs = 1000 / allowed;
			tooLongToWait(failure, 'spikeInterval');
			return undefined;
		}
		if (retryAfterMs !== undefined) counts.lastRetryAfterMs = retryAfterMs;
		if (retryAfterMs !== undefined && retryAfterMs > RETRY_POLICY.maxRetryAfterMs) {
			failure.retryAfterMs = retryAfterMs;
			tooLongToWait(failure, 'retryAfter');
			return undefined;
		}
		if (counts.rateLimitRetries >= RETRY_POLICY.maxRateLimitRetries) return undefined;
		// Every 429 counts, whatever wait it names: a Retry-After of 0 or in the past is not a free retry.
		return rateRetryWaitMs(retryAfterMs, counts.rateLimitRetries++, allowed);
	}
	if (
		meaning?.retry === 'reconnect' &&
		counts.connectionRetries < RETRY_POLICY.maxConnectionRetries
	)
		return backoffMs(counts.connectionRetries++);
	return undefined;
}

/**
 * Whether a failure stops every send: its row says (a refused login, where one failed login per listing could lock
 * the seller's account; a token refused right after it was issued, or once the run's renewals ran out; the plan's
 * quota used up; a spike arrest that admits one request less often than this node ever waits).
 */
export function stopsEverySend(failure: HttpFailure): boolean {
	return failure.meaning?.stopsRun === true;
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
