/** A Partner API request as this node describes it, what became of one send of it, and the waits for its answer. */
import type { IDataObject, IHttpRequestMethods, IN8nHttpFullResponse } from 'n8n-workflow';

import type { AnswerMeaning } from './fromCredential';

/** A Partner API request as this node describes it (and as Validate Only shows it): relative to the Base URL. */
export interface ApiRequest {
	method: IHttpRequestMethods;
	path: string;
	headers: Record<string, string>;
	body?: IDataObject;
	/** A file upload's body, read when it is sent: what waits for its turn holds no file in memory. */
	upload?: () => Promise<Buffer>;
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
 * The request's answer, or a time-out error once `ms` have passed. The request's own `timeout` ends a connection
 * that goes silent, not an answer that trickles in a byte at a time: this bounds the whole wait. n8n gives the
 * request the run's cancel signal and no other, so the request itself is left to its own time-out.
 */
export async function withinDeadline<T>(request: Promise<T>, ms: number): Promise<T> {
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

/** What became of one request sent through the renewal. */
export type AuthenticatedAnswer =
	| {
			kind: 'response';
			response: IN8nHttpFullResponse;
			/** What the answer table makes of it (see AuthenticatedSendOptions.meaningOf). */
			meaning: AnswerMeaning;
			/** A 401 to a token just issued: the API refuses this app the request, whatever its login. */
			refusedAfterRenewal: boolean;
			/** A 401 to a token that had worked, once the run's renewals ran out: how many this run made. */
			renewalsExhausted?: number;
	  }
	| { kind: 'thrown'; error: unknown }
	/** Not sent (again): the run stopped, or the token could not be renewed, before this request went. */
	| { kind: 'notSent' };

export interface AuthenticatedSendOptions {
	/** Stop and the workflow timeout abort it. */
	cancel?: AbortSignal;
	/** Called before a request the API has answered is sent again (the pacer counts it). */
	onResend?: () => void;
	/** Aborted once the run sends nothing more (the plan's quota): no login and no resend after that either. */
	closed?: AbortSignal;
	/** What an answer means, read once as it arrives: its row says whether a renewed token may mend it. */
	meaningOf?: (response: IN8nHttpFullResponse) => AnswerMeaning;
}

/** Resolves true when `done` settles, false when the run is stopped first. */
export async function settledOrStopped(
	done: Promise<void>,
	cancel?: AbortSignal,
): Promise<boolean> {
	if (cancel === undefined) {
		await done;
		return true;
	}
	if (cancel.aborted) return false;
	let onAbort = () => {};
	const stopped = new Promise<boolean>((resolve) => {
		onAbort = () => resolve(false);
		cancel.addEventListener('abort', onAbort, { once: true });
	});
	try {
		return await Promise.race([done.then(() => true), stopped]);
	} finally {
		cancel.removeEventListener('abort', onAbort);
	}
}
