/**
 * What every e2e test file uses: the running harness (attached through TM_E2E_CONTEXT when the e2e runner started
 * it, otherwise started here for this file), clients for n8n and the sandbox, and small helpers to run the
 * webhook-fronted workflows, write sheets and wait for executions (bounded polls, never fixed sleeps).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

import { SandboxAdminClient, type RequestLogEntry, type SandboxState } from '../../sandbox/index';
import { callHarnessControl } from '../harness/control';
import {
	credentialsFor,
	type Harness,
	type HarnessContext,
	SANDBOX_CALLBACK_CLIENT,
	startHarness,
} from '../harness/harness';
import {
	N8nPublicApi,
	OWNER_BROWSER_ID,
	ownerSessionCookie,
	pollUntil,
	type ExecutionSummary,
} from '../harness/n8n';
import { setQuiet } from '../harness/progress';
import {
	ACTION_NODE_TYPE,
	harnessWorkflows,
	ON_N8N_1X,
	suiteWorkflows,
	webhookPath,
} from './workflows';
import {
	configuredLikeAUser,
	postJson,
	variantOf,
	type WebhookRun,
	type WorkflowJson,
} from '../harness/workflows';

export { postJson, type WebhookRun };
import { n8nVersion } from '../harness/n8nInstall';

export interface E2e {
	context: HarnessContext;
	n8n: N8nPublicApi;
	sandbox: SandboxAdminClient;
	/** Stops n8n alone, or starts it again with its workflows active (the sandbox keeps running). */
	n8nProcess: { stop(): Promise<void>; start(): Promise<void> };
}

/** Registers beforeAll/afterAll for the file and returns a getter for the running harness. */
export function useE2e(): () => E2e {
	let e2e: E2e | undefined;
	let ownHarness: Harness | undefined;
	// A cold harness (first n8n start, build, pack) takes a while; later tests are fast.
	jest.setTimeout(240_000);

	beforeAll(async () => {
		const contextFile = process.env.TM_E2E_CONTEXT;
		let context: HarnessContext;
		if (contextFile) {
			context = JSON.parse(readFileSync(contextFile, 'utf8')) as HarnessContext;
		} else {
			setQuiet(process.env.TM_E2E_VERBOSE !== '1');
			ownHarness = await startHarness({ workflows: harnessWorkflows() });
			context = ownHarness.context;
		}
		const harness = ownHarness;
		const { controlUrl } = context;
		const n8nProcess = harness
			? { stop: () => harness.stopN8n(), start: () => harness.startN8n() }
			: {
					stop: () => callHarnessControl(requireControl(controlUrl), 'stop'),
					start: () => callHarnessControl(requireControl(controlUrl), 'start'),
				};
		e2e = {
			context,
			n8n: new N8nPublicApi(context.n8nUrl, context.apiKey),
			sandbox: new SandboxAdminClient(context.sandboxUrl),
			n8nProcess,
		};
	}, 600_000);

	afterAll(async () => {
		await ownHarness?.stop();
	}, 60_000);

	return () => {
		if (!e2e) throw new Error('the e2e harness is not running (beforeAll failed?)');
		return e2e;
	};
}

function requireControl(controlUrl: string | undefined): string {
	if (!controlUrl)
		throw new Error('the e2e context has no controlUrl: run the suite with npm run test:e2e');
	return controlUrl;
}

/** POSTs JSON to a production webhook of the running n8n. */
export async function postWebhook(
	e2e: E2e,
	path: string,
	body: unknown,
	headers: Record<string, string> = {},
): Promise<WebhookRun> {
	return await postJson(`${e2e.context.n8nUrl}/webhook/${path}`, body, headers);
}

export interface SeatRow {
	listing_id: string | number;
	event_id: string | number;
	price: string | number;
	currency: string;
	row: string;
	seat: string | number;
	ticket_id: string;
}

export const SHEET_COLUMNS: Array<keyof SeatRow> = [
	'listing_id',
	'event_id',
	'price',
	'currency',
	'row',
	'seat',
	'ticket_id',
];

