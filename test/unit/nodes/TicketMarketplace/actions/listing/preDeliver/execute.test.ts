/**
 * Listing → Pre-deliver Tickets through its real execute(), n8n-core's real request helpers and nock: the exact
 * multipart bytes sent, nothing sent for bad input, every outcome, and no second upload of a delivered listing.
 */
import { Readable } from 'node:stream';

import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/preDeliver.operation';
import { MAX_PDF_BYTES } from '../../../../../../../nodes/TicketMarketplace/actions/listing/preDeliver/tickets';
import {
	BASE,
	fakeRun,
	MemoryDeduplicationStore,
} from '../../../../../../../support/fakeN8n/actionContext';
import type { FakeRunOptions } from '../../../../../../../support/fakeN8n/actionContext';
import {
	fileItem,
	pdfBytes,
	STREAM_CHUNK,
	storedFiles,
	storedStream,
	withBinaryHelpers,
	type BinaryMode,
} from '../../../../../../../support/fakeN8n/binaryItems';
import { grantTokens } from '../../../../../../../support/partnerApiNock';
import { BY_MARKETPLACE_ID } from '../../../../../../../support/preDeliverRuns';

interface Upload {
	path: string;
	contentType: string;
	authorization: string;
	contentLength: string;
	body: Buffer;
}

