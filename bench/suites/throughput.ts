/**
 * Listing -> Create throughput: the action node's real execute() against the sandbox with a latency fault on the
 * listings endpoint, at several Concurrency option values, grouped sheet rows and one-listing-per-item input.
 */
import { MAX_CONCURRENCY } from '../../nodes/TicketMarketplace/actions/listing/create.operation';
import { answers, startSandbox } from '../../sandbox/index';
import type { Sandbox } from '../../sandbox/index';
import { failedItems, groupedCase, runListingCreate, ungroupedCase } from '../listingRuns';
import type { ListingCase } from '../listingRuns';
import { distribution, formatNumber, median, perSecond } from '../stats';
import { check, withServer } from '../suite';
import type { BenchRow, Check, Suite, SuiteContext } from '../suite';

/** `repeat` runs of one case, each on a reset sandbox; also used by the sandbox suite without a fault. */
export async function measureListingCreate(
	context: SuiteContext,
	sandbox: Sandbox,
	listingCase: ListingCase,
	concurrency: number,
	fault: { latencyMs: number; jitterMs: number } | undefined,
): Promise<BenchRow> {
	const { repeat } = context.plan;
	const wallTimes: number[] = [];
	const latencies: number[] = [];
	const tokenRequestsPerRun: number[] = [];
	const checks: Check[] = [];
	for (let attempt = 1; attempt <= repeat; attempt++) {
		// A fresh sandbox state per run: no listings (externalListingIds repeat), no tokens, the fault generator reseeded.
		sandbox.reset();
		if (fault) sandbox.addFault({ endpoint: 'listings', kind: 'latency', ...fault });
		const run = await runListingCreate(sandbox, listingCase, { concurrency });
		const state = sandbox.state();
		const listingRequests = state.requests.filter((request) => request.endpoint === 'listings');
		const failed = failedItems(run.output);
		wallTimes.push(run.wallMs);
		// Sandbox-side durations: from reading the request to handing over the answer.
		latencies.push(...listingRequests.map((request) => request.durationMs));
		tokenRequestsPerRun.push(state.tokens.count);
		checks.push(
			check(
				`run ${attempt}: ${listingCase.listings} listings output, none failed`,
				run.output.length === listingCase.listings && failed.length === 0,
				`${run.output.length} items, ${failed.length} failed${failed[0] ? `: ${String(failed[0].json.error)}` : ''}`,
			),
			check(
				`run ${attempt}: sandbox holds ${listingCase.listings} listings, one ${answers.SERVICE_LISTING_STATUS} per listing`,
				state.listings.length === listingCase.listings &&
					listingRequests.length === listingCase.listings &&
					listingRequests.every((request) => request.status === answers.SERVICE_LISTING_STATUS),
				`${state.listings.length} listings, ${listingRequests.length} requests`,
			),
			check(
				`run ${attempt}: one token request`,
				state.tokens.count === 1 && run.tokenRequests === 1,
				`sandbox issued ${state.tokens.count}, credential asked ${run.tokenRequests}`,
			),
		);
		context.progress(
			`${listingCase.shape} c=${concurrency} run ${attempt}/${repeat}: ${formatNumber(run.wallMs, 0)} ms, ${formatNumber(perSecond(listingCase.listings, run.wallMs))} listings/s`,
		);
	}
	const wallMs = median(wallTimes);
	const latency = distribution(latencies);
	return {
		name: `${listingCase.shape}: ${listingCase.items.length} items -> ${listingCase.listings} listings`,
		params: {
			shape: listingCase.shape,
			items: listingCase.items.length,
			listings: listingCase.listings,
			concurrencyAsked: concurrency,
			concurrencyUsed: Math.min(concurrency, MAX_CONCURRENCY),
			fault: fault ? `latency ${fault.latencyMs}+0..${fault.jitterMs} ms` : 'none',
			runs: repeat,
		},
		metrics: {
			wallMsMedian: wallMs,
			wallMsMin: Math.min(...wallTimes),
			wallMsMax: Math.max(...wallTimes),
			listingsPerSecond: perSecond(listingCase.listings, wallMs),
			requestP50Ms: latency.p50,
			requestP95Ms: latency.p95,
			requestMaxMs: latency.max,
			tokenRequestsPerRunMax: Math.max(...tokenRequestsPerRun),
		},
		checks,
	};
}

export const throughputSuite: Suite = {
	id: 'throughput',
	title: 'Listing -> Create through the action node, sandbox with a latency fault',
	notes: [
		'wall = one execute() of the node over all items (median of the runs); listings/s = listings / wall.',
		'p50/p95 = listing request durations recorded by the sandbox (includes the injected latency), pooled over the runs.',
		`c asked -> used: the node caps its Concurrency option at ${MAX_CONCURRENCY}; its first listing is always sent alone.`,
		'tokens = token requests the sandbox answered per run (max over the runs); must be 1.',
	],
	columns: [
		{ header: 'case', cell: (row) => row.name },
		{
			header: 'c asked->used',
			cell: (row) => `${row.params.concurrencyAsked}->${row.params.concurrencyUsed}`,
		},
		{ header: 'wall ms', cell: (row) => formatNumber(row.metrics.wallMsMedian, 0) },
		{ header: 'listings/s', cell: (row) => formatNumber(row.metrics.listingsPerSecond) },
		{ header: 'p50 ms', cell: (row) => formatNumber(row.metrics.requestP50Ms, 0) },
		{ header: 'p95 ms', cell: (row) => formatNumber(row.metrics.requestP95Ms, 0) },
		{ header: 'tokens', cell: (row) => formatNumber(row.metrics.tokenRequestsPerRunMax, 0) },
	],
	async run(context) {
		const { throughput } = context.plan;
		const fault = { latencyMs: throughput.latencyMs, jitterMs: throughput.jitterMs };
		const cases = [
			groupedCase(throughput.groupedRows, throughput.rowsPerListing),
			ungroupedCase(throughput.ungroupedItems),
		];
		const logLimit = Math.max(...cases.map((listingCase) => listingCase.listings)) + 10;
		return await withServer(
			context,
			await startSandbox({ requestLogLimit: logLimit }),
			async (sandbox) => {
				const rows: BenchRow[] = [];
				for (const listingCase of cases) {
					for (const concurrency of throughput.concurrency) {
						rows.push(
							await measureListingCreate(context, sandbox, listingCase, concurrency, fault),
						);
					}
				}
				return rows;
			},
		);
	},
};
