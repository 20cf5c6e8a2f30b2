/**
 * Listing → Pre-deliver Tickets under a hostile API and an unlucky user: each test asserts what the docs and the
 * README promise, through the real execute(), n8n-core's real request helpers and nock.
 */
import nock from 'nock';
import type { INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/preDeliver.operation';
import {
	BASE,
	fakeRun,
	MemoryDeduplicationStore,
} from '../../../../../../../support/fakeN8n/actionContext';
import type { FakeRunOptions } from '../../../../../../../support/fakeN8n/actionContext';
import {
	fileItem,
	pdfBytes,
	withBinaryHelpers,
} from '../../../../../../../support/fakeN8n/binaryItems';
import { grantTokens } from '../../../../../../../support/partnerApiNock';
import { BY_MARKETPLACE_ID } from '../../../../../../../support/preDeliverRuns';

interface Upload {
	path: string;
	contentType: string;
	authorization: string;
	body: Buffer;
}

/** Records every request to `origin` (any method, any path) and answers it with `status` and `answer`. */
function recordAll(
	origin: string,
	status: number,
	answer: unknown,
	headers: Record<string, string> = { 'Content-Type': 'application/json' },
	times = 10,
): Upload[] {
	const uploads: Upload[] = [];
	nock(origin)
		.intercept(/.*/, 'POST')
		.times(times)
		.reply(function (path, body) {
			uploads.push({
				path,
				contentType: String(this.req.headers['content-type']),
				authorization: String(this.req.headers.authorization),
				// nock hands a body that is not UTF-8 over as hex (see pdfBytes).
				body: Buffer.from(String(body), 'hex'),
			});
			return [status, answer as nock.Body, headers];
		});
	return uploads;
}

const uploadsAnswered = (status = 200, answer: unknown = { ok: true }, times = 10) =>
	recordAll(BASE, status, answer, { 'Content-Type': 'application/json' }, times);

function run(items: INodeExecutionData[], options: Partial<FakeRunOptions> = {}) {
	const fake = fakeRun({ parameters: BY_MARKETPLACE_ID, items, ...options });
	const reads = withBinaryHelpers(fake.context, items);
	return { fake, reads, output: async () => await execute.call(fake.context, items) };
}

const E151 = pdfBytes('E151');
const E152 = pdfBytes('E152');

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('Pre-deliver review: the Listing ID in the address', () => {
	it.each(['..', '.'])(
		'refuses the Listing ID %j before sending: it would post to another address',
		async (listingId) => {
			grantTokens('tok-pdf');
			const uploads = uploadsAnswered();
			const items = [fileItem({ listing: listingId, row: 'E', seat: '151' }, E151, 'e.pdf')];
			await expect(run(items).output()).rejects.toThrow(/Item 1/);
			expect(uploads.map((u) => u.path)).toEqual([]);
		},
	);

	it('sends a Listing ID with / ? # and spaces as one encoded path segment', async () => {
		grantTokens('tok-pdf');
		const uploads = uploadsAnswered();
		const items = [fileItem({ listing: 'a/b?c#d e', row: 'E', seat: '151' }, E151, 'e.pdf')];
		await run(items).output();
		expect(uploads.map((u) => u.path)).toEqual(['/sellers/listings/pdf/v3/a%2Fb%3Fc%23d%20e']);
	});
});

describe('Pre-deliver review: what the answer proves', () => {
	it.each([
		[
			"the service's own error shape",
			{ code: 'inventory.listings.systemError', description: 'System error' },
		],
		[
			"the gateway's fault",
			{
				fault: {
					faultstring: 'Access Token expired',
					detail: { errorcode: 'keymanagement.service.access_token_expired' },
				},
			},
		],
	])('a 200 carrying %s does not say "delivered"', async (_name, answer) => {
		grantTokens('tok-pdf');
		uploadsAnswered(200, answer);
		const items = [fileItem({ listing: '9001', row: 'E', seat: '151' }, E151, 'e.pdf')];
		const out = await run(items, { continueOnFail: true }).output();
		expect(out[0].json.status).not.toBe('delivered');
		expect(out[0].json.mayHaveBeenDelivered).toBe(true);
	});

	it('never passes the token on, even when a 200 echoes the request headers', async () => {
		grantTokens('tok-secret-123');
		uploadsAnswered(200, { received: { authorization: 'Bearer tok-secret-123' } });
		const items = [fileItem({ listing: '9001', row: 'E', seat: '151' }, E151, 'e.pdf')];
		const out = await run(items).output();
		expect(JSON.stringify(out)).not.toContain('tok-secret-123');
	});
});

describe('Pre-deliver review: faults on the way', () => {
	it('after a 401 sends the same bytes again, to the Base URL only', async () => {
		grantTokens('tok-new');
		const refused = recordAll(BASE, 401, { code: 'invalid_access_token' }, undefined, 1);
		const uploads = uploadsAnswered();
		const items = [
			fileItem({ listing: '9001', row: 'E', seat: '151' }, E151, 'e151.pdf'),
			fileItem({ listing: '9001', row: 'E', seat: '152' }, E152, 'e152.pdf'),
		];
		const out = await run(items, { accessToken: 'tok-old' }).output();
		expect([refused, uploads].map((list) => list.map((u) => u.authorization))).toEqual([
			['Bearer tok-old'],
			['Bearer tok-new'],
		]);
		expect(uploads[0].contentType).toBe(refused[0].contentType);
		expect(uploads[0].body.equals(refused[0].body)).toBe(true);
		expect(out.map((item) => item.json.status)).toEqual(['delivered', 'delivered']);
	});

	it.each([
		['a 500 on the first send', 500, ''],
		['a 502 on the first send', 502, ''],
		['a 500 after a 401', 500, 'tok-old'],
	])(
		'%s: the upload went, its outcome is unknown, and it is sent once only',
		async (_n, status, token) => {
			grantTokens('tok-new');
			const refused = token
				? recordAll(BASE, 401, { code: 'invalid_access_token' }, undefined, 1)
				: [];
			const uploads = uploadsAnswered(status, {
				code: 'inventory.listings.systemError',
				description: 'System error',
			});
			const items = [fileItem({ listing: '9001', row: 'E', seat: '151' }, E151, 'e151.pdf')];
			const out = await run(items, { accessToken: token, continueOnFail: true }).output();
			expect([refused.length, uploads.length]).toEqual([token ? 1 : 0, 1]);
			expect(out[0].json).toMatchObject({ status: 'unknown', mayHaveBeenDelivered: true });
		},
	);

	it("a spike arrest (Apigee's 500) sent nothing: the same bytes go again and are delivered", async () => {
		grantTokens('tok-pdf');
		const spike = {
			fault: {
				faultstring: 'Spike arrest violation. Allowed rate : 50ps',
				detail: { errorcode: 'policies.ratelimit.SpikeArrestViolation' },
			},
		};
		const refused = recordAll(BASE, 500, spike, undefined, 1);
		const uploads = uploadsAnswered();
		const items = [fileItem({ listing: '9001', row: 'E', seat: '151' }, E151, 'e151.pdf')];
		const out = await run(items).output();
		expect(uploads[0].body.equals(refused[0].body)).toBe(true);
		expect(out[0].json.status).toBe('delivered');
	});

	it('does not follow a 307 with the files and the token to another host', async () => {
		grantTokens('tok-pdf');
		const elsewhere = recordAll('https://elsewhere.test', 200, { ok: true });
		recordAll(BASE, 307, '', { Location: 'https://elsewhere.test/steal' }, 1);
		const items = [fileItem({ listing: '9001', row: 'E', seat: '151' }, E151, 'e.pdf')];
		const out = await run(items, { continueOnFail: true }).output();
		expect(elsewhere).toEqual([]);
		expect(out[0].json.status).not.toBe('delivered');
	});

	it('a file that cannot be read when its upload goes is not sent, and stops no other listing', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		const uploads = uploadsAnswered();
		const items = [
			fileItem({ listing: '9001', row: 'E', seat: '151' }, E151, 'e151.pdf'),
			fileItem({ listing: '9002', row: 'E', seat: '152' }, E152, 'e152.pdf'),
		];
		const first = run(items, { continueOnFail: true, deduplication: store });
		const read = first.fake.context.helpers.getBinaryDataBuffer;
		let reads = 0;
		// Each file is read to check it; then the binary data store fails on the first upload's read.
		first.fake.context.helpers.getBinaryDataBuffer = async (...args) => {
			if (++reads === 3)
				throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
			return await read(...args);
		};
		const out = await first.output();
		expect(uploads.map((u) => u.path)).toEqual(['/sellers/listings/pdf/v3/9002']);
		expect(out.map((item) => item.json.status)).toEqual(['failed', 'delivered']);
		expect(out[0].json.mayHaveBeenDelivered).toBe(false);
		// It says what failed (the file, not the address) and what to do.
		expect(out[0].json.error).toMatch(/ticket file could not be read/);
		expect(out[0].json.description).toMatch(/binary data/);
		expect(out[0].json.description).not.toMatch(/Base URL/);
		// Nothing of it was sent, so the next run sends it.
		await run(items, { deduplication: store }).output();
		expect(uploads.map((u) => u.path)).toEqual([
			'/sellers/listings/pdf/v3/9002',
			'/sellers/listings/pdf/v3/9001',
		]);
	});
});

