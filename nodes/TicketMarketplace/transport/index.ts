/**
 * The one request path to the Partner API. Auth (token exchange, Bearer header) is n8n's job through
 * httpRequestWithAuthentication, with one renewal at a time for the run (tokenRenewal.ts); this module shapes the
 * request, paces it, retries only what provably created nothing, and returns what became of it.
 */
import type { IExecuteFunctions, IN8nHttpFullResponse, NodeApiError } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { redactSecrets } from '../../shared/partnerApi/apiAnswers';
import { attempt } from './attempt';
import type { ApiRequest, Job } from './attempt';
import { classifyFailure } from './httpFailure';
import type { Effect } from './httpFailure';
import type { RequestPacer } from './pacing';
import { readRunCredential, runSecrets } from './tokenRenewal';
import type { RunCredential } from './tokenRenewal';
import { stoppedWhileWaiting } from './waitOrStop';

export { PARTNER_API_PATHS } from '../../shared/partnerApi/partnerApi';
export { redactSecrets } from '../../shared/partnerApi/redaction';
export { buildRequest } from './attempt';
export type { ApiRequest } from './attempt';
export type { Effect } from './httpFailure';
export { RequestPacer } from './pacing';
export type { PacingMode } from './pacing';
export { parseRetryAfter, RETRY_POLICY } from './retryAfter';
export { credentialSecrets, getBaseUrl, readRunCredential, runSecrets } from './tokenRenewal';
export type { RunCredential } from './tokenRenewal';

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
	 * Whether a 2xx shows the request did what it asked (else its outcome is unknown); without it, every 2xx does.
	 * Read before the slot is freed, so that a run stopping on it starts nothing more.
	 */
	confirmedBy?: (answer: IN8nHttpFullResponse) => boolean;
	/** What the request creates (the External Listing ID): "it exists already" must name it to mean "already listed". */
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
 * refusals and connections refused. What an answer means is the answer table's (nodes/shared/partnerApi/answerTable.ts).
 * A 401 goes to the run's token renewal, which re-sends it with a new token: the API refused the first one, so
 * nothing can be created twice.
 */
export async function sendRequest(
	this: IExecuteFunctions,
	options: SendOptions,
): Promise<RequestResult> {
	const { request, pacer, itemIndex } = options;
	// Read once per call at least: its values are what an answer must never echo into an output.
	const credential = options.credential ?? (await readRunCredential.call(this));
	const job: Job = {
		request,
		credential,
		pacer,
		rules: { path: request.path, confirmedBy: options.confirmedBy, createsId: options.createsId },
		secrets: () => [...runSecrets(credential), ...(options.secrets ?? [])],
		counts: { rateLimitRetries: 0, connectionRetries: 0, rateLimitAnswers: 0 },
		// Stop and the workflow timeout abort it; a request not yet sent then never is.
		cancel: this.getExecutionCancelSignal?.(),
	};
	for (let retryFirst = false; ; retryFirst = true) {
		const done = await attempt(this, job, retryFirst);
		if (done !== null && 'answer' in done) {
			const body = redactSecrets(done.answer, job.secrets());
			return { kind: 'answered', body, effect: 'created' };
		}
		// The wait happens outside any slot: requests that are doing well keep going meanwhile. A stopped run, or
		// an answer that stops every send (the quota), ends it at once: the retry is then never sent.
		if (done?.waitMs === undefined || (await stoppedWhileWaiting(done.waitMs, job.cancel, pacer)))
			break;
	}
	// Never sent: "not sent". Refused (a 429, a connection refused): that answer says what became of it.
	if (!job.failure) return { kind: 'notSent', effect: 'notCreated' };
	const { method } = request;
	const context = { ...job.counts, ...job.rules, method, baseUrl: credential.baseUrl, itemIndex };
	const failed = classifyFailure(this.getNode(), job.failure, {
		...context,
		secrets: job.secrets(),
	});
	return { kind: 'failed', ...failed };
}

/** For operations that stop at the first failure: the API's answer, or the failure thrown. */
export async function apiRequest(this: IExecuteFunctions, options: SendOptions): Promise<unknown> {
	const result = await sendRequest.call(this, options);
	if (result.kind === 'answered') return result.body;
	if (result.kind === 'failed') throw result.error;
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
