/** Waits that end when the run is stopped, and answers that are not waited for past a deadline. */
import * as workflow from 'n8n-workflow';

/** How often a wait without n8n's sleepWithAbort looks at the signal. */
const STEP_MS = 100;

/**
 * Waits `ms`, rejecting once the run is stopped: n8n's sleepWithAbort, or where n8n-workflow no longer exports it
 * (n8n 2.41), n8n's sleep in steps. Read at call time, so that tests can replace either.
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

/** Waits before a retry; true when the run was stopped meanwhile, or the pacer closed (the quota ends every wait). */
export async function stoppedWhileWaiting(
	waitMs: number,
	cancel?: AbortSignal,
	closed?: AbortSignal,
): Promise<boolean> {
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
	for (const signal of [cancel, closed]) signal.addEventListener('abort', abort, { once: true });
	try {
		return await waited(either.signal);
	} finally {
		for (const signal of [cancel, closed]) signal.removeEventListener('abort', abort);
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
