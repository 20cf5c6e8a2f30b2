/**
 * Sale notifications into a real n8n, one process against queue mode: the same minimal sale-alert workflow (the
 * trigger and a No-Op) in a single n8n (the e2e harness) and in queue mode (support/harness/queueHarness.ts),
 * notifications sent to one webhook process and through the load balancer to two. A notification counts when n8n
 * answered 200 (the trigger answers at once); every one must then run to a successful execution.
 */
import { triggerAccessToken } from '../triggerToken';
import { minimalSaleAlert } from '../../support/e2e/workflows';
import { startHarness } from '../../support/harness/harness';
import { pollUntil } from '../../support/harness/n8n';
import { startQueueHarness } from '../../support/harness/queueHarness';
import { queryPostgres } from '../../support/harness/queueServices';
import { countOf, describeStatuses, runLoad, type LoadResult } from '../load';
import { distribution, formatNumber, perSecond } from '../stats';
import { check } from '../suite';
import { notification } from './trigger';
import type { BenchRow, Check, Suite } from '../suite';

const WEBHOOK_ID = '6e8a0c2e-4b6d-4f8a-9c1e-3a5c7e9b1d3f';
const WORKFLOW = minimalSaleAlert('tmBenchSaleLoad1', 'Bench: sale notifications', WEBHOOK_ID);

async function sendNotifications(
	baseUrl: string,
	token: string,
	requests: number,
	concurrency: number,
	offset: number,
): Promise<LoadResult> {
	return await runLoad(requests, concurrency, async (index) => {
		const response = await fetch(`${baseUrl}/webhook/${WEBHOOK_ID}/notifications`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
			body: notification(offset + index, 'queue_bench'),
		});
		await response.arrayBuffer();
		return response.status;
	});
}

function row(
	name: string,
	result: LoadResult,
	checks: Check[],
	params: Record<string, string | number>,
): BenchRow {
	const latency = distribution(result.latenciesMs);
	return {
		name,
		params: { ...params, requests: result.requests, concurrency: result.concurrency },
		metrics: {
			wallMs: result.wallMs,
			requestsPerSecond: perSecond(countOf(result, 200), result.wallMs),
			latencyP50Ms: latency.p50,
			latencyP95Ms: latency.p95,
		},
		checks,
	};
}

export const queueSuite: Suite = {
	id: 'queue',
	title:
		'Sale notifications into a real n8n: one process, and queue mode through one and two webhook processes',
	notes: [
		'notifications/s = notifications answered 200 / wall time; p50, p95 = client-side latency of one notification (answer at once).',
		'Every accepted notification must become one successful execution (single n8n: the public API; queue mode: PostgreSQL), on the workers in queue mode.',
		'The machine has 2 cores for every process: n8n main, webhook processes, workers, PostgreSQL, Redis and this client.',
	],
	columns: [
		{ header: 'case', cell: (row) => row.name },
		{ header: 'notifications/s', cell: (row) => formatNumber(row.metrics.requestsPerSecond, 0) },
		{ header: 'p50 ms', cell: (row) => formatNumber(row.metrics.latencyP50Ms, 1) },
		{ header: 'p95 ms', cell: (row) => formatNumber(row.metrics.latencyP95Ms, 1) },
		{ header: 'wall ms', cell: (row) => formatNumber(row.metrics.wallMs, 0) },
	],

	async run(context) {
		const { notifications: requests, concurrency } = context.plan.queue;
		const rows: BenchRow[] = [];

		context.progress('single n8n (regular mode): starting the e2e harness');
		const single = await startHarness({ workflows: [{ workflow: WORKFLOW, activate: true }] });
		const unregisterSingle = context.onCleanup(() => single.stop());
		try {
			const token = await triggerAccessToken(single.context.n8nUrl, WEBHOOK_ID);
			await sendNotifications(single.context.n8nUrl, token, 20, 4, 900_000);
			const result = await sendNotifications(
				single.context.n8nUrl,
				token,
				requests,
				concurrency,
				0,
			);
			let finished = 0;
			await pollUntil(
				'the single n8n to finish every execution',
				async () => {
					const all = await single.api.executions(WORKFLOW.id);
					finished = all.filter((execution) => execution.status === 'success').length;
					return finished >= requests + 20;
				},
				180_000,
				500,
			);
			rows.push(
				row(
					'single n8n (one process)',
					result,
					[
						check(
							`${requests} notifications answered 200`,
							countOf(result, 200) === requests,
							describeStatuses(result),
						),
						check(
							'every accepted notification ran to a successful execution',
							finished >= requests + 20,
							`${finished} of ${requests + 20}`,
						),
					],
					{ mode: 'single' },
				),
			);
			context.progress(
				`single n8n: ${formatNumber(perSecond(countOf(result, 200), result.wallMs), 0)} notifications/s`,
			);
		} finally {
			unregisterSingle();
			await single.stop();
		}

		context.progress(
			'queue mode: starting PostgreSQL, Redis, main, two webhook processes, two workers',
		);
		const queue = await startQueueHarness({ workflows: [WORKFLOW] });
		const unregisterQueue = context.onCleanup(() => queue.stop());
		try {
			const token = await triggerAccessToken(queue.webhookUrls[0], WEBHOOK_ID);
			await sendNotifications(queue.publicUrl, token, 20, 4, 900_000);
			const cases: Array<[string, string, number]> = [
				['queue mode, one webhook process', queue.webhookUrls[0], 1],
				['queue mode, two webhook processes (load balancer)', queue.publicUrl, 2],
			];
			let sent = 20;
			for (const [name, url, processes] of cases) {
				const result = await sendNotifications(url, token, requests, concurrency, sent);
				sent += requests;
				let succeeded = 0;
				await pollUntil(
					'the workers to finish every execution',
					async () => {
						const [[count]] = await queryPostgres(
							queue.postgresPort,
							`select count(*) from execution_entity where "workflowId" = '${WORKFLOW.id}' and status = 'success'`,
						);
						succeeded = Number(count);
						return succeeded >= sent;
					},
					180_000,
					500,
				);
				rows.push(
					row(
						name,
						result,
						[
							check(
								`${requests} notifications answered 200`,
								countOf(result, 200) === requests,
								describeStatuses(result),
							),
							check(
								'every accepted notification ran to a successful execution',
								succeeded >= sent,
								`${succeeded} of ${sent}`,
							),
						],
						{ mode: 'queue', webhookProcesses: processes },
					),
				);
				context.progress(
					`${name}: ${formatNumber(perSecond(countOf(result, 200), result.wallMs), 0)} notifications/s`,
				);
			}
		} finally {
			unregisterQueue();
			await queue.stop();
		}
		return rows;
	},
};
