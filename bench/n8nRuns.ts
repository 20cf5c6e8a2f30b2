/**
 * One run of a bench workflow inside the harness's real n8n: a fresh sandbox state with the plan's faults, a sheet
 * with External Listing IDs no earlier run used, the webhook call, then what n8n recorded (each node's own
 * execution time from the execution's run data) and what the sandbox received (listings, 429s, token requests).
 */
import type { RequestLogEntry, SandboxAdminClient, SandboxState } from '../sandbox/index';
import type { ExecutionSummary } from '../support/harness/n8n';
import {
	executionError,
	nodeOutput,
	postWebhook,
	waitForExecutions,
	writeSheet,
	type E2e,
	type SeatRow,
} from '../support/e2e/helpers';
import { PARTNER_API_PATHS } from '../nodes/shared/partnerApi/paths';
import { webhookPath } from '../support/e2e/workflows';
import type { ApiSetup, N8nCase } from './n8nWorkflows';
import type { Plan } from './plan';
import { median } from './stats';

export type N8nPlan = Plan['n8n'];

/** Each run takes its own block of External Listing IDs (the sandbox and the node's memory refuse repeats). */
const FIRST_LISTING_ID = 1_000_000;
const IDS_PER_RUN = 10_000;
let runsStarted = 0;

/** Sheet rows as a spreadsheet gives them (every cell text), `rowsPerListing` consecutive rows per listing. */
export function benchSheet(rows: number, rowsPerListing: number): SeatRow[] {
	const base = FIRST_LISTING_ID + IDS_PER_RUN * runsStarted++;
	return Array.from({ length: rows }, (_, index) => {
		const listing = String(base + Math.floor(index / rowsPerListing));
		// One seat per listing: a seat in two listings of one event is refused before sending.
		const seat = String(index + 1);
		return {
			listing_id: listing,
			event_id: '4242',
			price: '49.90',
			currency: 'EUR',
			row: 'A',
			seat,
			ticket_id: `${listing}-A-${seat}`,
		};
	});
}

/**
 * Puts the sandbox in the state every run starts from: no listings, the token n8n holds still valid (as between two
 * runs; with the plan's staleToken, forgotten: refused once and renewed), an empty request log, the latency fault and
 * the limit on requests in flight.
 */
export async function prepareSandbox(
	sandbox: SandboxAdminClient,
	plan: N8nPlan,
	limited = true,
	api?: ApiSetup,
): Promise<void> {
	await sandbox.reset({ keepTokens: !plan.staleToken });
	await sandbox.addFault({ endpoint: 'listings', kind: 'latency', latencyMs: plan.latencyMs });
	const maxInFlight = api ? api.maxInFlight : limited ? plan.maxInFlight : null;
	await sandbox.limitInFlight(
		maxInFlight === null ? null : { maxInFlight, endpoint: 'listings', retryAfterSeconds: 1 },
	);
	// A per-second refusal computes its Retry-After: the whole seconds until the next request fits.
	await sandbox.limitPerSecond(
		api?.maxPerSecond === undefined
			? null
			: { maxPerSecond: api.maxPerSecond, endpoint: 'listings', retryAfterSeconds: null },
	);
	await sandbox.limitSpikeArrest(
		api?.spikeArrest === undefined
			? null
			: { rate: api.spikeArrest.rate, status: api.spikeArrest.status, endpoint: 'listings' },
	);
	if (api?.sporadic429Share !== undefined)
		await sandbox.addFault({
			endpoint: 'listings',
			kind: '429',
			retryAfterSeconds: 1,
			rate: api.sporadic429Share,
			seed: 2020,
		});
}

/** Changes the per-second limit at the case's times (ms after `started`); resolves once all are made. */
async function changeLimits(
	sandbox: SandboxAdminClient,
	api: ApiSetup | undefined,
	started: number,
): Promise<void> {
	for (const change of api?.changes ?? []) {
		const waitMs = started + change.atMs - performance.now();
		if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
		await sandbox.limitPerSecond({
			maxPerSecond: change.maxPerSecond,
			endpoint: 'listings',
			retryAfterSeconds: null,
		});
	}
}

export interface RunMeasure {
	/** The timed nodes' own execution time (n8n's run data), summed. */
	nodeMs: number;
	/** The whole execution (n8n's startedAt to stoppedAt) and the webhook round trip seen by the client. */
	executionMs: number;
	webhookMs: number;
	executionStatus: string;
	executionError?: string;
	webhookStatus: number;
	outputItems: number;
	/** Output items that report a failed listing (our node's error items), and the listings they name. */
	errorItems: number;
	listingsExpected: number;
	listingsCreated: number;
	/** Listings neither created nor named by an error item. */
	lost: number;
	/** External Listing IDs the sandbox holds more than once, plus resends it refused as duplicates (409). */
	duplicated: number;
	listingRequests: number;
	rateLimited: number;
	/** 429s as a share of the listing requests sent (0 to 1). */
	refusedShare: number;
	tokenRequests: number;
	/** Token requests that logged in (not a refresh: one after the reset is refused, the login follows). */
	logins: number;
	/** Output items of a Validate Only run that carry the request they would send. */
	validatedItems: number;
	/** The most listing requests the sandbox answered at once, and when (ms after the first listing request) it first had them. */
	peakInFlight: number;
	peakReachedMs: number;
	/** Median time the sandbox took to answer a listing request it accepted (the latency fault included). */
	apiMs: number;
}

interface RunData {
	executionTime?: number;
}

