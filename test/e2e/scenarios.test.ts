/**
 * The package's main jobs inside a real n8n, asserted on the sandbox's records and on n8n's executions.
 * One file, in this order, because n8n's stored marketplace token is shared state: the first run on the fresh
 * instance must fetch exactly one token, the next reuse it, and an expiry forces exactly one renewal.
 */
import type { RequestLogEntry, SandboxState } from '../../sandbox/index';
import { issueAccessToken } from '../../nodes/TicketMarketplaceTrigger/accessToken';
import { SANDBOX_CALLBACK_CLIENT } from '../../support/harness/harness';
import {
	executionError,
	nextListingId,
	nodeOutput,
	nodePairing,
	postWebhook,
	useE2e,
	waitForExecutions,
	writeSheet,
	type E2e,
	type SeatRow,
} from '../../support/e2e/helpers';
import { suiteWorkflows, triggerWebhookId, webhookPath } from '../../support/e2e/workflows';
import { listingBody } from '../../support/listingBody';
import { PARTNER_API_PATHS } from '../../nodes/shared/partnerApi/paths';

const e2e = useE2e();
const workflows = suiteWorkflows();

function tokenRequests(state: SandboxState): RequestLogEntry[] {
	return state.requests.filter((request) => request.endpoint === 'token');
}

function listingRequests(state: SandboxState): RequestLogEntry[] {
	return state.requests.filter((request) => request.endpoint === 'listings');
}

function seats(
	listingId: number,
	eventId: number,
	price: string,
	row: string,
	seatNumbers: number[],
): SeatRow[] {
	return seatNumbers.map((seat) => ({
		listing_id: listingId,
		event_id: eventId,
		price,
		currency: 'EUR',
		row,
		seat,
		ticket_id: `${eventId}-${row}-${seat}`,
	}));
}

/** The body our node must send for a group of sheet rows (spec 2.4, the node's default stock and payment types). */
function expectedBody(rows: SeatRow[]) {
	return listingBody({
		eventId: Number(rows[0].event_id),
		amount: Number(rows[0].price),
		currency: rows[0].currency,
		externalListingId: Number(rows[0].listing_id),
		products: rows.map((row) => ({
			externalId: row.ticket_id,
			row: row.row,
			seat: String(row.seat),
		})),
	});
}

async function runSheet(
	harness: E2e,
	name: string,
	rows: SeatRow[],
	path = webhookPath(workflows.sheetToListings),
) {
	const sheetName = writeSheet(harness, name, rows);
	return await postWebhook(harness, path, { sheet: sheetName });
}

function listingsFor(state: SandboxState, externalListingIds: number[]) {
	return state.listings.filter((listing) =>
		externalListingIds.includes(Number(listing.externalListingId)),
	);
}

describe('1. spreadsheet to listings', () => {
	it('groups the seat rows into listings, sends exactly the expected bodies and headers, with one token request', async () => {
		const harness = e2e();
		const first = nextListingId(1000);
		const second = nextListingId(1000);
		const rowsA = seats(first, 7001, '49.90', 'A', [12, 13]);
		const rowsB = seats(second, 7001, '39.00', 'C', [4, 5, 6]);
		const before = await harness.sandbox.state();

		const run = await runSheet(harness, 'scenario-1.csv', [...rowsA, ...rowsB]);

		expect(run.status).toBe(200);
		const after = await harness.sandbox.state();
		const sent = listingRequests(after).slice(listingRequests(before).length);
		expect(sent.map((request) => request.body)).toEqual([expectedBody(rowsA), expectedBody(rowsB)]);
		for (const request of sent) {
			expect(request.status).toBe(200);
			expect(request.method).toBe('POST');
			expect(request.path).toBe(PARTNER_API_PATHS.listings);
			expect(request.headers).toMatchObject({
				authorization: 'Bearer [redacted]',
				'content-type': expect.stringMatching(/^application\/json/),
				accept: expect.stringMatching(/application\/json/),
				'accept-language': 'en-US',
			});
		}
		expect(listingsFor(after, [first, second]).map((listing) => listing.body)).toEqual([
			expectedBody(rowsA),
			expectedBody(rowsB),
		]);
		// A fresh instance has no stored token: exactly one exchange for the whole run (the first listing goes alone).
		expect(tokenRequests(after).length - tokenRequests(before).length).toBe(1);
		expect(tokenRequests(after).at(-1)).toMatchObject({
			status: 200,
			query: { grant_type: 'client_credentials' },
			headers: { authorization: 'Basic [redacted]' },
		});

		// The workflow's answer is our node's output: one item per listing, carrying the sandbox's listing id.
		const output = run.body as Array<Record<string, unknown>>;
		expect(output).toHaveLength(2);
		const ids = listingsFor(after, [first, second]).map((listing) => listing.id);
		expect(JSON.stringify(output)).toContain(ids[0]);
		expect(JSON.stringify(output)).toContain(ids[1]);
		const [execution] = await waitForExecutions(harness, workflows.sheetToListings.id, 1);
		expect(execution.status).toBe('success');
	});
});

