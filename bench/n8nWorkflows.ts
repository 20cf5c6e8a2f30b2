/**
 * The workflows the n8n benchmark imports, one per case of the table. The Create Listing cases are copies of
 * examples/sheet-to-listings.workflow.json (Webhook -> Read file -> Extract from CSV -> Create listings, with the
 * example's `={{ $json.column }}` mapping as shipped) that change only the Create node's options; the baselines
 * reuse the example's Webhook and file nodes and replace the Create node with n8n's own nodes.
 */
import { ACTION_NODE_TYPE } from '../support/e2e/workflows';
import type { PerSecondPlan } from './plan';
import {
	EXAMPLE_FILES,
	loadExample,
	nodeByType,
	variantOf,
	type WorkflowJson,
	type WorkflowNode,
} from '../support/harness/workflows';

/** The columns the example maps with expressions; the auto-recognition case drops these parameters. */
const EXAMPLE_MAPPING_PARAMETERS = [
	'externalListingId',
	'eventId',
	'priceAmount',
	'priceCurrency',
	'productExternalId',
	'productRow',
	'productSeat',
];

export type N8nCaseId =
	| 'default'
	| 'unlimited'
	| 'fixed'
	| 'validateOnly'
	| 'autoValidateOnly'
	| 'autoCreate'
	| 'splitOut'
	| 'codeHttpTuned'
	| 'httpDefaults'
	| 'httpDefaultsNoLimit'
	| 'sporadic'
	| `perSecond${number}`
	| `perSecond${number}Hand`
	| 'perSecondBoth'
	| 'perSecondBothHand'
	| 'perSecondChange'
	| 'perSecondChangeHand'
	| `spikeArrest${number}`
	| 'spikeArrestHand';

/** The sandbox's limits for a case; without one, the plan's limit of requests in flight. */
export interface ApiSetup {
	/** Requests in flight on the listings endpoint; null: no such limit. */
	maxInFlight: number | null;
	/** Requests per second on the listings endpoint, from the start of the run. */
	maxPerSecond?: number;
	/** Changes of the per-second limit during the run, ms after the webhook call. */
	changes?: Array<{ atMs: number; maxPerSecond: number }>;
	/** This share of listing requests is answered 429 (Retry-After 1 s) at random, whatever the load. */
	sporadic429Share?: number;
	/** The gateway's spike arrest on the listings endpoint (smoothed), answered with this status. */
	spikeArrest?: { rate: string; status: 500 | 429 };
}

/** What a case's run sends to the sandbox, and so what it is checked for. */
export type CaseKind = 'create' | 'validate' | 'passThrough' | 'baseline';

export interface N8nCase {
	id: N8nCaseId;
	label: string;
	kind: CaseKind;
	workflow: WorkflowJson;
	/** The nodes whose own execution time (n8n's run data) is the case's time. */
	timedNodes: string[];
	/** The node whose output items are the case's result. */
	outputNode: string;
	/** How the rows reach the workflow: a CSV file read by the example's file nodes, or the webhook body. */
	input: 'csv' | 'body';
	/** A node parameter the case needs that today's node may not have yet (then the case is reported as skipped). */
	needs?: 'columnMapping';
	/** Run against the sandbox without its limit on requests in flight (an API without a limit). */
	unlimitedApi?: true;
	/** The sandbox's limits, when not the plan's limit of requests in flight. */
	api?: ApiSetup;
	/** The case's own latency floor (per-second cases), instead of the in-flight floor of the table. */
	floorMs?: number;
	/** The row "x tuned" compares with, instead of the hand-tuned Code + HTTP Request of the in-flight limit. */
	baseline?: N8nCaseId;
	/** Runs of the case, when fewer than --repeat. */
	repeat?: number;
}

export interface CaseSettings {
	/** The fixed-concurrency case's Concurrency (also the API's limit of requests in flight). */
	concurrency: number;
	/** The hand-tuned baseline's HTTP Request batching. */
	tunedBatch: { size: number; intervalMs: number };
	/** Listings per run (for the per-second floors). */
	listings: number;
	latencyMs: number;
	perSecond: PerSecondPlan;
}

