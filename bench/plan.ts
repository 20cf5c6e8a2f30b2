/** Command-line flags and the two plans (full and --quick): every count and bound of a run lives here. */

/** The suites, in the order `--only` runs them. */
export const SUITE_IDS = [
	'n8n',
	'queue',
	'sandbox',
	'throughput',
	'validation',
	'trigger',
] as const;
export type SuiteId = (typeof SUITE_IDS)[number];

/**
 * Cases against a limit on requests per second (the sandbox's sliding window on the listings endpoint, no limit in
 * flight unless said): default options beside Code + HTTP Request batched to the rate by hand (rate / 10 requests
 * every handIntervalMs). They run `repeat` times (at most --repeat): a 10/s case takes 40 s a run.
 */
export interface PerSecondPlan {
	limits: number[];
	/** Both limits at once. */
	both: { maxPerSecond: number; maxInFlight: number };
	/** A limit that changes mid-run (admin API), ms after the webhook call; the hand-batched baseline keeps to the lowest. */
	change: Array<{ atMs: number; maxPerSecond: number }>;
	handIntervalMs: number;
	/** The gateway's spike arrest (smoothed: one request every 1000 / perSecond ms), answered with each status. */
	spikeArrest: { perSecond: number; statuses: Array<500 | 429> };
	repeat: number;
}

export interface Plan {
	mode: 'full' | 'quick';
	suites: SuiteId[];
	/** Repetitions of each timed case; medians are reported. */
	repeat: number;
	/** The whole run is stopped (exit 2) when it takes longer than this. */
	timeLimitSeconds: number;
	throughput: {
		/** Sheet rows of the grouped case and how many rows make one listing. */
		groupedRows: number;
		rowsPerListing: number;
		/** Items of the ungrouped case: one listing each. */
		ungroupedItems: number;
		/** Concurrency option values asked of the node (it caps them at its maximum). */
		concurrency: number[];
		/** Latency fault on the listings endpoint: latencyMs plus 0..jitterMs, i.e. a mean of latency + jitter/2. */
		latencyMs: number;
		jitterMs: number;
	};
	/** Validate Only is cheap and noisy (garbage collection): it runs `runs` timed times after one untimed run. */
	validation: { rows: number; rowsPerListing: number; runs: number };
	/**
	 * Sale notifications into real n8n, these versions side by side (the e2e harness once per version): the trigger
	 * and n8n's Webhook node with header auth, `notifications` per round at `concurrency`, `repeat` rounds. A version
	 * may carry settings for that n8n's environment: `2.41.1+N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true`.
	 */
	trigger: { notifications: number; concurrency: number; versions: string[] };
	sandbox: { requests: number; concurrency: number[]; nodeConcurrency: number };
	/** Sale notifications into a single n8n and into queue mode (one, then two webhook processes); at most 230 a run,
	 * so the public API's one page of executions can count them. */
	queue: { notifications: number; concurrency: number };
	/** Inside the real n8n of the e2e harness (support/harness): the workflows of bench/n8nWorkflows.ts. */
	n8n: {
		/** Sheet rows (text cells) and how many consecutive rows make one listing. */
		rows: number;
		rowsPerListing: number;
		/** Latency fault on the listings endpoint, and the API's limit on requests in flight (429 beyond it). */
		latencyMs: number;
		maxInFlight: number;
		retryAfterSeconds: number;
		/** The fixed-concurrency case's Concurrency. */
		concurrency: number;
		/** The hand-tuned HTTP Request baseline: batches of `size` every `intervalMs`. */
		tunedBatch: { size: number; intervalMs: number };
		/** Bound on one run (webhook answer plus its execution being recorded). */
		runTimeoutMs: number;
		/** Cases against a limit on requests per second. */
		perSecond: PerSecondPlan;
		/** Only these cases (their ids in bench/n8nWorkflows.ts); all when undefined. */
		cases?: string[];
		/**
		 * The sandbox forgets the tokens it issued before every run, so that each run's first request is refused and
		 * the token renewed (as after the marketplace revoked it); by default they stay valid, as between two runs.
		 */
		staleToken: boolean;
	};
}