describe('3. token lifecycle', () => {
	it('reuses the stored token on the next run', async () => {
		const harness = e2e();
		const listingId = nextListingId(1000);
		const before = await harness.sandbox.state();

		const run = await runSheet(
			harness,
			'scenario-3a.csv',
			seats(listingId, 7002, '25.00', 'D', [1]),
		);

		expect(run.status).toBe(200);
		const after = await harness.sandbox.state();
		expect(tokenRequests(after).length).toBe(tokenRequests(before).length);
		expect(
			listingRequests(after)
				.slice(listingRequests(before).length)
				.map((request) => request.status),
		).toEqual([200]);
		expect(listingsFor(after, [listingId])).toHaveLength(1);
	});

	it('after the marketplace expires the token, renews it once (401, one token request, retry) and succeeds', async () => {
		const harness = e2e();
		expect(await harness.sandbox.expireTokens({ all: true })).toBeGreaterThanOrEqual(1);
		const listingId = nextListingId(1000);
		const before = await harness.sandbox.state();

		const run = await runSheet(
			harness,
			'scenario-3b.csv',
			seats(listingId, 7002, '25.00', 'D', [2, 3]),
		);

		expect(run.status).toBe(200);
		const after = await harness.sandbox.state();
		expect(tokenRequests(after).length - tokenRequests(before).length).toBe(1);
		// Refused with the expired token (the transport's status-checked attempt, then n8n's own attempt, whose 401
		// triggers the renewal), then accepted exactly once: nothing is created twice.
		const statuses = listingRequests(after)
			.slice(listingRequests(before).length)
			.map((request) => request.status);
		expect(statuses.at(-1)).toBe(200);
		expect(statuses.slice(0, -1).length).toBeGreaterThanOrEqual(1);
		expect(statuses.slice(0, -1).length).toBeLessThanOrEqual(2);
		expect(statuses.slice(0, -1).every((status) => status === 401)).toBe(true);
		expect(tokenRequests(after).at(-1)?.status).toBe(200);
		expect(listingsFor(after, [listingId])).toHaveLength(1);
		const executions = await waitForExecutions(harness, workflows.sheetToListings.id, 3);
		expect(executions.map((execution) => execution.status)).toEqual([
			'success',
			'success',
			'success',
		]);
	});
});

