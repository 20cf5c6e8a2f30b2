/** The one request path to the Partner API; auth is n8n's, with the run's token renewal (tokenRenewal.ts). */
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	NodeApiError,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Outcome } from '../../shared/partnerApi/answerTable';
import { redactSecrets } from '../../shared/partnerApi/redaction';
import { REQUEST_TIMEOUTS } from '../../shared/partnerApi/partnerApi';
import { noteHandedOn } from '../../shared/partnerApi/pastN8n';
import { errorText } from '../helpers/errors';
import { answerMeaning, readFailure, settleFailure, UnreadableFileError } from './attempt';
import type { AuthenticatedAnswer, AuthenticatedSendOptions, HttpFailure } from './attempt';
import { classifyFailure } from './httpFailure';
import type { RequestPacer } from './pacing';
import { CREDENTIAL_NAME, readRunCredential, runSecrets, type RunCredential } from './tokenRenewal';
import { stoppedWhileWaiting, withinDeadline } from './waitOrStop';

export { redactSecrets };
export type { PacingMode } from './limiter';
export { RequestPacer } from './pacing';
export { parseRetryAfter, RETRY_POLICY } from './retryAfter';
export { readRunCredential, runSecrets, type RunCredential } from './tokenRenewal';
export type { Outcome as Effect };

/** As Validate Only shows it: relative to the Base URL. */
export interface ApiRequest {
	method: IHttpRequestMethods;
	path: string;
	headers: Record<string, string>;
	body?: IDataObject;
	/** A body of its own for each send (a 401's re-send too): what waits for its turn holds no file. */
	upload?: () => Promise<UploadBody>;
}

/** Streamed by n8n as a Blob, from `stream()` (a community node may not import node:stream); `close` frees its file. */
export interface UploadBody {
	readonly [Symbol.toStringTag]: 'Blob';
	type: string;
	size: number;
	stream: () => AsyncIterable<Buffer>;
	close: () => void;
}

export function buildRequest(
	method: IHttpRequestMethods,
	path: string,
	body?: IDataObject,
	headers: Record<string, string> = {},
): ApiRequest {
	const json = { Accept: 'application/json', 'Content-Type': 'application/json' };
	return { method, path, headers: { ...json, ...headers }, body };
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
	/** Whether a 2xx shows the request was done (without it, every 2xx does); read before its slot is freed. */
	confirmedBy?: (answer: IN8nHttpFullResponse) => boolean;
	/** What the request creates (the External Listing ID): "it exists already" must name it to mean "already listed". */
	createsId?: string | number;
}

/** What became of one request, with its effect; `apiCode`: the API's own error code, kept for support. */
export type RequestResult =
	| { kind: 'answered'; body: unknown; effect: 'created' }
	| { kind: 'failed'; error: NodeApiError; effect: Outcome; apiCode?: string }
	| { kind: 'notSent'; effect: 'notCreated' };