/** When the last of `listings` can be admitted under a per-second limit that changes at the given times, plus one latency. */
export function perSecondFloorMs(
	listings: number,
	steps: Array<{ atMs: number; maxPerSecond: number }>,
	latencyMs: number,
): number {
	let admitted = 0;
	for (let index = 0; index < steps.length; index++) {
		const { atMs, maxPerSecond } = steps[index];
		const endMs = steps[index + 1]?.atMs ?? Number.POSITIVE_INFINITY;
		const fits = ((endMs - atMs) * maxPerSecond) / 1000;
		if (admitted + fits >= listings)
			return atMs + ((listings - admitted) * 1000) / maxPerSecond + latencyMs;
		admitted += fits;
	}
	return Number.NaN;
}

const CREATE_NODE = 'Create listings';
const WEBHOOK_NODE = 'Run over HTTP';
const GROUP_NODE = 'Group rows into listings';
const HTTP_NODE = 'POST listing';

/** Every bench workflow sets this: repeated runs must not be skipped by the node's memory of sent listings. */
const BENCH_OPTIONS = { skipAlreadySent: false };

function createVariant(
	id: string,
	name: string,
	path: string,
	change: (node: WorkflowNode) => void,
): WorkflowJson {
	return variantOf(loadExample(EXAMPLE_FILES.sheetToListings), {
		id,
		name,
		webhookPath: `ticket-marketplace-bench/${path}`,
		changeNodes: (node) => {
			if (node.type === ACTION_NODE_TYPE) change(node);
		},
	});
}

function withOptions(options: Record<string, unknown>) {
	return (node: WorkflowNode) => {
		node.parameters.options = { ...BENCH_OPTIONS, ...options };
	};
}

/** Headers recognised by the node itself: the example's mapping parameters are removed. */
function autoMapped(options: Record<string, unknown>) {
	return (node: WorkflowNode) => {
		for (const name of EXAMPLE_MAPPING_PARAMETERS) delete node.parameters[name];
		node.parameters.columnMapping = 'auto';
		node.parameters.options = { ...BENCH_OPTIONS, ...options };
	};
}

/**
 * Code node (JavaScript, all items at once) grouping the sheet rows by listing_id into the API's body, as a user
 * who writes the request by hand would; the sandbox URL comes from the webhook body.
 */
const GROUP_CODE = `const base = $('${WEBHOOK_NODE}').first().json.body.apiUrl;
const url = base + '/sellers/inventory/listings/v3';
const listings = new Map();
for (const item of $input.all()) {
  const row = item.json;
  let listing = listings.get(row.listing_id);
  if (!listing) {
    listing = {
      url,
      body: {
        eventId: Number(row.event_id),
        pricePerProduct: { amount: Number(row.price), currency: row.currency },
        externalListingId: Number(row.listing_id),
        products: [],
        stockType: ['PDF'],
        paymentType: 1,
      },
    };
    listings.set(row.listing_id, listing);
  }
  listing.body.products.push({ externalId: row.ticket_id, row: row.row, seat: String(row.seat), productType: 'TICKET', ga: false });
}
return [...listings.values()].map((json) => ({ json }));`;

/** The example's Webhook and file nodes, then Code (grouping) and n8n's HTTP Request 4.2 with our credential. */
function codeAndHttp(
	id: string,
	name: string,
	path: string,
	batching?: CaseSettings['tunedBatch'],
): WorkflowJson {
	const workflow = createVariant(id, name, path, () => undefined);
	const create = nodeByType(workflow, ACTION_NODE_TYPE);
	const credentials = create.credentials;
	workflow.nodes = workflow.nodes.filter((node) => node !== create);
	workflow.nodes.push(
		{
			id: `${id}-code`,
			name: GROUP_NODE,
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [720, 100],
			parameters: { mode: 'runOnceForAllItems', language: 'javaScript', jsCode: GROUP_CODE },
		},
		{
			id: `${id}-http`,
			name: HTTP_NODE,
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			position: [960, 100],
			credentials,
			parameters: {
				method: 'POST',
				url: '={{ $json.url }}',
				authentication: 'predefinedCredentialType',
				nodeCredentialType: 'ticketMarketplaceApi',
				sendHeaders: true,
				headerParameters: {
					parameters: [
						{ name: 'Accept', value: 'application/json' },
						{ name: 'Accept-Language', value: 'en-US' },
					],
				},
				sendBody: true,
				contentType: 'json',
				specifyBody: 'json',
				jsonBody: '={{ $json.body }}',
				options: batching
					? {
							batching: { batch: { batchSize: batching.size, batchInterval: batching.intervalMs } },
						}
					: {},
			},
		},
	);
	const connections = workflow.connections as Record<
		string,
		{ main: Array<Array<{ node: string; type: string; index: number }>> }
	>;
	connections['Rows from CSV'] = { main: [[{ node: GROUP_NODE, type: 'main', index: 0 }]] };
	connections[GROUP_NODE] = { main: [[{ node: HTTP_NODE, type: 'main', index: 0 }]] };
	return workflow;
}

