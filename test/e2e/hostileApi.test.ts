/**
 * Inside a real n8n: an API whose error echoes the request (the Bearer token included)
 * and an API that redirects. With On Error → Continue and one item per row: the echoed token never reaches an
 * output item, the redirect is not followed and is reported as refused, and only the listing the API accepted is
 * created. The secret scan (last in the suite) also reads n8n's log and these executions.
 */
import {
	nextListingId,
	postWebhook,
	useE2e,
	writeSheet,
	type SeatRow,
} from '../../support/e2e/helpers';
import { suiteWorkflows, webhookPath } from '../../support/e2e/workflows';

const e2e = useE2e();
const workflows = suiteWorkflows();

describe('a hostile API, seen from a real n8n', () => {
	it('keeps an echoed token out of every output and does not follow a redirect', async () => {
		const harness = e2e();
		const ids = [nextListingId(9_700_000), nextListingId(9_700_000), nextListingId(9_700_000)];
		// One seat per listing: a seat in two listings of one event is refused before sending.
		const rows: SeatRow[] = ids.map((id, index) => ({
			listing_id: id,
			event_id: 7012,
			price: '15.00',
			currency: 'EUR',
			row: 'B',
			seat: index + 1,
			ticket_id: `${id}-B-${index + 1}`,
		}));
		const sheetName = writeSheet(harness, 'hostile-api.csv', rows);
		await harness.sandbox.addFault({ endpoint: 'listings', sequence: ['echo', 'redirect'] });
		let output: Array<Record<string, unknown>>;
		try {
			const run = await postWebhook(harness, webhookPath(workflows.sheetPerRow), {
				sheet: sheetName,
			});
			expect(run.status).toBe(200);
			output = run.body as Array<Record<string, unknown>>;
		} finally {
			await harness.sandbox.clearFaults();
		}
		const text = JSON.stringify(output);
		expect(text).toContain('Bearer [redacted]');
		expect(text).not.toMatch(/Bearer (?!\[redacted\])/);
		expect(output.map((item) => item.listingStatus).sort()).toEqual([
			'created',
			'failed',
			'failed',
		]);
		const errors = output
			.filter((item) => item.listingStatus === 'failed')
			.map((item) => item.listingError as Record<string, unknown>);
		expect(errors.every((error) => error.mayHaveBeenCreated === false)).toBe(true);
		expect(errors.map((error) => String(error.error)).join('\n')).toMatch(
			/The Partner API answered with a redirect \(HTTP 3\d\d\), which is not followed/,
		);
		expect(errors.map((error) => String(error.description)).join('\n')).toContain(
			'was redirected to http://127.0.0.1:9/elsewhere.',
		);
		const state = await harness.sandbox.state();
		const held = state.listings.filter((listing) =>
			ids.includes(Number(listing.externalListingId)),
		);
		expect(held).toHaveLength(1);
	}, 120_000);
});
