/** A Partner API request, what became of one send of it, and the waits for its answer. */
import type { IDataObject, IHttpRequestMethods, IN8nHttpFullResponse } from 'n8n-workflow';

import type { AnswerMeaning } from '../../shared/partnerApi/answerTable';

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
	return {
		method,
		path,
		headers: { Accept: 'application/json', 'Content-Type': 'application/json', ...headers },
		body,
	};
}

/**
 * A time-out error once `ms` have passed: the request's own `timeout` ends a silent connection, not an answer that
 * trickles in; n8n gives it no signal but the run's, so the request itself is left to its own time-out.
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

export type AuthenticatedAnswer =
	| {
			kind: 'response';
			response: IN8nHttpFullResponse;
			meaning: AnswerMeaning;
			/** A 401 to a token just issued. */
			refusedAfterRenewal: boolean;
			/** A 401 once the run's renewals ran out: how many it made. */
			renewalsExhausted?: number;
	  }
	| { kind: 'thrown'; error: unknown }
	| { kind: 'notSent' };

export interface AuthenticatedSendOptions {
	/** Stop and the workflow timeout abort it. */
	cancel?: AbortSignal;
	/** Before an answered request goes again (the pacer counts it). */
	onResend?: () => void;
	/** Aborted once the run sends nothing more: no login and no resend either. */
	closed?: AbortSignal;
	/** Read once as it arrives: its row says whether a renewed token may mend it. */
	meaningOf?: (response: IN8nHttpFullResponse) => AnswerMeaning;
}

/** True when `done` settles, false when the run is stopped first. */
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
