/** A bounded loopback load: a fixed number of requests with at most `concurrency` in flight. */
import { runWithConcurrency } from './concurrency';

export interface LoadResult {
	requests: number;
	concurrency: number;
	wallMs: number;
	/** Client-side time of each request, from sending to the end of the answer body. */
	latenciesMs: number[];
	/** How many answers had each status; `error` counts requests that threw (connection refused, reset...). */
	statuses: Record<string, number>;
	firstError?: string;
}

/**
 * `send` makes one request and resolves with the answer's HTTP status once the body has been read. The node's own
 * concurrency helper schedules them, so its rule applies here too: the first request runs alone (a warm-up of one).
 */
export async function runLoad(
	requests: number,
	concurrency: number,
	send: (index: number) => Promise<number>,
): Promise<LoadResult> {
	const indexes = Array.from({ length: requests }, (_, index) => index);
	const latenciesMs: number[] = [];
	const started = performance.now();
	const outcomes = await runWithConcurrency(
		indexes,
		concurrency,
		async (index) => {
			const sent = performance.now();
			const status = await send(index);
			latenciesMs.push(performance.now() - sent);
			return status;
		},
		false,
	);
	const wallMs = performance.now() - started;
	const statuses: Record<string, number> = {};
	let firstError: string | undefined;
	for (const outcome of outcomes) {
		const key = outcome.ok ? String(outcome.value) : 'error';
		statuses[key] = (statuses[key] ?? 0) + 1;
		if (!outcome.ok && firstError === undefined) {
			firstError = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
		}
	}
	return { requests, concurrency, wallMs, latenciesMs, statuses, firstError };
}

export function countOf(result: LoadResult, status: number): number {
	return result.statuses[String(status)] ?? 0;
}

export function describeStatuses(result: LoadResult): string {
	const parts = Object.entries(result.statuses).map(([status, count]) => `${count}x ${status}`);
	return [parts.join(', '), result.firstError ? `first error: ${result.firstError}` : '']
		.filter(Boolean)
		.join('; ');
}
