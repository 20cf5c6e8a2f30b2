/**
 * The package on n8n's queue mode: PostgreSQL, Redis, one main process, two webhook processes behind a round-robin
 * load balancer, two workers (support/harness/queueHarness.ts). Each scenario checks what PostgreSQL (executions)
 * and the sandbox (tokens, listings, deliveries) hold afterwards, and which worker ran each execution.
 */
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

import { issueAccessToken } from '../../nodes/TicketMarketplaceTrigger/accessToken';
import { SANDBOX_CALLBACK_CLIENT } from '../../support/harness/harness';
import {
	CHAT_CHANNEL_ID,
	CHAT_STAND_IN_TOKEN,
	failNextChatPosts,
	startChatStandIn,
	type ChatStandIn,
} from '../../support/harness/chatStandIn';
import { pollUntil } from '../../support/harness/n8n';
import { startQueueHarness, type QueueHarness } from '../../support/harness/queueHarness';
import { queryPostgres } from '../../support/harness/queueServices';
import { postJson } from '../../support/e2e/helpers';
import { knownSecrets, scanForSecrets } from '../../support/e2e/secretScan';
import { minimalSaleAlert } from '../../support/e2e/workflows';
import {
	EXAMPLE_FILES,
	loadExample,
	nodeByType,
	webhookPath,
	type WorkflowJson,
} from '../../support/harness/workflows';
import {
	activeSubscription,
	createListing,
	getToken,
	validListing,
} from '../../support/sandboxRequests';

const TRIGGER_TYPE = 'n8n-nodes-ticket-marketplace.ticketMarketplaceTrigger';
const SALE_WEBHOOK_ID = '9d3c5b7a-1e2f-4a6b-8c9d-0e1f2a3b4c5d';

const RETRY_WEBHOOK_ID = '2b4d6f8a-0c1e-4f3a-9b5d-7e9f1a3c5e7a';

/**
 * The trigger set to Respond: When Last Node Finishes, then the alert posted with n8n's HTTP Request node to the
 * chat stand-in: when the chat is down the run fails, the webhook process answers 500 and the marketplace retries.
 */
function retryingAlertForQueue(chatUrl: string): WorkflowJson {
	const trigger = {
		...nodeByType(loadExample(EXAMPLE_FILES.saleAlert), TRIGGER_TYPE),
		name: 'On listing sale',
		webhookId: RETRY_WEBHOOK_ID,
		parameters: { respond: 'whenFinished', options: {} },
	};
	return {
		id: 'tmQueueRetryAlrt',
		name: 'Queue: sale alert, answered when finished',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			trigger,
			{
				id: 'queue-post-alert',
				name: 'Post alert',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [240, 0],
				parameters: {
					method: 'POST',
					url: `${chatUrl}/api/v4/posts`,
					sendHeaders: true,
					headerParameters: {
						parameters: [{ name: 'Authorization', value: `Bearer ${CHAT_STAND_IN_TOKEN}` }],
					},
					sendBody: true,
					specifyBody: 'json',
					jsonBody: `={{ JSON.stringify({ channel_id: '${CHAT_CHANNEL_ID}', message: 'Sold: ' + $json.notificationId }) }}`,
					options: {},
				},
			},
		],
		connections: { [trigger.name]: { main: [[{ node: 'Post alert', type: 'main', index: 0 }]] } },
	} as WorkflowJson;
}

const sheetWorkflow = loadExample(EXAMPLE_FILES.sheetToListings);
const saleWorkflow = minimalSaleAlert('tmQueueSaleAlert', 'Queue: sale alert', SALE_WEBHOOK_ID);
let retryWorkflow: WorkflowJson;
let chat: ChatStandIn;
const SHEET_COLUMNS = ['listing_id', 'event_id', 'price', 'currency', 'row', 'seat', 'ticket_id'];

let harness: QueueHarness;
const report: string[] = [];

beforeAll(async () => {
	chat = await startChatStandIn();
	retryWorkflow = retryingAlertForQueue(chat.url);
	harness = await startQueueHarness({
		workflows: [sheetWorkflow, saleWorkflow, retryWorkflow],
		sandbox: { requestLogLimit: 5000 },
	});
}, 600_000);

afterAll(async () => {
	await harness?.stop();
	await chat?.stop();
	if (report.length) console.log(`queue mode:\n  ${report.join('\n  ')}`);
}, 120_000);

async function executions(workflowId: string): Promise<Array<{ id: string; status: string }>> {
	const rows = await queryPostgres(
		harness.postgresPort,
		`select id, status from execution_entity where "workflowId" = '${workflowId}' order by id`,
	);
	return rows.map(([id, status]) => ({ id, status }));
}