/**
 * Writes a seat sheet into n8n's files folder and returns its file name: what a caller of the sheet example sends
 * as `sheet` (the example reads only from its own folder). The folder is `e2e.context.filesFolder`.
 */
export function writeSheet(e2e: E2e, name: string, rows: SeatRow[]): string {
	const path = join(e2e.context.filesFolder, name);
	const lines = [
		SHEET_COLUMNS.join(','),
		...rows.map((row) => SHEET_COLUMNS.map((column) => String(row[column])).join(',')),
	];
	writeFileSync(path, `${lines.join('\n')}\n`);
	return name;
}

/** Waits (bounded) until the workflow has at least `count` finished executions; returns them newest first. */
export async function waitForExecutions(
	e2e: E2e,
	workflowId: string,
	count: number,
	timeoutMs = 60_000,
): Promise<ExecutionSummary[]> {
	let executions: ExecutionSummary[] = [];
	await pollUntil(
		`${count} finished execution(s) of ${workflowId}`,
		async () => {
			executions = (await e2e.n8n.executions(workflowId)).filter(
				(execution) => execution.status !== 'running' && execution.status !== 'new',
			);
			return executions.length >= count;
		},
		timeoutMs,
	);
	return executions;
}

/**
 * Replaces a workflow's settings (Timeout Workflow, ...) through the public API, keeping its id, nodes and
 * connections as n8n holds them (the harness configured them on import: the example's files are placeholders):
 * n8n republishes an active workflow on update, so its webhook runs the new settings, and the node's memory (kept
 * per workflow) stays the same.
 */
export async function updateWorkflowSettings(
	e2e: E2e,
	workflow: Pick<WorkflowJson, 'id'>,
	settings: Record<string, unknown>,
): Promise<void> {
	const stored = await e2e.n8n.request<Pick<WorkflowJson, 'name' | 'nodes' | 'connections'>>(
		'GET',
		`/workflows/${workflow.id}`,
	);
	await e2e.n8n.request('PUT', `/workflows/${workflow.id}`, {
		name: stored.name,
		nodes: stored.nodes,
		connections: stored.connections,
		settings,
	});
}

/** Output items (json) of a node in an execution fetched with data. */
export function nodeOutput(
	execution: ExecutionSummary,
	nodeName: string,
): Array<Record<string, unknown>> {
	const data = execution.data as
		| {
				resultData?: {
					runData?: Record<
						string,
						Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } }>
					>;
				};
		  }
		| undefined;
	const runs = data?.resultData?.runData?.[nodeName] ?? [];
	return runs.flatMap((run) => (run.data?.main?.[0] ?? []).map((item) => item.json));
}

/** For each output item of a node in an execution fetched with data, the input items it is paired with. */
export function nodePairing(execution: ExecutionSummary, nodeName: string): number[][] {
	type Paired = { item: number } | number | Array<{ item: number }> | undefined;
	const data = execution.data as
		| {
				resultData?: {
					runData?: Record<
						string,
						Array<{ data?: { main?: Array<Array<{ pairedItem?: Paired }> | null> } }>
					>;
				};
		  }
		| undefined;
	const runs = data?.resultData?.runData?.[nodeName] ?? [];
	return runs.flatMap((run) =>
		(run.data?.main?.[0] ?? []).map((item) => {
			const paired = item.pairedItem;
			if (paired === undefined) return [];
			if (typeof paired === 'number') return [paired];
			return (Array.isArray(paired) ? paired : [paired]).map((entry) => entry.item);
		}),
	);
}

export function executionError(
	execution: ExecutionSummary,
): { message?: string; description?: string; node?: { name?: string } } | undefined {
	const data = execution.data as
		| {
				resultData?: {
					error?: { message?: string; description?: string; node?: { name?: string } };
				};
		  }
		| undefined;
	return data?.resultData?.error;
}

