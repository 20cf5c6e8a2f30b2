/**
 * Pre-Deliver Tickets, Webhook → Subscribe and the Ticket Marketplace Trigger, attacked through odd API answers,
 * hostile callers of the trigger's URLs and unlucky runs: nothing delivered or subscribed twice or lost, no execution
 * or token for a stranger, no secret shown.
 */
import nock from 'nock';
import type { IDataObject, INodeExecutionData, NodeApiError } from 'n8n-workflow';

import { issueAccessToken } from '../../../nodes/TicketMarketplaceTrigger/accessToken';
import { execute as subscribe } from '../../../nodes/TicketMarketplace/actions/webhook/subscribe/execute';
import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';
import {
	BASE,
	CALLBACK_CREDENTIALS,
	fakeRun,
	MemoryDeduplicationStore,
	type ParameterValue,
} from '../../../support/fakeN8n/actionContext';
import { fileItem, pdfBytes } from '../../../support/fakeN8n/binaryItems';
import { expectNoExecution, runRecorded } from '../../../support/fakeN8n/recordingResponse';
import {
	TEST_TRIGGER,
	TRIGGER_LOG,
	type TriggerRequest,
	type TriggerSetup,
} from '../../../support/fakeN8n/triggerContext';
import { grantTokens } from '../../../support/partnerApiNock';
import { acceptUploads, productsOf, run } from '../../../support/preDeliverRuns';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const seated = (row: string, seat: string, listing = '9001', label = `${row}${seat}`) =>
	fileItem({ listing, row, seat }, pdfBytes(label), `${row}${seat}.pdf`);
const statuses = (out: INodeExecutionData[]) => out.map((item) => item.json.status);

describe('Pre-Deliver on a 200 that reports its failure', () => {
	// Docs: "delivered" needs an answer "reporting no error anywhere in it"; these answers report one in plain words.
	it.each([
		['result: FAILED', { result: 'FAILED', reason: 'PDF could not be read' }],
		['ok: false', { ok: false, message: 'upload rejected' }],
		['status: INVALID', { status: 'INVALID', message: 'PDF does not match the ticket' }],
		['a product NOT_DELIVERED', { products: [{ row: 'A', seat: '1', status: 'NOT_DELIVERED' }] }],
		['delivered: false', { delivered: false, reason: 'PDF unreadable' }],
		['rejected files', { rejected: ['file1.pdf'], accepted: [] }],
		['failedFiles', { uploaded: [], failedFiles: ['file1.pdf'] }],
		['a message only', { message: 'Upload failed: file1.pdf is not a valid ticket PDF' }],
		['a product delivered: false', { products: [{ row: 'A', seat: '1', delivered: false }] }],
		['a product named by its part', { products: [{ name: 'file1.pdf', status: 'NOT_DELIVERED' }] }],
	])('%s is not delivered, and so not skipped forever by the next run', async (_name, answer) => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-b1', 2);
		acceptUploads(200, answer, undefined, 1);
		const first = await run([seated('A', '1')], {
			continueOnFail: true,
			deduplication: store,
		}).output();
		const again = acceptUploads();
		const rerun = await run([seated('A', '1')], {
			continueOnFail: true,
			deduplication: store,
		}).output();
		// Not "delivered" then "skipped": the PDF would never be delivered, nor tried again.
		expect({ first: first[0].json.status, rerun: rerun[0].json.status }).toEqual({
			first: 'unknown',
			rerun: 'unknown',
		});
		expect(again).toHaveLength(0);
	});
});

const SUBSCRIBE_PARAMETERS = {
	callbackUrl: 'https://n8n.example.test/webhook/abc/notifications',
	callbackAuthUrl: 'https://n8n.example.test/webhook/abc/token',
	subscriptionKinds: ['listing_sale'],
	options: {},
};

/** Subscribe over `count` items; each subscription POST answered with the next of `answers`. */
async function runSubscribe(
	count: number,
	answers: Array<[number, IDataObject | string]>,
	continueOnFail = false,
	kinds: ParameterValue = ['listing_sale'],
) {
	nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: 'tok-sub' });
	const posted: unknown[] = [];
	const scope = nock(BASE);
	for (const [status, body] of answers)
		scope.post(PARTNER_API_PATHS.webhooks).reply((_path, requestBody) => {
			posted.push(requestBody);
			return [status, body, { 'Content-Type': 'application/json' }];
		});
	const items = Array.from({ length: count }, () => ({ json: {} }));
	const fake = fakeRun({
		parameters: { ...SUBSCRIBE_PARAMETERS, subscriptionKinds: kinds },
		items,
		continueOnFail,
		callbackCredentials: CALLBACK_CREDENTIALS,
	});
	const result = await subscribe.call(fake.context, items).then(
		(output) => ({ output, error: undefined }),
		(error: unknown) => ({ output: undefined, error: error as NodeApiError }),
	);
	return { ...result, posted };
}

