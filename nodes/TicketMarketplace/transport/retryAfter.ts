/** When to try a request again: the retry limits, and the wait a 429's Retry-After asks for. */
import { headerValue } from './fromCredential';
import type { HttpFailure } from './httpFailure';

/**
 * Retry limits. Rate refusals (429, a spike arrest) and refused connections never reached the API's business logic,
 * so retrying them is safe.
 */
export const RETRY_POLICY = {
	maxRateLimitRetries: 6,
	maxConnectionRetries: 3,
	baseBackoffMs: 1000,
	maxWaitMs: 60_000,
	/** The longest Retry-After honoured; an API asking for more is reported, not waited for. */
	maxRetryAfterMs: 300_000,
	/** The shortest wait after a rate refusal that names one (a Retry-After of 0 or in the past is no reason to hammer). */
	minRetryWaitMs: 1000,
};

/** The wait before retry number `retryNumber` (from 0) when the API names none: doubling, bounded. */
export function backoffMs(retryNumber: number): number {
	return Math.min(RETRY_POLICY.baseBackoffMs * 2 ** retryNumber, RETRY_POLICY.maxWaitMs);
}

/**
 * The wait before retrying a rate refusal: its Retry-After (at least RETRY_POLICY.minRetryWaitMs); without one, one
 * interval of a spike arrest that names its rate (the gateway admits the next request then, and the pacer keeps the
 * gap between sends); else a backoff doubling from RETRY_POLICY.baseBackoffMs.
 */
export function rateRetryWaitMs(
	retryAfterMs: number | undefined,
	retryNumber: number,
	allowedPerSecond?: number,
): number {
	if (retryAfterMs !== undefined) return Math.max(retryAfterMs, RETRY_POLICY.minRetryWaitMs);
	if (allowedPerSecond !== undefined && allowedPerSecond > 0)
		return Math.min(Math.ceil(1000 / allowedPerSecond), RETRY_POLICY.maxWaitMs);
	return backoffMs(retryNumber);
}

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 10.2.3). Unknown forms count as absent. */
export function parseRetryAfter(value: unknown, nowMs: number): number | undefined {
	const text = Array.isArray(value)
		? String(value[0])
		: typeof value === 'string'
			? value.trim()
			: undefined;
	if (text === undefined || text === '') return undefined;
	if (/^\d+$/.test(text)) return Number(text) * 1000;
	if (/^[-+]?\d/.test(text)) return undefined;
	const dateMs = Date.parse(text);
	if (Number.isNaN(dateMs)) return undefined;
	return Math.max(0, dateMs - nowMs);
}

/** The Retry-After of a rate refusal (a 429, a spike arrest), in milliseconds from now. */
export function retryAfterOf(failure: HttpFailure, nowMs: number): number | undefined {
	if (failure.meaning?.retry !== 'rateLimit') return undefined;
	const header = headerValue(failure.headers, 'retry-after');
	return parseRetryAfter(header === '' ? undefined : header, nowMs);
}