function runDataOf(execution: ExecutionSummary): Record<string, RunData[]> {
	const data = execution.data as
		| { resultData?: { runData?: Record<string, RunData[]> } }
		| undefined;
	return data?.resultData?.runData ?? {};
}

function countBy(requests: RequestLogEntry[], status: number): number {
	return requests.filter((request) => request.status === status).length;
}

/** Rate refusals: 429s, and the spike arrest's faults (500 by Apigee's default). */
function rateRefusals(requests: RequestLogEntry[]): number {
	return requests.filter(
		(request) => request.status === 429 || request.faults.includes('spikeArrest'),
	).length;
}

/** The most requests in flight at once, from the log's start times and durations, and when that was first reached. */
export function peakInFlight(requests: RequestLogEntry[]): {
	peakInFlight: number;
	peakReachedMs: number;
} {
	if (requests.length === 0) return { peakInFlight: 0, peakReachedMs: Number.NaN };
	// Ends sort before starts at the same instant: a request answered when another arrives was not in flight with it.
	const events = requests
		.flatMap((request) => {
			const start = Date.parse(request.at);
			return [
				{ at: start, delta: 1 },
				{ at: start + request.durationMs, delta: -1 },
			];
		})
		.sort((a, b) => a.at - b.at || a.delta - b.delta);
	const first = events[0].at;
	let now = 0;
	let peak = 0;
	let reached = first;
	for (const event of events) {
		now += event.delta;
		if (now > peak) {
			peak = now;
			reached = event.at;
		}
	}
	return { peakInFlight: peak, peakReachedMs: reached - first };
}

/** The External Listing IDs named by our node's error items (through the input rows they pair with). */
function reportedIds(output: Array<Record<string, unknown>>, rows: SeatRow[]): Set<string> {
	const ids = new Set<string>();
	for (const item of output) {
		if (item.error === undefined) continue;
		const indexes = Array.isArray(item.itemIndexes) ? (item.itemIndexes as number[]) : [];
		for (const index of indexes) if (rows[index]) ids.add(String(rows[index].listing_id));
	}
	return ids;
}

export async function runCase(
	e2e: E2e,
	benchCase: N8nCase,
	rows: SeatRow[],
	plan: N8nPlan,
): Promise<RunMeasure> {
	await prepareSandbox(e2e.sandbox, plan, !benchCase.unlimitedApi, benchCase.api);
	const workflowId = benchCase.workflow.id;
	const previous = (await e2e.n8n.executions(workflowId)).length;
	const body =
		benchCase.input === 'csv'
			? { sheet: writeSheet(e2e, `${workflowId}.csv`, rows), apiUrl: e2e.context.sandboxUrl }
			: { rows };

	const started = performance.now();
	const changes = changeLimits(e2e.sandbox, benchCase.api, started);
	const answer = await postWebhook(e2e, webhookPath(benchCase.workflow), body);
	const webhookMs = performance.now() - started;
	// A run that ends before a change still waits for it, so that it cannot land in the next run.
	await changes;

	const [summary] = await waitForExecutions(e2e, workflowId, previous + 1, plan.runTimeoutMs);
	const execution = await e2e.n8n.execution(summary.id);
	const state: SandboxState = await e2e.sandbox.state();
	return measure(benchCase, rows, execution, state, { webhookMs, webhookStatus: answer.status });
}

function measure(
	benchCase: N8nCase,
	rows: SeatRow[],
	execution: ExecutionSummary,
	state: SandboxState,
	client: { webhookMs: number; webhookStatus: number },
): RunMeasure {
	const runData = runDataOf(execution);
	const nodeMs = benchCase.timedNodes.reduce(
		(total, node) => total + (runData[node]?.[0]?.executionTime ?? Number.NaN),
		0,
	);
	const extended = execution as ExecutionSummary & { stoppedAt?: string };
	const executionMs = extended.stoppedAt
		? Date.parse(extended.stoppedAt) - Date.parse(execution.startedAt)
		: Number.NaN;
	const output = nodeOutput(execution, benchCase.outputNode);

	const expected = new Set(rows.map((row) => String(row.listing_id)));
	const held = state.listings.map((listing) => String(listing.externalListingId));
	const created = new Set(held.filter((id) => expected.has(id)));
	const reported = reportedIds(output, rows);
	const lost = [...expected].filter((id) => !created.has(id) && !reported.has(id)).length;
	const listingRequests = state.requests.filter((request) => request.endpoint === 'listings');

	return {
		nodeMs,
		executionMs,
		webhookMs: client.webhookMs,
		executionStatus: execution.status,
		executionError: executionError(execution)?.message,
		webhookStatus: client.webhookStatus,
		outputItems: output.length,
		errorItems: output.filter((item) => item.error !== undefined).length,
		listingsExpected: expected.size,
		listingsCreated: created.size,
		lost,
		duplicated: held.length - new Set(held).size + countBy(listingRequests, 409),
		listingRequests: listingRequests.length,
		rateLimited: rateRefusals(listingRequests),
		refusedShare:
			listingRequests.length === 0 ? 0 : rateRefusals(listingRequests) / listingRequests.length,
		tokenRequests: state.requests.filter((request) => request.endpoint === 'token').length,
		logins: state.requests.filter(
			(request) => request.endpoint === 'token' && request.path !== PARTNER_API_PATHS.refresh,
		).length,
		validatedItems: output.filter(
			(item) => item.validateOnly === true && typeof item.body === 'object',
		).length,
		...peakInFlight(listingRequests.filter((request) => request.status !== 429)),
		apiMs: median(
			listingRequests
				.filter((request) => request.status === 201)
				.map((request) => request.durationMs),
		),
	};
}
