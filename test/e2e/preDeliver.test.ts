/**
 * Inside a real n8n: ticket PDFs read by n8n's own Read/Write Files from Disk go to Listing → Pre-deliver Tickets,
 * one upload per listing; the sandbox parses the multipart and holds each ticket's PDF, checked byte for byte.
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
import { suiteWorkflows, webhookPath } from '../../support/e2e/workflows';

const e2e = useE2e();
const workflows = suiteWorkflows();

/** A PDF of about `kb` kilobytes with bytes that are not text, as real PDFs carry. */
function pdf(label: string, kb: number): Buffer {
	const filler = Buffer.alloc(kb * 1024);
	for (let i = 0; i < filler.length; i++) filler[i] = (i * 31 + label.length * 7) % 256;
	return Buffer.concat([Buffer.from(`%PDF-1.7\n% ${label}\n`), filler, Buffer.from('\n%%EOF\n')]);
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('Pre-deliver Tickets in a real n8n', () => {
	it('uploads the PDFs n8n read from disk, byte for byte, and sends nothing again on a re-run', async () => {
		const harness = e2e();
		const [one, two] = [nextListingId(9_700_000), nextListingId(9_700_000)];
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
			const out = nodeOutput(await harness.n8n.execution(latest.id), 'Pre-deliver tickets');
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
		expect(uploads.map((request) => [request.path, request.status])).toEqual([
			[`/sellers/listings/pdf/v3/${idOf(one)}`, 200],
			[`/sellers/listings/pdf/v3/${idOf(two)}`, 200],
		]);
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