describe('4. bad spreadsheet rows', () => {
	function badSheet() {
		const good = nextListingId(2000);
		const bad = nextListingId(2000);
		const rows: SeatRow[] = [
			...seats(good, 7003, '30.00', 'E', [1, 2]),
			...seats(bad, 7003, '30.00', 'F', [1, 2]),
		];
		// Item 3 (the fourth data row) has a price that is not a number.
		rows[3] = { ...rows[3], price: 'thirty' };
		return { good, bad, rows };
	}

	it('fails the execution naming the item and the field, and sends nothing', async () => {
		const harness = e2e();
		const { good, bad, rows } = badSheet();
		const before = await harness.sandbox.state();
		const executionsBefore = (await harness.n8n.executions(workflows.sheetToListings.id)).length;

		const run = await runSheet(harness, 'scenario-4a.csv', rows);

		expect(run.status).toBeGreaterThanOrEqual(400);
		const after = await harness.sandbox.state();
		expect(listingRequests(after).length).toBe(listingRequests(before).length);
		expect(listingsFor(after, [good, bad])).toEqual([]);
		const [latest] = await waitForExecutions(
			harness,
			workflows.sheetToListings.id,
			executionsBefore + 1,
		);
		expect(latest.status).toBe('error');
		const error = executionError(await harness.n8n.execution(latest.id));
		expect(error?.message).toMatch(/failed validation; nothing was sent/);
		expect(error?.description).toMatch(
			/^Price Amount must be a number greater than 0, such as 49\.90 \(got "thirty"\) \(row 4\)$/m,
		);
		expect(error?.description).toContain(
			'Rows are counted from 1, in the order the items reach this node.',
		);
	});

	it('with Continue On Fail, outputs an error item for the bad listing and creates only the good one', async () => {
		const harness = e2e();
		const { good, bad, rows } = badSheet();

		const run = await runSheet(
			harness,
			'scenario-4b.csv',
			rows,
			webhookPath(workflows.sheetContinueOnFail),
		);

		expect(run.status).toBe(200);
		const output = run.body as Array<Record<string, unknown>>;
		expect(output).toHaveLength(2);
		expect(output[0]).not.toHaveProperty('error');
		expect(output[1]).toMatchObject({
			itemIndexes: [2, 3],
			error: `Listing ${bad} (rows 3 and 4) failed validation`,
		});
		expect(JSON.stringify(output[1].problems)).toMatch(/Price Amount .*\(row 4\)/);
		const after = await harness.sandbox.state();
		expect(
			listingsFor(after, [good, bad]).map((listing) => Number(listing.externalListingId)),
		).toEqual([good]);
		const [latest] = await waitForExecutions(harness, workflows.sheetContinueOnFail.id, 1);
		expect(latest.status).toBe('success');
	});
});

