/**
 * One listing's streamed upload body, driven by hand: a send that ends (an early answer, a 401, the deadline) while
 * the body waits for its next file to open must leave no file open.
 */
import type { Readable } from 'node:stream';

import type { Ticket } from '../../../../../../../nodes/TicketMarketplace/actions/listing/preDeliver/tickets';
import { uploadRequest } from '../../../../../../../nodes/TicketMarketplace/actions/listing/preDeliver/tickets';
import type { UploadBody } from '../../../../../../../nodes/TicketMarketplace/transport';
import { fakeRun } from '../../../../../../../support/fakeN8n/actionContext';
import {
	fileItem,
	pdfBytes,
	storedStream,
	withBinaryHelpers,
} from '../../../../../../../support/fakeN8n/binaryItems';
import { BY_MARKETPLACE_ID } from '../../../../../../../support/preDeliverRuns';

/** Whether a promise settles within a few turns of the event loop. */
async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
	let settled = false;
	void promise.then(
		() => (settled = true),
		() => (settled = true),
	);
	await new Promise((resolve) => setTimeout(resolve, 20));
	return settled;
}

function twoTicketListing() {
	const bytes = [pdfBytes('A1'), pdfBytes('A2')];
	const items = bytes.map((pdf, i) =>
		fileItem({ listing: '9001' }, pdf, `a${i + 1}.pdf`, 'data', 'filesystem'),
	);
	const fake = fakeRun({ parameters: BY_MARKETPLACE_ID, items });
	withBinaryHelpers(fake.context, items);
	const tickets: Ticket[] = bytes.map((pdf, itemIndex) => ({
		itemIndex,
		listingId: '9001',
		row: 'A',
		seat: String(itemIndex + 1),
		binaryPropertyName: 'data',
		size: pdf.length,
	}));
	return { fake, items, tickets };
}

describe('Pre-deliver: one listing upload body', () => {
	it('closed while its next file opens: that file is closed once it opens, and the body ends', async () => {
		const { fake, items, tickets } = twoTicketListing();
		const second = items[1].binary!.data.id!;
		let openSecond = () => {};
		const opened: Readable[] = [];
		fake.context.helpers.getBinaryStream = async (id: string) => {
			// n8n's store is slow to open the second file (S3, say).
			if (id === second) await new Promise<void>((resolve) => (openSecond = resolve));
			const stream = storedStream(id);
			opened.push(stream);
			return stream;
		};
		const body = (await uploadRequest(fake.context, tickets).upload!()) as UploadBody;
		const chunks = body.stream()[Symbol.asyncIterator]();
		// Read until the body waits for the second file.
		let waiting: Promise<IteratorResult<Buffer>> = chunks.next();
		for (let reads = 0; reads < 100 && (await settlesSoon(waiting)); reads++)
			waiting = chunks.next();
		expect(opened).toHaveLength(1);
		// The send ends (the API answered early), then the second file opens.
		body.close();
		openSecond();
		await expect(waiting).resolves.toEqual({ done: true, value: undefined });
		expect(opened).toHaveLength(2);
		expect(opened.map((stream) => stream.destroyed)).toEqual([true, true]);
	});

	it('read to its end, it holds exactly Content-Length bytes and closes what it opened', async () => {
		const { fake, tickets } = twoTicketListing();
		const opened: Readable[] = [];
		const stream = fake.context.helpers.getBinaryStream;
		fake.context.helpers.getBinaryStream = async (id: string) => {
			const file = await stream(id);
			opened.push(file);
			return file;
		};
		const request = uploadRequest(fake.context, tickets);
		const body = (await request.upload!()) as UploadBody;
		let length = 0;
		for await (const chunk of body.stream()) length += chunk.length;
		body.close();
		expect(length).toBe(body.size);
		expect(request.headers['Content-Length']).toBe(String(body.size));
		expect(opened.map((file) => file.destroyed)).toEqual([true, true]);
	});
});
