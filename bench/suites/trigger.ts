/**
 * Sale notifications into real n8n, two versions running side by side (the e2e harness started twice: 2.8.4, the
 * Node 20 line, and 2.41.1, what users run today): the Ticket Marketplace Trigger against what a user would build
 * instead, n8n's own Webhook node with header auth, each followed by a No-Op and answering at once. Every round sends
 * the same number of notifications to each of the four, in an order that alternates from round to round, so the
 * machine's drift spreads over all of them.
 */
import { choices } from '../../sandbox/index';
import { triggerAccessToken } from '../triggerToken';
import { minimalSaleAlert } from '../../support/e2e/workflows';
import { startHarness, type Harness } from '../../support/harness/harness';
import { pollUntil } from '../../support/harness/n8n';
import type { WorkflowJson } from '../../support/harness/workflows';
import { countOf, describeStatuses, runLoad, type LoadResult } from '../load';
import { distribution, formatNumber, median, perSecond } from '../stats';
import { parseTriggerVersion } from '../plan';
import { check } from '../suite';
import type { BenchRow, Suite, SuiteContext } from '../suite';

export const TRIGGER_WEBHOOK_ID = '6e8a0c2e-4b6d-4f8a-9c1e-3a5c7e9b1d3f';
const WEBHOOK_NODE_WEBHOOK_ID = '7f9b1d3f-5c7e-4a9b-8d2f-4b6d8f0a2e4c';
export const WEBHOOK_NODE_PATH = 'bench-sale-notifications';
/** The header n8n's Webhook node compares (header auth); a bench value, not a secret of anything real. */
export const HEADER_AUTH = {
	name: 'Authorization',
	value: 'Bearer bench-static-header-secret-0123456789',
};
const HEADER_AUTH_CREDENTIAL = { id: 'tmBenchHeaderAu1', name: 'Bench header auth' };
const WARM_UP_NOTIFICATIONS = 20;

export const TRIGGER_WORKFLOW = minimalSaleAlert(
	'tmBenchSaleLoad1',
	'Bench: sale notifications, Ticket Marketplace Trigger',
	TRIGGER_WEBHOOK_ID,
);

/** The same workflow built with n8n's Webhook node (v2, POST, header auth, respond immediately) and a No-Op. */
export const WEBHOOK_NODE_WORKFLOW: WorkflowJson = {
	id: 'tmBenchWebhook01',
	name: 'Bench: sale notifications, Webhook node with header auth',
	active: false,
	settings: { executionOrder: 'v1' },
	nodes: [
		{
			id: 'tmBenchWebhook01-webhook',
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: WEBHOOK_NODE_WEBHOOK_ID,
			parameters: {
				httpMethod: 'POST',
				path: WEBHOOK_NODE_PATH,
				authentication: 'headerAuth',
				responseMode: 'onReceived',
				options: {},
			},
			credentials: { httpHeaderAuth: HEADER_AUTH_CREDENTIAL },
		},
		{
			id: 'tmBenchWebhook01-noop',
			name: 'Alert',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [240, 0],
			parameters: {},
		},
	],
	connections: { Webhook: { main: [[{ node: 'Alert', type: 'main', index: 0 }]] } },
};

/** A sale notification as the sandbox sends one (its payload is the sandbox's choice; the real one is not shown). */
export function notification(index: number, prefix = 'bench'): string {
	return JSON.stringify(
		choices.saleNotificationPayload({
			notificationId: `ntf_${prefix}_${index}`,
			subscriptionId: 'sub_bench',
			occurredAt: new Date().toISOString(),
			listing: {
				id: `lst_bench_${index}`,
				externalListingId: 7001 + index,
				eventId: 4242,
				pricePerProduct: { amount: 49.9, currency: 'EUR' },
			},
			products: [{ externalId: `${7001 + index}-A-1`, row: 'A', seat: '1' }],
		}),
	);
}

type NodeKind = 'trigger' | 'webhookNode';

const NODE_LABEL: Record<NodeKind, string> = {
	trigger: 'Ticket Marketplace Trigger',
	webhookNode: 'Webhook node, header auth',
};

interface Target {
	version: string;
	kind: NodeKind;
	workflowId: string;
	send: (index: number) => Promise<number>;
	/** Notifications sent so far (warm-up included): each must become one successful execution. */
	sent: number;
	rounds: LoadResult[];
}

function poster(url: string, authorization: string, prefix: string) {
	return async (index: number) => {
		const response = await fetch(url, {
			method: 'POST',
			headers: { Authorization: authorization, 'Content-Type': 'application/json' },
			body: notification(index, prefix),
		});
		await response.arrayBuffer();
		return response.status;
	};
}