/** Webhook (rows in the body) -> Split Out -> No Operation: what n8n costs per row without our node. */
function splitOutNoOp(id: string, name: string, path: string): WorkflowJson {
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: `${id}-webhook`,
				name: WEBHOOK_NODE,
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2.1,
				position: [0, 0],
				webhookId: `${id}-webhook`,
				parameters: {
					httpMethod: 'POST',
					path: `ticket-marketplace-bench/${path}`,
					responseMode: 'lastNode',
					responseData: 'noData',
					options: {},
				},
			},
			{
				id: `${id}-split`,
				name: 'Split Out',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [240, 0],
				parameters: { fieldToSplitOut: 'body.rows', options: {} },
			},
			{
				id: `${id}-noop`,
				name: 'No Operation',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [480, 0],
				parameters: {},
			},
		],
		connections: {
			[WEBHOOK_NODE]: { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] },
			'Split Out': { main: [[{ node: 'No Operation', type: 'main', index: 0 }]] },
		},
	};
}

/** A rate batched by hand: rate / 10 requests every interval (at least one), so a little under the rate. */
function handBatch(maxPerSecond: number, intervalMs: number) {
	return { size: Math.max(1, Math.round(maxPerSecond / 10)), intervalMs };
}

/** Workflow ids are 16 characters, as n8n's. */
function workflowId(prefix: string, suffix: string): string {
	return `${prefix}${suffix}`.padEnd(16, 'x').slice(0, 16);
}

/** Default options and the Code + HTTP Request workflow batched to the rate by hand, against one per-second setup. */
function perSecondPair(
	settings: CaseSettings,
	key: string,
	label: string,
	api: ApiSetup,
	handRate: number,
	floorMs: number,
): N8nCase[] {
	const nodeId = `perSecond${key}` as N8nCaseId;
	const handId = `perSecond${key}Hand` as N8nCaseId;
	const batch = handBatch(handRate, settings.perSecond.handIntervalMs);
	const common = {
		kind: 'create' as const,
		input: 'csv' as const,
		api,
		floorMs,
		baseline: handId,
		repeat: settings.perSecond.repeat,
	};
	return [
		{
			...common,
			id: nodeId,
			label: `Create Listing, default options, ${label}`,
			workflow: createVariant(
				workflowId('tmBenchPs', key),
				`Bench: Create Listing, default options, ${label}`,
				`per-second-${key.toLowerCase()}`,
				withOptions({}),
			),
			timedNodes: [CREATE_NODE],
			outputNode: CREATE_NODE,
		},
		{
			...common,
			kind: 'baseline',
			id: handId,
			label: `Code grouping + HTTP Request, ${label}, batches of ${batch.size} every ${batch.intervalMs} ms`,
			workflow: codeAndHttp(
				workflowId('tmBenchPh', key),
				`Bench: Code + HTTP Request batched by hand, ${label}`,
				`per-second-hand-${key.toLowerCase()}`,
				batch,
			),
			timedNodes: [GROUP_NODE, HTTP_NODE],
			outputNode: HTTP_NODE,
		},
	];
}