/** Listing ids must be unique within a sandbox run (it refuses a repeat): each caller takes its own range. */
let counter = 0;
export function nextListingId(base: number): number {
	counter += 1;
	return base + counter;
}

/** Node's default --max-http-header-size (16 KiB). */
const HEADER_LIMIT_BYTES = 16 * 1024;

/**
 * A request whose headers exceed the server's limit, over a plain socket: the server answers 431 and closes before
 * it has read them all, which an http.ClientRequest (under the jest setup's interceptor) does not report in time.
 * Only the status line and headers are read.
 */
function overLimitRequest(
	target: URL,
	method: string,
	headers: Array<[string, string]>,
	timeoutMs: number,
): Promise<RawAnswer> {
	return new Promise((resolve) => {
		const socket = connect({ host: target.hostname, port: Number(target.port) });
		let received = '';
		let settled = false;
		const finish = () => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			socket.destroy();
			const [head, ...rest] = received.split('\r\n\r\n');
			const [statusLine, ...headerLines] = head.split('\r\n');
			const parsedHeaders: IncomingHttpHeaders = {};
			for (const line of headerLines) {
				const colon = line.indexOf(':');
				if (colon > 0)
					parsedHeaders[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
			}
			resolve({
				status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
				headers: parsedHeaders,
				text: rest.join('\r\n\r\n'),
			});
		};
		const timer = setTimeout(finish, timeoutMs);
		socket.on('data', (chunk: Buffer) => {
			received += chunk.toString('latin1');
			if (received.includes('\r\n\r\n')) finish();
		});
		socket.on('close', finish);
		socket.on('error', finish);
		const request = `${method} ${target.pathname}${target.search} HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\nconnection: close\r\n\r\n`;
		socket.write(request);
	});
}

export interface RawAnswer {
	status: number;
	headers: IncomingHttpHeaders;
	text: string;
}

/**
 * One HTTP request with headers sent exactly as given (repeated ones included, which fetch cannot do), bounded by
 * timeoutMs. A connection the server closes without an answer resolves with status 0.
 */
export function rawRequest(
	url: string,
	method: string,
	headers: Array<[string, string]>,
	body?: string | Buffer,
	timeoutMs = 60_000,
): Promise<RawAnswer> {
	const target = new URL(url);
	const all: Array<[string, string]> = [['host', target.host], ...headers];
	if (body !== undefined && !headers.some(([name]) => name.toLowerCase() === 'content-length')) {
		all.push(['content-length', String(Buffer.byteLength(body))]);
	}
	if (
		all.reduce((size, [name, value]) => size + name.length + value.length + 4, 0) >
		HEADER_LIMIT_BYTES
	) {
		return overLimitRequest(target, method, all, timeoutMs);
	}
	return new Promise((resolve) => {
		let settled = false;
		const chunks: Buffer[] = [];
		const finish = (
			status: number,
			headers: IncomingHttpHeaders,
			text = Buffer.concat(chunks).toString('utf8'),
		) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			resolve({ status, headers, text });
		};
		const request = httpRequest(
			{
				host: target.hostname,
				port: target.port,
				path: `${target.pathname}${target.search}`,
				method,
				headers: all.flat(),
			},
			(response) => {
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				// A server that answers early (431, 413) may close the connection before the body ends: keep its answer.
				response.on('end', () => finish(response.statusCode ?? 0, response.headers));
				response.on('close', () => finish(response.statusCode ?? 0, response.headers));
				response.on('error', () => finish(response.statusCode ?? 0, response.headers));
			},
		);
		const timer = setTimeout(() => {
			request.destroy();
			finish(0, {}, `no answer within ${timeoutMs} ms`);
		}, timeoutMs);
		request.on('error', (error) => finish(0, {}, error.message));
		request.end(body);
	});
}

/**
 * A describe block for what only n8n 2.x has (Data Tables, the 2.x editor): on 1.x it is skipped, and the skipped
 * tests carry the reason in their names, so the run says what it did not test.
 */