describe('Pre-deliver review: one listing over several runs', () => {
	it('uploads a ticket of a listing delivered before when that ticket was not in it', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		const uploads = uploadsAnswered();
		await run([fileItem({ listing: '9001', row: 'E', seat: '151' }, E151, 'e151.pdf')], {
			deduplication: store,
		}).output();
		const later = [fileItem({ listing: '9001', row: 'E', seat: '152' }, E152, 'e152.pdf')];
		const out = await run(later, { deduplication: store }).output();
		expect(uploads).toHaveLength(2);
		expect(String(uploads[1].body)).toContain('"seat":"152"');
		expect(out[0].json.status).toBe('delivered');
	});

	it('still skips the same tickets of a listing delivered before', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		const uploads = uploadsAnswered();
		const items = () => [
			fileItem({ listing: '9001', row: 'E', seat: '151' }, E151, 'e151.pdf'),
			fileItem({ listing: '9001', row: 'E', seat: '152' }, E152, 'e152.pdf'),
		];
		await run(items(), { deduplication: store }).output();
		const again = await run(items().reverse(), { deduplication: store }).output();
		expect(uploads).toHaveLength(1);
		expect(again.map((item) => item.json.status)).toEqual(['skipped', 'skipped']);
	});
});

describe('Pre-deliver review: Stop', () => {
	it('Stop during an upload: its outcome is unknown, the next listing is not sent, and a re-run sends that one only', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 2);
		const stop = new AbortController();
		const paths: string[] = [];
		nock(BASE)
			.post(/^\/sellers\/listings\/pdf\/v3\//)
			.times(3)
			.reply((path) => {
				paths.push(path);
				stop.abort();
				return [200, { ok: true }, { 'Content-Type': 'application/json' }];
			});
		const items = [
			fileItem({ listing: '9001', row: 'E', seat: '151' }, E151, 'e151.pdf'),
			fileItem({ listing: '9002', row: 'E', seat: '152' }, E152, 'e152.pdf'),
		];
		const stopped = { deduplication: store, cancelSignal: stop.signal, continueOnFail: true };
		const out = await run(items, stopped).output();
		// n8n ends the request in flight on Stop: the files may have arrived.
		expect(out.map((item) => item.json.status)).toEqual(['unknown', 'notSent']);
		const again = await run(items, { deduplication: store }).output();
		expect(paths).toEqual(['/sellers/listings/pdf/v3/9001', '/sellers/listings/pdf/v3/9002']);
		expect(again.map((item) => item.json.status)).toEqual(['unknown', 'delivered']);
		expect(again[0].json.message).toMatch(/did not learn whether/);
	});
});

