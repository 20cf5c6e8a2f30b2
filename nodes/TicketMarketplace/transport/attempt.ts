/**
 * One attempt at a request (sendRequest repeats it): its slot, its send through the run's token renewal, its answer
 * or failure, what the pacer learns from it, and the wait before trying again, if any.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';

import type { AnswerMeaning } from '../../shared/partnerApi/answerTable';
import { REQUEST_TIMEOUTS } from '../../shared/partnerApi/partnerApi';
import {
	answerMeaning,
	describeThrown,
	meaningOfFailure,
	UnreadableFileError,
} from './httpFailure';
import type { HttpFailure } from './httpFailure';
import type { AttemptOutcome, RequestPacer } from './pacing';
import { retryAfterOf, retryWait, RETRY_POLICY } from './retryAfter';
import { CREDENTIAL_NAME } from './tokenRenewal';
import type { AuthenticatedAnswer, AuthenticatedSendOptions, RunCredential } from './tokenRenewal';
import { withinDeadline } from './waitOrStop';

/** As Validate Only shows it: relative to the Base URL. */
export interface ApiRequest {
	method: IHttpRequestMethods;
	path: string;
	headers: Record<string, string>;
	body?: IDataObject;
	/** Read when sent: what waits for its turn holds no file in memory. */
	upload?: () => Promise<Buffer>;
}

/** JSON both ways, plus the operation's own headers. */
export function buildRequest(
	method: IHttpRequestMethods,
	path: string,
	body?: IDataObject,
	headers: Record<string, string> = {},
): ApiRequest {
	const json = { Accept: 'application/json', 'Content-Type': 'application/json' };
	return { method, path, headers: { ...json, ...headers }, body };
}

/** The counts one request keeps across its attempts: they bound its retries and its failure reports them. */
export interface RetryCounts {
	rateLimitRetries: number;
	connectionRetries: number;
	rateLimitAnswers: number;
	lastRetryAfterMs?: number;
}

/** One request across its attempts, with its last failure. */
export interface Job {
	request: ApiRequest;
	credential: RunCredential;
	/** What its answers are read against. */
	rules: {
		path: string;
		confirmedBy?: (answer: IN8nHttpFullResponse) => boolean;
		createsId?: string | number;
	};
	/** Read only to read an answer's words, which must never echo them. */
	secrets: () => string[];
	counts: RetryCounts;
	pacer?: RequestPacer;
	cancel?: AbortSignal;
	failure?: HttpFailure;
}

/**
 * One attempt: the API's answer when its row says it created what it asked for; else its failure (kept in the job)
 * and the wait before trying again (undefined: it is not). Null: not sent, the run stopped first (and a stopped run
 * closes the pacer, so nothing more starts).
 */
export async function attempt(
	context: IExecuteFunctions,
	job: Job,
	retryFirst: boolean,
): Promise<{ answer: unknown } | { waitMs?: number } | null> {
	const { pacer, cancel } = job;
	const slot = pacer ? await pacer.acquire(retryFirst) : undefined;
	if (slot === null) return null;
	if (cancel?.aborted) {
		pacer?.close();
		slot?.release({ kind: 'failed' });
		return null;
	}
	const startedAt = Date.now();
	const sent = await send(context, job, {
		cancel,
		onResend: () => slot?.sentAgain(),
		closed: pacer?.closedSignal,
		meaningOf: (response) => answerMeaning(response, job.rules, job.secrets),
	});
	if (sent.kind === 'notSent') {
		// Not sent again: an earlier attempt's answer (a 429, say) still says what became of it.
		slot?.release({ kind: 'failed' });
		return null;
	}
	if (sent.kind === 'response' && sent.meaning.outcome === 'created') {
		const roundTripMs = Date.now() - startedAt;
		slot?.release({ kind: 'answered', roundTripMs, accepted: true, final: false });
		return { answer: sent.response.body };
	}
	const failure = (job.failure = failureOf(sent, job));
	const retryAfterMs = retryAfterOf(failure, Date.now());
	const outcome = pacerOutcome(failure, retryAfterMs, startedAt);
	const waitMs = retryWaitMs(failure, retryAfterMs, job.counts);
	if (stopsEverySend(failure)) pacer?.close();
	// A request that ends in an error says so as it frees its slot, so a stopping run starts nothing new.
	// A taken ID ends this request only: the API holds what it would create, which stops nothing else.
	const final = waitMs === undefined && failure.meaning?.outcome !== 'alreadyListed';
	slot?.release({ ...outcome, final });
	return { waitMs };
}

