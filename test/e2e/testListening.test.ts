/**
 * Building the sale alert without waiting for a sale, in a real n8n: the workflow is put in test
 * listening mode the way the editor does it (POST /rest/workflows/:id/run without start data: "Execute workflow",
 * or with the trigger as destination: "Listen for test event"), and the sandbox's sample sale goes to the trigger's
 * two /webhook-test/ URLs.
 *
 * What n8n 2.8.4 does with a node that has two webhooks (its test-webhooks.ts and webhook-helpers.ts): listening
 * registers every webhook of the node, so both the token URL and the notifications URL are served, for two minutes.
 * A request whose webhook() answer carries no workflowData (a token request, a refused notification) leaves them
 * registered; the first request that starts an execution deregisters all of the workflow's test webhooks. So one
 * listening session takes the token exchange, any number of refusals, and exactly one sample.
 */
import { randomUUID } from 'node:crypto';

import { SANDBOX_CALLBACK_CLIENT } from '../../support/harness/harness';
import { SAMPLE_SALE } from '../../sandbox/choices';
import { receivedChatPosts } from '../../support/harness/chatStandIn';
import {
	nodeOutput,
	postJson,
	tokenStatus,
	useE2e,
	waitForExecutions,
	type E2e,
} from '../../support/e2e/helpers';
import { n8nRest, pollUntil, type N8nRestSession } from '../../support/harness/n8n';
import { nodeByType } from '../../support/harness/workflows';
import { suiteWorkflows, TRIGGER_NODE_TYPE } from '../../support/e2e/workflows';

const e2e = useE2e();

/** The sale-alert example as a user imports it, under its own webhook id so its URLs are this file's alone. */
function saleAlertCopy(webhookId: string) {
	const example = suiteWorkflows().saleAlert;
	const nodes = JSON.parse(JSON.stringify(example.nodes)) as typeof example.nodes;
	nodeByType({ ...example, nodes }, TRIGGER_NODE_TYPE).webhookId = webhookId;
	return {
		name: 'E2E: sale alert built in test mode',
		nodes,
		connections: example.connections,
		settings: { executionOrder: 'v1' },
	};
}

const TRIGGER = nodeByType(suiteWorkflows().saleAlert, TRIGGER_NODE_TYPE).name;

/** The sample's alert as the example formats it: proof that its defensive expressions read the sample. */
const SAMPLE_ALERT = `:ticket: Sold: 1 ticket(s) from listing ${SAMPLE_SALE.listing.externalListingId} (event ${SAMPLE_SALE.listing.eventId}) at ${SAMPLE_SALE.listing.pricePerProduct.amount} ${SAMPLE_SALE.listing.pricePerProduct.currency} each. Seats: A-12`;

