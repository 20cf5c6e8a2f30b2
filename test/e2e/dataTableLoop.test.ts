/**
 * The seller's inventory kept in n8n's own Data Table, end to end: rows in the table become listings and each row
 * gets its listing's status and id back (data-table-to-listings example); when a seat sells, the sale alert
 * example posts the alert through n8n's Mattermost node to the loopback stand-in and marks the sold seats' rows.
 */
import { receivedChatPosts } from '../../support/harness/chatStandIn';
import {
	dataTablesOf,
	insertInventoryRows,
	inventoryRows,
	type DataTables,
	type InventoryRow,
	type StoredInventoryRow,
} from '../../support/harness/inventory';
import {
	describeOnN8n2,
	type E2e,
	nextListingId,
	postWebhook,
	useE2e,
	waitForExecutions,
} from '../../support/e2e/helpers';
import { suiteWorkflows, triggerWebhookId, webhookPath } from '../../support/e2e/workflows';

const e2e = useE2e();
const workflows = suiteWorkflows();

function seatRows(
	listingId: number,
	eventId: number,
	price: number,
	row: string,
	seats: number[],
): InventoryRow[] {
	return seats.map((seat) => ({
		listing_id: listingId,
		event_id: eventId,
		price,
		currency: 'EUR',
		row,
		seat: String(seat),
		ticket_id: `${eventId}-${row}-${seat}`,
	}));
}

function rowsOf(rows: StoredInventoryRow[], listingId: number): StoredInventoryRow[] {
	return rows.filter((row) => row.listing_id === listingId);
}

/** Listings created after an active subscription are eligible for sale notifications: subscribe once if needed. */
async function ensureActiveSubscription(harness: E2e): Promise<void> {
	const base = `${harness.context.n8nUrl}/webhook/${triggerWebhookId(workflows.saleAlert)}`;
	const { subscriptions } = await harness.sandbox.state();
	if (
		subscriptions.some(
			(subscription) =>
				subscription.status === 'ACTIVE' && subscription.callback.url === `${base}/notifications`,
		)
	)
		return;
	// The example subscribes with the sale alert's URLs on this n8n (fixed in it; the harness sets the address).
	const run = await postWebhook(harness, webhookPath(workflows.subscribe), {});
	expect(run.status).toBe(200);
	const [{ subscriptionId }] = run.body as Array<{ subscriptionId: string }>;
	await harness.sandbox.activateSubscription(subscriptionId);
}

describeOnN8n2('inventory in an n8n Data Table', "Data Tables are n8n 2.x's", () => {
	let tables: DataTables;
	beforeAll(async () => {
		tables = await dataTablesOf(e2e().context.n8nUrl);
	});
	const first = nextListingId(8000);
	const second = nextListingId(8000);
	const invalid = nextListingId(8000);

	it("turns the table's rows into listings and writes each row's status and marketplace listing id back", async () => {
		const harness = e2e();
		await ensureActiveSubscription(harness);
		const { inventoryTableId } = harness.context;
		await insertInventoryRows(tables, inventoryTableId, [
			...seatRows(first, 7201, 55, 'K', [1, 2, 3]),
			...seatRows(second, 7201, 42.5, 'L', [9]),
			// A whole-number event id is required: this listing is refused before anything is sent.
			...seatRows(invalid, -5, 10, 'M', [1, 2]),
		]);
		const before = await harness.sandbox.state();

		const run = await postWebhook(harness, webhookPath(workflows.dataTableToListings), {});

		expect(run.status).toBe(200);
		const after = await harness.sandbox.state();
		const sent = after.requests
			.filter((request) => request.endpoint === 'listings')
			.slice(before.requests.filter((request) => request.endpoint === 'listings').length);
		expect(
			sent.map((request) => [
				(request.body as { externalListingId: number }).externalListingId,
				request.status,
			]),
		).toEqual([
			[first, 200],
			[second, 200],
		]);
		const marketplaceId = (externalListingId: number) =>
			after.listings.find((listing) => Number(listing.externalListingId) === externalListingId)?.id;
		const rows = await inventoryRows(tables, inventoryTableId);
		for (const listingId of [first, second]) {
			for (const row of rowsOf(rows, listingId)) {
				expect(row).toMatchObject({
					listing_status: 'created',
					marketplace_listing_id: marketplaceId(listingId),
					listing_error: null,
				});
			}
		}
		expect(rowsOf(rows, first)).toHaveLength(3);
		const invalidRows = rowsOf(rows, invalid);
		expect(invalidRows.map((row) => row.listing_status)).toEqual(['invalid', 'invalid']);
		expect(
			invalidRows.every(
				(row) => row.marketplace_listing_id === null && /Event ID/.test(String(row.listing_error)),
			),
		).toBe(true);
		// Every row the workflow read came back updated, each to its own row.
		expect((run.body as StoredInventoryRow[]).map((row) => row.id).sort((a, b) => a - b)).toEqual(
			rows.filter((row) => [first, second, invalid].includes(row.listing_id)).map((row) => row.id),
		);
	});

	it('a second run sends nothing for rows already listed (only the invalid ones are tried again)', async () => {
		const harness = e2e();
		const before = await harness.sandbox.state();

		const run = await postWebhook(harness, webhookPath(workflows.dataTableToListings), {});

		expect(run.status).toBe(200);
		const after = await harness.sandbox.state();
		expect(after.requests.filter((request) => request.endpoint === 'listings').length).toBe(
			before.requests.filter((request) => request.endpoint === 'listings').length,
		);
		expect(
			(run.body as StoredInventoryRow[]).map((row) => [row.listing_id, row.listing_status]),
		).toEqual([
			[invalid, 'invalid'],
			[invalid, 'invalid'],
		]);
	});

	it("a sale posts the alert through n8n's Mattermost node and marks exactly the sold seats' rows", async () => {
		const harness = e2e();
		const { inventoryTableId, chatUrl } = harness.context;
		const listing = (await harness.sandbox.state()).listings.find(
			(candidate) => Number(candidate.externalListingId) === first,
		);
		if (!listing) throw new Error(`listing ${first} was not created`);
		expect(listing.eligibleForNotifications).toBe(true);
		const executionsBefore = (await harness.n8n.executions(workflows.saleAlert.id)).length;
		const postsBefore = (await receivedChatPosts(chatUrl)).length;

		const sale = await harness.sandbox.sell(listing.id, { externalIds: ['7201-K-1', '7201-K-3'] });

		expect(sale.deliveries.map((delivery) => delivery.status)).toContain('delivered');
		const [execution] = await waitForExecutions(
			harness,
			workflows.saleAlert.id,
			executionsBefore + 1,
		);
		expect(execution.status).toBe('success');
		const posts = (await receivedChatPosts(chatUrl)).slice(postsBefore);
		expect(posts.map((post) => [post.channelId, post.message])).toContainEqual([
			'ticket-sales',
			`:ticket: Sold: 2 ticket(s) from listing ${first} (event 7201) at 55 EUR each. Seats: K-1, K-3`,
		]);
		const rows = rowsOf(await inventoryRows(tables, inventoryTableId), first);
		expect(rows.map((row) => [row.ticket_id, row.listing_status])).toEqual([
			['7201-K-1', 'sold'],
			['7201-K-2', 'created'],
			['7201-K-3', 'sold'],
		]);
		expect(
			rows
				.filter((row) => row.listing_status === 'sold')
				.every((row) => typeof row.sold_at === 'string' && row.sold_at !== ''),
		).toBe(true);
	});
});