/**
 * One send through the run's token renewal, its body read first (once: a 401's re-send goes with the same bytes).
 * A file that cannot be read fails before anything is sent or any login starts, in words that do not read as a
 * connection cut midway: nothing was sent, and the run's other requests go on.
 */
async function send(
	context: IExecuteFunctions,
	{ request, credential }: Job,
	options: AuthenticatedSendOptions,
): Promise<AuthenticatedAnswer> {
	let body: unknown;
	try {
		body = request.upload ? await request.upload() : request.body;
	} catch (error) {
		const said = error instanceof Error ? error.message : String(error);
		return { kind: 'thrown', error: new UnreadableFileError(said) };
	}
	const httpOptions: IHttpRequestOptions = {
		method: request.method,
		url: `${credential.baseUrl}${request.path}`,
		headers: request.headers,
		body: body as IHttpRequestOptions['body'],
		json: true,
		// n8n would follow a redirect and send the Bearer token along; a POST redirected to a GET could even
		// look like a created listing. A 3xx is reported instead.
		disableFollowRedirect: true,
		// An answer that never comes must not hold the run: the request then ends with its outcome unknown.
		timeout: REQUEST_TIMEOUTS.apiMs,
		// Not thrown: n8n's error for an HTTP status drops the headers, and Retry-After is needed.
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	};
	const helpers = context.helpers;
	const authenticated = { credentialsDecrypted: credential.decrypted };
	const sendOnce = async () =>
		await withinDeadline(
			helpers.httpRequestWithAuthentication.call(
				context,
				CREDENTIAL_NAME,
				{ ...httpOptions },
				authenticated,
			) as Promise<IN8nHttpFullResponse>,
			REQUEST_TIMEOUTS.apiMs,
		);
	return await credential.renewal.send(sendOnce, options);
}

/** A failed attempt, with what it means: as read on arrival, again only when a renewal said a 401 was no expiry. */
function failureOf(sent: Exclude<AuthenticatedAnswer, { kind: 'notSent' }>, job: Job): HttpFailure {
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
		failure.meaning = meaningOfFailure(failure, { ...job.rules, secrets: job.secrets() });
	return failure;
}

/** What the pacer learns from a failed attempt: a rate refusal (by the gateway), a round trip, or no answer. */
function pacerOutcome(
	{ meaning, status }: HttpFailure,
	retryAfterMs: number | undefined,
	startedAt: number,
): AttemptOutcome {
	if (meaning?.retry === 'rateLimit') {
		const { allowedPerSecond } = meaning;
		return {
			kind: 'rateLimited',
			retryAfterMs,
			spikeArrest: meaning.row === 'spikeArrest',
			allowedPerSecond,
		};
	}
	if (status === undefined) return { kind: 'failed' };
	return { kind: 'answered', roundTripMs: Date.now() - startedAt, accepted: false };
}

/**
 * The wait before trying a failed attempt again (undefined: it is not), as its row says, within the policy's budgets,
 * counted. A wait longer than this node takes turns the failure into its own row.
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
		if (allowed !== undefined && 1000 / allowed > RETRY_POLICY.maxWaitMs)
			return tooLongToWait(failure, meaning, { spikeIntervalMs: 1000 / allowed });
		if (retryAfterMs !== undefined) counts.lastRetryAfterMs = retryAfterMs;
		if (retryAfterMs !== undefined && retryAfterMs > RETRY_POLICY.maxRetryAfterMs)
			return tooLongToWait(failure, meaning, { retryAfterMs });
	}
	// Every 429 counts, whatever wait it names: a Retry-After of 0 or in the past is not a free retry.
	return retryWait(meaning?.retry, counts, retryAfterMs, meaning?.allowedPerSecond);
}

/** A rate refusal asking for a longer wait than this node takes: its own row from now on, the refusal kept. */
function tooLongToWait(
	failure: HttpFailure,
	refusal: AnswerMeaning,
	wait: { retryAfterMs: number } | { spikeIntervalMs: number },
): undefined {
	Object.assign(failure, wait, { refusal });
	failure.meaning = meaningOfFailure(failure, {});
	return undefined;
}

/** Whether a failure stops every send (a refused login could lock the account; the quota is used up): its row says. */
export function stopsEverySend(failure: HttpFailure): boolean {
	return failure.meaning?.stopsRun === true;
}