describe('2. sale to alert', () => {
	const webhookId = triggerWebhookId(workflows.saleAlert);
	const callbackUrl = () => `${e2e().context.n8nUrl}/webhook/${webhookId}/notifications`;
	const tokenEndpointUrl = () => `${e2e().context.n8nUrl}/webhook/${webhookId}/token`;
	const callbackCredential = SANDBOX_CALLBACK_CLIENT;
	let subscriptionId = '';
	let earlyListing = { id: '', externalListingId: 0 };
	let lateListing = { id: '', externalListingId: 0 };

	async function createListing(name: string, rows: SeatRow[]) {
		const run = await runSheet(e2e(), name, rows);
		expect(run.status).toBe(200);
		const [listing] = listingsFor(await e2e().sandbox.state(), [Number(rows[0].listing_id)]);
		return {
			id: listing.id,
			externalListingId: Number(listing.externalListingId),
			eligible: listing.eligibleForNotifications,
		};
	}

	it("subscribes with the trigger's production URLs and the callback credential", async () => {
		// The example's URLs are fixed: the harness puts this n8n's address in them, as a user types theirs.
		const run = await postWebhook(e2e(), webhookPath(workflows.subscribe), {});

		expect(run.status).toBe(200);
		const [output] = run.body as Array<{ subscriptionId: string; nextStep: string }>;
		subscriptionId = output.subscriptionId;
		expect(subscriptionId).toEqual(expect.any(String));
		expect(JSON.stringify(run.body)).not.toContain(callbackCredential.clientSecret);
		const [subscription] = (await e2e().sandbox.state()).subscriptions.filter(
			(candidate) => candidate.id === subscriptionId,
		);
		expect(subscription).toMatchObject({
			status: 'PENDING',
			callback: {
				url: callbackUrl(),
				auth: {
					authType: 'oauth',
					tokenEndPoint: tokenEndpointUrl(),
					oauthRequest: { clientId: callbackCredential.clientId, grantType: 'client_credentials' },
				},
			},
			subscription: { listing: ['listing_sale'] },
		});
	});

	it('a listing created before activation is not eligible; one created after activation is', async () => {
		const before = await createListing(
			'scenario-2-early.csv',
			seats(nextListingId(3000), 7004, '80.00', 'G', [1]),
		);
		expect(before.eligible).toBe(false);
		earlyListing = before;

		const activated = await e2e().sandbox.activateSubscription(subscriptionId);
		expect(activated.status).toBe('ACTIVE');

		const after = await createListing(
			'scenario-2-late.csv',
			seats(nextListingId(3000), 7004, '95.50', 'H', [7, 8, 9]),
		);
		expect(after.eligible).toBe(true);
		lateListing = after;
	});

	it('a sale of the listing from before activation sends no notification', async () => {
		const result = await e2e().sandbox.sell(earlyListing.id, { count: 1 });
		expect(result.sale.eligibleForNotifications).toBe(false);
		expect(result.deliveries).toEqual([]);
	});

	it('a sale after activation: the sandbox gets a token from the trigger, delivers, and the alert workflow formats the message', async () => {
		const harness = e2e();
		const executionsBefore = (await harness.n8n.executions(workflows.saleAlert.id)).length;

		const result = await harness.sandbox.sell(lateListing.id, { count: 2 });

		expect(result.complete).toBe(true);
		expect(result.deliveries).toHaveLength(1);
		const [delivery] = result.deliveries;
		expect(delivery).toMatchObject({
			status: 'delivered',
			subscriptionId,
			callbackUrl: callbackUrl(),
			tokenEndPoint: tokenEndpointUrl(),
		});
		expect(delivery.attempts.map((attempt) => [attempt.step, attempt.status])).toEqual([
			['token', 200],
			['callback', 200],
		]);

		const [execution] = await waitForExecutions(
			harness,
			workflows.saleAlert.id,
			executionsBefore + 1,
		);
		expect(execution.status).toBe('success');
		const full = await harness.n8n.execution(execution.id);
		const [payload] = nodeOutput(full, 'On listing sale');
		expect(payload).toMatchObject({
			eventType: 'listing_sale',
			subscriptionId,
			listing: {
				id: lateListing.id,
				externalListingId: lateListing.externalListingId,
				eventId: 7004,
			},
		});
		const [message] = nodeOutput(full, 'Format chat message');
		expect(message.text).toBe(
			`:ticket: Sold: 2 ticket(s) from listing ${lateListing.externalListingId} (event 7004) at 95.5 EUR each. Seats: H-7, H-8`,
		);
		expect(message.notificationId).toBe(payload.notificationId);
	});

	it('the marketplace may also present its client credentials in the form body (client_secret_post)', async () => {
		const harness = e2e();
		const executionsBefore = (await harness.n8n.executions(workflows.saleAlert.id)).length;
		await harness.sandbox.configureDelivery({ clientAuth: 'client_secret_post' });
		try {
			const result = await harness.sandbox.sell(lateListing.id, { count: 1 });

			expect(result.deliveries.map((delivery) => [delivery.clientAuth, delivery.status])).toEqual([
				['client_secret_post', 'delivered'],
			]);
			const [execution] = await waitForExecutions(
				harness,
				workflows.saleAlert.id,
				executionsBefore + 1,
			);
			const message = nodeOutput(
				await harness.n8n.execution(execution.id),
				'Format chat message',
			)[0];
			expect(message.text).toMatch(/Sold: 1 ticket\(s\) .* Seats: H-9$/);
		} finally {
			await harness.sandbox.configureDelivery({ clientAuth: 'basic' });
		}
	});

	it('forged and expired-token notifications get 401 and start no execution', async () => {
		const harness = e2e();
		const executionsBefore = (await harness.n8n.executions(workflows.saleAlert.id)).length;
		const notification = {
			eventType: 'listing_sale',
			notificationId: 'forged-1',
			listing: { id: lateListing.id },
		};
		const path = `${webhookId}/notifications`;
		const subject = {
			audience: webhookId,
			clientId: callbackCredential.clientId,
			clientSecret: callbackCredential.clientSecret,
		};
		const now = Math.floor(Date.now() / 1000);

		const noToken = await postWebhook(harness, path, notification);
		const forged = await postWebhook(harness, path, notification, {
			authorization: 'Bearer tmt1.forged.token',
		});
		const wrongKey = await postWebhook(harness, path, notification, {
			authorization: `Bearer ${issueAccessToken({ ...subject, clientSecret: 'a-different-secret-0123456789' }, 3600, now)}`,
		});
		const expired = await postWebhook(harness, path, notification, {
			authorization: `Bearer ${issueAccessToken(subject, 60, now - 3600)}`,
		});
		expect([noToken.status, forged.status, wrongKey.status, expired.status]).toEqual([
			401, 401, 401, 401,
		]);

		// The control: the same notification with a token from the trigger's own token endpoint is accepted. Once its
		// execution is recorded, the refused requests (sent earlier) would have been recorded too, had they started one.
		const tokenResponse = await fetch(tokenEndpointUrl(), {
			method: 'POST',
			headers: {
				'content-type': 'application/x-www-form-urlencoded',
				authorization: `Basic ${Buffer.from(`${subject.clientId}:${subject.clientSecret}`).toString('base64')}`,
			},
			body: 'grant_type=client_credentials',
		});
		expect(tokenResponse.status).toBe(200);
		const { access_token: accessToken } = (await tokenResponse.json()) as { access_token: string };
		const accepted = await postWebhook(
			harness,
			path,
			{ ...notification, notificationId: 'control-1' },
			{ authorization: `Bearer ${accessToken}` },
		);
		expect(accepted.status).toBe(200);

		const executions = await waitForExecutions(
			harness,
			workflows.saleAlert.id,
			executionsBefore + 1,
		);
		expect(executions).toHaveLength(executionsBefore + 1);
		const latest = await harness.n8n.execution(executions[0].id);
		expect(nodeOutput(latest, 'On listing sale')[0]).toMatchObject({ notificationId: 'control-1' });
	});
});

