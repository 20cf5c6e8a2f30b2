/** Waits that end when the run is stopped, and answers that are not waited for past a deadline. */
import * as workflow from 'n8n-workflow';

/** How often a wait without n8n's sleepWithAbort looks at the signal. */
const STEP_MS = 100;

/**
 * Waits `ms`, ending early (rejecting) when the run is stopped. n8n-workflow's sleepWithAbort where it exists (the
 * n8n 1.x and 2.8 lines); the n8n-workflow of n8n 2.41 no longer exports it, so there the wait is n8n's sleep in
 * steps, with the signal checked between them. Read at call time, so that tests can replace either.
 */
export async function waitOrStop(ms: number, signal?: AbortSignal): Promise<void> {
	const native = (workflow as { sleepWithAbort?: typeof waitOrStop }).sleepWithAbort;
	if (typeof native === 'function') return await native(ms, signal);
	for (let left = ms; ; left -= STEP_MS) {
		if (signal?.aborted) throw new Error('The run was stopped');
		if (left <= 0) return;
		await workflow.sleep(Math.min(left, STEP_MS));
	}
}

/**
 * Waits before a retry; true when the run was stopped meanwhile (waitOrStop rejects only then), or when the pacer
 * closed: an answer that stops every send (the plan's quota) ends every wait of the run at once.
 */
export async function stoppedWhileWaiting(
	waitMs: number,
	cancel?: AbortSignal,
	pacer?: { closedSignal?: AbortSignal },
): Promise<boolean> {
	const closed = pacer?.closedSignal;
	if (cancel?.aborted || closed?.aborted) return true;
	const waited = async (signal?: AbortSignal) =>
		await waitOrStop(waitMs, signal).then(
			() => false,
			() => true,
		);
	if (cancel === undefined || closed === undefined) return await waited(cancel ?? closed);
	// Not AbortSignal.any: it leaks where a source signal lives long, as the run's does.
	const either = new AbortController();
	const abort = () => either.abort();
	cancel.addEventListener('abort', abort, { once: true });
	closed.addEventListener('abort', abort, { once: true });
	try {
		return await waited(either.signal);
	} finally {
		cancel.removeEventListener('abort', abort);
		closed.removeEventListener('abort', abort);
	}
}

/** `work`, unless `signal` aborts first: then what `onAbort` gives. */
export async function unlessAborted<T>(
	work: Promise<T>,
	signal: AbortSignal | undefined,
	onAbort: () => T | Promise<T>,
): Promise<T> {
	if (signal === undefined) return await work;
	if (signal.aborted) return await onAbort();
	let listener = () => {};
	const aborted = new Promise<T>((resolve) => {
		listener = () => resolve(onAbort());
		signal.addEventListener('abort', listener, { once: true });
	});
	try {
		return await Promise.race([work, aborted]);
	} finally {
		signal.removeEventListener('abort', listener);
	}
}

/**
 * A time-out error once `ms` have passed: the request's own `timeout` ends a silent connection, not an answer that
 * trickles in; n8n gives it no signal but the run's, so the request itself is left to its own time-out.
 */
export async function withinDeadline<T>(request: Promise<T>, ms: number): Promise<T> {
	return await unlessAborted(request, AbortSignal.timeout(ms), async () => {
		throw Object.assign(new Error(`No complete answer within ${Math.round(ms / 1000)} s`), {
			code: 'ETIMEDOUT',
		});
	});
}