/** The per-second cases: each limit, both limits at once, and a limit that changes mid-run. */
function perSecondCases(settings: CaseSettings): N8nCase[] {
	const { listings, latencyMs, perSecond } = settings;
	const steady = (maxPerSecond: number) => [{ atMs: 0, maxPerSecond }];
	const cases = perSecond.limits.flatMap((limit) =>
		perSecondPair(
			settings,
			String(limit),
			`${limit} per second`,
			{ maxInFlight: null, maxPerSecond: limit },
			limit,
			perSecondFloorMs(listings, steady(limit), latencyMs),
		),
	);
	const both = perSecond.both;
	cases.push(
		...perSecondPair(
			settings,
			'Both',
			`${both.maxPerSecond} per second and ${both.maxInFlight} in flight`,
			{ maxInFlight: both.maxInFlight, maxPerSecond: both.maxPerSecond },
			both.maxPerSecond,
			Math.max(
				perSecondFloorMs(listings, steady(both.maxPerSecond), latencyMs),
				Math.ceil(listings / both.maxInFlight) * latencyMs,
			),
		),
	);
	const [first, ...later] = perSecond.change;
	cases.push(
		...perSecondPair(
			settings,
			'Change',
			`per second ${perSecond.change.map((step) => step.maxPerSecond).join(' -> ')} (at ${later.map((step) => `${step.atMs / 1000} s`).join(', ')})`,
			{ maxInFlight: null, maxPerSecond: first.maxPerSecond, changes: later },
			Math.min(...perSecond.change.map((step) => step.maxPerSecond)),
			perSecondFloorMs(listings, perSecond.change, latencyMs),
		),
	);
	return cases;
}

/**
 * The spike arrest: default options against it answered with each status, beside Code + HTTP Request batched one
 * request every interval (what a user who read the rate would build), against Apigee's default status.
 */
function spikeArrestCases(settings: CaseSettings): N8nCase[] {
	const { listings, latencyMs, perSecond } = settings;
	const { perSecond: rate, statuses } = perSecond.spikeArrest;
	const floorMs = perSecondFloorMs(listings, [{ atMs: 0, maxPerSecond: rate }], latencyMs);
	const intervalMs = Math.round(1000 / rate);
	const common = {
		kind: 'create' as const,
		input: 'csv' as const,
		floorMs,
		baseline: 'spikeArrestHand' as N8nCaseId,
		repeat: perSecond.repeat,
		timedNodes: [CREATE_NODE],
		outputNode: CREATE_NODE,
	};
	const cases: N8nCase[] = statuses.map((status) => ({
		...common,
		id: `spikeArrest${status}` as N8nCaseId,
		label: `Create Listing, default options, spike arrest ${rate}ps answered ${status}`,
		api: { maxInFlight: null, spikeArrest: { rate: `${rate}ps`, status } },
		workflow: createVariant(
			workflowId('tmBenchSpike', String(status)),
			`Bench: Create Listing, default options, spike arrest answered ${status}`,
			`spike-arrest-${status}`,
			withOptions({}),
		),
	}));
	cases.push({
		...common,
		kind: 'baseline',
		id: 'spikeArrestHand',
		label: `Code grouping + HTTP Request, spike arrest ${rate}ps answered ${statuses[0]}, batches of 1 every ${intervalMs} ms`,
		api: { maxInFlight: null, spikeArrest: { rate: `${rate}ps`, status: statuses[0] } },
		workflow: codeAndHttp(
			workflowId('tmBenchSpikeHand', ''),
			'Bench: Code + HTTP Request batched by hand, spike arrest',
			'spike-arrest-hand',
			{ size: 1, intervalMs },
		),
		timedNodes: [GROUP_NODE, HTTP_NODE],
		outputNode: HTTP_NODE,
	});
	return cases;
}

/** The share of requests the sporadic case's API refuses at random (as the e2e fault run does). */
const SPORADIC_429_SHARE = 0.03;

