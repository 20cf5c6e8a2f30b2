/**
 * Inside a real n8n: a run cut short (the workflow setting Timeout Workflow, or Stop) while a slow
 * API has taken only part of a 40-listing sheet. The listings it never sent must not be buried as "already sent":
 * after the same sheet runs again in the same workflow (same memory), without the timeout and without the fault,
 * the sandbox holds every listing of the sheet exactly once, and no listing was ever sent twice.
 */
import { pollUntil, n8nRest, type ExecutionSummary } from '../../support/harness/n8n';
import {
	executionError,
	nextListingId,
	postWebhook,
	updateWorkflowSettings,
	useE2e,
	waitForExecutions,
	writeSheet,
	type E2e,
	type SeatRow,
	type WebhookRun,
} from '../../support/e2e/helpers';
import { SHEET_TIMEOUT_SECONDS, suiteWorkflows, webhookPath } from '../../support/e2e/workflows';

const e2e = useE2e();
const workflows = suiteWorkflows();
const workflow = workflows.sheetTimeout;
const LISTINGS = 40;
/** With at most 4 requests at once (the variant's setting), about 4 listings a second reach the API. */
const LATENCY_MS = 1_000;

function sheet(harness: E2e, name: string, base: number): { ids: number[]; sheetName: string } {
	const ids = Array.from({ length: LISTINGS }, () => nextListingId(base));
	// A seat numbered from the listing's ID: none in two listings (the node refuses that before sending), and none
	// that the other test's sheet holds (the sandbox refuses that for as long as it runs).
	const rows: SeatRow[] = ids.map((id) => ({
		listing_id: id,
		event_id: 7014,
		price: '30.00',
		currency: 'EUR',
		row: 'D',
		seat: id - base,
		ticket_id: `${id}-D-${id - base}`,
	}));
	return { ids, sheetName: writeSheet(harness, name, rows) };
}

/** External Listing IDs of every listing request the sandbox received (its request log), one entry per request. */
async function listingRequests(harness: E2e, ids: number[]): Promise<number[]> {
	const { requests } = await harness.sandbox.state();
	return requests
		.filter((request) => request.endpoint === 'listings' && request.method === 'POST')
		.map((request) => Number((request.body as { externalListingId?: unknown })?.externalListingId))
		.filter((id) => ids.includes(id));
}

async function heldIds(harness: E2e, ids: number[]): Promise<number[]> {
	const { listings } = await harness.sandbox.state();
	return listings
		.map((listing) => Number(listing.externalListingId))
		.filter((id) => ids.includes(id));
}

/** The nodes an execution recorded a run for (a cut-short run may not record the node that was running). */
function nodesRun(execution: ExecutionSummary): string[] {
	const data = execution.data as { resultData?: { runData?: Record<string, unknown> } } | undefined;
	return Object.keys(data?.resultData?.runData ?? {});
}

function describeRun(what: string, run: CutShortRun): string {
	return `${what}: webhook answered ${run.answer.status} ${JSON.stringify(run.answer.body).slice(0, 120)}… after ${run.ms} ms; execution ${run.execution.id} status ${run.execution.status}, finished ${run.execution.finished}, nodes run: ${nodesRun(run.execution).join(', ')}; error ${JSON.stringify(executionError(run.execution))}; ${run.sent.length} of ${LISTINGS} listings sent`;
}

interface CutShortRun {
	answer: WebhookRun;
	execution: ExecutionSummary;
	sent: number[];
	ms: number;
}

/**
 * Runs the sheet against a slow API and cuts the run short (`interrupt` does, or the workflow's timeout); waits
 * for the execution to end and for the requests that were in flight to be answered by the sandbox, which creates
 * them although n8n has gone (a request that left may have been created).
 */
async function cutShortRun(
	harness: E2e,
	ids: number[],
	sheetName: string,
	interrupt?: () => Promise<void>,
): Promise<CutShortRun> {
	const before = (await harness.n8n.executions(workflow.id)).length;
	await harness.sandbox.addFault({ endpoint: 'listings', kind: 'latency', latencyMs: LATENCY_MS });
	const started = Date.now();
	let answer: WebhookRun;
	try {
		const pending = postWebhook(harness, webhookPath(workflow), { sheet: sheetName });
		await interrupt?.();
		answer = await pending;
	} finally {
		await harness.sandbox.clearFaults();
	}
	const ms = Date.now() - started;
	const [latest] = await waitForExecutions(harness, workflow.id, before + 1);
	const execution = await harness.n8n.execution(latest.id);
	let sent: number[] = [];
	await pollUntil(
		'the sandbox to answer every listing request of the cut-short run',
		async () => {
			sent = await listingRequests(harness, ids);
			return (await heldIds(harness, ids)).length === new Set(sent).size;
		},
		15_000,
	);
	return { answer, execution, sent, ms };
}