/** One n8n of the harness with both workflows active and served (the refusal bench starts the same). */
export async function startVersion(
	context: Pick<SuiteContext, 'progress'>,
	entry: string,
): Promise<Harness> {
	const { version, env } = parseTriggerVersion(entry);
	context.progress(`n8n ${entry}: starting the e2e harness with both workflows`);
	const harness = await startHarness({
		n8nVersion: version,
		n8nEnv: env,
		credentials: [{ ...HEADER_AUTH_CREDENTIAL, type: 'httpHeaderAuth', data: { ...HEADER_AUTH } }],
		workflows: [
			{ workflow: TRIGGER_WORKFLOW, activate: true },
			{ workflow: WEBHOOK_NODE_WORKFLOW, activate: true },
		],
	});
	// n8n 2.41 serves the webhooks of activated workflows a moment after it says so: wait for both.
	const base = harness.context.n8nUrl;
	await pollUntil(
		`n8n ${version} to serve both webhooks`,
		async () => {
			const token = await fetch(`${base}/webhook/${TRIGGER_WEBHOOK_ID}/token`, { method: 'POST' });
			const webhook = await fetch(`${base}/webhook/${WEBHOOK_NODE_PATH}`, { method: 'POST' });
			return token.status !== 404 && webhook.status !== 404;
		},
		60_000,
		250,
	);
	return harness;
}

function targetsOf(version: string, harness: Harness, token: string): Target[] {
	const base = harness.context.n8nUrl;
	return [
		{
			version,
			kind: 'trigger',
			workflowId: TRIGGER_WORKFLOW.id,
			send: poster(`${base}/webhook/${TRIGGER_WEBHOOK_ID}/notifications`, `Bearer ${token}`, 'trg'),
			sent: 0,
			rounds: [],
		},
		{
			version,
			kind: 'webhookNode',
			workflowId: WEBHOOK_NODE_WORKFLOW.id,
			send: poster(`${base}/webhook/${WEBHOOK_NODE_PATH}`, HEADER_AUTH.value, 'whk'),
			sent: 0,
			rounds: [],
		},
	];
}

function rateOf(result: LoadResult): number {
	return perSecond(countOf(result, 200), result.wallMs);
}

function label(target: Target): string {
	return `n8n ${target.version}, ${NODE_LABEL[target.kind]}`;
}

/** Waits (up to 4 minutes) until every notification sent so far has a successful execution; returns their count. */
async function executionsFinished(target: Target, harness: Harness): Promise<number> {
	let succeeded = 0;
	await pollUntil(
		`${label(target)}: every notification to finish its execution`,
		async () => {
			succeeded = await harness.api.countExecutions(target.workflowId, 'success');
			return succeeded >= target.sent;
		},
		240_000,
		1000,
	).catch(() => undefined);
	return succeeded;
}

async function rowOf(target: Target, harness: Harness, requests: number): Promise<BenchRow> {
	const rates = target.rounds.map(rateOf);
	const roundP50 = target.rounds.map((round) => distribution(round.latenciesMs).p50);
	const roundP95 = target.rounds.map((round) => distribution(round.latenciesMs).p95);
	const succeeded = await executionsFinished(target, harness);
	const answered = target.rounds.reduce((sum, round) => sum + countOf(round, 200), 0);
	return {
		name: label(target),
		params: {
			n8n: target.version,
			node: target.kind,
			requests,
			concurrency: target.rounds[0]?.concurrency ?? 0,
			rounds: target.rounds.length,
		},
		metrics: {
			requestsPerSecond: median(rates),
			requestsPerSecondMin: Math.min(...rates),
			requestsPerSecondMax: Math.max(...rates),
			latencyP50Ms: median(roundP50),
			latencyP95Ms: median(roundP95),
		},
		checks: [
			check(
				`${label(target)}: every notification answered 200`,
				answered === requests * target.rounds.length,
				target.rounds.map(describeStatuses).join(' | '),
			),
			check(
				`${label(target)}: every notification ran to one successful execution`,
				succeeded === target.sent,
				`${succeeded} successful executions of ${target.sent} notifications`,
			),
		],
	};
}

