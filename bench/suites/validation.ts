/** Validation cost: Listing -> Create with Validate Only over many rows; nothing may be sent. */
import { startSandbox } from '../../sandbox/index';
import { failedItems, groupedCase, runListingCreate, ungroupedCase } from '../listingRuns';
import type { ListingCase } from '../listingRuns';
import { formatNumber, median, perSecond } from '../stats';
import { check, withServer } from '../suite';
import type { BenchRow, Check, Suite } from '../suite';

export const validationSuite: Suite = {
	id: 'validation',
	title: 'Validate Only (no requests) through the action node',
	notes: [
		'first = the first run of the case (colder: code paths and schemas not yet optimised); median = of the next runs.',
		'rows/s = input items / median. Parameters come from plain functions here; in n8n each {{ }} expression adds its own cost.',
		'Every run checks that the sandbox received no request and no token was asked for.',
	],
	columns: [
		{ header: 'case', cell: (row) => row.name },
		{ header: 'first ms', cell: (row) => formatNumber(row.metrics.firstRunMs, 0) },
		{ header: 'median ms', cell: (row) => formatNumber(row.metrics.wallMsMedian, 0) },
		{ header: 'rows/s', cell: (row) => formatNumber(row.metrics.rowsPerSecond, 0) },
		{ header: 'us/row', cell: (row) => formatNumber(row.metrics.microsecondsPerRow, 0) },
	],
	async run(context) {
		const { validation } = context.plan;
		const runs = validation.runs;
		const cases = [
			groupedCase(validation.rows, validation.rowsPerListing),
			ungroupedCase(validation.rows),
		];
		// A sandbox as the credential's target proves that nothing is sent: its request log must stay empty.
		return await withServer(context, await startSandbox(), async (sandbox) => {
			const rows: BenchRow[] = [];
			for (const listingCase of cases) rows.push(await measure(listingCase));
			return rows;

			async function measure(listingCase: ListingCase): Promise<BenchRow> {
				const wallTimes: number[] = [];
				const checks: Check[] = [];
				// Run 0 is reported on its own (cold); the median is over runs 1..runs.
				for (let attempt = 0; attempt <= runs; attempt++) {
					sandbox.reset();
					const run = await runListingCreate(sandbox, listingCase, {
						concurrency: 1,
						validateOnly: true,
					});
					const failed = failedItems(run.output);
					const requests = sandbox.state().requests.length;
					checks.push(
						check(
							`run ${attempt}: ${listingCase.listings} validated listings, none failed`,
							run.output.length === listingCase.listings &&
								failed.length === 0 &&
								run.output.every((item) => item.json.validateOnly === true),
							`${run.output.length} items, ${failed.length} failed`,
						),
						check(
							`run ${attempt}: nothing sent`,
							requests === 0 && run.tokenRequests === 0,
							`${requests} requests, ${run.tokenRequests} token requests`,
						),
					);
					wallTimes.push(run.wallMs);
				}
				const wallMs = median(wallTimes.slice(1));
				context.progress(
					`${listingCase.shape} ${listingCase.items.length} rows: first ${formatNumber(wallTimes[0], 0)} ms, median ${formatNumber(wallMs, 0)} ms over ${runs} runs`,
				);
				return {
					name: `${listingCase.shape}: ${listingCase.items.length} rows -> ${listingCase.listings} listings`,
					params: {
						shape: listingCase.shape,
						rows: listingCase.items.length,
						listings: listingCase.listings,
						runs,
					},
					metrics: {
						firstRunMs: wallTimes[0],
						wallMsMedian: wallMs,
						rowsPerSecond: perSecond(listingCase.items.length, wallMs),
						microsecondsPerRow: (wallMs * 1000) / listingCase.items.length,
					},
					checks,
				};
			}
		});
	},
};
