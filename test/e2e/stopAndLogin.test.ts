/**
 * Issue 18, cases 2 and 5, inside a real n8n. A workflow timeout (Settings → Timeout Workflow) while listings are
 * being sent: listings the run never sent are forgotten, so the next run of the workflow sends them, and none is
 * created twice. A wrong marketplace password: one refused login for the whole run, not one per listing, no
 * listing sent, the first row names the marketplace login and the others say they were not sent.
 */
import { WRONG_MARKETPLACE_PASSWORD } from '../../support/harness/harness';
import { pollUntil } from '../../support/harness/n8n';
import {
	nextListingId,
	postWebhook,
	useE2e,
	waitForExecutions,
	writeSheet,
	type E2e,
	type SeatRow,
} from '../../support/e2e/helpers';
import { suiteWorkflows, webhookPath, WORKFLOW_TIMEOUT_SECONDS } from '../../support/e2e/workflows';

const e2e = useE2e();
const workflows = suiteWorkflows();
/** The sandbox's answer time during the timed-out run. */
const LATENCY_MS = 1200;

function oneSeatEach(ids: number[], eventId: number): SeatRow[] {
	return ids.map((id) => ({
		listing_id: id,
		event_id: eventId,
		price: '21.00',
		currency: 'EUR',
		row: 'C',
		seat: 1,
		ticket_id: `${id}-C-1`,
	}));
}

async function requestsFor(harness: E2e, ids: number[]) {
	const state = await harness.sandbox.state();
	const listingRequests = state.requests.filter(
		(request) =>
			request.endpoint === 'listings' &&
			ids.includes(Number((request.body as { externalListingId?: unknown })?.externalListingId)),
	);
	const held = new Map<number, number>(ids.map((id) => [id, 0]));
	for (const listing of state.listings) {
		const id = Number(listing.externalListingId);
		if (held.has(id)) held.set(id, held.get(id)! + 1);
	}
	return { state, listingRequests, held };
}

describe('Stop and a refused login, seen from a real n8n', () => {
	it(`a ${WORKFLOW_TIMEOUT_SECONDS} s workflow timeout: the listings it never sent are sent by the next run, none twice (case 2)`, async () => {
		const harness = e2e();
		const ids = Array.from({ length: 40 }, () => nextListingId(9_800_000));
		const sheetPath = writeSheet(harness, 'timeout.csv', oneSeatEach(ids, 7014));
		const path = webhookPath(workflows.sheetTimeout);
		const executionsBefore = (await harness.n8n.executions(workflows.sheetTimeout.id)).length;
		// Slow answers: the run is timed out with listings sent, in flight and not yet sent.
		await harness.sandbox.addFault({
			endpoint: 'listings',
			kind: 'latency',
			latencyMs: LATENCY_MS,
		});
		let first: Awaited<ReturnType<typeof postWebhook>>;
		try {
			first = await postWebhook(harness, path, { sheetPath });
			await waitForExecutions(harness, workflows.sheetTimeout.id, executionsBefore + 1);
			// Requests n8n aborted may still be processed by the slow sandbox: wait until each one's latency is over.
			await pollUntil(
				'the sandbox to finish every request of the timed-out run',
				async () =>
					(await requestsFor(harness, ids)).listingRequests.every(
						(request) => Date.parse(request.at) + LATENCY_MS + 500 < Date.now(),
					),
				30_000,
			);
		} finally {
			await harness.sandbox.clearFaults();
		}
		const afterFirst = await requestsFor(harness, ids);
		const sentFirst = new Set(
			afterFirst.listingRequests.map((request) =>
				Number((request.body as { externalListingId: unknown }).externalListingId),
			),
		);
		expect(first.status).not.toBe(200);
		expect(sentFirst.size).toBeGreaterThan(0);
		expect(sentFirst.size).toBeLessThan(ids.length);

		const second = await postWebhook(harness, path, { sheetPath });
		expect(second.status).toBe(200);
		const rows = second.body as Array<Record<string, unknown>>;
		const after = await requestsFor(harness, ids);
		// Every listing of the sheet exists exactly once: none skipped forever, none created twice.
		expect([...after.held.values()]).toEqual(ids.map(() => 1));
		// The second run sent only what the first never sent, and skipped what the first had sent.
		const sentSecond = after.listingRequests.length - afterFirst.listingRequests.length;
		expect(sentSecond).toBe(ids.length - sentFirst.size);
		expect(rows.filter((row) => row.listingStatus === 'skipped')).toHaveLength(sentFirst.size);
		console.log(
			`workflow timeout: first run sent ${sentFirst.size} of ${ids.length} before n8n stopped it (answered ${first.status}); the next run sent the other ${sentSecond} and skipped ${sentFirst.size}`,
		);
	}, 180_000);

	it('a wrong marketplace password: one refused login for the run, nothing sent, the login named once (case 5)', async () => {
		const harness = e2e();
		const ids = Array.from({ length: 25 }, () => nextListingId(9_850_000));
		const sheetPath = writeSheet(harness, 'wrong-password.csv', oneSeatEach(ids, 7015));
		const before = (await harness.sandbox.state()).requests.length;
		const run = await postWebhook(harness, webhookPath(workflows.sheetWrongPassword), {
			sheetPath,
		});
		expect(run.status).toBe(200);
		const rows = run.body as Array<Record<string, unknown>>;
		const requests = (await harness.sandbox.state()).requests.slice(before);
		expect(requests.filter((request) => request.endpoint === 'token')).toHaveLength(1);
		expect(requests.filter((request) => request.endpoint === 'listings')).toHaveLength(0);
		expect(rows).toHaveLength(ids.length);
		expect(rows.every((row) => row.listingStatus === 'failed')).toBe(true);
		const errors = rows.map((row) => String((row.listingError as { error?: unknown }).error));
		expect(errors[0]).toContain('marketplace login');
		expect(errors.slice(1).every((error) => error.startsWith('Not sent'))).toBe(true);
		expect(JSON.stringify(rows)).not.toContain(WRONG_MARKETPLACE_PASSWORD);
	}, 120_000);
});
