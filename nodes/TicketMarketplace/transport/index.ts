/**
 * The one request path to the Partner API. Auth (token exchange, Bearer header) is n8n's job through
 * httpRequestWithAuthentication, with one renewal at a time for the run (tokenRenewal.ts); this module shapes the
 * request, paces it, retries only what provably created nothing, and returns what became of it.
 */
import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	NodeApiError,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { waitOrStop } from '../helpers/waitOrStop';

import { normalizeBaseUrl, REQUEST_TIMEOUTS } from '../../../credentials/common/partnerApi';
import type { FailureOutcome, HttpFailure } from './failures';
import {
	classifyFailure,
	CONNECTION_FAILED_BEFORE_SEND,
	credentialSecrets,
	describeThrown,
	isTakenListingId,
	redactSecrets,
	retryAfterOf,
	RETRY_POLICY,
} from './failures';
import type { AttemptOutcome, RequestPacer } from './pacing';
import { TokenRenewal } from './tokenRenewal';

export { PARTNER_API_PATHS } from '../../../credentials/common/partnerApi';
export {
	extractApiMessage,
	isJsonMediaType,
	isProblemMediaType,
	parseRetryAfter,
	redactSecrets,
	RETRY_POLICY,
} from './failures';
export type { FailureOutcome } from './failures';

export const CREDENTIAL_NAME = 'ticketMarketplaceApi';

/** A Partner API request as this node describes it (and as Validate Only shows it): relative to the Base URL. */
export interface ApiRequest {
	method: IHttpRequestMethods;
	path: string;
	headers: Record<string, string>;
	body?: IDataObject;
}

/** Every request's headers, written once: JSON both ways, plus the operation's own (e.g. Accept-Language). */
export function buildRequest(
	method: IHttpRequestMethods,
	path: string,
	body?: IDataObject,
	headers: Record<string, string> = {},
): ApiRequest {
	return {
		method,
		path,
		headers: { Accept: 'application/json', 'Content-Type': 'application/json', ...headers },
		body,
	};
}

/**
 * The credential as read once for a run: its Base URL, and the decrypted credential handed to n8n with each
 * request. Without it, n8n reads and decrypts the credential from its database on every request, which costs the
 * event loop about as much as the rest of a request; a shared object also carries a renewed token to every later
 * request of the run (n8n's preAuthentication writes it there and into the database).
 */
export interface RunCredential {
	baseUrl: string;
	decrypted: ICredentialsDecrypted;
	/** One renewal of the token at a time for every request of the run. */
	renewal: TokenRenewal;
}

export async function readRunCredential(this: IExecuteFunctions): Promise<RunCredential> {
	const data = await this.getCredentials(CREDENTIAL_NAME);
	const reference = this.getNode().credentials?.[CREDENTIAL_NAME];
	return {
		baseUrl: normalizeBaseUrl(data.baseUrl),
		decrypted: {
			id: reference?.id ?? '',
			name: reference?.name ?? '',
			type: CREDENTIAL_NAME,
			data,
		},
		renewal: new TokenRenewal(data, this.getExecutionCancelSignal?.()),
	};
}

/** The base URL is the only thing read from the credential here; auth itself is left to n8n. */
export async function getBaseUrl(this: IExecuteFunctions): Promise<string> {
	const credentials = await this.getCredentials(CREDENTIAL_NAME);
	return normalizeBaseUrl(credentials.baseUrl);
}

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
}

/** What became of one request: the API's answer, a failure with what it means, or never sent. */
export type RequestResult =
	| { kind: 'answered'; body: unknown }
	| { kind: 'failed'; error: NodeApiError; outcome: FailureOutcome }
	| { kind: 'notSent' };

/**
 * The request's answer, or a time-out error once `ms` have passed. The request's own `timeout` ends a connection
 * that goes silent, not an answer that trickles in a byte at a time: this bounds the whole wait. n8n gives the
 * request the run's cancel signal and no other, so the request itself is left to its own time-out.
 */
async function withinDeadline<T>(request: Promise<T>, ms: number): Promise<T> {
	const deadline = AbortSignal.timeout(ms);
	let onDeadline = () => {};
	const timedOut = new Promise<never>((_resolve, reject) => {
		onDeadline = () =>
			reject(
				Object.assign(new Error(`No complete answer within ${Math.round(ms / 1000)} s`), {
					code: 'ETIMEDOUT',
				}),
			);
		deadline.addEventListener('abort', onDeadline, { once: true });
	});
	try {
		return await Promise.race([request, timedOut]);
	} finally {
		deadline.removeEventListener('abort', onDeadline);
	}
}

function backoffMs(retryNumber: number): number {
	return Math.min(RETRY_POLICY.baseBackoffMs * 2 ** retryNumber, RETRY_POLICY.maxWaitMs);
}

/**
 * Sends one request and says what became of it. Only failures that provably created nothing are retried.
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
		}),
	});
	// A run that stops between attempts: a request never sent is "not sent"; one the API already refused (a 429,
	// a connection refused) keeps that answer, which says what it is: not created.
	const stopped = (): RequestResult => (failure ? failed() : { kind: 'notSent' });

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

		const retryAfterMs = failure ? retryAfterOf(failure, Date.now()) : undefined;
		if (failure === undefined || (failure.status !== undefined && failure.status !== 429)) {
			attempt = {
				kind: 'answered',
				roundTripMs: Date.now() - startedAt,
				accepted: failure === undefined,
			};
		} else if (failure.status === 429) {
			attempt = { kind: 'rateLimited', retryAfterMs };
		}
		let waitMs: number | undefined;
		if (failure?.status === 429) {
			rateLimitAnswers++;
			if (retryAfterMs !== undefined) lastRetryAfterMs = retryAfterMs;
			if (retryAfterMs !== undefined && retryAfterMs > RETRY_POLICY.maxRetryAfterMs)
				failure.retryAfterMs = retryAfterMs;
			else if (rateLimitRetries < RETRY_POLICY.maxRateLimitRetries) {
				// Every 429 counts, whatever wait it names: a Retry-After of 0 or in the past is not a free retry.
				waitMs =
					retryAfterMs === undefined
						? backoffMs(rateLimitRetries)
						: Math.max(retryAfterMs, RETRY_POLICY.minRetryWaitMs);
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
		if (
			failure?.tokenExchange ||
			failure?.refusedAfterRenewal ||
			failure?.renewalsExhausted !== undefined
		)
			pacer?.close();
		// A request that ends in an error says so as it frees its slot, so a stopping run starts nothing new.
		// A taken ID ends this request only: the API holds what it would create, which stops nothing else.
		slot?.release({
			...attempt,
			final: failure !== undefined && waitMs === undefined && !isTakenListingId(failure),
		});
		if (failure === undefined)
			return { kind: 'answered', body: redactSecrets(answer, secretsNow()) };
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
