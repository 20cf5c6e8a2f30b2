/**
 * `npm run bench [-- --quick | --only LIST | --repeat N | --no-write | --help]`: runs the benchmark suites over
 * loopback, prints progress and a summary table per suite, and writes bench/results/<timestamp>.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { FlagError, HELP, parseFlags } from './plan';
import type { ParsedFlags, SuiteId } from './plan';
import { formatTable } from './stats';
import type { BenchRow, Suite, SuiteSummary } from './suite';
import { n8nSuite } from './suites/n8n';
import { queueSuite } from './suites/queue';
import { sandboxSuite } from './suites/sandbox';
import { throughputSuite } from './suites/throughput';
import { triggerSuite } from './suites/trigger';
import { validationSuite } from './suites/validation';

const SUITES: Record<SuiteId, Suite> = {
	n8n: n8nSuite,
	queue: queueSuite,
	sandbox: sandboxSuite,
	throughput: throughputSuite,
	validation: validationSuite,
	trigger: triggerSuite,
};

interface SuiteResult {
	id: SuiteId;
	title: string;
	seconds: number;
	rows: BenchRow[];
	summary?: SuiteSummary;
	error?: string;
}

const cleanups = new Set<() => Promise<void>>();

async function stopEverything(): Promise<void> {
	const pending = [...cleanups];
	cleanups.clear();
	await Promise.allSettled(pending.map((stop) => stop()));
}

/** The commit measured, and whether the checkout had changes on top of it (then the commit alone does not say). */
function gitRevision(): { commit?: string; dirty?: boolean } {
	const git = (...args: string[]) =>
		execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
	try {
		return {
			commit: git('rev-parse', '--short', 'HEAD'),
			dirty: git('status', '--porcelain', '--untracked-files=no') !== '',
		};
	} catch {
		return {};
	}
}

function machine() {
	const cpus = os.cpus();
	return {
		node: process.version,
		platform: `${os.platform()} ${os.release()}`,
		cpus: cpus.length,
		cpuModel: cpus[0]?.model ?? 'unknown',
		memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
	};
}

/** Other processes share the cores: the 1-minute load average says how much (the JSON keeps it at start and end). */
function loadAverage(): number {
	return Math.round(os.loadavg()[0] * 100) / 100;
}

function printSuite(suite: Suite, result: SuiteResult): void {
	console.log(`\n== ${suite.title} (${result.seconds.toFixed(1)} s)`);
	if (result.error) {
		console.log(`   FAILED: ${result.error}`);
		return;
	}
	const table = formatTable(
		suite.columns.map((column) => column.header),
		result.rows.map((row) => suite.columns.map((column) => column.cell(row))),
	);
	console.log(table.replace(/^/gm, '   '));
	for (const note of suite.notes) console.log(`   ${note}`);
	for (const line of result.summary?.lines ?? []) console.log(`   ${line}`);
	const failed = result.rows.flatMap((row) =>
		row.checks.filter((item) => !item.ok).map((item) => ({ row: row.name, item })),
	);
	for (const { row, item } of failed)
		console.log(`   CHECK FAILED (${row}): ${item.name}${item.detail ? ` - ${item.detail}` : ''}`);
}

async function main(flags: ParsedFlags): Promise<number> {
	const { plan } = flags;
	const startedAt = new Date();
	const timeBound = setTimeout(() => {
		console.error(`\nThe run exceeded its bound of ${plan.timeLimitSeconds} s; stopping.`);
		void stopEverything().finally(() => process.exit(2));
	}, plan.timeLimitSeconds * 1000);
	timeBound.unref();

	console.log(
		`Benchmarks (${plan.mode}, ${plan.repeat} run${plan.repeat === 1 ? '' : 's'} per case): ${plan.suites.join(', ')}`,
	);
	const info = machine();
	const loadAtStart = loadAverage();
	console.log(
		`Node ${info.node}, ${info.cpus} x ${info.cpuModel}, ${info.memoryGiB} GiB; load average ${loadAtStart}`,
	);

	const results: SuiteResult[] = [];
	for (const [position, id] of plan.suites.entries()) {
		const suite = SUITES[id];
		const prefix = `[${position + 1}/${plan.suites.length} ${id}]`;
		console.log(`${prefix} ${suite.title}`);
		const suiteStarted = performance.now();
		const result: SuiteResult = { id, title: suite.title, seconds: 0, rows: [] };
		try {
			result.rows = await suite.run({
				plan,
				progress: (message) => console.log(`${prefix} ${message}`),
				onCleanup: (stop) => {
					cleanups.add(stop);
					return () => cleanups.delete(stop);
				},
			});
			result.summary = suite.summarize?.(result.rows);
		} catch (error) {
			result.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
		}
		result.seconds = (performance.now() - suiteStarted) / 1000;
		results.push(result);
	}
	clearTimeout(timeBound);

	console.log('\nSummary');
	for (const result of results) printSuite(SUITES[result.id], result);

	const checks = results.flatMap((result) => result.rows.flatMap((row) => row.checks));
	const failedChecks = checks.filter((item) => !item.ok).length;
	const failedSuites = results.filter((result) => result.error).length;
	const seconds = (Date.now() - startedAt.getTime()) / 1000;
	const loadAtEnd = loadAverage();
	console.log(
		`\n${checks.length - failedChecks}/${checks.length} checks passed, ${failedSuites} suite(s) failed, ${seconds.toFixed(1)} s in all (load average ${loadAtStart} at start, ${loadAtEnd} at end).`,
	);

	if (flags.write) {
		const directory = path.join(__dirname, 'results');
		mkdirSync(directory, { recursive: true });
		const file = path.join(directory, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
		const document = {
			startedAt: startedAt.toISOString(),
			seconds,
			...gitRevision(),
			machine: { ...info, loadAverage: { start: loadAtStart, end: loadAtEnd } },
			plan,
			results,
		};
		writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
		console.log(`Results: ${path.relative(process.cwd(), file)}`);
	}
	return failedChecks === 0 && failedSuites === 0 ? 0 : 1;
}

let flags: ParsedFlags;
try {
	flags = parseFlags(process.argv.slice(2));
} catch (error) {
	if (!(error instanceof FlagError)) throw error;
	console.error(error.message);
	process.exit(2);
}
if (flags.help) {
	console.log(HELP);
	process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
	process.once(signal, () => {
		console.error(`\n${signal}: stopping servers.`);
		void stopEverything().finally(() => process.exit(130));
	});
}
main(flags).then(
	(code) => {
		process.exitCode = code;
	},
	async (error: unknown) => {
		console.error(error);
		await stopEverything();
		process.exitCode = 1;
	},
);
