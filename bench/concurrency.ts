export interface TaskOutcome<R> {
	ok: boolean;
	value?: R;
	error?: unknown;
	/** True when the task was never started because an earlier failure stopped the run. */
	skipped?: boolean;
}

/**
 * Runs `worker` over `tasks` with at most `limit` in flight and returns outcomes in task order.
 * The first task runs alone: n8n's token exchange has no single-flight, so letting it finish first means the
 * others reuse its token instead of each fetching one. With `stopOnFailure`, no new task starts after a failure
 * (tasks already in flight finish and are reported).
 */
export async function runWithConcurrency<T, R>(
	tasks: T[],
	limit: number,
	worker: (task: T, index: number) => Promise<R>,
	stopOnFailure: boolean,
): Promise<Array<TaskOutcome<R>>> {
	const outcomes: Array<TaskOutcome<R>> = tasks.map(() => ({ ok: false, skipped: true }));
	let next = 0;
	let stopped = false;

	const runOne = async (index: number) => {
		try {
			outcomes[index] = { ok: true, value: await worker(tasks[index], index) };
		} catch (error) {
			outcomes[index] = { ok: false, error };
			if (stopOnFailure) stopped = true;
		}
	};
	const lane = async () => {
		while (!stopped && next < tasks.length) {
			const index = next++;
			await runOne(index);
		}
	};

	if (tasks.length === 0) return outcomes;
	await runOne(next++);
	const lanes = Math.max(1, Math.min(limit, tasks.length - 1));
	await Promise.all(Array.from({ length: lanes }, lane));
	return outcomes;
}