export function describeOnN8n2(name: string, reason: string, body: () => void): void {
	if (ON_N8N_1X) describe.skip(`${name} [skipped on n8n ${n8nVersion()}: ${reason}]`, body);
	else describe(name, body);
}

/**
 * Sheet rows of one-seat listings of one event, one row each: every listing has its own seat (a seat in two
 * listings of one event is refused before sending).
 */
export function oneSeatRows(ids: number[], eventId: number, row: string): SeatRow[] {
	return ids.map((id, index) => ({
		listing_id: id,
		event_id: eventId,
		price: '30.00',
		currency: 'EUR',
		row,
		seat: index + 1,
		ticket_id: `${id}-${row}-${index + 1}`,
	}));
}

/** The sandbox's log of requests to one Partner API endpoint (a request appears once it is answered or dropped). */
export function requestsTo(state: SandboxState, endpoint: RequestLogEntry['endpoint']) {
	return state.requests.filter((request) => request.endpoint === endpoint);
}

/** The External Listing ID of each listing request in the log among `ids`, one entry per request. */
export function listingIdsSent(state: SandboxState, ids: number[]): number[] {
	return requestsTo(state, 'listings')
		.map((request) => Number((request.body as { externalListingId?: unknown })?.externalListingId))
		.filter((id) => ids.includes(id));
}

/** How many listings the sandbox holds for each of `ids`. */
export function heldCounts(state: SandboxState, ids: number[]): Map<number, number> {
	const held = new Map<number, number>(ids.map((id) => [id, 0]));
	for (const listing of state.listings) {
		const id = Number(listing.externalListingId);
		if (held.has(id)) held.set(id, (held.get(id) ?? 0) + 1);
	}
	return held;
}

export interface OwnSheetWorkflow {
	id: string;
	webhookPath: string;
	/** Deletes the workflow and its credential. */
	remove(): Promise<void>;
}

/** How a test's own sheet workflow differs from the default. */
export interface OwnSheetVariant {
	/** Credential fields to change (a wrong Consumer Secret, say). */
	credentialData?: Record<string, unknown>;
	/** The node's Settings → On Error; Stop when not given. */
	onError?: 'continueRegularOutput' | 'continueErrorOutput';
}

/**
 * The sheet workflow (one item per row, On Error → Stop unless `differences` say otherwise) on a Partner API credential of its own, both created
 * through n8n's public API and the workflow activated: the credential holds no token yet, so the first run logs in
 * before its first listing, and whatever a test does to its token leaves the suite's shared credential alone.
 */
export async function sheetWorkflowWithOwnCredential(
	e2e: E2e,
	name: string,
	differences: OwnSheetVariant = {},
): Promise<OwnSheetWorkflow> {
	const unique = randomUUID();
	const apiCredential = credentialsFor(e2e.context.sandboxUrl)[0];
	const credential = await e2e.n8n.request<{ id: string; name: string }>('POST', '/credentials', {
		name: `${name} (${unique})`,
		type: apiCredential.type,
		data: {
			...(apiCredential.data as Record<string, unknown>),
			allowedHttpRequestDomains: 'all',
			...differences.credentialData,
		},
	});
	// Configured as the harness configures what it imports: the example's files folder is a placeholder.
	const sheetToListings = configuredLikeAUser(suiteWorkflows().sheetToListings, {
		partnerApiUrl: e2e.context.sandboxUrl,
		n8nUrl: e2e.context.n8nUrl,
		filesFolder: e2e.context.filesFolder,
	});
	const variant = variantOf(sheetToListings, {
		id: unique,
		name: `E2E: ${name}`,
		webhookPath: `ticket-marketplace/${unique}`,
		changeNodes: (node) => {
			if (node.type !== ACTION_NODE_TYPE) return;
			node.parameters.options = { output: 'row' };
			if (differences.onError) node.onError = differences.onError;
			node.credentials = { ticketMarketplaceApi: { id: credential.id, name: credential.name } };
		},
	});
	const created = await e2e.n8n.request<{ id: string }>('POST', '/workflows', {
		name: variant.name,
		nodes: variant.nodes,
		connections: variant.connections,
		settings: variant.settings,
	});
	await e2e.n8n.activate(created.id);
	await untilPublicationSettles(e2e, created.id, 'published');
	return {
		id: created.id,
		webhookPath: webhookPath(variant),
		remove: async () => {
			await e2e.n8n.deactivate(created.id);
			await untilPublicationSettles(e2e, created.id, 'not_published');
			await e2e.n8n.request('DELETE', `/workflows/${created.id}`);
			await e2e.n8n.request('DELETE', `/credentials/${credential.id}`);
		},
	};
}

