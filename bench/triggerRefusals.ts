/**
 * `npx tsx bench/triggerRefusals.ts [--n8n 2.8.4,2.41.1] [--requests 400] [--concurrency 8] [--rounds 3]`: what a
 * stranger's request costs in real n8n, beside n8n's own Webhook node refusing a wrong header. The same two
 * workflows as the trigger suite (suites/trigger.ts), in the e2e harness's n8n, one version after another:
 *
 * - the trigger's notifications URL with `Bearer x` (401 invalid_token, refused by the token's shape);
 * - its token URL with a client that is not the credential's (401 invalid_client, refused against what a read of
 *   the credential less than 10 s old left; at most one read every 10 s);
 * - the Webhook node with header auth and a wrong header (403).
 *
 * Each round sends the same number of requests to each case, the order reversed every other round; none may start
 * an execution. Before this change every one of the trigger's refusals read the callback credential (on n8n 2.41
 * an expression sandbox for each). Prints one line per case and version; client-side figures over loopback.
 */
import { basicClientAuthorization } from '../sandbox/index';
import { countOf, describeStatuses, runLoad, type LoadResult } from './load';
import { parseTriggerVersion } from './plan';
import { distribution, formatNumber, formatTable, median, perSecond } from './stats';
import {
	startVersion,
	TRIGGER_WEBHOOK_ID,
	TRIGGER_WORKFLOW,
	WEBHOOK_NODE_PATH,
	WEBHOOK_NODE_WORKFLOW,
	notification,
} from './suites/trigger';
import type { Harness } from '../support/harness/harness';

interface Options {
	versions: string[];
	requests: number;
	concurrency: number;
	rounds: number;
}

function parseOptions(argv: string[]): Options {
	const options: Options = {
		versions: ['2.8.4', '2.41.1'],
		requests: 400,
		concurrency: 8,
		rounds: 3,
	};
	for (let index = 0; index < argv.length; index += 2) {
		const [flag, value] = [argv[index], argv[index + 1]];
		if (value === undefined) throw new Error(`${flag} needs a value`);
		if (flag === '--n8n') options.versions = value.split(',').filter(Boolean);
		else if (flag === '--requests') options.requests = Number(value);
		else if (flag === '--concurrency') options.concurrency = Number(value);
		else if (flag === '--rounds') options.rounds = Number(value);
		else throw new Error(`Unknown flag ${flag}`);
	}
	return options;
}

interface Case {
	label: string;
	expected: number;
	send: (index: number) => Promise<number>;
	rounds: LoadResult[];
}

function post(url: string, headers: Record<string, string>, body: (index: number) => string) {
	return async (index: number) => {
		const response = await fetch(url, { method: 'POST', headers, body: body(index) });
		await response.arrayBuffer();
		return response.status;
	};
}

function casesOf(harness: Harness): Case[] {
	const base = harness.context.n8nUrl;
	const json = { 'Content-Type': 'application/json' };
	return [
		{
			label: 'trigger, notification with Bearer x',
			expected: 401,
			send: post(
				`${base}/webhook/${TRIGGER_WEBHOOK_ID}/notifications`,
				{ ...json, Authorization: 'Bearer x' },
				(index) => notification(index, 'stranger'),
			),
			rounds: [],
		},
		{
			label: 'trigger, token request with another client',
			expected: 401,
			send: post(
				`${base}/webhook/${TRIGGER_WEBHOOK_ID}/token`,
				{
					Authorization: basicClientAuthorization('some-client', 'a guess of sixteen or more'),
					'Content-Type': 'application/x-www-form-urlencoded',
				},
				() => 'grant_type=client_credentials',
			),
			rounds: [],
		},
		{
			label: 'Webhook node, header auth, wrong header',
			expected: 403,
			send: post(
				`${base}/webhook/${WEBHOOK_NODE_PATH}`,
				{ ...json, Authorization: 'Bearer x' },
				(index) => notification(index, 'stranger'),
			),
			rounds: [],
		},
	];
}

async function measure(entry: string, options: Options): Promise<string[][]> {
	const harness = await startVersion({ progress: (line) => console.log(line) }, entry);
	try {
		const cases = casesOf(harness);
		for (const benchCase of cases) await runLoad(20, 4, benchCase.send);
		for (let round = 0; round < options.rounds; round++) {
			for (const benchCase of round % 2 === 0 ? cases : [...cases].reverse()) {
				const result = await runLoad(options.requests, options.concurrency, benchCase.send);
				if (countOf(result, benchCase.expected) !== options.requests)
					throw new Error(`${benchCase.label}: ${describeStatuses(result)}`);
				benchCase.rounds.push(result);
			}
		}
		const executions =
			(await harness.api.countExecutions(TRIGGER_WORKFLOW.id, 'success')) +
			(await harness.api.countExecutions(WEBHOOK_NODE_WORKFLOW.id, 'success'));
		if (executions !== 0) throw new Error(`${executions} executions started from refused requests`);
		return cases.map((benchCase) => {
			const rates = benchCase.rounds.map((round) =>
				perSecond(countOf(round, benchCase.expected), round.wallMs),
			);
			const p50 = benchCase.rounds.map((round) => distribution(round.latenciesMs).p50);
			const p95 = benchCase.rounds.map((round) => distribution(round.latenciesMs).p95);
			return [
				entry,
				benchCase.label,
				String(benchCase.expected),
				formatNumber(median(rates), 1),
				`${formatNumber(Math.min(...rates), 1)}-${formatNumber(Math.max(...rates), 1)}`,
				formatNumber(median(p50), 1),
				formatNumber(median(p95), 1),
			];
		});
	} finally {
		await harness.stop();
	}
}

async function main(): Promise<void> {
	const options = parseOptions(process.argv.slice(2));
	const rows: string[][] = [];
	for (const entry of options.versions) {
		parseTriggerVersion(entry);
		rows.push(...(await measure(entry, options)));
	}
	console.log(
		formatTable(['n8n', 'request', 'status', 'refusals/s', 'range', 'p50 ms', 'p95 ms'], rows),
	);
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exitCode = 1;
});