async function waitForExecutions(
	workflowId: string,
	count: number,
): Promise<Array<{ id: string; status: string }>> {
	let found: Array<{ id: string; status: string }> = [];
	await pollUntil(
		`${count} finished execution(s) of ${workflowId}`,
		async () => {
			found = await executions(workflowId);
			return (
				found.length >= count &&
				found.every((execution) => !['new', 'running', 'waiting'].includes(execution.status))
			);
		},
		120_000,
		300,
	);
	return found;
}

/** Which worker (1 or 2) logged finishing the execution; 0 when none did. */
function workerOf(executionId: string): number {
	const pattern = new RegExp(`Worker finished execution ${executionId} \\(`);
	return harness.workers.findIndex((worker) => pattern.test(worker.output())) + 1;
}

function tokenRequests(): number {
	return harness.sandbox.state().requests.filter((request) => request.endpoint === 'token').length;
}

/** Token requests (logins and refreshes) the sandbox answered with a token. */
function tokensIssued(): number {
	return harness.sandbox
		.state()
		.requests.filter((request) => request.endpoint === 'token' && request.status === 200).length;
}

let nextListing = 880_000;
// Every sheet's seats are new to the sandbox: one sandbox serves the whole file, and it refuses a seat that any
// earlier listing of the event holds (the node refuses a seat twice within one run before sending). Row A's first
// seats are the sandbox's valid listing's.
let nextSeat = 1000;
function sheet(name: string, listings: number, seats = 3): { path: string; ids: number[] } {
	const ids = Array.from({ length: listings }, () => nextListing++);
	const rows = ids.flatMap((id) =>
		Array.from({ length: seats }, () => {
			const seat = nextSeat++;
			return [id, 4242, '49.90', 'EUR', 'A', seat, `${id}-A-${seat}`].join(',');
		}),
	);
	const path = join(harness.filesFolder, name);
	writeFileSync(path, `${SHEET_COLUMNS.join(',')}\n${rows.join('\n')}\n`);
	return { path, ids };
}

function heldTimes(ids: number[]): Map<number, number> {
	const held = new Map<number, number>(ids.map((id) => [id, 0]));
	for (const listing of harness.sandbox.state().listings) {
		const id = Number(listing.externalListingId);
		if (held.has(id)) held.set(id, (held.get(id) ?? 0) + 1);
	}
	return held;
}

async function runSheet(path: string): Promise<{ status: number; body: unknown }> {
	return await postJson(`${harness.publicUrl}/webhook/${webhookPath(sheetWorkflow)}`, {
		sheet: basename(path),
	});
}