/** A workflow's publication status as the editor reads it (GET /rest/workflows/:id/publication-status). */
interface PublicationStatus {
	status: 'in_progress' | 'not_published' | 'published' | 'partial' | 'failed';
	triggers: Array<{ nodeId: string; status: string; errorMessage?: string | null }>;
}

/**
 * Waits (bounded) until n8n has applied a workflow's activation or deactivation, and checks the outcome.
 *
 * n8n with its workflow publication service (on by default in 2.41) answers the public API's activate and
 * deactivate once the change is queued: a queue worker applies it moments later, registering or removing the
 * webhooks. Until then the new workflow's webhook answers 404, and a DELETE is refused with 409 ("still being
 * unpublished"). Its REST API tells where the change stands: `in_progress` while queued or being applied, then
 * `published` (every trigger registered), `partial`/`failed` (with each trigger's error) or `not_published`.
 * An n8n without that service (2.8.4) has applied the change before it answers and has no such route (404):
 * nothing to wait for there.
 */
export async function untilPublicationSettles(
	e2e: E2e,
	workflowId: string,
	expected: 'published' | 'not_published',
	timeoutMs = 60_000,
): Promise<void> {
	const url = `${e2e.context.n8nUrl}/rest/workflows/${encodeURIComponent(workflowId)}/publication-status`;
	const cookie = await ownerSessionCookie(e2e.context.n8nUrl);
	let last: PublicationStatus | undefined;
	let queued = true;
	await pollUntil(
		`n8n to apply the ${expected === 'published' ? 'activation' : 'deactivation'} of workflow ${workflowId}`,
		async () => {
			const response = await fetch(url, {
				headers: { 'browser-id': OWNER_BROWSER_ID, cookie },
				signal: AbortSignal.timeout(10_000),
			});
			const text = await response.text();
			if (response.status === 404 && last === undefined) {
				queued = false;
				return true;
			}
			if (!response.ok) throw new Error(`GET ${url} -> ${response.status}: ${text.slice(0, 500)}`);
			last = (JSON.parse(text) as { data: PublicationStatus }).data;
			return last.status !== 'in_progress';
		},
		timeoutMs,
		100,
	).catch((error: unknown) => {
		throw new Error(
			`${error instanceof Error ? error.message : String(error)}; last publication status: ${JSON.stringify(last)}`,
		);
	});
	if (!queued || last?.status === expected) return;
	throw new Error(
		`n8n did not ${expected === 'published' ? 'publish' : 'unpublish'} workflow ${workflowId}: publication status ${JSON.stringify(last)}`,
	);
}

/**
 * A token request to a trigger's token URL with the harness's callback client: 200 while n8n listens there, 404 once
 * it does not.
 */
export async function tokenStatus(url: string): Promise<number> {
	const basic = Buffer.from(
		`${SANDBOX_CALLBACK_CLIENT.clientId}:${SANDBOX_CALLBACK_CLIENT.clientSecret}`,
	).toString('base64');
	const response = await fetch(url, {
		method: 'POST',
		headers: {
			Authorization: `Basic ${basic}`,
			'Content-Type': 'application/x-www-form-urlencoded',
		},
		body: 'grant_type=client_credentials',
		signal: AbortSignal.timeout(30_000),
	});
	await response.arrayBuffer();
	return response.status;
}