/** The upload endpoint answers each request with `status` and `answer`; the requests, in order, fill the array. */
function acceptUploads(status = 200, answer: unknown = { ok: true }, times = 10): Upload[] {
	const uploads: Upload[] = [];
	nock(BASE)
		.post(/^\/sellers\/listings\/pdf\/v3\//)
		.times(times)
		.reply(function (path, body) {
			const text = String(body);
			uploads.push({
				path,
				contentType: String(this.req.headers['content-type']),
				authorization: String(this.req.headers.authorization),
				contentLength: String(this.req.headers['content-length']),
				// nock hands a body that is not UTF-8 over as hex; these bodies never are (see pdfBytes).
				body: Buffer.from(text, 'hex'),
			});
			return [status, answer, { 'Content-Type': 'application/json' }];
		});
	return uploads;
}

function run(items: INodeExecutionData[], options: Partial<FakeRunOptions> = {}) {
	const fake = fakeRun({ parameters: BY_MARKETPLACE_ID, items, ...options });
	const reads = withBinaryHelpers(fake.context, items);
	return { fake, reads, output: async () => await execute.call(fake.context, items) };
}

/** The multipart body the service documents, byte for byte, with the boundary the request named. */
function expectedBody(boundary: string, products: object[], pdfs: Buffer[]): Buffer {
	const head = (name: string, type: string, file: boolean) =>
		`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${name}"` : ''}\r\nContent-Type: ${type}\r\n\r\n`;
	return Buffer.concat([
		Buffer.from(head('listing', 'application/json', false)),
		Buffer.from(JSON.stringify({ products })),
		...pdfs.flatMap((pdf, i) => [
			Buffer.from(`\r\n${head(`file${i + 1}.pdf`, 'application/pdf', true)}`),
			pdf,
		]),
		Buffer.from(`\r\n--${boundary}--\r\n`),
	]);
}

const boundaryOf = (contentType: string) =>
	/^multipart\/form-data; boundary=(\S+)$/.exec(contentType)![1];

const E151 = pdfBytes('E151');
const E152 = pdfBytes('E152');
const GA1 = pdfBytes('GA1');
const ITEMS = (mode: BinaryMode = 'memory') => [
	fileItem({ listing: '9001', row: 'E', seat: '151' }, E151, 'e151.pdf', 'data', mode),
	fileItem({ listing: '9002', ga: true }, GA1, 'ga.pdf', 'data', mode),
	fileItem({ listing: '9001', row: 'E', seat: '152' }, E152, 'e152.pdf', 'data', mode),
];
/** n8n 1.x keeps files in memory by default, 2.x on disk (an item then carries the file's id). */
const MODES: BinaryMode[] = ['memory', 'filesystem'];

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('Listing → Pre-deliver Tickets: the upload', () => {
	it.each(MODES)(
		'sends one multipart request per listing, byte for byte as documented (%s mode)',
		async (mode) => {
			grantTokens('tok-pdf');
			const uploads = acceptUploads(200, { listingId: 9001, note: 'passed through' });
			const { output } = run(ITEMS(mode));
			const out = await output();

			expect(uploads.map((u) => u.path)).toEqual([
				'/sellers/listings/pdf/v3/9001',
				'/sellers/listings/pdf/v3/9002',
			]);
			const [first, second] = uploads;
			expect(first.authorization).toBe('Bearer tok-pdf');
			const products = [
				{ row: 'E', seat: '151', name: 'file1.pdf' },
				{ row: 'E', seat: '152', name: 'file2.pdf' },
			];
			expect(
				first.body.equals(expectedBody(boundaryOf(first.contentType), products, [E151, E152])),
			).toBe(true);
			const ga = [{ row: 'GA', seat: 'GA', name: 'file1.pdf' }];
			expect(second.body.equals(expectedBody(boundaryOf(second.contentType), ga, [GA1]))).toBe(
				true,
			);
			expect(uploads.map((u) => u.contentLength)).toEqual(
				uploads.map((u) => String(u.body.length)),
			);
			expect(out.map((item) => [item.json.status, item.json.part, item.pairedItem])).toEqual([
				['delivered', 'file1.pdf', { item: 0 }],
				['delivered', 'file1.pdf', { item: 1 }],
				['delivered', 'file2.pdf', { item: 2 }],
			]);
			expect(out[0].json.response).toEqual({ listingId: 9001, note: 'passed through' });
		},
	);

	it.each(MODES)(
		'sends the same bytes again after a 401, with the renewed token (%s mode)',
		async (mode) => {
			grantTokens('tok-new');
			const refused: Buffer[] = [];
			nock(BASE)
				.post('/sellers/listings/pdf/v3/9001')
				.reply(401, (_path, body) => {
					refused.push(Buffer.from(String(body), 'hex'));
					return { code: 'invalid_access_token' };
				});
			const uploads = acceptUploads();
			const items = [
				fileItem({ listing: '9001', row: 'E', seat: '151' }, E151, 'e151.pdf', 'data', mode),
			];
			const { output, reads } = run(items, { accessToken: 'tok-old' });
			const out = await output();
			// Read to check it, then once for each send (never held meanwhile): the 401's re-send streams it again.
			expect(reads).toEqual([3]);
			expect(uploads).toHaveLength(1);
			expect(uploads[0].authorization).toBe('Bearer tok-new');
			const products = [{ row: 'E', seat: '151', name: 'file1.pdf' }];
			expect(
				uploads[0].body.equals(expectedBody(boundaryOf(uploads[0].contentType), products, [E151])),
			).toBe(true);
			expect(refused).toHaveLength(1);
			expect(refused[0].equals(uploads[0].body)).toBe(true);
			expect(out[0].json.status).toBe('delivered');
		},
	);

	it("a file gone when a 401's re-send starts fails that listing alone; the next is sent", async () => {
		grantTokens('tok-new');
		nock(BASE).post('/sellers/listings/pdf/v3/9001').reply(401, { code: 'invalid_access_token' });
		const uploads = acceptUploads();
		const items = [
			fileItem({ listing: '9001', row: 'E', seat: '151' }, E151, 'e151.pdf', 'data', 'filesystem'),
			fileItem({ listing: '9002', row: 'E', seat: '152' }, E151, 'e152.pdf', 'data', 'filesystem'),
		];
		const { fake, output } = run(items, { accessToken: 'tok-old', continueOnFail: true });
		const stream = fake.context.helpers.getBinaryStream;
		const gone = items[0].binary!.data.id!;
		let opened = 0;
		fake.context.helpers.getBinaryStream = async (id, chunkSize) => {
			if (id === gone && ++opened === 2)
				throw Object.assign(new Error('File not found'), { code: 'ENOENT' });
			return await stream(id, chunkSize);
		};
		const out = await output();
		expect(out.map((item) => item.json.status)).toEqual(['failed', 'delivered']);
		// Its first send went, and was refused: nothing was delivered.
		expect(String(out[0].json.description)).toContain('Nothing was delivered for this listing.');
		expect(uploads.map((upload) => upload.path)).toEqual(['/sellers/listings/pdf/v3/9002']);
		expect(uploads[0].authorization).toBe('Bearer tok-new');
	});

	it.each([
		['a token held: the first uploads go together, with no login', 'stored-token', 3],
		['no token yet: the first goes alone, and logs in once', undefined, 1],
	])('%s', async (_case, accessToken, beforeFirstAnswer) => {
		if (accessToken === undefined) grantTokens('tok-pdf');
		const events: string[] = [];
		nock(BASE)
			.post(/^\/sellers\/listings\/pdf\/v3\//)
			.times(3)
			.reply((path, _body, callback) => {
				events.push(path);
				setTimeout(() => {
					events.push('answered');
					callback(null, [200, { ok: true }]);
				}, 20);
			});
		const items = ['9001', '9002', '9003'].map((listing, i) =>
			fileItem({ listing, row: 'E', seat: String(i) }, E151, `e${i}.pdf`),
		);
		const parameters = {
			...BY_MARKETPLACE_ID,
			options: { concurrencyMode: 'fixed', concurrency: 3 },
		};
		const out = await run(items, { accessToken, parameters }).output();
		expect(out.map((item) => item.json.status)).toEqual(['delivered', 'delivered', 'delivered']);
		expect(events.indexOf('answered')).toBe(beforeFirstAnswer);
	});

	it('uploads nothing again for a listing this workflow delivered', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		const uploads = acceptUploads();
		await run(ITEMS(), { deduplication: store }).output();
		expect(uploads).toHaveLength(2);
		const again = await run(ITEMS(), { deduplication: store }).output();
		expect(uploads).toHaveLength(2);
		expect(again.map((item) => item.json.status)).toEqual(['skipped', 'skipped', 'skipped']);
	});
});

describe('Listing → Pre-deliver Tickets: refused before anything is sent', () => {
	const good = (json: IDataObject) => fileItem(json, E151, 'e151.pdf');
	const cases: Array<[string, INodeExecutionData, RegExp]> = [
		[
			'a file that is not a PDF',
			fileItem({ listing: '1', row: 'A', seat: '2' }, Buffer.from('<html>'), 'x.pdf'),
			/Item 2: The file "x.pdf" is not a PDF/,
		],
		[
			'an empty file',
			fileItem({ listing: '1', row: 'A', seat: '2' }, Buffer.alloc(0), 'x.pdf'),
			/Item 2: The file "x.pdf" is empty/,
		],
		[
			'a file over 10 MB',
			fileItem(
				{ listing: '1', row: 'A', seat: '2' },
				Buffer.concat([E151, Buffer.alloc(MAX_PDF_BYTES)]),
				'big.pdf',
			),
			/Item 2: The file "big.pdf" is larger than 10 MiB \(10,485,760 bytes\)/,
		],
		[
			'a missing binary property',
			{ json: { listing: '1', row: 'A', seat: '2' }, binary: {} },
			/no binary field 'data'/,
		],
		[
			'the same seat twice',
			good({ listing: '1', row: 'a', seat: '1' }),
			/Item 2: row a, seat 1 of listing 1 is given twice/,
		],
		['no row', good({ listing: '1', seat: '2' }), /Item 2: no row or seat/],
		['no listing', good({ row: 'A', seat: '2' }), /Item 2: no Listing ID/],
		[
			'a listing ID that is an object',
			good({ listing: { id: 1 }, row: 'A', seat: '2' }),
			/Item 2: the Listing ID is a list or an object/,
		],
	];

	it.each(cases)('refuses %s, naming the item, and sends nothing', async (_name, bad, message) => {
		const uploads = acceptUploads();
		const { output } = run([good({ listing: '1', row: 'A', seat: '1' }), bad]);
		await expect(output()).rejects.toThrow(message);
		expect(uploads).toHaveLength(0);
		expect(nock.pendingMocks()).toHaveLength(1);
	});

	it('counts items from 1, as the seat given twice names the item that has it first', async () => {
		grantTokens('tok-pdf');
		const uploads = acceptUploads();
		const items = [1, 2].map(() => good({ listing: '1', row: 'a', seat: '1' }));
		const out = await run(items, { continueOnFail: true }).output();
		expect(uploads).toHaveLength(1);
		expect(JSON.stringify(out[1].json)).toContain(
			'"error":"Item 2: row a, seat 1 of listing 1 is given twice","description":"Item 1 has the same seat: give each seat one PDF. Nothing was sent."',
		);
	});

	it('with Continue On Fail, sends the tickets that passed and says which did not', async () => {
		grantTokens('tok-pdf');
		const uploads = acceptUploads();
		const items = [
			good({ listing: '1', row: 'A', seat: '1' }),
			fileItem({ listing: '2', row: 'A', seat: '1' }, Buffer.from('not a pdf'), 'x.txt'),
		];
		const out = await run(items, { continueOnFail: true }).output();
		expect(uploads.map((u) => u.path)).toEqual(['/sellers/listings/pdf/v3/1']);
		expect(out.map((item) => item.json.status)).toEqual(['delivered', 'invalid']);
		expect(out[1].json.error).toMatch(/not a PDF/);
	});
});

describe('Listing → Pre-deliver Tickets: every outcome', () => {
	const one = () => [fileItem({ listing: '404', row: 'E', seat: '1' }, E151, 'e.pdf')];

	it('a 404 is no such listing: not delivered, in the API words', async () => {
		grantTokens('tok-pdf');
		acceptUploads(404, { code: 'inventory.listings.notFound', description: 'Listing not found' });
		const out = await run(one(), { continueOnFail: true }).output();
		expect(out[0].json).toMatchObject({
			status: 'failed',
			mayHaveBeenDelivered: false,
			apiCode: 'inventory.listings.notFound',
		});
		expect(String(out[0].json.description)).toContain('Check the Listing ID');
	});

	it("a 413 (the gateway's body limit) is not delivered, sent once, with what to do", async () => {
		grantTokens('tok-pdf');
		const overflow = {
			fault: {
				faultstring: 'Body buffer overflow',
				detail: { errorcode: 'protocol.http.TooBigBody' },
			},
		};
		const uploads = acceptUploads(413, overflow);
		const out = await run(one(), { continueOnFail: true }).output();
		expect(uploads).toHaveLength(1);
		expect(out[0].json).toMatchObject({
			status: 'failed',
			mayHaveBeenDelivered: false,
			apiCode: 'protocol.http.TooBigBody',
		});
		expect(String(out[0].json.error)).toContain('as too large (HTTP 413)');
		expect(String(out[0].json.description)).toMatch(/Body buffer overflow.*smaller groups/);
	});

	it('a 500 leaves the outcome unknown, and stops the run without Continue On Fail', async () => {
		grantTokens('tok-pdf');
		acceptUploads(500, { code: 'inventory.listings.systemError', description: 'System error' });
		await expect(run(one()).output()).rejects.toThrow(/Outcome unknown/);
	});

	it('a 2xx without evidence (an empty answer) leaves the outcome unknown', async () => {
		grantTokens('tok-pdf');
		acceptUploads(204, '');
		const out = await run(one(), { continueOnFail: true }).output();
		expect(out[0].json).toMatchObject({ status: 'unknown', mayHaveBeenDelivered: true });
	});

	it('routes failures to the error output as { error, message }', async () => {
		grantTokens('tok-pdf');
		acceptUploads(400, { code: 'inventory.listings.invalidPdf', description: 'PDF rejected' });
		const out = await run(one(), { continueOnFail: true, onError: 'continueErrorOutput' }).output();
		expect(Object.keys(out[0].json).sort()).toEqual(['error', 'message']);
		expect(String(out[0].json.message)).toContain('PDF rejected');
	});
});

describe("Listing → Pre-deliver Tickets: Create's quota and Stop", () => {
	const twoListings = () => [
		fileItem({ listing: '1', row: 'A', seat: '1' }, E151, 'a.pdf'),
		fileItem({ listing: '2', row: 'A', seat: '1' }, E152, 'b.pdf'),
	];

	it('a used-up quota stops every upload: the next listing is not sent', async () => {
		grantTokens('tok-pdf');
		const quota = {
			fault: {
				faultstring: 'Rate limit quota violation. Quota limit exceeded.',
				detail: { errorcode: 'policies.ratelimit.QuotaViolation' },
			},
		};
		const uploads = acceptUploads(500, quota);
		const out = await run(twoListings(), { continueOnFail: true }).output();
		expect(uploads).toHaveLength(1);
		expect(out.map((item) => item.json.status)).toEqual(['failed', 'notSent']);
		expect(String(out[0].json.error)).toMatch(/Quota used up/);
	});

	it('a stopped run sends nothing and says so', async () => {
		const uploads = acceptUploads();
		grantTokens('tok-pdf');
		const stop = new AbortController();
		stop.abort();
		const { output, reads } = run(twoListings(), { cancelSignal: stop.signal });
		const out = await output();
		expect(uploads).toHaveLength(0);
		expect(reads).toEqual([1, 1]);
		expect(out.map((item) => item.json.status)).toEqual(['notSent', 'notSent']);
	});
});

describe("Listing → Pre-deliver Tickets: files streamed from n8n's binary data", () => {
	const listing = () =>
		['1', '2', '3'].map((seat) =>
			fileItem(
				{ listing: '9001', row: 'E', seat },
				pdfBytes(`E${seat}`),
				`e${seat}.pdf`,
				'data',
				'filesystem',
			),
		);

	it('opens each file only when the body reaches it, the next only once the last is read', async () => {
		grantTokens('tok-pdf');
		const uploads = acceptUploads();
		const items = listing();
		const { fake, output } = run(items);
		const log: string[] = [];
		let open = 0;
		let mostOpen = 0;
		fake.context.helpers.getBinaryStream = async (id: string) => {
			const n = items.findIndex((item) => item.binary!.data.id === id);
			const stream = storedStream(id);
			mostOpen = Math.max(mostOpen, ++open);
			log.push(`open ${n}`);
			stream.on('end', () => log.push(`read ${n}`)).on('close', () => open--);
			return stream;
		};
		const out = await output();
		expect(log).toEqual(['open 0', 'read 0', 'open 1', 'read 1', 'open 2', 'read 2']);
		expect(mostOpen).toBe(1);
		expect(out.map((item) => item.json.status)).toEqual(['delivered', 'delivered', 'delivered']);
		expect(uploads[0].body.includes(pdfBytes('E3'))).toBe(true);
	});

	const cutShort = (bytes: Buffer) => bytes.subarray(0, STREAM_CHUNK + 3);
	const grown = (bytes: Buffer) => Buffer.concat([bytes, Buffer.from('%%EOF\n')]);
	it.each([
		['fails part-way', 'error'],
		['is shorter than when it was checked', cutShort],
		['is longer than when it was checked', grown],
		['is gone when the body reaches it', 'gone'],
	] as const)(
		'a later file of the upload that %s: outcome unknown, no whole body sent',
		async (_name, fault) => {
			grantTokens('tok-pdf');
			const uploads = acceptUploads();
			const items = listing();
			const { fake, output } = run(items, { continueOnFail: true });
			const second = items[1].binary!.data.id!;
			fake.context.helpers.getBinaryStream = async (id: string) => {
				if (id !== second) return storedStream(id);
				if (fault === 'gone') throw Object.assign(new Error('File not found'), { code: 'ENOENT' });
				if (fault !== 'error') return Readable.from([fault(storedFiles.get(id)!)]);
				const failing = async function* () {
					yield storedFiles.get(id)!.subarray(0, STREAM_CHUNK);
					throw Object.assign(new Error('read error'), { code: 'EIO' });
				};
				return Readable.from(failing(), { objectMode: false });
			};
			const out = await output();
			expect(uploads).toHaveLength(0);
			for (const { json } of out) {
				expect(json).toMatchObject({ status: 'unknown', mayHaveBeenDelivered: true });
				// The answer table's connectionLost row: part of the request left, no answer came.
				expect(String(json.error)).toMatch(/^Outcome unknown/);
				expect(String(json.description)).toContain('ERR_TICKET_FILE_FAILED');
				expect(String(json.error)).toContain('(a ticket file failed while it was sent)');
			}
		},
	);

	it('a first file gone when its upload goes: nothing sent, not delivered, sent by the next run', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		const uploads = acceptUploads();
		const items = listing();
		const first = run(items, { continueOnFail: true, deduplication: store });
		first.fake.context.helpers.getBinaryStream = async () => {
			throw Object.assign(new Error('File not found'), { code: 'ENOENT' });
		};
		const out = await first.output();
		expect(uploads).toHaveLength(0);
		expect(out[0].json).toMatchObject({ status: 'failed', mayHaveBeenDelivered: false });
		expect(String(out[0].json.error)).toMatch(/ticket file could not be read/);
		const again = await run(items, { deduplication: store }).output();
		expect(uploads).toHaveLength(1);
		expect(again.map((item) => item.json.status)).toEqual(['delivered', 'delivered', 'delivered']);
	});
});
