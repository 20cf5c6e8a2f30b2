/** When to try a request again: the retry limits, and the wait a 429's Retry-After asks for. */
import type { Retry } from '../../shared/partnerApi/answerTable';

/** Rate refusals and refused connections never reached the API's business logic: retrying them is safe. */
export const RETRY_POLICY = {
	maxRateLimitRetries: 6,
	maxConnectionRetries: 3,
	baseBackoffMs: 1000,
	maxWaitMs: 60_000,
	maxRetryAfterMs: 300_000, // a longer Retry-After is reported, not waited for
	minRetryWaitMs: 1000, // a Retry-After of 0 or in the past is no reason to hammer
};

function backoffMs(retryNumber: number): number {
	return Math.min(RETRY_POLICY.baseBackoffMs * 2 ** retryNumber, RETRY_POLICY.maxWaitMs);
}

/** Its Retry-After (at least the minimum); else one interval of a spike arrest's named rate; else a backoff. */
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

/** The wait before retrying as the row says, within the policy's budgets (counted); undefined: no retry. */
export function retryWait(
	retry: Retry | undefined,
	counts: { rateLimitRetries: number; connectionRetries: number },
	retryAfterMs?: number,
	allowedPerSecond?: number,
): number | undefined {
	if (retry === 'rateLimit')
		return counts.rateLimitRetries < RETRY_POLICY.maxRateLimitRetries
			? rateRetryWaitMs(retryAfterMs, counts.rateLimitRetries++, allowedPerSecond)
			: undefined;
	if (retry === 'reconnect' && counts.connectionRetries < RETRY_POLICY.maxConnectionRetries)
		return backoffMs(counts.connectionRetries++);
	return undefined;
}

/** HTTP's three date forms (RFC 9110 5.6.7); the last, asctime, names no zone and is GMT too. */
const HTTP_DATES = [
	/^[a-z]{3}, \d{2} [a-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/i,
	/^[a-z]{6,9}, \d{2}-[a-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/i,
	/^[a-z]{3} [a-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/i,
];

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 10.2.3). Unknown forms count as absent. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
	const text = value?.trim();
	if (!text) return undefined;
	if (/^\d+$/.test(text)) return Number(text) * 1000;
	const form = HTTP_DATES.findIndex((date) => date.test(text));
	const dateMs = form < 0 ? NaN : Date.parse(form === 2 ? `${text} GMT` : text);
	return Number.isNaN(dateMs) ? undefined : Math.max(0, dateMs - nowMs);
}
