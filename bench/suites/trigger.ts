/**
 * The trigger's two endpoints over loopback through the test adapter (support/fakeN8n/serveTrigger.ts), which runs
 * webhook() inside n8n-core's WebhookContext the way n8n does: token requests (client credentials, HTTP Basic, as
 * the sandbox sends them) and sale notifications with a Bearer token.
 */
import { basicClientAuthorization, choices } from '../../sandbox';
import { serveTrigger } from '../../support/fakeN8n/serveTrigger';
import type { ServedTrigger } from '../../support/fakeN8n/serveTrigger';
import { countOf, describeStatuses, runLoad } from '../load';
import type { LoadResult } from '../load';
import { distribution, formatNumber, perSecond } from '../stats';
import { check, withServer } from '../suite';
import type { BenchRow, Suite, SuiteContext } from '../suite';

const WEBHOOK_ID = '0b5e7c9a-4d1f-4a2b-9c3d-5e6f70819203';
const CLIENT = { clientId: 'marketplace-client', clientSecret: 'bench-callback-secret-7d2e' };
const WARM_UP_REQUESTS = 20;

function tokenRequest(trigger: ServedTrigger): () => Promise<Response> {
	const authorization = basicClientAuthorization(CLIENT.clientId, CLIENT.clientSecret);
	return async () =>
		await fetch(trigger.tokenUrl, {
			method: 'POST',
			headers: {
				Authorization: authorization,
				'Content-Type': 'application/x-www-form-urlencoded',
			},
			body: 'grant_type=client_credentials',
		});
}

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

function row(
	kind: 'token' | 'notification',
	result: LoadResult,
	checks: BenchRow['checks'],
): BenchRow {
	const latency = distribution(result.latenciesMs);
	return {
		name:
			kind === 'token'
				? 'token endpoint (Basic, client_credentials)'
				: 'notification endpoint (Bearer, listing_sale)',
		params: { endpoint: kind, requests: result.requests, concurrency: result.concurrency },
		metrics: {
			wallMs: result.wallMs,
			requestsPerSecond: perSecond(result.requests, result.wallMs),
			latencyP50Ms: latency.p50,
			latencyP95Ms: latency.p95,
			latencyMaxMs: latency.max,
		},
		checks,
	};
}

async function measureLevel(
	context: SuiteContext,
	trigger: ServedTrigger,
	requests: number,
	concurrency: number,
): Promise<BenchRow[]> {
	const askToken = tokenRequest(trigger);
	const tokens = await runLoad(requests, concurrency, async () => {
		const response = await askToken();
		await response.arrayBuffer();
		return response.status;
	});
	context.progress(
		`token c=${concurrency}: ${requests} requests in ${formatNumber(tokens.wallMs, 0)} ms`,
	);

	const issued = await askToken();
	const accessToken = ((await issued.json()) as { access_token?: string }).access_token ?? '';
	const executionsBefore = trigger.executions.length;
	const notifications = await runLoad(requests, concurrency, async (index) => {
		const response = await fetch(trigger.callbackUrl, {
			method: 'POST',
			headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
			body: notification(index),
		});
		await response.arrayBuffer();
		return response.status;
	});
	const started = trigger.executions.length - executionsBefore;
	context.progress(
		`notification c=${concurrency}: ${requests} requests in ${formatNumber(notifications.wallMs, 0)} ms`,
	);

	return [
		row('token', tokens, [
			check(
				`c=${concurrency}: every token request answered 200`,
				countOf(tokens, 200) === requests,
				describeStatuses(tokens),
			),
		]),
		row('notification', notifications, [
			check(
				`c=${concurrency}: a token was issued for the notifications`,
				issued.status === 200 && accessToken !== '',
				`status ${issued.status}`,
			),
			check(
				`c=${concurrency}: every notification answered 200`,
				countOf(notifications, 200) === requests,
				describeStatuses(notifications),
			),
			check(
				`c=${concurrency}: one execution per notification`,
				started === requests,
				`${started} executions`,
			),
			check(
				`c=${concurrency}: webhook() threw nothing`,
				trigger.errors.length === 0,
				`${trigger.errors.length} errors`,
			),
		]),
	];
}

export const triggerSuite: Suite = {
	id: 'trigger',
	title: "Trigger endpoints over loopback (n8n-core's WebhookContext, test adapter)",
	notes: [
		'req/s = requests / wall for a fixed number of requests at a fixed concurrency (fetch client in the same process).',
		'p50/p95 = client-side time per request, sending to end of answer body.',
		"The adapter stands in for n8n's HTTP layer; a real n8n adds its own routing, body parsing and execution start-up.",
	],
	columns: [
		{ header: 'endpoint', cell: (row) => row.name },
		{ header: 'requests', cell: (row) => formatNumber(Number(row.params.requests), 0) },
		{ header: 'c', cell: (row) => formatNumber(Number(row.params.concurrency), 0) },
		{ header: 'wall ms', cell: (row) => formatNumber(row.metrics.wallMs, 0) },
		{ header: 'req/s', cell: (row) => formatNumber(row.metrics.requestsPerSecond, 0) },
		{ header: 'p50 ms', cell: (row) => formatNumber(row.metrics.latencyP50Ms, 2) },
		{ header: 'p95 ms', cell: (row) => formatNumber(row.metrics.latencyP95Ms, 2) },
	],
	async run(context) {
		const { trigger: plan } = context.plan;
		const served = await serveTrigger({ webhookId: WEBHOOK_ID, credentials: { ...CLIENT } });
		return await withServer(context, served, async (trigger) => {
			const warmUp = await runLoad(WARM_UP_REQUESTS, 1, async () => {
				const response = await tokenRequest(trigger)();
				await response.arrayBuffer();
				return response.status;
			});
			if (countOf(warmUp, 200) !== WARM_UP_REQUESTS)
				throw new Error(`Trigger warm-up failed: ${describeStatuses(warmUp)}`);
			const rows: BenchRow[] = [];
			for (const concurrency of plan.concurrency)
				rows.push(...(await measureLevel(context, trigger, plan.requests, concurrency)));
			return rows;
		});
	},
};
