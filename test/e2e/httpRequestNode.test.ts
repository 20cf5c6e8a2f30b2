/**
 * n8n's own HTTP Request node with "Predefined Credential Type" → Ticket Marketplace API (the
 * partner-api-http-request example): the way to call Partner API endpoints that the Ticket Marketplace node does
 * not cover. The credential obtains the token, adds the Bearer header, and renews the token after a 401.
 */
import {
	executionError,
	nextListingId,
	postWebhook,
	useE2e,
	waitForExecutions,
} from '../../support/e2e/helpers';
import { suiteWorkflows, webhookPath } from '../../support/e2e/workflows';

const e2e = useE2e();
const workflows = suiteWorkflows();

function listingPayload(externalListingId: number) {
	return {
		eventId: 7301,
		pricePerProduct: { amount: 12.5, currency: 'EUR' },
		externalListingId,
		products: [
			{
				externalId: `7301-${externalListingId}-1`,
				row: 'P',
				// Its own seat: the sandbox refuses a seat that the other test's listing of the event holds.
				seat: String(externalListingId),
				productType: 'TICKET',
				ga: false,
			},
		],
		stockType: ['PDF'],
		paymentType: 1,
	};
}

describe("n8n's HTTP Request node with the Ticket Marketplace API credential", () => {
	async function callThroughHttpRequestNode(externalListingId: number) {
		const harness = e2e();
		// The example's URL is fixed (the harness puts the sandbox's address in it, as a user types theirs).
		return await postWebhook(harness, webhookPath(workflows.httpRequest), {
			payload: listingPayload(externalListingId),
		});
	}

	it('calls an endpoint with the Bearer token the credential obtained', async () => {
		const harness = e2e();
		const externalListingId = nextListingId(8500);
		const before = await harness.sandbox.state();

		const run = await callThroughHttpRequestNode(externalListingId);

		expect(run.status).toBe(200);
		const after = await harness.sandbox.state();
		const created = after.listings.find(
			(listing) => Number(listing.externalListingId) === externalListingId,
		);
		expect(created).toBeDefined();
		expect(JSON.stringify(run.body)).toContain(String(created?.id));
		const sent = after.requests
			.slice(before.requests.length)
			.filter((request) => request.endpoint === 'listings');
		expect(sent.at(-1)).toMatchObject({
			status: 200,
			headers: { authorization: 'Bearer [redacted]', 'accept-language': 'en-US' },
		});
		// Either a token stored by an earlier run is reused, or one is obtained now; never more than one.
		const tokenRequests = after.requests
			.slice(before.requests.length)
			.filter((request) => request.endpoint === 'token');
		expect(tokenRequests.length).toBeLessThanOrEqual(1);
		expect(
			after.requests.some((request) => request.endpoint === 'token' && request.status === 200),
		).toBe(true);
	});

	it('after the marketplace expires the token, the credential renews it once and the call succeeds', async () => {
		const harness = e2e();
		expect(await harness.sandbox.expireTokens({ all: true })).toBeGreaterThanOrEqual(1);
		const externalListingId = nextListingId(8500);
		const before = await harness.sandbox.state();

		const run = await callThroughHttpRequestNode(externalListingId);

		expect(run.status).toBe(200);
		const after = await harness.sandbox.state();
		const requests = after.requests.slice(before.requests.length);
		expect(requests.map((request) => [request.endpoint, request.status])).toEqual([
			['listings', 401],
			['token', 200],
			['listings', 200],
		]);
		expect(
			after.listings.filter((listing) => Number(listing.externalListingId) === externalListingId),
		).toHaveLength(1);
		const [execution] = await waitForExecutions(harness, workflows.httpRequest.id, 2);
		expect(execution.status).toBe('success');
	});

	it.each([
		['4.2', workflows.httpRequestElsewhereV4],
		['3', workflows.httpRequestElsewhereV3],
	])(
		'version %s: a URL on another address is refused, saying where the token may go',
		async (_version, workflow) => {
			const harness = e2e();
			const before = (await harness.n8n.executions(workflow.id)).length;

			const run = await postWebhook(harness, webhookPath(workflow), {
				payload: listingPayload(nextListingId(8500)),
			});

			expect(run.status).toBeGreaterThanOrEqual(400);
			const [latest] = await waitForExecutions(harness, workflow.id, before + 1);
			const error = executionError(await harness.n8n.execution(latest.id));
			expect(String(error?.message)).toContain(
				`This credential only sends its token to ${new URL(harness.context.sandboxUrl).origin}`,
			);
			// No Authorization header in the request n8n kept with the error (the node's notes mention "Bearer").
			expect(JSON.stringify(error)).not.toMatch(/authorization\\?"\s*:/i);
		},
	);
});