/** The cases in table order (the latency floor is computed, not run). */
export function benchCases(settings: CaseSettings): N8nCase[] {
	const csvCase = (
		id: N8nCaseId,
		label: string,
		kind: CaseKind,
		workflow: WorkflowJson,
		needs?: 'columnMapping',
	): N8nCase => ({
		id,
		label,
		kind,
		workflow,
		timedNodes: [CREATE_NODE],
		outputNode: CREATE_NODE,
		input: 'csv',
		needs,
	});
	return [
		csvCase(
			'default',
			'Create Listing, default options',
			'create',
			createVariant(
				'tmBenchDefaults1',
				'Bench: Create Listing, default options',
				'default',
				withOptions({}),
			),
		),
		{
			...csvCase(
				'unlimited',
				'Create Listing, default options, API without a limit',
				'create',
				createVariant(
					'tmBenchNoLimit01',
					'Bench: Create Listing, default options, API without a limit',
					'no-limit',
					withOptions({}),
				),
			),
			unlimitedApi: true,
			baseline: 'httpDefaultsNoLimit',
		},
		{
			...csvCase(
				'sporadic',
				'Create Listing, default options, API without a limit that refuses 3 % at random',
				'create',
				createVariant(
					'tmBenchSporadic1',
					'Bench: Create Listing, default options, API refusing 3 % at random',
					'sporadic',
					withOptions({}),
				),
			),
			api: { maxInFlight: null, sporadic429Share: SPORADIC_429_SHARE },
			baseline: 'unlimited',
		},
		csvCase(
			'fixed',
			`Create Listing, fixed Concurrency ${settings.concurrency}`,
			'create',
			createVariant(
				'tmBenchFixedConc',
				`Bench: Create Listing, fixed Concurrency ${settings.concurrency}`,
				'fixed',
				withOptions({ concurrencyMode: 'fixed', concurrency: settings.concurrency }),
			),
		),
		csvCase(
			'validateOnly',
			'Create Listing, Validate Only (nothing sent)',
			'validate',
			createVariant(
				'tmBenchValidOnly',
				'Bench: Create Listing, Validate Only',
				'validate-only',
				withOptions({ validateOnly: true }),
			),
		),
		csvCase(
			'autoValidateOnly',
			'Headers recognised (no mapping), Validate Only',
			'validate',
			createVariant(
				'tmBenchAutoValid',
				'Bench: headers recognised, Validate Only',
				'auto-validate-only',
				autoMapped({ validateOnly: true }),
			),
			'columnMapping',
		),
		csvCase(
			'autoCreate',
			'Headers recognised (no mapping), default options',
			'create',
			createVariant(
				'tmBenchAutoCreat',
				'Bench: headers recognised, default options',
				'auto-create',
				autoMapped({}),
			),
			'columnMapping',
		),
		{
			id: 'splitOut',
			label: 'Split Out + No-Op over the same rows',
			kind: 'passThrough',
			workflow: splitOutNoOp('tmBenchSplitNoOp', 'Bench: Split Out + No-Op', 'split-out'),
			timedNodes: ['Split Out', 'No Operation'],
			outputNode: 'No Operation',
			input: 'body',
		},
		{
			id: 'codeHttpTuned',
			label: `Code grouping + HTTP Request, batches of ${settings.tunedBatch.size} every ${settings.tunedBatch.intervalMs} ms`,
			kind: 'baseline',
			workflow: codeAndHttp(
				'tmBenchCodeHttpT',
				'Bench: Code + HTTP Request, hand-tuned batching',
				'code-http-tuned',
				settings.tunedBatch,
			),
			timedNodes: [GROUP_NODE, HTTP_NODE],
			outputNode: HTTP_NODE,
			input: 'csv',
		},
		{
			id: 'httpDefaults',
			label: 'Code grouping + HTTP Request, defaults (all at once)',
			kind: 'baseline',
			workflow: codeAndHttp(
				'tmBenchCodeHttpD',
				'Bench: Code + HTTP Request, defaults',
				'code-http-defaults',
			),
			timedNodes: [GROUP_NODE, HTTP_NODE],
			outputNode: HTTP_NODE,
			input: 'csv',
		},
		{
			id: 'httpDefaultsNoLimit',
			label: 'Code grouping + HTTP Request, defaults, API without a limit',
			kind: 'baseline',
			workflow: codeAndHttp(
				'tmBenchCodeHttpN',
				'Bench: Code + HTTP Request, defaults, API without a limit',
				'code-http-defaults-no-limit',
			),
			timedNodes: [GROUP_NODE, HTTP_NODE],
			outputNode: HTTP_NODE,
			input: 'csv',
			unlimitedApi: true,
		},
		...perSecondCases(settings),
		...spikeArrestCases(settings),
	];
}
