/**
 * The one request path to the Partner API. Auth (token exchange, Bearer header) is n8n's job through
 * httpRequestWithAuthentication, with one renewal at a time for the run (tokenRenewal.ts); this module shapes the
 * request, paces it, retries only what provably created nothing, and returns what became of it.
 */
import type {
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	NodeApiError,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { credentialSecrets, CREDENTIAL_NAME, readRunCredential } from './credential';
import type { RunCredential } from './credential';
import { classifyFailure } from './failures';
import { redactSecrets, REQUEST_TIMEOUTS } from './fromCredential';
import { CONNECTION_FAILED_BEFORE_SEND, describeThrown, meaningOfFailure } from './httpFailure';
import type { Effect, HttpFailure } from './httpFailure';
import type { AttemptOutcome, RequestPacer } from './pacing';
import type { ApiRequest } from './request';
import { withinDeadline } from './request';
import { backoffMs, rateRetryWaitMs, retryAfterOf, RETRY_POLICY } from './retryAfter';
import { waitOrStop } from './waitOrStop';

export { extractApiMessage, PARTNER_API_PATHS, redactSecrets } from './fromCredential';
export { credentialSecrets, CREDENTIAL_NAME, getBaseUrl, readRunCredential } from './credential';
export type { RunCredential } from './credential';
export { isJsonMediaType, isProblemMediaType } from './httpFailure';
export type { Effect } from './httpFailure';
export { buildRequest } from './request';
export type { ApiRequest } from './request';
export { RequestPacer } from './pacing';
export type { PacingMode } from './pacing';
export { parseRetryAfter, RETRY_POLICY } from './retryAfter';

export interface SendOptions {
	request: ApiRequest;
	itemIndex: number;
	/** Values that must never reach an error (e.g. a client secret the API might echo back). */
	secrets?: string[];
	/** Shares the requests in flight with the rest of the run; without one, requests are not paced. */
	pacer?: RequestPacer;
	/** The credential read once for the run (see readRunCredential); without one, each request reads it. */
	credential?: RunCredential;
	/**
	 * Whether a 2xx answer shows that the request did what it asked; one that does not is a failure whose outcome is
	 * unknown (it may have taken effect). Read before the request frees its slot, so that a run stopping on it
	 * starts nothing more. Without it, every 2xx does.
	 */
	confirmedBy?: (answer: IN8nHttpFullResponse) => boolean;
	/**
	 * The identifier of what the request creates (the External Listing ID): an answer saying it exists already
	 * counts as "already listed" only when it names this one.
	 */
	createsId?: string | number;
}

/**
 * What became of one request: the API's answer, a failure in words, or never sent; each with its effect, what it
 * means for the thing the request would create (created, unknown or not created).
 */
export type RequestResult =
	| { kind: 'answered'; body: unknown; effect: 'created' }
	| {
			kind: 'failed';
			error: NodeApiError;
			effect: Effect;
			/** The API's own error code, where its answer named one (kept beside its words for support). */
			apiCode?: string;
	  }
	| { kind: 'notSent'; effect: 'notCreated' };

/**
 * Sends one request and says what became of it. Only failures that provably created nothing are retried: rate
 * refusals and connections refused. What an answer means is the answer table's (credentials/common/answerTable.ts).
 *
 * Requests ask for the full response without throwing on HTTP errors, because n8n's error wrapper drops the
 * response headers and Retry-After is needed. A 401 goes to the run's token renewal, which re-sends it with a new
 * token: the API refused the first one, so nothing can be created twice.
 */
export async function sendRequest(
	this: IExecuteFunctions,
	options: SendOptions,
): Promise<RequestResult> {
	const { request, itemIndex, pacer } = options;
	// Read once per call at least: its values are what an answer must never echo into an output.
	const credential = options.credential ?? (await readRunCredential.call(this));
	const secretsNow = () => [
		...credentialSecrets(credential.decrypted.data),
		...(options.secrets ?? []),
	];
	const credentialOptions = { credentialsDecrypted: credential.decrypted };
	const httpOptions: IHttpRequestOptions = {
		method: request.method,
		url: `${credential.baseUrl}${request.path}`,
		headers: request.headers,
		body: request.body,
		json: true,
		// n8n would follow a redirect and send the Bearer token along; a POST redirected to a GET could even
		// look like a created listing. A 3xx is reported instead.
		disableFollowRedirect: true,
		// An answer that never comes must not hold the run: the request then ends with its outcome unknown.
		timeout: REQUEST_TIMEOUTS.apiMs,
	};
	// Stop and the workflow timeout abort this signal; a request not yet sent then never is.
	const cancel = this.getExecutionCancelSignal?.();
	let rateLimitRetries = 0;
	let connectionRetries = 0;
	let lastRetryAfterMs: number | undefined;
	let rateLimitAnswers = 0;
	let retryFirst = false;
	let failure: HttpFailure | undefined;
	const failed = (): RequestResult => ({
		kind: 'failed',
		...classifyFailure(this.getNode(), failure!, {
			method: request.method,
			path: request.path,
			baseUrl: credential.baseUrl,
			itemIndex,
			secrets: secretsNow(),
			rateLimitAnswers,
			connectionRetries,
			lastRetryAfterMs,
			createsId: options.createsId,
		}),
	});
	// A run that stops between attempts: a request never sent is "not sent"; one the API already refused (a 429,
	// a connection refused) keeps that answer, which says what it is: not created.
	const stopped = (): RequestResult =>
		failure ? failed() : { kind: 'notSent', effect: 'notCreated' };

	const sendOnce = async () =>
		await withinDeadline(
			this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_NAME,
				{ ...httpOptions, returnFullResponse: true, ignoreHttpStatusErrors: true },
				credentialOptions,
			) as Promise<IN8nHttpFullResponse>,
			REQUEST_TIMEOUTS.apiMs,
		);

	for (;;) {
		const slot = pacer ? await pacer.acquire(retryFirst) : undefined;
		if (slot === null) return stopped();
		if (cancel?.aborted) {
			pacer?.close();
			slot?.release({ kind: 'failed' });
			return stopped();
		}
		const startedAt = Date.now();
		let answer: unknown;
		let attempt: AttemptOutcome = { kind: 'failed' };
		const sent = await credential.renewal.send(sendOnce, {
			cancel,
			onResend: () => slot?.sentAgain(),
		});
		if (sent.kind === 'notSent') {
			// Not sent again: an earlier attempt's answer (a 429, say) still says what became of it.
			slot?.release({ kind: 'failed' });
			return stopped();
		}
		failure = undefined;
		if (sent.kind === 'thrown') {
			failure = describeThrown(sent.error);
		} else if (
			sent.response.statusCode >= 200 &&
			sent.response.statusCode < 300 &&
			(options.confirmedBy?.(sent.response) ?? true)
		) {
			answer = sent.response.body;
		} else {
			failure = {
				status: sent.response.statusCode,
				headers: (sent.response.headers ?? {}) as Record<string, unknown>,
				body: sent.response.body,
				message: `HTTP ${sent.response.statusCode}`,
				refusedAfterRenewal: sent.refusedAfterRenewal,
				renewalsExhausted: sent.renewalsExhausted,
			};
		}
		if (failure)
			failure.meaning = meaningOfFailure(failure, {
				path: request.path,
				createsId: options.createsId,
				secrets: secretsNow(),
			});
		// A 429 or a spike arrest (answered 500 or 429): the gateway refused it before the API saw it.
		const rateRefusal = failure?.meaning?.retry === 'rateLimit';

		const retryAfterMs = failure ? retryAfterOf(failure, Date.now()) : undefined;
		if (rateRefusal) {
			attempt = {
				kind: 'rateLimited',
				retryAfterMs,
				spikeArrest: failure?.meaning?.row === 'spikeArrest',
				allowedPerSecond: failure?.meaning?.allowedPerSecond,
			};
		} else if (failure === undefined || failure.status !== undefined) {
			attempt = {
				kind: 'answered',
				roundTripMs: Date.now() - startedAt,
				accepted: failure === undefined,
			};
		}
		let waitMs: number | undefined;
		if (failure !== undefined && rateRefusal) {
			rateLimitAnswers++;
			if (retryAfterMs !== undefined) lastRetryAfterMs = retryAfterMs;
			if (retryAfterMs !== undefined && retryAfterMs > RETRY_POLICY.maxRetryAfterMs)
				failure.retryAfterMs = retryAfterMs;
			else if (rateLimitRetries < RETRY_POLICY.maxRateLimitRetries) {
				// Every 429 counts, whatever wait it names: a Retry-After of 0 or in the past is not a free retry.
				waitMs = rateRetryWaitMs(retryAfterMs, rateLimitRetries, failure.meaning?.allowedPerSecond);
				rateLimitRetries++;
			}
		} else if (
			failure !== undefined &&
			failure.status === undefined &&
			CONNECTION_FAILED_BEFORE_SEND.has(failure.code ?? '') &&
			connectionRetries < RETRY_POLICY.maxConnectionRetries
		) {
			waitMs = backoffMs(connectionRetries++);
		}
		// A refused login stops every send: one failed login per listing could lock the seller's account. So does a
		// token refused right after it was issued (no login would help), or once the run's renewals ran out.
		// The plan's quota used up stops it too: every later request would be refused the same, and count against it.
		if (
			failure?.tokenExchange ||
			failure?.refusedAfterRenewal ||
			failure?.renewalsExhausted !== undefined ||
			failure?.meaning?.stopsRun
		)
			pacer?.close();
		// A request that ends in an error says so as it frees its slot, so a stopping run starts nothing new.
		// A taken ID ends this request only: the API holds what it would create, which stops nothing else.
		slot?.release({
			...attempt,
			final:
				failure !== undefined &&
				waitMs === undefined &&
				failure.meaning?.outcome !== 'alreadyListed',
		});
		if (failure === undefined)
			return { kind: 'answered', body: redactSecrets(answer, secretsNow()), effect: 'created' };
		if (waitMs !== undefined) {
			// The wait happens outside any slot: requests that are doing well keep going meanwhile. A stopped run
			// ends the wait at once: the retry is then never sent, and the refused attempt created nothing.
			const stoppedWaiting = await waitOrStop(waitMs, cancel).then(
				() => false,
				// It rejects only when the run is stopped.
				() => true,
			);
			if (stoppedWaiting) return stopped();
			retryFirst = true;
			continue;
		}
		return failed();
	}
}

/** For operations that stop at the first failure: the API's answer, or the failure thrown. */
export async function apiRequest(this: IExecuteFunctions, options: SendOptions): Promise<unknown> {
	const result = await sendRequest.call(this, options);
	if (result.kind === 'answered') return result.body;
	if (result.kind === 'notSent') {
		throw new NodeOperationError(
			this.getNode(),
			'Not sent: the run stopped before this request was sent',
			{
				description:
					'The run was stopped (Stop, or the workflow timeout) before this request left. Nothing was sent: run the workflow again to send it.',
				itemIndex: options.itemIndex,
			},
		);
	}
	throw result.error;
}
