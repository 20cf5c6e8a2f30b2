/**
 * `npm run demo`: the package's main job, narrated. Starts the sandbox marketplace and a real n8n with the example
 * workflows from examples/, subscribes to sales, lets the sandbox "support team" activate the subscription,
 * creates listings from the seller's inventory in an n8n Data Table (filled from examples/seats.csv) and writes
 * each row's result back, puts ticket PDFs onto a listing through n8n's own form, sells seats, shows the alert n8n's Mattermost node posted to a loopback stand-in and the
 * sold rows marked in the table, and stops everything it started (also on failure and Ctrl-C).
 *
 * `npm run demo -- --stay` keeps n8n and the sandbox running once it is done, and prints the editor's address and the
 * owner login it set up, so a newcomer signs in and looks at the workflows and their executions; Ctrl-C stops
 * everything.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { SandboxAdminClient } from '../sandbox/index';
import { receivedChatPosts } from '../support/harness/chatStandIn';
import { startHarness, TICKET_PDF_FORM_LOGIN, type Harness } from '../support/harness/harness';
import type { ExecutionSummary } from '../support/harness/n8n';
import { OWNER, pollUntil } from '../support/harness/n8n';
import {
	dataTablesOf,
	INVENTORY_TABLE,
	insertInventoryRows,
	inventoryRows,
	inventoryRowsFromCsv,
	type StoredInventoryRow,
} from '../support/harness/inventory';
import { n8nVersion } from '../support/harness/n8nInstall';
import { stopAll } from '../support/harness/processes';
import { elapsed } from '../support/harness/progress';
import {
	formEnding,
	formPath,
	smallPdf,
	submitForm,
	type FormEnding,
} from '../support/harness/ticketForm';
import {
	EXAMPLE_FILES,
	EXAMPLES_DIR,
	loadExample,
	nodeByType,
	postJson,
	webhookPath,
} from '../support/harness/workflows';

const TRIGGER_TYPE = 'n8n-nodes-ticket-marketplace.ticketMarketplaceTrigger';

function say(text = ''): void {
	process.stdout.write(`${text}\n`);
}

/** The step under way: a failure names it, and says what to do, instead of a stack trace. */
let currentStep = 'Starting';
/** The step that failed, kept while the demo stops everything (which is a step of its own). */
let failedStep: string | undefined;
/** Whether n8n and the sandbox came up: what to do after a failure differs. */
let started = false;

function heading(text: string): void {
	currentStep = text;
	say();
	say(`== ${text}`);
}

function printInventory(rows: StoredInventoryRow[]): void {
	for (const row of rows) {
		const result = [
			row.listing_status ?? 'not listed',
			row.marketplace_listing_id,
			row.sold_at ? `sold at ${row.sold_at}` : undefined,
			row.listing_error,
		]
			.filter(Boolean)
			.join(', ');
		say(
			`   row ${row.id}: listing ${row.listing_id}, seat ${row.row}-${row.seat} (${row.ticket_id}) -> ${result}`,
		);
	}
}

const USAGE = `Usage: npm run demo [-- --stay]
  --stay   keep n8n and the sandbox running when the demo is done, to sign in to the editor and look at the
           executions; Ctrl-C stops everything`;

