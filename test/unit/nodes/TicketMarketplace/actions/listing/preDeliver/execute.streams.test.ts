/**
 * Pre-deliver's streamed uploads under a stale token held, a 429 and a 413: each send carries its exact
 * Content-Length, a re-send the same bytes, and no file is left open whatever the answer.
 */
import type { Readable } from 'node:stream';
import nock from 'nock';
import type { INodeExecutionData } from 'n8n-workflow';

import { BASE } from '../../../../../../../support/fakeN8n/actionContext';
import { fileItem, pdfBytes, storedStream } from '../../../../../../../support/fakeN8n/binaryItems';
import { issueTokens } from '../../../../../../../support/partnerApiNock';
import { BY_MARKETPLACE_ID, run } from '../../../../../../../support/preDeliverRuns';

interface Arrival {
	path: string;
	token: string;
	length: string;
	body: Buffer;
}

/** `n` listings of `k` files each. */
function listings(n: number, k: number, mode: 'memory' | 'filesystem' = 'filesystem') {
	const items: INodeExecutionData[] = [];
	for (let l = 0; l < n; l++)
		for (let s = 0; s < k; s++)
			items.push(
				fileItem(
					{ listing: String(9000 + l), row: 'E', seat: String(s) },
					pdfBytes(`L${l}S${s}`.repeat(10)),
					`f${l}-${s}.pdf`,
					'data',
					mode,
				),
			);
	return items;
}

function api(
	answer: (a: Arrival, valid: boolean, n: number) => [number, unknown, Record<string, string>?],
	delay = 20,
) {
	const valid = new Set<string>();
	const arrivals: Arrival[] = [];
	const exchanges = issueTokens(valid);
	nock(BASE)
		.persist()
		.post(/^\/sellers\/listings\/pdf\/v3\//)
		.reply(function (path, body, cb) {
			const a = {
				path,
				token: String(this.req.headers.authorization).replace(/^Bearer /, ''),
				length: String(this.req.headers['content-length']),
				body: Buffer.from(String(body), 'hex'),
			};
			arrivals.push(a);
			const r = answer(a, valid.has(a.token), arrivals.length);
			setTimeout(() => cb(null, r as never), delay);
		});
	return { arrivals, grants: () => exchanges.grants };
}

function tracked(
	fake: ReturnType<typeof run>['fake'],
	items: INodeExecutionData[],
	fail?: (id: string, nth: number) => Error | undefined,
) {
	const streams: Readable[] = [];
	const opens = new Map<string, number>();
	fake.context.helpers.getBinaryStream = async (id: string) => {
		const nth = (opens.get(id) ?? 0) + 1;
		opens.set(id, nth);
		const err = fail?.(id, nth);
		if (err) throw err;
		const s = storedStream(id);
		streams.push(s);
		return s;
	};
	return {
		streams,
		open: () => streams.filter((s) => !s.destroyed).length,
		ids: items.map((i) => i.binary!.data.id!),
	};
}

const params = (concurrency: number) => ({
	...BY_MARKETPLACE_ID,
	options: { concurrencyMode: 'fixed', concurrency },
});

afterEach(() => nock.cleanAll());

describe('Pre-deliver: streamed uploads under faults', () => {
	it('stale held token, 3 listings x 3 files at once: one login, each delivered once, resend bytes equal, lengths exact, no handle open', async () => {
		const items = listings(3, 3);
		const a = api((_a, ok) => (ok ? [200, { ok: true }] : [401, { code: 'invalid_access_token' }]));
		const r = run(items, { accessToken: 'stale', continueOnFail: true }, params(3));
		const t = tracked(r.fake, items);
		const out = await r.output();
		expect(a.grants()).toBe(1);
		expect(out.map((i) => i.json.status)).toEqual(Array(9).fill('delivered'));
		for (const x of a.arrivals) expect(x.length).toBe(String(x.body.length));
		const byPath = new Map<string, Buffer[]>();
		for (const x of a.arrivals) byPath.set(x.path, [...(byPath.get(x.path) ?? []), x.body]);
		for (const [, bodies] of byPath) {
			expect(bodies).toHaveLength(2);
			expect(bodies[0].equals(bodies[1])).toBe(true);
		}
		expect(a.arrivals.filter((x) => x.token === 'tok-1')).toHaveLength(3);
		expect(t.open()).toBe(0);
	});

	it('429 then 200: same bytes again, no handle open', async () => {
		const items = listings(1, 3);
		const a = api((_a, _ok, n) =>
			n === 1 ? [429, { message: 'Too many' }, { 'Retry-After': '0' }] : [200, { ok: true }],
		);
		const r = run(items, { accessToken: '', continueOnFail: true }, params(1));
		const t = tracked(r.fake, items);
		const out = await r.output();
		expect(out.map((i) => i.json.status)).toEqual(['delivered', 'delivered', 'delivered']);
		expect(a.arrivals).toHaveLength(2);
		expect(a.arrivals[0].body.equals(a.arrivals[1].body)).toBe(true);
		expect(a.arrivals[1].length).toBe(String(a.arrivals[1].body.length));
		expect(t.open()).toBe(0);
	});

	it.each([
		[
			'apigee',
			{
				fault: {
					faultstring: 'Body buffer overflow',
					detail: { errorcode: 'protocol.http.TooBigBody' },
				},
			},
			{ 'Content-Type': 'application/json' },
		],
		[
			'html',
			'<html><body><h1>413 Request Entity Too Large</h1></body></html>',
			{ 'Content-Type': 'text/html' },
		],
		['empty', '', {}],
	] as Array<[string, unknown, Record<string, string>]>)(
		'413 %s: failed, not delivered, sent once, no handle open',
		async (_case, body, headers) => {
			const items = listings(2, 2);
			const a = api(() => [413, body, headers]);
			const r = run(items, { accessToken: 'good', continueOnFail: true }, params(2));
			const t = tracked(r.fake, items);
			const out = await r.output();
			expect(a.arrivals).toHaveLength(2);
			for (const i of out)
				expect(i.json).toMatchObject({ status: 'failed', mayHaveBeenDelivered: false });
			expect(t.open()).toBe(0);
		},
	);
});