const N8N_FULL: Plan['n8n'] = {
	rows: 2000,
	rowsPerListing: 5,
	latencyMs: 100,
	maxInFlight: 10,
	retryAfterSeconds: 1,
	concurrency: 10,
	tunedBatch: { size: 10, intervalMs: 105 },
	runTimeoutMs: 120_000,
	perSecond: {
		limits: [40, 10, 100],
		both: { maxPerSecond: 40, maxInFlight: 10 },
		change: [
			{ atMs: 0, maxPerSecond: 40 },
			{ atMs: 3000, maxPerSecond: 10 },
			{ atMs: 8000, maxPerSecond: 40 },
		],
		handIntervalMs: 105,
		spikeArrest: { perSecond: 40, statuses: [500, 429] },
		repeat: 2,
	},
	staleToken: false,
};

const FULL: Omit<Plan, 'suites'> = {
	mode: 'full',
	repeat: 3,
	timeLimitSeconds: 1800,
	throughput: {
		groupedRows: 200,
		rowsPerListing: 4,
		ungroupedItems: 200,
		concurrency: [1, 4, 8, 16],
		latencyMs: 40,
		jitterMs: 20,
	},
	validation: { rows: 2000, rowsPerListing: 4, runs: 10 },
	trigger: { notifications: 400, concurrency: 8, versions: ['2.8.4', '2.41.1'] },
	sandbox: { requests: 2000, concurrency: [1, 8, 32], nodeConcurrency: 10 },
	queue: { notifications: 200, concurrency: 8 },
	n8n: N8N_FULL,
};

const QUICK: Omit<Plan, 'suites'> = {
	mode: 'quick',
	repeat: 1,
	// The trigger suite starts two real n8n: about 2 minutes each, 4.5 on a machine shared with other work.
	timeLimitSeconds: 900,
	throughput: {
		groupedRows: 80,
		rowsPerListing: 4,
		ungroupedItems: 80,
		concurrency: [1, 8],
		latencyMs: 40,
		jitterMs: 20,
	},
	validation: { rows: 2000, rowsPerListing: 4, runs: 3 },
	trigger: { notifications: 60, concurrency: 8, versions: ['2.8.4', '2.41.1'] },
	sandbox: { requests: 1000, concurrency: [8], nodeConcurrency: 10 },
	queue: { notifications: 60, concurrency: 4 },
	n8n: { ...N8N_FULL, rows: 500, perSecond: { ...N8N_FULL.perSecond, repeat: 1 } },
};

export const HELP = `Benchmarks of the Ticket Marketplace nodes and the sandbox (loopback only; run by hand, not in CI).

Usage: npm run bench -- [flags]

  --quick           Short run: fewer items and concurrency levels, one repetition (under 15 s without
                    the n8n and trigger suites, about 2 min with n8n, about 6 with trigger).
  --only LIST       Comma-separated suites to run, in this order: ${SUITE_IDS.join(', ')}
                    (default: all). n8n = Listing -> Create and n8n's own nodes inside the real n8n of
                    the e2e harness, ${FULL.n8n.rows} sheet rows against the sandbox with ${FULL.n8n.latencyMs} ms latency and
                    at most ${FULL.n8n.maxInFlight} requests in flight, then per-second limits of
                    ${FULL.n8n.perSecond.limits.join(', ')}/s, both at once and one changing mid-run, and a
                    spike arrest of ${FULL.n8n.perSecond.spikeArrest.perSecond}ps answered ${FULL.n8n.perSecond.spikeArrest.statuses.join(' and ')}
                    (installs the pinned n8n on first use);
                    queue = sale notifications into a single n8n and into n8n's queue mode (PostgreSQL,
                    Redis, two webhook processes, two workers), through one and two webhook processes;
                    sandbox = Partner API simulator alone, the baseline;
                    throughput = Listing -> Create through the action node against the sandbox with a
                    latency fault; validation = Validate Only over ${FULL.validation.rows} rows;
                    trigger = sale notifications into n8n ${FULL.trigger.versions.join(' and ')} side by side,
                    the trigger against n8n's Webhook node with header auth, ${FULL.trigger.notifications} a round,
                    ${FULL.trigger.concurrency} at a time (installs both n8n on first use).
  --trigger-n8n L   The n8n the trigger suite runs side by side, comma-separated (default
                    ${FULL.trigger.versions.join(',')}); a version may carry environment settings joined with +,
                    e.g. 2.41.1+N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true (the same version may appear twice).
  --cases LIST      Only these cases of the n8n suite, comma-separated ids as in bench/n8nWorkflows.ts
                    (for example default,fixed); their baselines are not added by themselves.
  --stale-token     The sandbox forgets its tokens before every run of the n8n suite: each run's first
                    request is refused and the token renewed (by default the token stays valid).
  --repeat N        Runs of each node case (n8n, throughput, and the node row of sandbox), 1 to 10
                    (default ${FULL.repeat}, quick ${QUICK.repeat}); medians are reported. Validation always does one
                    untimed run then ${FULL.validation.runs} (quick ${QUICK.validation.runs}) timed ones.
  --no-write        Do not write bench/results/<timestamp>.json.
  --help            This text.

Prints progress, then one table per suite; writes the machine-readable results to bench/results/<timestamp>.json.
Exit status: 0 when every correctness check passed, 1 when one failed (the numbers of that run are not trustworthy),
2 for bad flags or when the run exceeded its time bound (${FULL.timeLimitSeconds} s, quick ${QUICK.timeLimitSeconds} s).
See bench/README.md for what each number means.`;