function demoFlags(): { stay: boolean } {
	try {
		const { values } = parseArgs({
			args: process.argv.slice(2),
			options: { stay: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
		});
		if (values.help) {
			say(USAGE);
			process.exit(0);
		}
		return { stay: values.stay === true };
	} catch (error) {
		process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
		process.exit(2);
	}
}

/** Keeps everything running until Ctrl-C, whose handler (support/harness/processes.ts) stops it all and exits. */
async function stayUp(n8nUrl: string, sandboxUrl: string): Promise<void> {
	heading('Still running (--stay): look around in n8n');
	say(`Editor:      ${n8nUrl}`);
	say(`Sign in as   ${OWNER.email}`);
	say(`Password     ${OWNER.password}`);
	say(`Executions:  ${n8nUrl}/home/executions (every run above, step by step)`);
	say(`Sandbox:     ${sandboxUrl} (its state: ${sandboxUrl}/__sandbox/state)`);
	say('These are local demo values, not secrets. Press Ctrl-C to stop everything.');
	await new Promise<never>(() => undefined);
}

async function demo(): Promise<void> {
	const { stay } = demoFlags();
	const tableToListings = loadExample(EXAMPLE_FILES.dataTableToListings);
	const subscribe = loadExample(EXAMPLE_FILES.subscribe);
	const saleAlert = loadExample(EXAMPLE_FILES.saleAlert);
	const pdfForm = loadExample(EXAMPLE_FILES.preDeliverForm);
	const trigger = nodeByType(saleAlert, TRIGGER_TYPE);

	heading(
		'Starting: a sandbox marketplace and a real n8n with this package installed from its npm tarball',
	);
	say(
		`(the first run installs n8n ${n8nVersion()} into ~/.cache: 4 to 8 minutes, 2.3 GB; later runs reuse it)`,
	);
	const harness: Harness = await startHarness({
		workflows: [tableToListings, subscribe, saleAlert, pdfForm].map((workflow) => ({
			workflow,
			activate: true,
		})),
	});
	started = true;
	const { context } = harness;
	const sandbox = new SandboxAdminClient(context.sandboxUrl);
	try {
		say(
			`n8n:     ${context.n8nUrl}  (owner owner@example.test; workflows imported from ${EXAMPLES_DIR})`,
		);
		say(
			`sandbox: ${context.sandboxUrl}  (plays the marketplace's Partner API and its support team)`,
		);

		const base = `${context.n8nUrl}/webhook/${trigger.webhookId}`;
		heading('1. Subscribe to sale notifications');
		say(`The "${saleAlert.name}" workflow is active; its trigger answers at`);
		say(`   token URL:    ${base}/token`);
		say(`   callback URL: ${base}/notifications`);
		// The subscribe example's URLs are this trigger's: the harness configured them on import.
		const subscribed = await postJson(`${context.n8nUrl}/webhook/${webhookPath(subscribe)}`, {});
		if (subscribed.status !== 200)
			throw new Error(
				`the subscribe workflow answered ${subscribed.status}: ${JSON.stringify(subscribed.body)}`,
			);
		const [subscription] = subscribed.body as Array<{ subscriptionId: string; nextStep: string }>;
		say(
			`"${subscribe.name}" sent the subscription. Subscription id: ${subscription.subscriptionId}`,
		);
		say(`Next step the node tells you: ${subscription.nextStep}`);

		heading('2. Activation (the marketplace support team, played by the sandbox)');
		const activated = await sandbox.activateSubscription(subscription.subscriptionId);
		say(
			`Subscription ${activated.id} is now ${activated.status}. Listings created from now on are eligible for notifications.`,
		);

		heading(
			"3. Listings from the seller's inventory table (an n8n Data Table filled from examples/seats.csv)",
		);
		const tables = await dataTablesOf(context.n8nUrl);
		const inventory = await insertInventoryRows(
			tables,
			context.inventoryTableId,
			inventoryRowsFromCsv(readFileSync(join(EXAMPLES_DIR, 'seats.csv'), 'utf8')),
		);
		say(
			`The data table "${INVENTORY_TABLE}" holds ${inventory.length} seat rows (one row per seat, the sheet's columns).`,
		);
		const created = await postJson(`${context.n8nUrl}/webhook/${webhookPath(tableToListings)}`, {});
		if (created.status !== 200)
			throw new Error(
				`the data table workflow answered ${created.status}: ${JSON.stringify(created.body)}`,
			);
		const state = await sandbox.state();
		say(`"${tableToListings.name}" read the rows, grouped them by listing_id and created:`);
		for (const listing of state.listings) {
			const price = listing.pricePerProduct as { amount: number; currency: string };
			const seatsText = listing.products
				.map((product) => `${String(product.row)}-${String(product.seat)}`)
				.join(', ');
			say(
				`   listing ${String(listing.externalListingId)} -> marketplace id ${listing.id}: event ${String(listing.eventId)}, ${listing.products.length} seat(s) ${seatsText} at ${price.amount} ${price.currency}`,
			);
		}
		say("and wrote each row's result back into the table:");
		printInventory(await inventoryRows(tables, context.inventoryTableId));
		const tokenRequests = state.requests.filter((request) => request.endpoint === 'token').length;
		say(
			`Marketplace token requests so far: ${tokenRequests} (n8n stores the token in the credential and reuses it).`,
		);

		// The PDFs go onto the listing of two seats; the buyer takes two seats of another one.
		const pdfListing = state.listings.find((listing) => listing.products.length === 2);
		const firstListing = state.listings.find(
			(listing) => listing !== pdfListing && listing.products.length >= 2,
		);
		if (!pdfListing || !firstListing)
			throw new Error('seats.csv must hold a listing of two seats and another of two or more');

		heading("4. Ticket PDFs onto a listing (a seller fills in n8n's own form, once per ticket)");
		const formUrl = `${context.n8nUrl}/form/${formPath(pdfForm)}`;
		const stranger = await fetch(formUrl, { signal: AbortSignal.timeout(30_000) });
		say(
			`"${pdfForm.name}" is active; its form is at ${formUrl} (without its login: HTTP ${stranger.status})`,
		);
		const endings: FormEnding[] = [];
		for (const product of pdfListing.products) {
			const seat = `${String(product.row)}-${String(product.seat)}`;
			const pdf = smallPdf(`Ticket ${seat}, listing ${String(pdfListing.externalListingId)}`);
			// The form's fields in order: Listing ID, Row, Seat, General Admission (ticked labels), Ticket PDF.
			const submitted = await submitForm(formUrl, TICKET_PDF_FORM_LOGIN, [
				pdfListing.id,
				String(product.row),
				String(product.seat),
				[],
				{ fileName: `${seat}.pdf`, mimeType: 'application/pdf', bytes: pdf },
			]);
			const waitingUrl = (submitted.body as { formWaitingUrl?: unknown }).formWaitingUrl;
			if (submitted.status !== 200 || typeof waitingUrl !== 'string')
				throw new Error(`the form answered ${submitted.status}: ${JSON.stringify(submitted.body)}`);
			const ending = await formEnding(context.n8nUrl, waitingUrl);
			endings.push(ending);
			say(
				`   sent ${seat}.pdf (${pdf.length} bytes) -> the seller's page: "${ending.title}. ${ending.message}"`,
			);
		}
		const pdfState = (await sandbox.state()).listings.find(
			(listing) => listing.id === pdfListing.id,
		);
		say(
			`The marketplace (sandbox) now holds, for listing ${String(pdfListing.externalListingId)} (${pdfListing.id}):`,
		);
		for (const product of pdfState?.products ?? [])
			say(
				`   seat ${String(product.row)}-${String(product.seat)}: ${product.pdf ? `PDF of ${product.pdf.bytes} bytes` : 'no PDF'}`,
			);
		say(
			`Pre-delivered (every ticket has its PDF, so buyers get it at once): ${pdfState?.preDelivered ? 'yes' : 'no'}`,
		);

		heading('5. A buyer takes two seats');
		const executionsBefore = (await harness.api.executions(saleAlert.id)).length;
		const sale = await sandbox.sell(firstListing.id, { count: 2 });
		say(
			`Sold ${sale.sale.externalIds.join(', ')} of listing ${String(firstListing.externalListingId)}.`,
		);
		for (const delivery of sale.deliveries) {
			const steps = delivery.attempts
				.map((attempt) => `${attempt.step} ${attempt.status ?? attempt.error ?? ''}`)
				.join(', then ');
			say(
				`The marketplace fetched a token from the trigger and delivered the notification: ${steps} -> ${delivery.status}.`,
			);
		}

		heading("6. The alert, posted by n8n's own Mattermost node");
		let executions: ExecutionSummary[] = [];
		await pollUntil(
			'the sale alert execution',
			async () => {
				executions = (await harness.api.executions(saleAlert.id)).filter(
					(execution) => execution.status !== 'running' && execution.status !== 'new',
				);
				return executions.length > executionsBefore;
			},
			60_000,
		);
		const execution = await harness.api.execution(executions[0].id);
		say(
			`Execution ${execution.id} (${execution.status}) of "${saleAlert.name}". The Mattermost stand-in at ${context.chatUrl} received:`,
		);
		const posts = await receivedChatPosts(context.chatUrl);
		for (const post of posts)
			say(`   POST /api/v4/posts  channel "${post.channelId}": ${post.message}`);
		const [post] = posts;

		heading('7. The inventory table after the sale (the same workflow marked the sold seats)');
		const finalRows = await inventoryRows(tables, context.inventoryTableId);
		printInventory(
			finalRows.filter((row) => row.listing_id === Number(firstListing.externalListingId)),
		);

		heading('Summary');
		const finalState = await sandbox.state();
		const listingIds = new Set(inventory.map((row) => String(row.listing_id)));
		expectDemo(
			finalState.listings.length === listingIds.size,
			`${listingIds.size} listings created (one per listing_id); the sandbox holds ${finalState.listings.length}`,
		);
		expectDemo(
			finalRows.every((row) => row.listing_status && row.marketplace_listing_id),
			'every inventory row got its listing status and marketplace id',
		);
		expectDemo(
			finalRows.filter((row) => row.listing_status === 'sold').length === 2,
			'the two sold seats are marked sold in the table',
		);
		expectDemo(posts.length === 1, `one chat post for the sale (received ${posts.length})`);
		expectDemo(
			stranger.status === 401,
			`the form refuses a visitor without its login (HTTP ${stranger.status})`,
		);
		const pdfFinal = finalState.listings.find((listing) => listing.id === pdfListing.id);
		const pdfSizes = (pdfFinal?.products ?? []).map((product) => product.pdf?.bytes);
		expectDemo(
			endings.length === 2 && endings.every((ending) => ending.title === 'Ticket PDF delivered'),
			`the form told the seller "Ticket PDF delivered" twice (it said: ${endings.map((ending) => ending.title).join('; ')})`,
		);
		expectDemo(
			pdfSizes.length === 2 && pdfSizes.every((bytes) => typeof bytes === 'number' && bytes > 0),
			`both tickets of listing ${pdfListing.id} hold a PDF (sizes: ${pdfSizes.join(', ')})`,
		);
		expectDemo(pdfFinal?.preDelivered === true, `listing ${pdfListing.id} is marked pre-delivered`);
		say(
			`- ${finalState.listings.length} listings, ${finalState.listings.reduce((sum, listing) => sum + listing.products.length, 0)} seats created from the data table with ${finalState.requests.filter((request) => request.endpoint === 'token').length} token request(s); every row got its listing's status and id`,
		);
		say(`- subscription ${subscription.subscriptionId}: ${finalState.subscriptions[0]?.status}`);
		say(
			`- listing ${String(pdfListing.externalListingId)}: ${pdfSizes.length} ticket PDFs sent through the form (${pdfSizes.join(' and ')} bytes), pre-delivered: ${pdfFinal?.preDelivered ? 'yes' : 'no'}`,
		);
		say(
			`- ${finalState.sales.length} sale(s), ${finalState.deliveries.filter((delivery) => delivery.status === 'delivered').length} notification(s) delivered; chat received: "${String(post?.message)}"`,
		);
		say(
			`- ${finalRows.filter((row) => row.listing_status === 'sold').length} row(s) marked sold in "${INVENTORY_TABLE}"`,
		);
		say(
			'- To use it for real: import the workflows in examples/ into your n8n, create the Ticket Marketplace,',
		);
		say(
			'  Ticket Marketplace Callback and Mattermost (or Slack) credentials, and follow the setup note on the trigger node;',
		);
		say('  the ticket PDF form also needs a Basic Auth credential: the login its form asks for.');
		if (stay) await stayUp(context.n8nUrl, context.sandboxUrl);
	} catch (error) {
		failedStep = currentStep;
		if (!stay) throw error;
		process.stderr.write(`\ndemo failed at step "${currentStep}": ${messageOf(error)}\n`);
		await stayUp(context.n8nUrl, context.sandboxUrl);
		throw error;
	} finally {
		heading('Stopping everything the demo started');
		await harness.stop();
	}
	if (harness.n8n.isRunning()) throw new Error('n8n is still running after stop');
	say(`Done in ${elapsed()}; nothing is left running.`);
}

/** The demo doubles as a test (`npm test` runs it): a claim it narrates that does not hold fails it. */
function expectDemo(holds: unknown, claim: string): void {
	if (!holds) throw new Error(`expected: ${claim}`);
}

/** What to do when a step fails, in a newcomer's terms. */
function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

function whatToDo(): string {
	if (!started)
		return [
			'n8n or the sandbox did not start; the lines above show why (the end of the n8n log, when n8n began).',
			'Check that nothing else holds the ports, or delete ~/.cache/n8n-nodes-ticket-marketplace to install',
			'n8n again, then run `npm run demo` again.',
		].join('\n');
	return [
		'Run `npm run demo -- --stay`: after a failure too, it keeps n8n running, so you can sign in and open the',
		'failed execution in the editor (Overview → Executions). `npm run test:e2e` checks each piece on its own.',
	].join('\n');
}

/** Counts the demo in the test totals that .ci/run closes with, as one check passed or failed. */
function recordForCi(passed: boolean): void {
	const file = process.env.TM_TEST_SUMMARY_FILE;
	if (file)
		appendFileSync(
			file,
			`${JSON.stringify({ passed: passed ? 1 : 0, failed: passed ? 0 : 1, skipped: 0 })}\n`,
		);
}

demo().then(
	() => recordForCi(true),
	async (error: unknown) => {
		recordForCi(false);
		process.stderr.write(
			`\ndemo failed at step "${failedStep ?? currentStep}": ${messageOf(error)}\n${whatToDo()}\n`,
		);
		await stopAll();
		process.exit(1);
	},
);
