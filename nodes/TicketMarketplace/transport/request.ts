/** A Partner API request as this node describes it, and the deadline of its answer. */
import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';

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
