/** Waits that end when the run is stopped, and answers that are not waited for past a deadline. */
import * as workflow from 'n8n-workflow';

/** How often a wait without n8n's sleepWithAbort looks at the signal. */
const STEP_MS = 100;

/** Waits `ms`, rejecting once stopped: n8n's sleepWithAbort, else (gone in n8n 2.41) its sleep in steps. */
export async function waitOrStop(ms: number, signal?: AbortSignal): Promise<void> {
	// Read at call time, so that tests can replace either.
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
	const unsubscribe = [cancel, closed].map((signal) => onAborted(signal, abort));
	try {
		return await waited(either.signal);
	} finally {
		for (const off of unsubscribe) off();
	}
}

/** Each signal's one listener, fanned out to every wait on it: Node warns of a leak past 10 listeners. */
const fanOuts = new WeakMap<AbortSignal, Set<() => void>>();

export function onAborted(signal: AbortSignal, listener: () => void): () => void {
	let listeners = fanOuts.get(signal);
	if (listeners === undefined) {
		const all = new Set<() => void>();
		signal.addEventListener('abort', () => all.forEach((one) => one()), { once: true });
		fanOuts.set(signal, (listeners = all));
	}
	listeners.add(listener);
	return () => listeners.delete(listener);
}

/** `work`, unless `signal` aborts first: then what `onAbort` gives. */
export async function unlessAborted<T>(
	work: Promise<T>,
	signal: AbortSignal | undefined,
	onAbort: () => T | Promise<T>,
): Promise<T> {
	if (signal === undefined) return await work;
	if (signal.aborted) return await onAbort();
	let unsubscribe = () => {};
	const aborted = new Promise<T>(
		(resolve) => (unsubscribe = onAborted(signal, () => resolve(onAbort()))),
	);
	try {
		return await Promise.race([work, aborted]);
	} finally {
		unsubscribe();
	}
}

/** A time-out error after `ms`: the request's own `timeout` ends a silent connection, not an answer that trickles in. */
export async function withinDeadline<T>(request: Promise<T>, ms: number): Promise<T> {
	// n8n gives the request no signal but the run's: it is left to its own time-out.
	return await unlessAborted(request, AbortSignal.timeout(ms), async () => {
		throw Object.assign(new Error(`No complete answer within ${Math.round(ms / 1000)} s`), {
			code: 'ETIMEDOUT',
		});
	});
}
