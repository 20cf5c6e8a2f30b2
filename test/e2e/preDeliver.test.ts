/**
 * Inside a real n8n: ticket PDFs read by n8n's own Read/Write Files from Disk go to Listing → Pre-deliver Tickets,
 * one upload per listing; the sandbox parses the multipart and holds each ticket's PDF, checked byte for byte. And
 * the form example, filled in as a seller would: one ticket per submission, the outcome on the form's ending page.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	nextListingId,
	nodeOutput,
	postWebhook,
	useE2e,
	waitForExecutions,
	writeSheet,
	type SeatRow,
} from '../../support/e2e/helpers';
import { ON_N8N_1X, suiteWorkflows, webhookPath } from '../../support/e2e/workflows';
import { TICKET_PDF_FORM_LOGIN } from '../../support/harness/harness';
import { formEnding, formPath, smallPdf, submitForm } from '../../support/harness/ticketForm';

const e2e = useE2e();
const workflows = suiteWorkflows();

/** A PDF of about `kb` kilobytes with bytes that are not text, as real PDFs carry. */
function pdf(label: string, kb: number): Buffer {
	const filler = Buffer.alloc(kb * 1024);
	for (let i = 0; i < filler.length; i++) filler[i] = (i * 31 + label.length * 7) % 256;
	return Buffer.concat([Buffer.from(`%PDF-1.7\n% ${label}\n`), filler, Buffer.from('\n%%EOF\n')]);
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The id of each file a node output: set when n8n keeps binary data outside the execution (filesystem, S3). */
function binaryIds(execution: { data?: unknown }, nodeName: string): unknown[] {
	type Runs = Record<
		string,
		Array<{ data: { main: Array<Array<{ binary?: { data?: { id?: string } } }>> } }>
	>;
	const runs = (execution.data as { resultData: { runData: Runs } }).resultData.runData[nodeName];
	return runs.flatMap((r) => r.data.main[0].map((item) => item.binary?.data?.id));
}

describe('Pre-deliver Tickets in a real n8n', () => {
	it('uploads the PDFs n8n read from disk, byte for byte, and sends nothing again on a re-run', async () => {
		const harness = e2e();
		const [one, two] = [nextListingId(9_720_000), nextListingId(9_720_000)];
		const row = (id: number, seat: number): SeatRow => ({
			listing_id: id,
			event_id: 7021,
			price: '30.00',
			currency: 'EUR',
			row: 'B',
			seat,
			ticket_id: `${id}-B-${seat}`,
		});
		const sheet = writeSheet(harness, 'pre-deliver.csv', [row(one, 1), row(one, 2), row(two, 3)]);
		await postWebhook(harness, webhookPath(workflows.sheetToListings), { sheet });
		const created = (await harness.sandbox.state()).listings;
		const idOf = (external: number) => created.find((l) => l.externalListingId === external)!.id;

		const files = [
			{ listingId: idOf(one), row: 'B', seat: '1', bytes: pdf('B1', 300) },
			{ listingId: idOf(one), row: 'B', seat: '2', bytes: pdf('B2', 300) },
			{ listingId: idOf(two), row: 'B', seat: '3', bytes: pdf('B3', 40) },
		];
		const tickets = files.map(({ bytes, ...ticket }, i) => {
			const file = join(harness.context.filesFolder, `ticket-${one}-${i}.pdf`);
			writeFileSync(file, bytes);
			return { ...ticket, file };
		});
		const workflow = workflows.preDeliverFromDisk;
		for (const run of [1, 2]) {
			const before = (await harness.n8n.executions(workflow.id)).length;
			await postWebhook(harness, webhookPath(workflow), { tickets });
			const [latest] = await waitForExecutions(harness, workflow.id, before + 1);
			const execution = await harness.n8n.execution(latest.id);
			const out = nodeOutput(execution, 'Pre-deliver tickets');
			// n8n 2.x keeps the files on disk (filesystem mode, its default): the upload streams them by their id.
			if (!ON_N8N_1X)
				expect(binaryIds(execution, 'Read ticket PDF')).toEqual(
					tickets.map(() => expect.stringMatching(/^filesystem/)),
				);
			const status = run === 1 ? 'delivered' : 'skipped';
			expect({ run, out: out.map((item) => [item.row, item.seat, item.status]) }).toEqual({
				run,
				out: [
					['B', '1', status],
					['B', '2', status],
					['B', '3', status],
				],
			});
		}
		const state = await harness.sandbox.state();
		const uploads = state.requests.filter((request) => request.endpoint === 'pdfs');
		// The two listings' uploads go at once (the token is held), in either order.
		expect(uploads.map((request) => [request.path, request.status])).toEqual(
			expect.arrayContaining([
				[`/sellers/listings/pdf/v3/${idOf(one)}`, 200],
				[`/sellers/listings/pdf/v3/${idOf(two)}`, 200],
			]),
		);
		expect(uploads).toHaveLength(2);
		const held = (id: string) => state.listings.find((l) => l.id === id)!;
		expect(held(idOf(one)).preDelivered).toBe(true);
		expect(held(idOf(one)).products.map((p) => p.pdf?.sha256)).toEqual([
			sha(files[0].bytes),
			sha(files[1].bytes),
		]);
		expect(held(idOf(two)).products.map((p) => [p.pdf?.sha256, p.pdf?.bytes])).toEqual([
			[sha(files[2].bytes), files[2].bytes.length],
		]);
	}, 180_000);
});

describe('Pre-deliver Tickets by External Listing ID in a real n8n', () => {
	it("names the listing by the seller's own ID, through what Create in the workflow recorded", async () => {
		const harness = e2e();
		const id = nextListingId(9_740_000);
		const seat = (n: number): SeatRow => ({
			listing_id: id,
			event_id: 7023,
			price: '32.00',
			currency: 'EUR',
			row: 'C',
			seat: n,
			ticket_id: `${id}-C-${n}`,
		});
		const workflow = workflows.createThenPreDeliver;
		const sheet = writeSheet(harness, 'by-external-id.csv', [seat(1), seat(2)]);
		await postWebhook(harness, webhookPath(workflow), { sheet });
		const listing = () =>
			harness.sandbox.state().then((s) => s.listings.find((l) => l.externalListingId === id)!);
		const marketplaceId = (await listing()).id;

		const files = [1, 2, 9].map((n) => {
			const file = join(harness.context.filesFolder, `by-external-id-${id}-${n}.pdf`);
			writeFileSync(file, pdf(`C${n}`, 60));
			return { externalListingId: String(id), row: 'C', seat: String(n), file };
		});
		const deliverPath = 'ticket-marketplace/create-then-pre-deliver/deliver';
		const before = (await harness.n8n.executions(workflow.id)).length;
		// Seat 9 is not one of the listing's: refused before sending (the node continues on error), the others go.
		await postWebhook(harness, deliverPath, { tickets: files });
		const [latest] = await waitForExecutions(harness, workflow.id, before + 1);
		const out = nodeOutput(await harness.n8n.execution(latest.id), 'Pre-deliver tickets');
		expect(out.map((item) => [item.status, item.listingId, item.externalListingId])).toEqual([
			['delivered', marketplaceId, id],
			['delivered', marketplaceId, id],
			['invalid', undefined, undefined],
		]);
		expect(String(out[2].error)).toContain(`listing ${id} holds no ticket at row C, seat 9`);
		const uploads = (await harness.sandbox.state()).requests.filter(
			(r) => r.endpoint === 'pdfs' && r.path.endsWith(`/${marketplaceId}`),
		);
		expect(uploads.map((request) => [request.path, request.status])).toEqual([
			[`/sellers/listings/pdf/v3/${marketplaceId}`, 200],
		]);
		const held = await listing();
		expect(held.preDelivered).toBe(true);
		expect(held.products.map((p) => p.pdf?.sha256)).toEqual([
			sha(pdf('C1', 60)),
			sha(pdf('C2', 60)),
		]);
	}, 180_000);
});

describe('the ticket PDF form example in a real n8n', () => {
	it("a seller's submissions, one per ticket: each page says what happened, the listing ends pre-delivered", async () => {
		const harness = e2e();
		const id = nextListingId(9_820_000);
		const seats = [1, 2].map((seat) => ({
			listing_id: id,
			event_id: 7022,
			price: '31.00',
			currency: 'EUR',
			row: 'D',
			seat,
			ticket_id: `${id}-D-${seat}`,
		}));
		const sheet = writeSheet(harness, 'pre-deliver-form.csv', seats);
		await postWebhook(harness, webhookPath(workflows.sheetToListings), { sheet });
		const listingId = (await harness.sandbox.state()).listings.find(
			(listing) => listing.externalListingId === id,
		)!.id;
		const formUrl = `${harness.context.n8nUrl}/form/${formPath(workflows.preDeliverForm)}`;
		expect((await fetch(formUrl)).status).toBe(401);

		const pdfs = { 1: smallPdf('D-1'), 2: smallPdf('D-2 with more text') };
		// Listing ID, Row, Seat, General Admission (the ticked labels), Ticket PDF: the form's fields in order.
		const submit = async (seat: string, ga: string[], bytes: Buffer) => {
			const file = { fileName: `D-${seat}.pdf`, mimeType: 'application/pdf', bytes };
			const answer = await submitForm(formUrl, TICKET_PDF_FORM_LOGIN, [
				listingId,
				'D',
				seat,
				ga,
				file,
			]);
			const waiting = (answer.body as { formWaitingUrl: string }).formWaitingUrl;
			expect({ status: answer.status, waiting }).toEqual({
				status: 200,
				waiting: expect.any(String),
			});
			return await formEnding(harness.context.n8nUrl, waiting);
		};
		// A file that is not a PDF is refused before anything is sent: the page names the seat from the form.
		const notPdf = await submit('1', [], Buffer.from('A letter saved as .pdf'));
		expect(notPdf.title).toBe('Ticket PDF not delivered');
		expect(notPdf.message).toContain(`Listing ${listingId}, row D, seat 1: `);
		expect(notPdf.message).toContain('is not a PDF');
		// Ticked General Admission on a listing of numbered seats: the marketplace refuses, the page says so.
		const refused = await submit('1', ['General Admission ticket (no row or seat)'], pdfs[1]);
		expect(refused.title).toBe('Ticket PDF not delivered');
		expect(refused.message).toContain(`Listing ${listingId}, row GA, seat GA:`);
		for (const seat of ['1', '2'] as const)
			expect(await submit(seat, [], pdfs[seat])).toEqual({
				title: 'Ticket PDF delivered',
				message: `The marketplace accepted D-${seat}.pdf for listing ${listingId}, row D, seat ${seat}.`,
			});

		const listing = (await harness.sandbox.state()).listings.find((l) => l.id === listingId)!;
		expect(listing.products.map((p) => p.pdf?.sha256)).toEqual([sha(pdfs[1]), sha(pdfs[2])]);
		expect(listing.preDelivered).toBe(true);
	}, 180_000);
});