/** Sends one request, retrying only what provably created nothing, and says what became of it. */
export async function sendRequest(
	this: IExecuteFunctions,
	options: SendOptions,
): Promise<RequestResult> {
	const { request, pacer } = options;
	// Read once per call at least: its values are what an answer must never echo into an output.
	const credential = options.credential ?? (await readRunCredential.call(this));
	const secretsNow = () => [...runSecrets(credential), ...(options.secrets ?? [])];
	const rules = { ...options, path: request.path, method: request.method };
	const counts = { rateLimitRetries: 0, connectionRetries: 0, rateLimitAnswers: 0 };
	// Stop and the workflow timeout abort it; a request not yet sent then never is.
	const cancel = this.getExecutionCancelSignal?.();
	let failure: HttpFailure | undefined;
	for (let retryFirst = false; ; retryFirst = true) {
		const slot = pacer ? await pacer.acquire(retryFirst) : undefined;
		if (slot === null) break;
		try {
			if (cancel?.aborted) {
				pacer?.close();
				slot?.release({ kind: 'failed' });
				break;
			}
			const startedAt = Date.now();
			const sent = await send(this, request, credential, {
				onResend: () => slot?.sentAgain(),
				closed: pacer?.closedSignal,
				meaningOf: (response) => answerMeaning(response, rules, secretsNow),
			});
			if (sent.kind === 'notSent') {
				// Not sent again: an earlier attempt's answer (a 429, say) still says what became of it.
				slot?.release({ kind: 'failed' });
				break;
			}
			if (sent.kind === 'response' && sent.meaning.outcome === 'created') {
				const roundTripMs = Date.now() - startedAt;
				slot?.release({ kind: 'answered', roundTripMs, accepted: true, final: false });
				const body = redactSecrets(sent.response.body, secretsNow());
				return { kind: 'answered', body, effect: 'created' };
			}
			failure = readFailure(sent, { ...rules, secrets: secretsNow() });
			// The wait holds no slot. A stopped run, or an answer that stops every send (the quota), ends it at once.
			const waitMs = settleFailure(failure, counts, startedAt, pacer, slot);
			if (waitMs === undefined || (await stoppedWhileWaiting(waitMs, cancel, pacer?.closedSignal)))
				break;
		} finally {
			// Held only after a throw (every other way out frees it): others, and a renewal, must not wait on it.
			slot?.release({ kind: 'failed', final: true });
		}
	}
	// Never sent: "not sent". Refused (a 429, a connection refused): that answer says what became of it.
	if (!failure) return { kind: 'notSent', effect: 'notCreated' };
	const facts = { ...counts, ...rules, baseUrl: credential.baseUrl, secrets: secretsNow() };
	return { kind: 'failed', ...classifyFailure(this.getNode(), failure, facts) };
}

/** Sends the request through the token renewal, each send with a body of its own. */
async function send(
	context: IExecuteFunctions,
	request: ApiRequest,
	credential: RunCredential,
	options: AuthenticatedSendOptions,
): Promise<AuthenticatedAnswer> {
	// One that cannot even start (its first file unreadable) sends nothing.
	const unreadable = (error: unknown) => Promise.reject(new UnreadableFileError(errorText(error)));
	const start = async () => (await request.upload?.().catch(unreadable)) ?? request.body;
	const close = (spent: unknown) => request.upload && (spent as UploadBody).close();
	let body: unknown;
	try {
		body = await start();
	} catch (error) {
		return { kind: 'thrown', error };
	}
	const httpOptions: IHttpRequestOptions = {
		method: request.method,
		url: `${credential.baseUrl}${request.path}`,
		headers: request.headers,
		json: true,
		// n8n would follow a redirect with the Bearer token, and a POST redirected to a GET could look created.
		disableFollowRedirect: true,
		// An answer that never comes must not hold the run: the request then ends with its outcome unknown.
		timeout: REQUEST_TIMEOUTS.apiMs,
		// Not thrown: n8n's error for an HTTP status drops the headers, and Retry-After is needed.
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	};
	let sent = false;
	const sendOnce = async () => {
		// A 401's re-send streams the same bytes again, from the start.
		if (sent) {
			close(body);
			body = await start();
		}
		sent = true;
		const sendOptions = { ...httpOptions, body: body as IHttpRequestOptions['body'] };
		return await withinDeadline(
			context.helpers.httpRequestWithAuthentication.call(context, CREDENTIAL_NAME, sendOptions, {
				credentialsDecrypted: credential.decrypted,
			}) as Promise<IN8nHttpFullResponse>,
			REQUEST_TIMEOUTS.apiMs,
		).catch((error: unknown) => Promise.reject(noteHandedOn(error, sendOptions)));
	};
	try {
		return await credential.renewal.send(sendOnce, options);
	} finally {
		// A body left unread (an early answer, a failure, the deadline) must not hold a file open.
		close(body);
	}
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
