/**
 * n8n's own HTTP Request node with "Predefined Credential Type" → Ticket Marketplace API (the
 * partner-api-http-request example): the way to call Partner API endpoints that the Ticket Marketplace node does
 * not cover. The credential obtains the token, adds the Bearer header, and renews the token after a 401.
 */
import { nextListingId, postWebhook, useE2e, waitForExecutions } from '../../support/e2e/helpers';
import { suiteWorkflows, webhookPath } from '../../support/e2e/workflows';
import { PARTNER_API_PATHS } from '../../credentials/common/partnerApi';

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
		return await postWebhook(harness, webhookPath(workflows.httpRequest), {
			url: `${harness.context.sandboxUrl}${PARTNER_API_PATHS.listings}`,
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
});