describe('5. a sheet run twice lists nothing twice', () => {
	it('a second run of the same sheet creates nothing and reports every listing as skipped', async () => {
		const harness = e2e();
		const listing = nextListingId(5000);
		const rows = seats(listing, 7005, '20.00', 'D', [1, 2]);
		const first = await runSheet(harness, 'scenario-5a.csv', rows);
		expect(first.status).toBe(200);
		const between = await harness.sandbox.state();

		const second = await runSheet(harness, 'scenario-5a.csv', rows);

		expect(second.status).toBe(200);
		expect(second.body).toEqual([
			expect.objectContaining({
				status: 'skipped',
				externalListingId: listing,
				message: expect.stringContaining('already sent by this workflow'),
			}),
		]);
		const after = await harness.sandbox.state();
		expect(listingRequests(after).length).toBe(listingRequests(between).length);
		expect(listingsFor(after, [listing])).toHaveLength(1);
	});

	it('a listing whose request may have reached the API (dropped connection) is not sent again by the next run, which says its outcome is unknown', async () => {
		const harness = e2e();
		const listing = nextListingId(5000);
		const rows = seats(listing, 7005, '21.00', 'E', [1]);
		const path = webhookPath(workflows.sheetPerRow);
		await harness.sandbox.addFault({ endpoint: 'listings', sequence: ['drop'] });
		try {
			const first = await runSheet(harness, 'scenario-5b.csv', rows, path);
			expect(first.status).toBe(200);
			// Unknown already in the run that got no answer, not "failed": the listing may exist.
			expect(first.body).toEqual([
				expect.objectContaining({
					listingStatus: 'unknown',
					listingError: expect.objectContaining({ mayHaveBeenCreated: true }),
				}),
			]);
		} finally {
			await harness.sandbox.clearFaults();
		}
		const between = await harness.sandbox.state();

		const second = await runSheet(harness, 'scenario-5b.csv', rows, path);

		// Not sent again, and not called "skipped" either: the memory kept that its outcome was never known.
		expect(second.body).toEqual([
			expect.objectContaining({
				listingStatus: 'unknown',
				externalListingId: listing,
				listingError: expect.objectContaining({ mayHaveBeenCreated: true }),
			}),
		]);
		const after = await harness.sandbox.state();
		expect(listingRequests(after).length).toBe(listingRequests(between).length);
	});

	it('one item per input row pairs each row with its listing, ready to update the sheet', async () => {
		const harness = e2e();
		const good = nextListingId(5000);
		const rows = [
			...seats(good, 7005, '22.00', 'F', [1, 2]),
			{ ...seats(nextListingId(5000), 7005, 'x', 'G', [1])[0] },
		];

		const run = await runSheet(
			harness,
			'scenario-5c.csv',
			rows,
			webhookPath(workflows.sheetPerRow),
		);

		const output = run.body as Array<Record<string, unknown>>;
		expect(
			output.map((item) => [item.ticket_id, item.externalListingId, item.listingStatus]),
		).toEqual([
			[rows[0].ticket_id, good, 'created'],
			[rows[1].ticket_id, good, 'created'],
			[rows[2].ticket_id, Number(rows[2].listing_id), 'invalid'],
		]);
		const [execution] = await waitForExecutions(harness, workflows.sheetPerRow.id, 1);
		const withData = await harness.n8n.execution(execution.id);
		const paired = nodePairing(withData, 'Create listings');
		expect(paired).toEqual([[0], [1], [2]]);
	});
});