describe('Subscribe with the same subscription twice', () => {
	// An upstream node handing on two items (a sheet of two rows, a Merge) runs Subscribe twice with the same URLs:
	// two subscriptions, each needing its own activation, that cannot be undone.
	it('two items with the same URLs and credential send one subscription', async () => {
		const { posted, output } = await runSubscribe(2, [
			[201, { id: 'sub-1' }],
			[201, { id: 'sub-2' }],
		]);
		expect({ posted: posted.length, ids: output?.map((item) => item.json.subscriptionId) }).toEqual(
			{ posted: 1, ids: ['sub-1', 'sub-1'] },
		);
		expect(output?.map((item) => item.json.sameSubscriptionAsItem)).toEqual([undefined, 1]);
	});

	// With Continue On Fail the second, identical item goes out although the first may have been taken.
	it('after an outcome-unknown answer, the same subscription is not sent again for the next item', async () => {
		const { posted } = await runSubscribe(
			2,
			[
				[500, { code: 'inventory.listings.systemError', description: 'x' }],
				[201, { id: 'sub-2' }],
			],
			true,
		);
		expect(posted).toHaveLength(1);
	});
});

describe('Subscribe: one subscription per ask', () => {
	// Same URLs, same credential, same kinds in another order (a sheet's column, a Merge): the marketplace then
	// sends each sale twice and both need activating.
	it('the same kinds in another order are one subscription', async () => {
		const { posted } = await runSubscribe(
			2,
			[
				[201, { id: 'sub-1' }],
				[201, { id: 'sub-2' }],
			],
			false,
			(itemIndex: number) =>
				itemIndex === 0 ? ['listing_sale', 'listing_update'] : ['listing_update', 'listing_sale'],
		);
		expect(posted).toHaveLength(1);
	});

	it('different kinds are two subscriptions, each with its own identifier', async () => {
		const { posted, output } = await runSubscribe(
			2,
			[
				[201, { id: 'sub-1' }],
				[201, { id: 'sub-2' }],
			],
			false,
			(itemIndex: number) => (itemIndex === 0 ? ['listing_sale'] : ['listing_update']),
		);
		expect({
			posted: posted.length,
			ids: output?.map((item) => item.json.subscriptionId),
			same: output?.map((item) => item.json.sameSubscriptionAsItem),
		}).toEqual({ posted: 2, ids: ['sub-1', 'sub-2'], same: [undefined, undefined] });
	});

	it('with Continue On Fail, a refused first leaves both items failed, one request sent', async () => {
		const { posted, output } = await runSubscribe(
			2,
			[
				[400, { code: 'partner.webhooks.invalidUrl', description: 'Invalid callback URL' }],
				[201, { id: 'sub-2' }],
			],
			true,
		);
		expect({
			posted: posted.length,
			errors: output?.map((item) => typeof item.json.error),
		}).toEqual({ posted: 1, errors: ['string', 'string'] });
	});
});

describe('Subscribe after a 503 from the webhook service itself', () => {
	// The service's own error document reached the service: not the gateway's "not handled", so not sent again.
	it("a 503 with the service's error document (code and description) is outcome unknown, sent once", async () => {
		const { posted, error } = await runSubscribe(1, [
			[503, { code: 'partner.webhooks.systemError', description: 'System error' }],
			[201, { id: 'sub-2' }],
		]);
		expect({
			posted: posted.length,
			unknown: /may or may not/.test(String(error?.description)),
		}).toEqual({ posted: 1, unknown: true });
	});
});

const subject = {
	audience: TEST_TRIGGER.webhookId,
	clientId: TEST_TRIGGER.clientId,
	clientSecret: TEST_TRIGGER.clientSecret,
};
const nowSeconds = () => Math.floor(Date.now() / 1000);
const SALE = { eventType: 'listing_sale', listingId: 1 };
const notification = (
	authorization: string,
	extra: Record<string, string> = {},
): TriggerRequest => ({
	headers: { authorization, 'content-type': 'application/json', ...extra },
	body: SALE,
});
const basic = (id: string, secret: string) =>
	`Basic ${Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')}`;