describe('n8n queue mode: main, two webhook processes, two workers, PostgreSQL, Redis', () => {
	const callbackUrl = (base: string) => `${base}/webhook/${SALE_WEBHOOK_ID}/notifications`;
	const tokenUrl = (base: string) => `${base}/webhook/${SALE_WEBHOOK_ID}/token`;
	const basic = `Basic ${Buffer.from(`${SANDBOX_CALLBACK_CLIENT.clientId}:${SANDBOX_CALLBACK_CLIENT.clientSecret}`).toString('base64')}`;

	it('a token issued by webhook process 1 is accepted by webhook process 2; forged, expired and other-trigger tokens are refused at both, with no execution', async () => {
		const [first, second] = harness.webhookUrls;
		const issued = await postJson(tokenUrl(first), 'grant_type=client_credentials', {
			'content-type': 'application/x-www-form-urlencoded',
			authorization: basic,
		});
		expect(issued.status).toBe(200);
		const token = (issued.body as { access_token: string }).access_token;

		const before = (await executions(saleWorkflow.id)).length;
		const accepted = await postJson(
			callbackUrl(second),
			{ eventType: 'listing_sale', notificationId: 'queue-cross-1' },
			{ authorization: `Bearer ${token}` },
		);
		expect(accepted.status).toBe(200);
		const [execution] = (await waitForExecutions(saleWorkflow.id, before + 1)).slice(before);
		expect(execution.status).toBe('success');
		await pollUntil(
			'a worker logging the execution',
			async () => workerOf(execution.id) > 0,
			30_000,
		);

		const subject = {
			audience: SALE_WEBHOOK_ID,
			clientId: SANDBOX_CALLBACK_CLIENT.clientId,
			clientSecret: SANDBOX_CALLBACK_CLIENT.clientSecret,
		};
		const now = Math.floor(Date.now() / 1000);
		const refused = {
			forged: `${token.slice(0, -2)}xx`,
			expired: issueAccessToken(subject, 60, now - 3600),
			otherTrigger: issueAccessToken(
				{ ...subject, audience: 'another-trigger-webhook-id' },
				3600,
				now,
			),
			otherSecret: issueAccessToken(
				{ ...subject, clientSecret: 'another-secret-0123456789abcdef' },
				3600,
				now,
			),
		};
		for (const base of harness.webhookUrls) {
			for (const [kind, bad] of Object.entries(refused)) {
				const answer = await postJson(
					callbackUrl(base),
					{ eventType: 'listing_sale', notificationId: `queue-${kind}` },
					{ authorization: `Bearer ${bad}` },
				);
				expect({ kind, status: answer.status }).toEqual({ kind, status: 401 });
			}
		}
		// Give a wrongly started execution time to appear before counting.
		await new Promise((resolve) => setTimeout(resolve, 2000));
		expect(await executions(saleWorkflow.id)).toHaveLength(before + 1);
	}, 180_000);

	it('every delivered sale notification becomes exactly one successful execution, on a worker, through either webhook process', async () => {
		const apiToken = await getToken(harness.sandbox);
		await activeSubscription(
			harness.sandbox,
			apiToken,
			{ callbackUrl: callbackUrl(harness.publicUrl), tokenUrl: tokenUrl(harness.publicUrl) },
			SANDBOX_CALLBACK_CLIENT,
		);
		const listing = await createListing(
			harness.sandbox,
			apiToken,
			validListing({ externalListingId: 870_001 }),
		);
		expect(listing.status).toBe(200);
		const before = (await executions(saleWorkflow.id)).length;

		// The sandbox's valid listing has three products: one sale each.
		const sales = 3;
		const deliveries = [];
		for (let sale = 0; sale < sales; sale++) {
			const sold = harness.sandbox.sell(listing.body.id as string, { count: 1 });
			deliveries.push(...(await sold.deliveries));
		}
		expect(deliveries.map((delivery) => delivery.status)).toEqual(Array(sales).fill('delivered'));

		const found = (await waitForExecutions(saleWorkflow.id, before + sales)).slice(before);
		expect(found).toHaveLength(sales);
		expect(found.map((execution) => execution.status)).toEqual(Array(sales).fill('success'));
		await pollUntil(
			'every execution logged by a worker',
			async () => found.every((execution) => workerOf(execution.id) > 0),
			30_000,
		);
		report.push(
			`sale notifications: ${sales} delivered, ${found.length} executions, on workers ${found.map((execution) => workerOf(execution.id)).join(', ')}; load balancer connections per webhook process so far: ${harness.balancerConnections.join(', ')}`,
		);
	}, 240_000);

	it('a sheet run sent through a webhook process executes on a worker, with one token request', async () => {
		// n8n's stored token is unknown to the sandbox (tokens of this sandbox were all issued to other clients).
		harness.sandbox.expireTokens({ all: true });
		const tokensBefore = tokenRequests();
		const { path, ids } = sheet('queue-one.csv', 20);
		const run = await runSheet(path);
		expect(run.status).toBe(200);
		expect([...heldTimes(ids).values()]).toEqual(Array(ids.length).fill(1));
		expect(tokenRequests() - tokensBefore).toBe(1);
		const [execution] = (await waitForExecutions(sheetWorkflow.id, 1)).slice(-1);
		expect(execution.status).toBe('success');
		await pollUntil(
			'a worker logging the sheet run',
			async () => workerOf(execution.id) > 0,
			30_000,
		);
		report.push(
			`one sheet run: ${ids.length} listings, 1 token request, worker ${workerOf(execution.id)}`,
		);
	}, 240_000);

	it('two sheet runs at once after the token expired: every listing created once; token requests reported', async () => {
		harness.sandbox.expireTokens({ all: true });
		const tokensBefore = tokenRequests();
		const issuedBefore = tokensIssued();
		const before = (await executions(sheetWorkflow.id)).length;
		const first = sheet('queue-a.csv', 30);
		const second = sheet('queue-b.csv', 30);
		const runs = await Promise.all([runSheet(first.path), runSheet(second.path)]);
		expect(runs.map((run) => run.status)).toEqual([200, 200]);
		const ids = [...first.ids, ...second.ids];
		expect([...heldTimes(ids).values()]).toEqual(Array(ids.length).fill(1));
		const found = (await waitForExecutions(sheetWorkflow.id, before + 2)).slice(before);
		expect(found.map((execution) => execution.status)).toEqual(['success', 'success']);
		const tokens = tokenRequests() - tokensBefore;
		const issued = tokensIssued() - issuedBefore;
		// Each run renews once at most (its first listing goes alone); n8n has no single-flight across processes. Both
		// runs may refresh with the same refresh token: the API spends it on the first, so the second falls back to
		// the login, one more request but no second renewal.
		expect(issued).toBeGreaterThanOrEqual(1);
		expect(issued).toBeLessThanOrEqual(2);
		expect(tokens).toBeLessThanOrEqual(3);
		report.push(
			`two sheet runs at once after expiry: ${ids.length} listings created once, ${tokens} token request(s) of which ${issued} issued a token, workers ${found.map((execution) => workerOf(execution.id)).join(' and ')}`,
		);
	}, 240_000);

	it('the memory of sent listings is shared by every worker: the same sheet again creates nothing and says so', async () => {
		const { path, ids } = sheet('queue-again.csv', 10);
		expect((await runSheet(path)).status).toBe(200);
		const runs = (await executions(sheetWorkflow.id)).length;
		const again = await runSheet(path);
		expect(again.status).toBe(200);
		const items = again.body as Array<Record<string, unknown>>;
		expect(items.map((item) => item.status)).toEqual(Array(ids.length).fill('skipped'));
		expect([...heldTimes(ids).values()]).toEqual(Array(ids.length).fill(1));
		const found = (await waitForExecutions(sheetWorkflow.id, runs + 1)).slice(-2);
		report.push(
			`the same sheet twice: second run skipped ${items.length} listings; runs on workers ${found.map((execution) => workerOf(execution.id)).join(' and ')}`,
		);
	}, 240_000);
	it('the same sheet run twice at the same moment, on both workers, round after round: each listing sent once, and a third run skips them all', async () => {
		const rounds = 20;
		let sentTwice = 0;
		let createdTwice = 0;
		let forgotten = 0;
		const failedRuns: string[] = [];
		for (let round = 1; round <= rounds; round++) {
			const { path, ids } = sheet(`queue-overlap-${round}.csv`, 15, 1);
			const together = await Promise.all([runSheet(path), runSheet(path)]);
			for (const run of together.filter((each) => each.status !== 200))
				failedRuns.push(`round ${round}: ${run.status} ${JSON.stringify(run.body).slice(0, 300)}`);
			const sent = harness.sandbox
				.state()
				.requests.filter(
					(request) =>
						request.endpoint === 'listings' &&
						ids.includes(
							Number((request.body as { externalListingId?: unknown })?.externalListingId),
						),
				).length;
			sentTwice += sent - ids.length;
			// The sandbox refuses a second listing with one External Listing ID (400 duplicateExternalListingId).
			createdTwice += [...heldTimes(ids).values()].filter((times) => times > 1).length;
			const third = await runSheet(path);
			const items = Array.isArray(third.body) ? (third.body as Array<Record<string, unknown>>) : [];
			forgotten += ids.length - items.filter((item) => item.status === 'skipped').length;
		}
		report.push(
			`two runs of one sheet at the same moment, ${rounds} rounds of 15 listings: ${sentTwice} listing(s) sent by both runs, ${createdTwice} created twice, ${forgotten} forgotten by the memory (not skipped by a third run), ${failedRuns.length} run(s) failed${failedRuns.length ? `: ${failedRuns.join('; ')}` : ''}`,
		);
		expect({ sentTwice, createdTwice, forgotten, failedRuns }).toEqual({
			sentTwice: 0,
			createdTwice: 0,
			forgotten: 0,
			failedRuns: [],
		});
	}, 600_000);

	it('Respond When Last Node Finishes: a run that fails (the chat is down) is answered 500, the marketplace retries, and the alert arrives once', async () => {
		const apiToken = await getToken(harness.sandbox);
		const base = harness.publicUrl;
		const subscription = await activeSubscription(
			harness.sandbox,
			apiToken,
			{
				callbackUrl: `${base}/webhook/${RETRY_WEBHOOK_ID}/notifications`,
				tokenUrl: `${base}/webhook/${RETRY_WEBHOOK_ID}/token`,
			},
			SANDBOX_CALLBACK_CLIENT,
		);
		harness.sandbox.configureDelivery({ baseDelayMs: 500, maxDelayMs: 2000 });
		const listing = await createListing(
			harness.sandbox,
			apiToken,
			validListing({ externalListingId: 870_002, eventId: 4243 }),
		);
		const before = (await executions(retryWorkflow.id)).length;
		await failNextChatPosts(chat.url, 1);

		const sold = harness.sandbox.sell(listing.body.id as string, { count: 1 });
		const deliveries = (await sold.deliveries).filter(
			(delivery) => delivery.subscriptionId === subscription,
		);
		expect(deliveries).toHaveLength(1);
		const [delivery] = deliveries;
		expect(delivery.status).toBe('delivered');
		// The first callback was answered 500 (the run failed), the second 200.
		const callbackStatuses = delivery.attempts
			.filter((attempt) => attempt.step === 'callback')
			.map((attempt) => attempt.status);
		expect(callbackStatuses).toEqual([500, 200]);
		const runs = (await waitForExecutions(retryWorkflow.id, before + 2)).slice(before);
		expect(runs.map((run) => run.status)).toEqual(['error', 'success']);
		const posted = chat
			.posts()
			.filter((post) => post.message === `Sold: ${delivery.notificationId}`);
		expect(posted).toHaveLength(1);
		report.push(
			`respond when finished: callbacks answered ${callbackStatuses.join(' then ')}, runs ${runs.map((run) => run.status).join(' then ')}, ${posted.length} alert posted`,
		);
	}, 240_000);
	it('stopping the worker in the middle of a sheet run: what the run reports matches what the sandbox holds', async () => {
		harness.sandbox.addFault({ endpoint: 'listings', kind: 'latency', latencyMs: 100 });
		const before = (await executions(sheetWorkflow.id)).map((execution) => execution.id);
		const { path, ids } = sheet('queue-stop.csv', 60);
		const running = runSheet(path);

		let started: { id: string; worker: number } | undefined;
		await pollUntil(
			'a worker starting the sheet run',
			async () => {
				const found = (await executions(sheetWorkflow.id)).find(
					(execution) => !before.includes(execution.id),
				);
				const worker = found
					? harness.workers.findIndex((server) =>
							server.output().includes(`Worker started execution ${found.id} `),
						)
					: -1;
				if (found && worker >= 0) started = { id: found.id, worker };
				return started !== undefined;
			},
			60_000,
			50,
		);
		// SIGTERM, as a deployment stops a worker: n8n lets the running execution finish (within its graceful timeout).
		await harness.workers[started!.worker].stop();
		const run = await running;
		harness.sandbox.clearFaults();

		const held = heldTimes(ids);
		expect([...held.values()].every((times) => times <= 1)).toBe(true);
		const items = Array.isArray(run.body) ? (run.body as Array<Record<string, unknown>>) : [];
		// One item per listing of this sheet: a created one is the API's answer as returned (`{ id, status }`, no
		// External Listing ID), every other one says what became of it.
		const reportedCreated = items.filter(
			(item) => item.error === undefined && item.status !== 'skipped',
		).length;
		const holds = [...held.values()].filter((times) => times === 1).length;
		expect(run.status).toBe(200);
		expect(reportedCreated).toBe(holds);
		const [execution] = (await executions(sheetWorkflow.id)).filter(
			(candidate) => candidate.id === started!.id,
		);
		expect(execution.status).toBe('success');
		report.push(
			`worker ${started!.worker + 1} stopped during a run of ${ids.length} listings: the run answered ${run.status}, reported ${reportedCreated} created, the sandbox holds ${holds}, none twice`,
		);
	}, 240_000);
	it("no secret in any process's log, in any execution, or in the sandbox's inspection output", async () => {
		const sources = [
			...[harness.main, ...harness.webhooks, ...harness.workers].map((server, index) => ({
				name: `n8n process ${index + 1} log`,
				text: server.output(),
			})),
			{ name: 'sandbox state', text: JSON.stringify(harness.sandbox.state()) },
		];
		for (const workflow of [sheetWorkflow, saleWorkflow, retryWorkflow]) {
			for (const execution of await harness.api.executions(workflow.id, true))
				sources.push({ name: `execution ${execution.id}`, text: JSON.stringify(execution) });
		}
		// The alert workflow here types the chat stand-in's public token into its HTTP Request node: that value is a test
		// double's, not a secret of the package, and is left out.
		const secrets = knownSecrets({
			context: { sandboxUrl: harness.sandbox.url, apiKey: harness.apiKey },
		} as Parameters<typeof knownSecrets>[0]).filter(
			(secret) => secret.label !== 'chat stand-in token',
		);
		expect(scanForSecrets(sources, secrets)).toEqual([]);
		report.push(`secret scan: ${secrets.length} secrets over ${sources.length} sources`);
	}, 120_000);
});
