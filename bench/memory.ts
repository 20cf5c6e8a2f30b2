/**
 * `npx tsx bench/memory.ts [--before <commit>] [--sizes 0,1300,13300,98000,99000] [--repeat N]`: what the memory of
 * sent listings costs a run as it grows, inside two real n8n side by side: one with this checkout's node, one with
 * the node at `--before` (default: the commit this branch started from). For each size, the workflow's memory
 * (n8n's own row) is filled with that many values of other listings, then Listing → Create runs a sheet of new
 * listings (400 listings of 5 rows) and the same sheet again (every listing skipped, with 400 more remembered; a
 * node that refuses it as past n8n's cap says "refused"). The time is the node's own execution time, from n8n's
 * run data. Separate from `npm run bench`: it builds the old node and runs two n8n.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SandboxAdminClient } from '../sandbox/index';
import type { E2e } from '../support/e2e/helpers';
import { nodeOutput } from '../support/e2e/helpers';
import { ACTION_NODE_TYPE } from '../support/e2e/workflows';
import { startHarness, type Harness } from '../support/harness/harness';
import { n8nInstallDir, DEFAULT_N8N_VERSION } from '../support/harness/n8nInstall';
import { REPO_ROOT } from '../support/harness/packageUnderTest';
import { EXAMPLE_FILES, loadExample, nodeByType, variantOf } from '../support/harness/workflows';
import type { N8nCase } from './n8nWorkflows';
import { benchSheet, runCase, type N8nPlan } from './n8nRuns';
import { median } from './stats';

const WORKFLOW_ID = 'tmBenchMemory001';
const LISTINGS = 400;
const ROWS_PER_LISTING = 5;

function argument(name: string): string | undefined {
	const index = process.argv.indexOf(`--${name}`);
	return index === -1 ? undefined : process.argv[index + 1];
}

/** The node at `commit`, compiled (JavaScript only: the packed icons and package.json stay). */
function buildBefore(commit: string): string {
	const dir = mkdtempSync(join(tmpdir(), 'tm-memory-before-'));
	execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C ${dir}`], { cwd: REPO_ROOT });
	symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
	execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' });
	return dir;
}

const workflow = variantOf(loadExample(EXAMPLE_FILES.sheetToListings), {
	id: WORKFLOW_ID,
	name: 'Bench: the memory of sent listings',
	webhookPath: 'ticket-marketplace-bench/memory',
	changeNodes: (node) => {
		// The memory on (its default), the rest as the example has it.
		if (node.type === ACTION_NODE_TYPE) node.parameters.options = { skipAlreadySent: true };
	},
});
const createNode = nodeByType(workflow, ACTION_NODE_TYPE).name;
const benchCase = {
	id: 'defaults',
	label: 'memory',
	kind: 'node',
	workflow,
	timedNodes: [createNode],
	outputNode: createNode,
	input: 'csv',
} as unknown as N8nCase;

interface Sqlite {
	run(sql: string, params: unknown[], done: (error: Error | null) => void): void;
	close(done: (error: Error | null) => void): void;
}

/**
 * Fills the workflow's memory (n8n's processed_data row, scope "workflow") with `size` values, as n8n keeps them
 * (md5, base64), replacing whatever it held.
 */
async function fillMemory(harness: Harness, size: number): Promise<void> {
	// n8n's own sqlite3, built for the Node that runs n8n 2.8.4 (this one).
	const sqlite3 = createRequire(join(REPO_ROOT, 'package.json'))(
		join(n8nInstallDir(DEFAULT_N8N_VERSION), 'node_modules', 'sqlite3'),
	) as {
		Database: new (file: string, done: (error: Error | null) => void) => Sqlite;
	};
	const data = Array.from({ length: size }, (_, index) =>
		createHash('md5').update(`bench filler listing ${index}`).digest('base64'),
	);
	const file = join(harness.context.n8nFolder, 'database.sqlite');
	const db = await new Promise<Sqlite>((resolve, reject) => {
		const opened = new sqlite3.Database(file, (error) => (error ? reject(error) : resolve(opened)));
	});
	const run = async (sql: string, params: unknown[]) =>
		await new Promise<void>((resolve, reject) =>
			db.run(sql, params, (error) => (error ? reject(error) : resolve())),
		);
	try {
		await run('DELETE FROM processed_data WHERE workflowId = ?', [WORKFLOW_ID]);
		if (size > 0)
			await run(
				"INSERT INTO processed_data (workflowId, context, value, createdAt, updatedAt) VALUES (?, '', ?, STRFTIME('%Y-%m-%d %H:%M:%f', 'NOW'), STRFTIME('%Y-%m-%d %H:%M:%f', 'NOW'))",
				[WORKFLOW_ID, JSON.stringify({ mode: 'entries', data })],
			);
	} finally {
		await new Promise<void>((resolve) => db.close(() => resolve()));
	}
}

function e2eOf(harness: Harness): E2e {
	return {
		context: harness.context,
		n8n: harness.api,
		sandbox: new SandboxAdminClient(harness.context.sandboxUrl),
		n8nProcess: { stop: () => harness.stopN8n(), start: () => harness.startN8n() },
	};
}

interface Measured {
	sendMs: number;
	skipMs: number;
}

/** One size on one n8n: a run of new listings, then the same sheet again; checks that it did what it claims. */
async function measure(harness: Harness, size: number, plan: N8nPlan): Promise<Measured> {
	const e2e = e2eOf(harness);
	await fillMemory(harness, size);
	const rows = benchSheet(LISTINGS * ROWS_PER_LISTING, ROWS_PER_LISTING);
	const send = await runCase(e2e, benchCase, rows, plan);
	if (send.executionStatus !== 'success' || send.listingsCreated !== LISTINGS)
		throw new Error(
			`size ${size}: the first run created ${send.listingsCreated} of ${LISTINGS} (${send.executionStatus}: ${send.executionError ?? ''})`,
		);
	const skip = await runCase(e2e, benchCase, rows, plan);
	// Near the cap a node may refuse to write past it: a result, not a failed bench.
	if (skip.executionStatus !== 'success' && /is full/.test(skip.executionError ?? ''))
		return { sendMs: send.nodeMs, skipMs: Number.NaN };
	const summary = (await e2e.n8n.executions(WORKFLOW_ID))[0];
	const output = nodeOutput(await e2e.n8n.execution(summary.id), createNode);
	const skipped = output.filter((item) => item.status === 'skipped').length;
	if (skip.executionStatus !== 'success' || skipped !== LISTINGS || skip.listingRequests !== 0)
		throw new Error(
			`size ${size}: the second run skipped ${skipped} of ${LISTINGS} and sent ${skip.listingRequests} requests (${skip.executionStatus})`,
		);
	return { sendMs: send.nodeMs, skipMs: skip.nodeMs };
}

async function main(): Promise<void> {
	const before =
		argument('before') ??
		execFileSync('git', ['merge-base', 'HEAD', 'main'], { cwd: REPO_ROOT }).toString().trim();
	const sizes = (argument('sizes') ?? '0,1300,13300,98000,99000').split(',').map(Number);
	const repeat = Number(argument('repeat') ?? '1');
	// The n8n suite's API: 100 ms latency, 10 requests in flight (429 with Retry-After 1 beyond).
	const plan = { latencyMs: 100, maxInFlight: 10, runTimeoutMs: 300_000 } as N8nPlan;
	const beforeDir = buildBefore(before);
	const harnesses: Record<'before' | 'after', Harness | undefined> = {
		before: undefined,
		after: undefined,
	};
	const stopAll = async () => {
		for (const harness of Object.values(harnesses)) await harness?.stop();
		rmSync(beforeDir, { recursive: true, force: true });
	};
	process.on('SIGINT', () => void stopAll().then(() => process.exit(130)));
	try {
		const options = {
			workflows: [{ workflow, activate: true }],
			sandbox: { requestLogLimit: 20_000 },
		};
		harnesses.after = await startHarness(options);
		harnesses.before = await startHarness(options);
		await harnesses.before.stopN8n();
		cpSync(join(beforeDir, 'dist'), join(harnesses.before.context.packageDir, 'dist'), {
			recursive: true,
		});
		await harnesses.before.startN8n();
		const results: Record<string, Record<number, Measured[]>> = { before: {}, after: {} };
		for (let round = 0; round < repeat; round++)
			for (const size of sizes)
				for (const variant of round % 2 === 0
					? (['before', 'after'] as const)
					: (['after', 'before'] as const)) {
					const measured = await measure(harnesses[variant]!, size, plan);
					(results[variant][size] ??= []).push(measured);
					console.log(
						`${variant} (${variant === 'before' ? before.slice(0, 7) : 'this checkout'}), ${size} remembered: ${JSON.stringify(measured)}`,
					);
				}
		const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
		const cell = (variant: string, size: number, key: keyof Measured) => {
			if (results[variant][size].some((run) => Number.isNaN(run[key]))) return 'refused (full)';
			const zero = median(results[variant][sizes[0]].map((run) => run[key]));
			const value = median(results[variant][size].map((run) => run[key]));
			return `${seconds(value)} (${(value / zero).toFixed(2)}x)`;
		};
		console.log(
			`\nnode's own time, median of ${repeat}; in brackets: / the same run at ${sizes[0]} remembered`,
		);
		console.log(
			'| Remembered before the run | 400 listings, before | after | same sheet again (all skipped), before | after |',
		);
		console.log('|---:|---:|---:|---:|---:|');
		for (const size of sizes)
			console.log(
				`| ${size.toLocaleString('en-US')} | ${cell('before', size, 'sendMs')} | ${cell('after', size, 'sendMs')} | ${cell('before', size, 'skipMs')} | ${cell('after', size, 'skipMs')} |`,
			);
	} finally {
		await stopAll();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