/** The same sheet again, in the same workflow, with no timeout and no fault: then every listing is held once. */
async function runAgainAndCheck(harness: E2e, ids: number[], sheetName: string, sent: number[]) {
	const answer = await postWebhook(harness, webhookPath(workflow), { sheet: sheetName });
	expect(answer.status).toBe(200);
	const output = answer.body as Array<Record<string, unknown>>;
	const statuses = new Map(
		output.map((item) => [Number(item.listing_id), String(item.listingStatus)]),
	);
	// What the first run sent is not sent again: skipped where the memory learnt it was created, unknown where the
	// run was cut short before it did (in flight at Stop, or the whole run abandoned at the timeout). Everything
	// else is created, and nothing fails.
	expect(ids.map((id) => [id, statuses.get(id)])).toEqual(
		ids.map((id) => [
			id,
			sent.includes(id) ? expect.stringMatching(/^(skipped|unknown)$/) : 'created',
		]),
	);
	// Every listing of the sheet is held exactly once, and none was ever sent twice.
	expect((await heldIds(harness, ids)).sort()).toEqual([...ids].sort());
	expect((await listingRequests(harness, ids)).sort()).toEqual([...ids].sort());
}

describe('a run cut short in a real n8n buries no listing', () => {
	afterEach(async () => {
		await e2e().sandbox.clearFaults();
		await updateWorkflowSettings(e2e(), workflow, workflow.settings ?? {});
		// n8n republishes an active workflow on update: it stays active for the suite's later tests.
		const stored = await e2e().n8n.request<{ active: boolean; settings?: Record<string, unknown> }>(
			'GET',
			`/workflows/${workflow.id}`,
		);
		expect([stored.active, stored.settings?.executionTimeout]).toEqual([
			true,
			SHEET_TIMEOUT_SECONDS,
		]);
	});

	it('after the workflow timeout, a second run sends exactly the listings the first never sent', async () => {
		const harness = e2e();
		expect(workflow.settings?.executionTimeout).toBe(SHEET_TIMEOUT_SECONDS);
		const { ids, sheetName } = sheet(harness, 'timeout.csv', 9_900_000);

		const first = await cutShortRun(harness, ids, sheetName);
		// What n8n does on a workflow timeout: recorded below, so a change in n8n shows.
		console.info(describeRun('workflow timeout', first));
		expect(first.execution.status).toBe('canceled');
		expect(first.sent.length).toBeGreaterThan(0);
		expect(first.sent.length).toBeLessThan(LISTINGS);
		expect(new Set(first.sent).size).toBe(first.sent.length);

		await updateWorkflowSettings(harness, workflow, { ...workflow.settings, executionTimeout: -1 });
		await runAgainAndCheck(harness, ids, sheetName, first.sent);
	}, 180_000);

	it('after Stop, a second run sends exactly the listings the first never sent', async () => {
		const harness = e2e();
		await updateWorkflowSettings(harness, workflow, { ...workflow.settings, executionTimeout: -1 });
		const { ids, sheetName } = sheet(harness, 'stop.csv', 9_950_000);
		const stop = async () => {
			await pollUntil(
				'the first listing requests to reach the sandbox',
				async () => (await listingRequests(harness, ids)).length >= 4,
				30_000,
				50,
			);
			// The public API lists running executions only when asked for them.
			const { data: running } = await harness.n8n.request<{ data: ExecutionSummary[] }>(
				'GET',
				`/executions?workflowId=${workflow.id}&status=running`,
			);
			expect(running).toHaveLength(1);
			const session = await n8nRest(harness.context.n8nUrl);
			await session.call('POST', `/executions/${running[0].id}/stop`);
		};

		const first = await cutShortRun(harness, ids, sheetName, stop);
		console.info(describeRun('Stop', first));
		expect(first.execution.status).toBe('canceled');
		expect(first.sent.length).toBeGreaterThan(0);
		expect(first.sent.length).toBeLessThan(LISTINGS);
		expect(new Set(first.sent).size).toBe(first.sent.length);

		await runAgainAndCheck(harness, ids, sheetName, first.sent);
	}, 180_000);
});
