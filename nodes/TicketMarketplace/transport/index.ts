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

import { readAttempt, settleAttempt, slotForAttempt } from './attempt';
import { stoppedWhileWaiting } from './waitOrStop';
import type { RetryCounts } from './attempt';
import { CREDENTIAL_NAME, readRunCredential, runSecrets } from './credential';
import type { RunCredential } from './credential';
import { classifyFailure } from './failures';
import type { FailureContext } from './failures';
import { redactSecrets } from '../../shared/partnerApi/apiAnswers';
import { REQUEST_TIMEOUTS } from '../../shared/partnerApi/partnerApi';
import type { Effect, HttpFailure } from './httpFailure';
import { answerMeaning, UnreadableFileError } from './httpFailure';
import type { RequestPacer } from './pacing';
import type { ApiRequest, AuthenticatedAnswer, AuthenticatedSendOptions } from './request';
import { withinDeadline } from './request';

export { extractApiMessage } from '../../shared/partnerApi/apiAnswers';
export { PARTNER_API_PATHS } from '../../shared/partnerApi/partnerApi';
export { redactSecrets } from '../../shared/partnerApi/redaction';
export { CREDENTIAL_NAME, getBaseUrl, readRunCredential, runSecrets } from './credential';
export type { RunCredential } from './credential';
export { isJsonMediaType, isProblemMediaType } from '../../shared/partnerApi/apiAnswers';
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
 * refusals and connections refused. What an answer means is the answer table's (nodes/shared/partnerApi/answerTable.ts).
 *
 * Requests ask for the full response without throwing on HTTP errors, because n8n's error wrapper drops the
 * response headers and Retry-After is needed. A 401 goes to the run's token renewal, which re-sends it with a new
 * token: the API refused the first one, so nothing can be created twice.
 */
export async function sendRequest(
	this: IExecuteFunctions,
	options: SendOptions,
): Promise<RequestResult> {
	const { request, pacer } = options;
	// Read once per call at least: its values are what an answer must never echo into an output.
	const credential = options.credential ?? (await readRunCredential.call(this));
	const secretsNow = () => [...runSecrets(credential), ...(options.secrets ?? [])];
	// Stop and the workflow timeout abort this signal; a request not yet sent then never is.
	const cancel = this.getExecutionCancelSignal?.();
	const counts: RetryCounts = { rateLimitRetries: 0, connectionRetries: 0, rateLimitAnswers: 0 };
	const rules = { ...options, path: request.path };
	let retryFirst = false;
	let failure: HttpFailure | undefined;
	const failed = (): RequestResult => ({
		kind: 'failed',
		...classifyFailure(
			this.getNode(),
			failure!,
			failureContext(options, credential.baseUrl, counts, secretsNow()),
		),
	});
	// A run that stops between attempts: a request never sent is "not sent"; one the API already refused (a 429,
	// a connection refused) keeps that answer, which says what it is: not created.
	const stopped = (): RequestResult =>
		failure ? failed() : { kind: 'notSent', effect: 'notCreated' };

	for (;;) {
		const slot = await slotForAttempt(pacer, retryFirst, cancel);
		if (slot === null) return stopped();
		const startedAt = Date.now();
		const sent = await sendAttempt(this, request, credential, {
			cancel,
			onResend: () => slot?.sentAgain(),
			closed: pacer?.closedSignal,
			meaningOf: (response) => answerMeaning(response, rules, secretsNow),
		});
		if (sent.kind === 'notSent') {
			// Not sent again: an earlier attempt's answer (a 429, say) still says what became of it.
			slot?.release({ kind: 'failed' });
			return stopped();
		}
		const read = readAttempt(sent, rules, secretsNow);
		failure = read.failure;
		const waitMs = settleAttempt(failure, startedAt, counts, pacer, slot);
		if (failure === undefined)
			return {
				kind: 'answered',
				body: redactSecrets(read.answer, secretsNow()),
				effect: 'created',
			};
		if (waitMs === undefined) return failed();
		// The wait happens outside any slot: requests that are doing well keep going meanwhile. A stopped run, or
		// an answer that stops every send (the quota), ends the wait at once: the retry is then never sent, and the
		// refused attempt created nothing.
		if (await stoppedWhileWaiting(waitMs, cancel, pacer)) return stopped();
		retryFirst = true;
	}
}

/** What a failure's words tell beside the answer: the request, and how often it was refused and retried. */
function failureContext(
	options: SendOptions,
	baseUrl: string,
	counts: RetryCounts,
	secrets: string[],
): FailureContext {
	return {
		method: options.request.method,
		path: options.request.path,
		baseUrl,
		itemIndex: options.itemIndex,
		secrets,
		rateLimitAnswers: counts.rateLimitAnswers,
		connectionRetries: counts.connectionRetries,
		lastRetryAfterMs: counts.lastRetryAfterMs,
		createsId: options.createsId,
	};
}

/**
 * One attempt through the run's token renewal, its body read first (once: a 401's re-send goes with the same bytes).
 * A file that cannot be read fails the attempt before anything is sent or any login starts, in words that do not
 * read as a connection cut midway: nothing was sent, and the run's other requests go on.
 */
async function sendAttempt(
	context: IExecuteFunctions,
	request: ApiRequest,
	credential: RunCredential,
	options: AuthenticatedSendOptions,
): Promise<AuthenticatedAnswer> {
	let body: unknown;
	try {
		body = request.upload ? await request.upload() : request.body;
	} catch (error) {
		const said = error instanceof Error ? error.message : String(error);
		return { kind: 'thrown', error: new UnreadableFileError(said) };
	}
	return await credential.renewal.send(sendOnceWith(context, request, credential, body), options);
}

/** One send of the request through n8n's authentication (as sendRequest says), bounded by the API's deadline. */
function sendOnceWith(
	context: IExecuteFunctions,
	request: ApiRequest,
	credential: RunCredential,
	body: unknown,
): () => Promise<IN8nHttpFullResponse> {
	const httpOptions: IHttpRequestOptions = {
		method: request.method,
		url: `${credential.baseUrl}${request.path}`,
		headers: request.headers,
		json: true,
		// n8n would follow a redirect and send the Bearer token along; a POST redirected to a GET could even
		// look like a created listing. A 3xx is reported instead.
		disableFollowRedirect: true,
		// An answer that never comes must not hold the run: the request then ends with its outcome unknown.
		timeout: REQUEST_TIMEOUTS.apiMs,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	};
	const credentialOptions = { credentialsDecrypted: credential.decrypted };
	return async () =>
		await withinDeadline(
			context.helpers.httpRequestWithAuthentication.call(
				context,
				CREDENTIAL_NAME,
				{ ...httpOptions, body: body as IHttpRequestOptions['body'] },
				credentialOptions,
			) as Promise<IN8nHttpFullResponse>,
			REQUEST_TIMEOUTS.apiMs,
		);
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