describe('Pre-deliver review: the seats given', () => {
	it('takes two GA tickets whose row and seat say GA, as the service names them, without General Admission', async () => {
		grantTokens('tok-pdf');
		const uploads = uploadsAnswered();
		const items = [
			fileItem({ listing: '9001', row: 'GA', seat: 'GA' }, E151, 'ga1.pdf'),
			fileItem({ listing: '9001', row: 'GA', seat: 'GA' }, E152, 'ga2.pdf'),
		];
		const out = await run(items).output();
		expect(uploads).toHaveLength(1);
		expect(out.map((item) => item.json.status)).toEqual(['delivered', 'delivered']);
	});
});

describe('Pre-deliver review: the multipart body (RFC 7578)', () => {
	it('keeps quotes, CRLF and non-ASCII of file names, rows and seats out of the part headers', async () => {
		grantTokens('tok-pdf');
		const uploads = uploadsAnswered();
		const nasty = 'x"\r\nContent-Type: text/html\r\n\r\n--';
		const items = [
			fileItem({ listing: '9001', row: `Ré${nasty}`, seat: '1' }, E151, `${nasty}.pdf`),
		];
		const out = await run(items).output();
		const { contentType, body } = uploads[0];
		const boundary = /boundary=(\S+)$/.exec(contentType)![1];
		const parts = body.toString('latin1').split(`--${boundary}`);
		// A preamble, the listing part, the file part, and the closing "--\r\n": nothing more.
		expect(parts).toHaveLength(4);
		const heads = parts.slice(1, 3).map((part) => part.slice(0, part.indexOf('\r\n\r\n')));
		expect(heads).toEqual([
			'\r\nContent-Disposition: form-data; name="listing"\r\nContent-Type: application/json',
			'\r\nContent-Disposition: form-data; name="file1.pdf"; filename="file1.pdf"\r\nContent-Type: application/pdf',
		]);
		const json = body.subarray(body.indexOf('{'), body.indexOf(`\r\n--${boundary}`));
		expect(JSON.parse(json.toString('utf8')).products[0].row).toBe(`Ré${nasty}`.trim());
		expect(out[0].json.fileName).toBe(`${nasty}.pdf`);
	});
});