function ratioLine(rows: BenchRow[], version: string): { line: string; met: boolean } {
	const find = (kind: NodeKind) =>
		rows.find((row) => row.params.n8n === version && row.params.node === kind);
	const trigger = find('trigger');
	const webhook = find('webhookNode');
	if (!trigger || !webhook) return { line: `n8n ${version}: not measured`, met: false };
	const ratio = trigger.metrics.requestsPerSecond / webhook.metrics.requestsPerSecond;
	const met = ratio >= 1;
	return {
		line: `n8n ${version}: trigger / Webhook node = ${formatNumber(ratio, 2)}x (median notifications/s) - target >= 1.00x ${met ? 'met' : 'MISSED'}`,
		met,
	};
}

export const triggerSuite: Suite = {
	id: 'trigger',
	title:
		"Sale notifications into real n8n, 2.8.4 and 2.41.1 side by side: the trigger against n8n's Webhook node with header auth",
	notes: [
		'notifications/s = notifications answered 200 / wall time of one round, median (and range) over the rounds; p50, p95 = client-side latency, median over the rounds.',
		'Each round sends the same notifications to all four workflows in turn, the order reversed every other round; both n8n run for the whole suite, on one 2-core machine with this client.',
		'Every notification must become one successful execution (public API). The trigger checks a Bearer token from its own token endpoint; the Webhook node compares a static header.',
	],
	columns: [
		{ header: 'n8n', cell: (row) => String(row.params.n8n) },
		{ header: 'node', cell: (row) => NODE_LABEL[row.params.node as NodeKind] },
		{ header: 'notifications/s', cell: (row) => formatNumber(row.metrics.requestsPerSecond, 1) },
		{
			header: 'range',
			cell: (row) =>
				`${formatNumber(row.metrics.requestsPerSecondMin, 1)}-${formatNumber(row.metrics.requestsPerSecondMax, 1)}`,
		},
		{ header: 'p50 ms', cell: (row) => formatNumber(row.metrics.latencyP50Ms, 0) },
		{ header: 'p95 ms', cell: (row) => formatNumber(row.metrics.latencyP95Ms, 0) },
	],
	summarize(rows) {
		const versions = [...new Set(rows.map((row) => String(row.params.n8n)))];
		const results = versions.map((version) => ({ version, ...ratioLine(rows, version) }));
		return {
			lines: results.map((result) => result.line),
			targets: results.map((result) => ({
				name: `n8n ${result.version}: the trigger at least as fast as the Webhook node`,
				met: result.met,
				measured: result.line,
			})),
		};
	},

	async run(context) {
		const { notifications: requests, concurrency, versions } = context.plan.trigger;
		const harnesses = new Map<string, Harness>();
		const cleanups: Array<() => void> = [];
		try {
			for (const version of versions) {
				const harness = await startVersion(context, version);
				harnesses.set(version, harness);
				cleanups.push(context.onCleanup(() => harness.stop()));
			}
			const targets: Target[] = [];
			for (const [version, harness] of harnesses)
				targets.push(
					...targetsOf(
						version,
						harness,
						await triggerAccessToken(harness.context.n8nUrl, TRIGGER_WEBHOOK_ID),
					),
				);

			// n8n's first executions of a workflow load and compile what they need: untimed.
			for (const target of targets) {
				const warmUp = await runLoad(WARM_UP_NOTIFICATIONS, Math.min(4, concurrency), (index) =>
					target.send(900_000 + index),
				);
				target.sent += WARM_UP_NOTIFICATIONS;
				if (countOf(warmUp, 200) !== WARM_UP_NOTIFICATIONS)
					throw new Error(`${label(target)}: warm-up failed: ${describeStatuses(warmUp)}`);
			}
			// Executions run on after their answer (n8n 2.41 also refills its isolate pool): the first timed round
			// must not share the machine with what the warm-up left running.
			for (const target of targets)
				await executionsFinished(target, harnesses.get(target.version)!);

			for (let round = 0; round < context.plan.repeat; round++) {
				const order = round % 2 === 0 ? targets : [...targets].reverse();
				for (const target of order) {
					const result = await runLoad(requests, concurrency, (index) =>
						target.send(target.sent + index),
					);
					target.sent += requests;
					target.rounds.push(result);
					const latency = distribution(result.latenciesMs);
					context.progress(
						`round ${round + 1}: ${label(target)}: ${formatNumber(rateOf(result), 1)} notifications/s, p50 ${formatNumber(latency.p50, 0)} ms, p95 ${formatNumber(latency.p95, 0)} ms`,
					);
				}
			}

			const rows: BenchRow[] = [];
			for (const target of targets)
				rows.push(await rowOf(target, harnesses.get(target.version)!, requests));
			return rows;
		} finally {
			for (const unregister of cleanups) unregister();
			for (const harness of [...harnesses.values()].reverse()) await harness.stop();
		}
	},
};
