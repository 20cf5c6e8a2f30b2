/**
 * Inside a real n8n: with Settings → On Error → Continue (using error output) and one item per
 * row, an invalid listing's rows take the error branch and a created (then, on the second run, skipped) listing's
 * rows the success branch, where a "mark as listed" step would mark them.
 */
import {
	nextListingId,
	nodeOutput,
	postWebhook,
	useE2e,
	waitForExecutions,
	writeSheet,
	type SeatRow,
} from '../../support/e2e/helpers';
import { suiteWorkflows, webhookPath } from '../../support/e2e/workflows';

const e2e = useE2e();
const workflows = suiteWorkflows();

describe('the error output in a real n8n', () => {
	it('sends invalid rows to the error branch, created and then skipped rows to the success branch', async () => {
		const harness = e2e();
		const good = nextListingId(9_600_000);
		const bad = nextListingId(9_600_000);
		const row = (id: number, price: string): SeatRow => ({
			listing_id: id,
			event_id: 7011,
			price,
			currency: 'EUR',
			row: 'A',
			seat: 1,
			ticket_id: `${id}-A-1`,
		});
		const sheetName = writeSheet(harness, 'error-output.csv', [
			row(good, '20.00'),
			row(bad, 'abc'),
		]);
		const workflow = workflows.sheetErrorOutput;
		for (const [run, status] of [
			[1, 'created'],
			[2, 'skipped'],
		] as const) {
			const before = (await harness.n8n.executions(workflow.id)).length;
			await postWebhook(harness, webhookPath(workflow), { sheet: sheetName });
			const [latest] = await waitForExecutions(harness, workflow.id, before + 1);
			const execution = await harness.n8n.execution(latest.id);
			const listed = nodeOutput(execution, 'Listed');
			const notListed = nodeOutput(execution, 'Not listed');
			expect({ run, listed: listed.map((item) => [item.ticket_id, item.listingStatus]) }).toEqual({
				run,
				listed: [[`${good}-A-1`, status]],
			});
			// n8n adds the row's own fields beneath the error, so a sheet step can find the row.
			expect({ run, notListed }).toEqual({
				run,
				notListed: [
					expect.objectContaining({
						ticket_id: `${bad}-A-1`,
						error: expect.stringContaining('failed validation'),
						message: expect.stringContaining(
							`External Listing ID ${bad}: not sent: it failed validation.`,
						),
					}),
				],
			});
		}
		const state = await harness.sandbox.state();
		const sent = state.requests.filter((request) => request.endpoint === 'listings');
		const ids = sent.map((request) =>
			Number((request.body as { externalListingId?: unknown })?.externalListingId),
		);
		expect(ids.filter((id) => id === good)).toHaveLength(1);
		expect(ids).not.toContain(bad);
	}, 120_000);
});