describe('Listen for test event: the trigger’s two /webhook-test/ URLs and the sandbox’s sample sale', () => {
	let rest: N8nRestSession;
	let workflowId: string;
	const webhookId = randomUUID();

	const testUrl = (harness: E2e, path: 'token' | 'notifications') =>
		`${harness.context.n8nUrl}/webhook-test/${webhookId}/${path}`;
	const productionUrl = (harness: E2e, path: 'token' | 'notifications') =>
		`${harness.context.n8nUrl}/webhook/${webhookId}/${path}`;

	/** What the editor sends: the workflow as it stands, and how the run was asked for. */
	async function listen(how: 'execute workflow' | 'listen for test event'): Promise<void> {
		const workflowData = await rest.call<Record<string, unknown>>(
			'GET',
			`/workflows/${workflowId}`,
		);
		const start =
			how === 'execute workflow'
				? { triggerToStartFrom: { name: TRIGGER } }
				: { destinationNode: { nodeName: TRIGGER, mode: 'inclusive' } };
		const answer = await rest.call<Record<string, unknown>>(
			'POST',
			`/workflows/${workflowId}/run`,
			{
				workflowData,
				startNodes: [],
				...start,
			},
		);
		expect(answer).toEqual({ waitingForWebhook: true });
	}

	async function deliverSample(harness: E2e, clientSecret = SANDBOX_CALLBACK_CLIENT.clientSecret) {
		return await harness.sandbox.deliverSampleSale({
			tokenEndPoint: testUrl(harness, 'token'),
			callbackUrl: testUrl(harness, 'notifications'),
			clientId: SANDBOX_CALLBACK_CLIENT.clientId,
			clientSecret,
		});
	}

	async function untilNotListening(harness: E2e): Promise<void> {
		await pollUntil(
			'the test URLs to stop listening after the execution',
			async () => (await tokenStatus(testUrl(harness, 'token'))) === 404,
			15_000,
		);
	}

	beforeAll(async () => {
		const harness = e2e();
		rest = await n8nRest(harness.context.n8nUrl);
		const created = await harness.n8n.request<{ id: string }>(
			'POST',
			'/workflows',
			saleAlertCopy(webhookId),
		);
		workflowId = created.id;
	});

	it('before anyone listens, n8n answers 404 on the test URLs and the sample says so', async () => {
		const harness = e2e();
		const result = await deliverSample(harness);

		expect(result.delivery.status).toBe('failed');
		expect(result.delivery.attempts.map((a) => [a.step, a.status])).toEqual([['token', 404]]);
		expect((await postJson(testUrl(harness, 'notifications'), {})).status).toBe(404);
		expect(await harness.n8n.executions(workflowId)).toEqual([]);
	});

	it('Execute workflow: both test URLs are served; refusals keep it listening; the sample runs the whole alert once, then listening ends', async () => {
		const harness = e2e();
		await listen('execute workflow');

		// Requests without a valid token: 401, no execution, and n8n keeps listening.
		const noToken = await postJson(testUrl(harness, 'notifications'), {
			eventType: 'listing_sale',
		});
		const forged = await postJson(
			testUrl(harness, 'notifications'),
			{ eventType: 'listing_sale' },
			{ authorization: 'Bearer forged.token.value' },
		);
		expect([noToken.status, forged.status]).toEqual([401, 401]);
		// A client the trigger does not know: refused at the test token URL, nothing posted, still listening.
		const wrongClient = await deliverSample(harness, 'not the secret of the trigger credential');
		expect(wrongClient.delivery.attempts.map((a) => [a.step, a.status])).toEqual([['token', 401]]);

		const result = await deliverSample(harness);

		expect(result.delivery).toMatchObject({ status: 'delivered', sample: true });
		expect(result.delivery.attempts.map((a) => [a.step, a.status])).toEqual([
			['token', 200],
			['callback', 200],
		]);
		const executions = await waitForExecutions(harness, workflowId, 1);
		// One execution in all: the refusals started none.
		expect(executions).toHaveLength(1);
		const [execution] = executions;
		expect(execution).toMatchObject({ mode: 'manual', status: 'success' });
		const full = await harness.n8n.execution(execution.id);
		const [item] = nodeOutput(full, TRIGGER);
		expect(item).toMatchObject({
			eventType: 'listing_sale',
			notificationId: result.delivery.notificationId,
			subscriptionId: SAMPLE_SALE.subscriptionId,
			listing: SAMPLE_SALE.listing,
			products: SAMPLE_SALE.products,
		});
		expect(nodeOutput(full, 'Format chat message')[0].text).toBe(SAMPLE_ALERT);
		const posts = await receivedChatPosts(harness.context.chatUrl);
		expect(posts.map((post) => post.message)).toContain(SAMPLE_ALERT);

		// The execution ended the listening: both test URLs are gone.
		await untilNotListening(harness);
		expect((await postJson(testUrl(harness, 'notifications'), {})).status).toBe(404);
	});

	it('Listen for test event (the trigger as destination): only the trigger runs, with the sample as its item', async () => {
		const harness = e2e();
		const before = (await harness.n8n.executions(workflowId)).length;
		await listen('listen for test event');

		expect(await tokenStatus(testUrl(harness, 'token'))).toBe(200);
		const result = await deliverSample(harness);
		expect(result.delivery.status).toBe('delivered');

		const executions = await waitForExecutions(harness, workflowId, before + 1);
		expect(executions).toHaveLength(before + 1);
		const full = await harness.n8n.execution(executions[0].id);
		expect(executions[0].mode).toBe('manual');
		const runData = (full.data as { resultData: { runData: Record<string, unknown> } }).resultData
			.runData;
		expect(Object.keys(runData)).toEqual([TRIGGER]);
		expect(nodeOutput(full, TRIGGER)[0]).toMatchObject({ listing: SAMPLE_SALE.listing });
		await untilNotListening(harness);
	});

	it('an active workflow can listen too: the sample goes to the test URLs, the production URLs stay served', async () => {
		const harness = e2e();
		await harness.n8n.activate(workflowId);
		try {
			const before = (await harness.n8n.executions(workflowId)).length;
			await listen('listen for test event');

			const result = await deliverSample(harness);
			expect(result.delivery.status).toBe('delivered');
			const [execution] = await waitForExecutions(harness, workflowId, before + 1);
			expect(execution.mode).toBe('manual');
			await untilNotListening(harness);
			expect(await tokenStatus(productionUrl(harness, 'token'))).toBe(200);
		} finally {
			await harness.n8n.deactivate(workflowId);
		}
	});
});