/** Each setup its own credential id: the trigger reuses a credential read per id for a few seconds. */
let setupCount = 0;
const freshSetup = (over: Partial<TriggerSetup> = {}): TriggerSetup => ({
	...TEST_TRIGGER.setup,
	credentialId: `hostileB-${++setupCount}`,
	...over,
});

function resign(token: string, claims: Record<string, unknown>): string {
	const [version, , signature] = token.split('.');
	return `${version}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}

describe('the trigger starts nothing and issues nothing without valid credentials or token', () => {
	it.each([
		['no token', 'Bearer'],
		['a stranger string', 'Bearer abc.def.ghi'],
		['another trigger', `Bearer ${issueAccessToken({ ...subject, audience: 'other' }, 600)}`],
		[
			'another client id under the same secret',
			`Bearer ${issueAccessToken({ ...subject, clientId: 'someone-else' }, 600)}`,
		],
		[
			'signed under another secret',
			`Bearer ${issueAccessToken({ ...subject, clientSecret: 'a-guessed-secret-0000' }, 600)}`,
		],
		[
			'claims rewritten to live longer',
			`Bearer ${resign(issueAccessToken(subject, 60, nowSeconds() - 120), {
				aud: subject.audience,
				cid: subject.clientId,
				iat: nowSeconds(),
				exp: nowSeconds() + 86400,
			})}`,
		],
		['expired', `Bearer ${issueAccessToken(subject, 60, nowSeconds() - 61)}`],
		['Basic client credentials', basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret)],
	])('notification with %s: 401, no execution', async (_name, authorization) => {
		const { result, response } = await runRecorded(
			freshSetup(),
			'default',
			notification(authorization),
		);
		expectNoExecution(result, response);
		expect(response.status).toBe(401);
	});

	it('a forged token after a genuine one (the read reused) is still refused', async () => {
		const setup = freshSetup();
		const good = await runRecorded(
			setup,
			'default',
			notification(`Bearer ${issueAccessToken(subject, 600)}`),
		);
		expect(good.result.workflowData).toBeDefined();
		const forged = issueAccessToken({ ...subject, clientSecret: 'x'.repeat(20) }, 600);
		const { result, response } = await runRecorded(
			setup,
			'default',
			notification(`Bearer ${forged}`),
		);
		expectNoExecution(result, response);
		expect(response.status).toBe(401);
	});

	it.each([
		[
			'a wrong secret',
			{ authorization: basic(TEST_TRIGGER.clientId, 'wrong-secret-wrong-secret') },
			{},
		],
		['a wrong client id', { authorization: basic('intruder', TEST_TRIGGER.clientSecret) }, {}],
		['no client at all', {}, {}],
		[
			'the secret in the URL',
			{},
			{ client_id: TEST_TRIGGER.clientId, client_secret: TEST_TRIGGER.clientSecret },
		],
	])('token request with %s: no token', async (_name, headers, query) => {
		const { result, response } = await runRecorded(freshSetup(), 'setup', {
			headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
			body: { grant_type: 'client_credentials' },
			query,
		});
		expectNoExecution(result, response);
		expect(response.status).toBeGreaterThanOrEqual(400);
		expect(response.text).not.toContain('access_token');
	});

	it('a token issued before the secret changed is refused once the credential is read again', async () => {
		const old = issueAccessToken(subject, 600);
		const rotated = freshSetup({
			credentials: { clientId: TEST_TRIGGER.clientId, clientSecret: 'a brand new secret 1234' },
		});
		const { result, response } = await runRecorded(
			rotated,
			'default',
			notification(`Bearer ${old}`),
		);
		expectNoExecution(result, response);
		expect(response.status).toBe(401);
	});
});

describe('the trigger leaks no secret', () => {
	it('answers, items and logs never hold the client secret or the token', async () => {
		TRIGGER_LOG.length = 0;
		const token = issueAccessToken(subject, 600);
		const setup = freshSetup({ parameters: { options: { includeHeaders: true } } });
		const texts: string[] = [];
		const tokenAnswer = await runRecorded(setup, 'setup', {
			headers: {
				'content-type': 'application/json',
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
			},
			body: { grant_type: 'client_credentials' },
		});
		const issued = String(tokenAnswer.response.json.access_token);
		expect(issued).toMatch(/^tmt1\./);
		for (const authorization of [`Bearer ${token}`, `Bearer ${issued}`, 'Bearer tmt1.x.y']) {
			const { result, response } = await runRecorded(setup, 'default', notification(authorization));
			texts.push(JSON.stringify(result.workflowData ?? null), response.text ?? '');
		}
		// The two genuine tokens started the workflow, with the request's headers on the item.
		expect(texts.filter((text) => text.includes('"headers"'))).toHaveLength(2);
		// A bad configuration: the secret too short; the owner is told, the caller learns nothing.
		const short = freshSetup({ credentials: { clientId: 'c', clientSecret: 'short-secret' } });
		const refused = await runRecorded(short, 'setup', {
			headers: { 'content-type': 'application/json', authorization: basic('c', 'short-secret') },
			body: { grant_type: 'client_credentials' },
		});
		texts.push(refused.response.text ?? '', JSON.stringify(TRIGGER_LOG));
		const all = texts.join('\n');
		for (const secret of [TEST_TRIGGER.clientSecret, 'short-secret', token, issued])
			expect(all).not.toContain(secret);
	});
});

describe('Pre-Deliver sends each file under its own seat', () => {
	it('two listings interleaved, a 401 re-send: every part holds the PDF of the seat it is named for', async () => {
		grantTokens('tok-b4');
		nock(BASE).post('/sellers/listings/pdf/v3/L1').reply(401, { code: 'invalid_access_token' });
		const uploads = acceptUploads(200, { ok: true }, undefined, 2);
		const items = [
			seated('A', '1', 'L1', 'alpha-one'),
			seated('B', '7', 'L2', 'bravo-seven'),
			seated('A', '2', 'L1', 'alpha-two'),
		];
		const out = await run(items, { accessToken: 'tok-old' }).output();
		expect(statuses(out)).toEqual(['delivered', 'delivered', 'delivered']);
		expect(nock.pendingMocks()).toEqual([]);
		const byPath = new Map(uploads.map((upload) => [upload.path, upload]));
		const expected: Record<string, Array<[string, string, string]>> = {
			'/sellers/listings/pdf/v3/L1': [
				['A', '1', 'alpha-one'],
				['A', '2', 'alpha-two'],
			],
			'/sellers/listings/pdf/v3/L2': [['B', '7', 'bravo-seven']],
		};
		for (const [path, seats] of Object.entries(expected)) {
			const upload = byPath.get(path)!;
			const products = productsOf(upload);
			expect(products.map((p) => [p.row, p.seat])).toEqual(seats.map(([r, s]) => [r, s]));
			for (const [index, product] of products.entries()) {
				const part = new RegExp(
					`name="${String(product.name)}"[^\\r]*\\r\\nContent-Type: application/pdf\\r\\n\\r\\n([\\s\\S]*?)\\r\\n--`,
				).exec(upload.body);
				expect(part?.[1]).toBe(pdfBytes(seats[index][2]).toString('latin1'));
			}
		}
	});

	it('a 500 is not sent again, in the run or the next', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-b5', 2);
		const first = acceptUploads(500, { code: 'inventory.listings.systemError', description: 'x' });
		const out = await run([seated('A', '1')], {
			continueOnFail: true,
			deduplication: store,
		}).output();
		const rerun = await run([seated('A', '1')], {
			continueOnFail: true,
			deduplication: store,
		}).output();
		expect({ sent: first.length, out: out[0].json.status, rerun: rerun[0].json.status }).toEqual({
			sent: 1,
			out: 'unknown',
			rerun: 'unknown',
		});
	});
});

describe('Subscribe', () => {
	it('a 500 says the subscription may exist', async () => {
		const { error, posted } = await runSubscribe(1, [
			[500, { code: 'inventory.listings.systemError', description: 'x' }],
		]);
		expect(posted).toHaveLength(1);
		expect(String(error?.description)).toMatch(/may or may not have been created/);
	});

	it('a 409 does not say "not created"', async () => {
		const { error } = await runSubscribe(1, [[409, { description: 'subscription exists' }]]);
		expect(`${error?.message} ${error?.description}`).not.toMatch(/was not created/);
	});

	it('an answer echoing the client secret, plain or in Basic form, shows it nowhere', async () => {
		const { clientId, clientSecret } = CALLBACK_CREDENTIALS;
		const echoed = Buffer.from(`${clientId}:${clientSecret}`).toString('base64');
		const { output } = await runSubscribe(1, [
			[201, { id: 'sub-9', oauthRequest: { clientSecret }, header: `Basic ${echoed}` }],
		]);
		expect(JSON.stringify(output)).not.toContain(clientSecret);
		expect(JSON.stringify(output)).not.toContain(echoed);
	});
});
