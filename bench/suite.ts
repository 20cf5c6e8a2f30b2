/** What every benchmark suite produces and how the runner drives it. */
import type { Plan, SuiteId } from './plan';

export interface Check {
	name: string;
	ok: boolean;
	detail?: string;
}

/** One line of a suite's summary table, also written as is to the JSON results. */
export interface BenchRow {
	name: string;
	params: Record<string, number | string>;
	metrics: Record<string, number>;
	checks: Check[];
}

export interface Column {
	header: string;
	cell: (row: BenchRow) => string;
}

export interface SuiteContext {
	plan: Plan;
	/** One progress line; the runner prefixes the suite name. */
	progress: (message: string) => void;
	/** Registers a stop function for servers the suite starts, so Ctrl-C and the time bound stop them too. */
	onCleanup: (stop: () => Promise<void>) => () => void;
}

export interface Suite {
	id: SuiteId;
	title: string;
	/** What the numbers mean, printed under the table. */
	notes: string[];
	columns: Column[];
	run: (context: SuiteContext) => Promise<BenchRow[]>;
	/** Lines printed under the notes (e.g. targets met or missed), also written to the JSON results. */
	summarize?: (rows: BenchRow[]) => SuiteSummary;
}

export interface Target {
	name: string;
	met: boolean;
	/** What was measured, in words. */
	measured: string;
}

export interface SuiteSummary {
	lines: string[];
	targets: Target[];
}

export function check(name: string, ok: boolean, detail?: string): Check {
	return ok ? { name, ok } : { name, ok, detail };
}

/** Runs `body` with `stop` registered for interruption, and always calls `stop` afterwards. */
export async function withServer<S extends { stop: () => Promise<void> }, R>(
	context: SuiteContext,
	server: S,
	body: (server: S) => Promise<R>,
): Promise<R> {
	const unregister = context.onCleanup(() => server.stop());
	try {
		return await body(server);
	} finally {
		unregister();
		await server.stop();
	}
}