export class FlagError extends Error {}

export interface ParsedFlags {
	help: boolean;
	write: boolean;
	plan: Plan;
}

export function parseFlags(argv: string[]): ParsedFlags {
	let quick = false;
	let help = false;
	let write = true;
	let only: SuiteId[] | undefined;
	let repeat: number | undefined;
	let triggerVersions: string[] | undefined;
	let cases: string[] | undefined;
	let staleToken = false;
	for (let index = 0; index < argv.length; index++) {
		const flag = argv[index];
		const value = () => {
			const next = argv[++index];
			if (next === undefined) throw new FlagError(`${flag} needs a value`);
			return next;
		};
		if (flag === '--quick') quick = true;
		else if (flag === '--help' || flag === '-h') help = true;
		else if (flag === '--no-write') write = false;
		else if (flag === '--only') only = parseSuites(value());
		else if (flag === '--repeat') repeat = parseRepeat(value());
		else if (flag === '--trigger-n8n') triggerVersions = parseTriggerVersions(value());
		else if (flag === '--cases') cases = parseCases(value());
		else if (flag === '--stale-token') staleToken = true;
		else throw new FlagError(`Unknown flag "${flag}" (see --help)`);
	}
	const base = quick ? QUICK : FULL;
	return {
		help,
		write,
		plan: {
			...base,
			suites: only ?? [...SUITE_IDS],
			repeat: repeat ?? base.repeat,
			trigger: { ...base.trigger, versions: triggerVersions ?? base.trigger.versions },
			n8n: { ...base.n8n, cases, staleToken },
		},
	};
}

/** Case ids as typed; the n8n suite refuses ids it does not have (it knows its cases, the plan does not). */
function parseCases(text: string): string[] {
	const ids = text
		.split(',')
		.map((id) => id.trim())
		.filter(Boolean);
	if (ids.length === 0)
		throw new FlagError(`--cases takes comma-separated case ids (got "${text}")`);
	return ids;
}

function parseSuites(text: string): SuiteId[] {
	const names = text
		.split(',')
		.map((name) => name.trim())
		.filter(Boolean);
	const unknown = names.filter((name) => !(SUITE_IDS as readonly string[]).includes(name));
	if (unknown.length || names.length === 0) {
		throw new FlagError(`--only takes suite names from: ${SUITE_IDS.join(', ')} (got "${text}")`);
	}
	return SUITE_IDS.filter((id) => names.includes(id));
}

function parseRepeat(text: string): number {
	const repeat = Number(text);
	if (!Number.isInteger(repeat) || repeat < 1 || repeat > 10)
		throw new FlagError(`--repeat takes a whole number from 1 to 10 (got "${text}")`);
	return repeat;
}

/** One n8n of the trigger suite: `2.41.1` or `2.41.1+NAME=value+NAME=value` (settings for its environment). */
export function parseTriggerVersion(entry: string): {
	version: string;
	env: Record<string, string>;
} {
	const [version, ...settings] = entry.split('+');
	const env: Record<string, string> = {};
	for (const setting of settings) {
		const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(setting);
		if (match === null) throw new FlagError(`--trigger-n8n: "${setting}" is not NAME=value`);
		env[match[1]] = match[2];
	}
	if (!/^\d+\.\d+\.\d+$/.test(version))
		throw new FlagError(`--trigger-n8n: "${version}" is not an n8n version like 2.41.1`);
	return { version, env };
}

function parseTriggerVersions(text: string): string[] {
	const entries = text
		.split(',')
		.map((entry) => entry.trim())
		.filter(Boolean);
	if (entries.length === 0) throw new FlagError('--trigger-n8n needs at least one n8n version');
	for (const entry of entries) parseTriggerVersion(entry);
	if (new Set(entries).size !== entries.length)
		throw new FlagError(`--trigger-n8n names the same n8n twice (got "${text}")`);
	return entries;
}
