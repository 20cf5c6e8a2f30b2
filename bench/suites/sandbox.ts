/**
 * The baseline: the sandbox alone creating listings without faults (a plain fetch client using the sandbox
 * integration tests' helpers), then the same through the action node, to show what the node adds.
 */
import { answers, startSandbox } from '../../sandbox/index';
import { createListing, getToken, validListing } from '../../support/sandboxRequests';
import { ungroupedCase } from '../listingRuns';
import { countOf, describeStatuses, runLoad } from '../load';
import { distribution, formatNumber, perSecond } from '../stats';
import { check, withServer } from '../suite';
import type { BenchRow, Suite } from '../suite';
import { measureListingCreate } from './throughput';

const WARM_UP_REQUESTS = 20;

/** One product on a seat no earlier listing of the run holds: the service refuses a seat listed twice for an event. */
function oneProduct(seat: number): Array<Record<string, unknown>> {
	return [{ externalId: 'p-1', row: 'A', seat: String(seat), productType: 'TICKET', ga: false }];
}

export const sandboxSuite: Suite = {
	id: 'sandbox',
	title: 'Sandbox alone: listing creations without faults (baseline)',
	notes: [
		'fetch rows: a plain client (one token, then POST listings of one product) with a fixed number of requests;',
		'  listings/s = requests / wall; srv p50/p95 = durations recorded by the sandbox, whole ms (0 = under 1 ms).',
		"node row: the same listings through the action node's execute() (n8n-core request helper, axios), no fault.",
		'Client and sandbox share one Node process and event loop on this machine.',
	],
	columns: [
		{ header: 'client', cell: (row) => row.name },
		{ header: 'listings', cell: (row) => formatNumber(Number(row.params.listings), 0) },
		{ header: 'c', cell: (row) => formatNumber(Number(row.params.concurrencyUsed), 0) },
		{ header: 'wall ms', cell: (row) => formatNumber(row.metrics.wallMsMedian, 0) },
		{ header: 'listings/s', cell: (row) => formatNumber(row.metrics.listingsPerSecond, 0) },
		{ header: 'srv p50 ms', cell: (row) => formatNumber(row.metrics.requestP50Ms, 0) },
		{ header: 'srv p95 ms', cell: (row) => formatNumber(row.metrics.requestP95Ms, 0) },
	],
	async run(context) {
		const { sandbox: plan } = context.plan;
		const server = await startSandbox({ requestLogLimit: plan.requests + WARM_UP_REQUESTS + 10 });
		return await withServer(context, server, async (sandbox) => {
			const rows: BenchRow[] = [];
			for (const concurrency of plan.concurrency) {
				sandbox.reset();
				const token = await getToken(sandbox);
				let seat = 0;
				const create = async () =>
					(await createListing(sandbox, token, validListing({ products: oneProduct(++seat) })))
						.status;
				const created = answers.SERVICE_LISTING_STATUS;
				const warmUp = await runLoad(WARM_UP_REQUESTS, concurrency, create);
				const result = await runLoad(plan.requests, concurrency, create);
				const state = sandbox.state();
				const durations = state.requests
					.filter((request) => request.endpoint === 'listings')
					.slice(WARM_UP_REQUESTS)
					.map((request) => request.durationMs);
				const latency = distribution(durations);
				context.progress(
					`fetch c=${concurrency}: ${plan.requests} listings in ${formatNumber(result.wallMs, 0)} ms`,
				);
				rows.push({
					name: 'fetch -> sandbox',
					params: {
						client: 'fetch',
						listings: plan.requests,
						concurrencyAsked: concurrency,
						concurrencyUsed: concurrency,
					},
					metrics: {
						wallMsMedian: result.wallMs,
						listingsPerSecond: perSecond(plan.requests, result.wallMs),
						requestP50Ms: latency.p50,
						requestP95Ms: latency.p95,
						requestMaxMs: latency.max,
						clientP50Ms: distribution(result.latenciesMs).p50,
					},
					checks: [
						check(
							`c=${concurrency}: every listing answered ${created}`,
							countOf(warmUp, created) === WARM_UP_REQUESTS &&
								countOf(result, created) === plan.requests,
							describeStatuses(result),
						),
						check(
							`c=${concurrency}: sandbox holds every listing`,
							state.listings.length === plan.requests + WARM_UP_REQUESTS,
							`${state.listings.length} listings`,
						),
					],
				});
			}
			const nodeRow = await measureListingCreate(
				context,
				sandbox,
				ungroupedCase(plan.requests),
				plan.nodeConcurrency,
				undefined,
			);
			rows.push({
				...nodeRow,
				name: 'action node -> sandbox',
				params: { ...nodeRow.params, client: 'node' },
			});
			return rows;
		});
	},
};
