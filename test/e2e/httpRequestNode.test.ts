/**
 * n8n's own HTTP Request node with "Predefined Credential Type" → Ticket Marketplace API (the
 * partner-api-http-request example): the way to call Partner API endpoints that the Ticket Marketplace node does
 * not cover. The credential obtains the token and adds the Bearer header; every answer of the API reaches the node
 * once, as it came (n8n's retry there cannot tell a 401 from a 500, so the credential renews nothing after one).
 */
import type { RequestLogEntry } from '../../sandbox/types';
import { CREDENTIAL_IDS } from '../../support/harness/workflows';
import { credentialsFor } from '../../support/harness/harness';
import { ownerSessionCookie, testCredentialAsEditor } from '../../support/harness/n8n';
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
	async function callThroughHttpRequestNode(
		externalListingId: number,
		workflow: { id: string } = workflows.httpRequest,
	) {
		const harness = e2e();
		// The example's URL is fixed (the harness puts the sandbox's address in it, as a user types theirs).
		return await postWebhook(harness, webhookPath(workflow as typeof workflows.httpRequest), {
			payload: listingPayload(externalListingId),
		});
	}

	/** Runs `call`; the requests the sandbox got meanwhile, and the error of the run's execution, if any. */
	async function duringRun(workflow: { id: string }, call: () => Promise<unknown>) {
		const harness = e2e();
		const before = (await harness.sandbox.state()).requests.length;
		const executionsBefore = (await harness.n8n.executions(workflow.id)).length;
		const run = await call();
		const requests: RequestLogEntry[] = (await harness.sandbox.state()).requests.slice(before);
		const [latest] = await waitForExecutions(harness, workflow.id, executionsBefore + 1);
		const error = executionError(await harness.n8n.execution(latest.id));
		return { run: run as { status: number }, requests, error };
	}

	const sent = (requests: RequestLogEntry[]) =>
		requests.map((request) => [request.endpoint ?? request.path, request.status]);

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

	it.each([
		['a 500', { kind: '5xx' as const, status: 500 }, 500],
		['a 429', { kind: '429' as const }, 429],
	])(
		'%s to the POST is sent once, leaves the token alone, and reaches the node as the API gave it',
		async (_name, fault, status) => {
			const harness = e2e();
			// A token stored by an earlier call of this file (the first test), so the call itself needs no login.
			await harness.sandbox.addFault({ endpoint: 'listings', ...fault });
			try {
				const { run, requests, error } = await duringRun(workflows.httpRequest, () =>
					callThroughHttpRequestNode(nextListingId(8500)),
				);
				expect(run.status).toBeGreaterThanOrEqual(400);
				expect(sent(requests)).toEqual([['listings', status]]);
				expect(JSON.stringify(error)).toContain(String(status));
			} finally {
				await harness.sandbox.clearFaults();
			}
		},
	);

	it('a 404 leaves the token alone: no login, one request', async () => {
		const { run, requests } = await duringRun(workflows.httpRequestNotFound, () =>
			callThroughHttpRequestNode(nextListingId(8500), workflows.httpRequestNotFound),
		);
		expect(run.status).toBeGreaterThanOrEqual(400);
		expect(requests.map((request) => [request.path, request.status])).toEqual([
			['/sellers/inventory/no-such-path/v3', 404],
		]);
	});

	it('a token the marketplace expired early: its 401 reaches the node once; Test stores a new token', async () => {
		const harness = e2e();
		expect(await harness.sandbox.expireTokens({ all: true })).toBeGreaterThanOrEqual(1);

		const refused = await duringRun(workflows.httpRequest, () =>
			callThroughHttpRequestNode(nextListingId(8500)),
		);
		expect(refused.run.status).toBeGreaterThanOrEqual(400);
		expect(sent(refused.requests)).toEqual([['listings', 401]]);

		// The credential's Test (as the editor runs it on save) logs in, and n8n stores the token it gets.
		const cookie = await ownerSessionCookie(harness.context.n8nUrl);
		const [apiCredential] = credentialsFor(harness.context.sandboxUrl);
		const tested = await testCredentialAsEditor(harness.context.n8nUrl, cookie, {
			...CREDENTIAL_IDS.api,
			type: 'ticketMarketplaceApi',
			data: {
				...(apiCredential.data as Record<string, unknown>),
				allowedHttpRequestDomains: 'all',
			},
		});
		expect(tested.status).toBe('OK');

		const externalListingId = nextListingId(8500);
		const again = await duringRun(workflows.httpRequest, () =>
			callThroughHttpRequestNode(externalListingId),
		);
		expect(again.run.status).toBe(200);
		expect(sent(again.requests)).toEqual([['listings', 200]]);
		const after = await harness.sandbox.state();
		expect(
			after.listings.filter((listing) => Number(listing.externalListingId) === externalListingId),
		).toHaveLength(1);
	});

	it('with Ignore SSL Issues on and an http Base URL, nothing is sent', async () => {
		const { run, requests, error } = await duringRun(workflows.httpRequestIgnoreSsl, () =>
			callThroughHttpRequestNode(nextListingId(8500), workflows.httpRequestIgnoreSsl),
		);
		expect(run.status).toBeGreaterThanOrEqual(400);
		expect(requests).toEqual([]);
		expect(String(error?.message)).toContain(
			"This request's Ignore SSL Issues (Insecure) option is set, and this credential's Base URL is not https://",
		);
	});

	it.each([
		['4.2', workflows.httpRequestElsewhereV4],
		['3', workflows.httpRequestElsewhereV3],
	])(
		'version %s: a URL on another address is refused, saying where the token may go',
		async (_version, workflow) => {
			const harness = e2e();
			const { run, requests, error } = await duringRun(workflow, () =>
				postWebhook(harness, webhookPath(workflow), {
					payload: listingPayload(nextListingId(8500)),
				}),
			);

			expect(run.status).toBeGreaterThanOrEqual(400);
			// Refused before anything left: no login either.
			expect(requests).toEqual([]);
			expect(String(error?.message)).toContain(
				`This credential only sends its token to ${new URL(harness.context.sandboxUrl).origin}`,
			);
			// No Authorization header in the request n8n kept with the error (the node's notes mention "Bearer").
			expect(JSON.stringify(error)).not.toMatch(/authorization\\?"\s*:/i);
		},
	);
});
