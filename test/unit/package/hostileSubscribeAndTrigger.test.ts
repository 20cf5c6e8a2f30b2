/**
 * Webhook → Subscribe, the Ticket Marketplace Trigger and redaction against hostile answers and callers: each test
 * quotes the promise it checks; the last block keeps attacks that held.
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
} from '../../../support/fakeN8n/actionContext';
import { fileItem, pdfBytes, storedFiles } from '../../../support/fakeN8n/binaryItems';
import { expectNoExecution, runRecorded } from '../../../support/fakeN8n/recordingResponse';
import {
	TEST_TRIGGER,
	type TriggerRequest,
	type TriggerSetup,
} from '../../../support/fakeN8n/triggerContext';
import { grantTokens } from '../../../support/partnerApiNock';
import { acceptUploads, BY_EXTERNAL_ID, createSeven, run } from '../../../support/preDeliverRuns';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const seated = (
	row: string,
	seat: string,
	listing = '9001',
	mode: 'memory' | 'filesystem' = 'memory',
) => fileItem({ listing, row, seat }, pdfBytes(`${row}${seat}`), `${row}${seat}.pdf`, 'data', mode);
const statuses = (out: INodeExecutionData[]) => out.map((item) => item.json.status);

const SUBSCRIBE_PARAMETERS = {
	callbackUrl: 'https://n8n.example.test/webhook/abc/notifications',
	callbackAuthUrl: 'https://n8n.example.test/webhook/abc/token',
	subscriptionKinds: ['listing_sale'],
	options: {},
};

/** Subscribe over one item; the subscription POST answered by `reply` from the body it was sent. */
async function runSubscribe(reply: (sent: string) => [number, IDataObject | string]) {
	nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: 'tok-sub' });
	nock(BASE)
		.post(PARTNER_API_PATHS.webhooks)
		.reply((_path, body) => {
			const [status, answer] = reply(JSON.stringify(body));
			return [status, answer, { 'Content-Type': 'application/json' }];
		});
	const items = [{ json: {} }];
	const fake = fakeRun({
		parameters: SUBSCRIBE_PARAMETERS,
		items,
		callbackCredentials: CALLBACK_CREDENTIALS,
	});
	return await subscribe.call(fake.context, items).then(
		(output) => ({ output, error: undefined }),
		(error: unknown) => ({ output: undefined, error: error as NodeApiError }),
	);
}

/** Everything a user could read of a run: its output items, or its error's message, description and context. */
const shown = ({ output, error }: Awaited<ReturnType<typeof runSubscribe>>) =>
	JSON.stringify(output ?? null) +
	JSON.stringify(error ? [error.message, error.description, error.context] : null);

describe('redaction', () => {
	// README/docs: "A secret (consumer secret, password, Bearer/refresh token, client secret...)" never in an output
	// item. A Node server that parses its body with express.raw() and echoes `req.body` answers it as
	// {"type":"Buffer","data":[...bytes]}: the subscription body, client secret in it, byte by byte.
	it('a 201 echoing the subscription body as a serialised Node Buffer shows no client secret', async () => {
		const result = await runSubscribe((sent) => [
			201,
			{ id: 'sub-1', received: JSON.parse(JSON.stringify(Buffer.from(sent))) as IDataObject },
		]);
		expect(result.output?.[0].json.subscriptionId).toBe('sub-1');
		const bytes = (result.output?.[0].json.response as { received: { data: number[] } }).received
			.data;
		expect(Buffer.from(bytes).toString('utf8')).not.toContain(CALLBACK_CREDENTIALS.clientSecret);
	});

	// A MIME encoder (Java's getMimeEncoder, Python's encodebytes) wraps base64 at 76 characters: a secret whose
	// base64 crosses a line end is not one run of characters any more.
	it('a 201 echoing the body as line-wrapped base64 shows no client secret', async () => {
		let sentBody = '';
		const result = await runSubscribe((sent) => {
			sentBody = sent;
			const base64 = Buffer.from(sent).toString('base64');
			return [201, { id: 'sub-1', echo: base64.replace(/(.{76})/g, '$1\r\n') }];
		});
		const echo = String((result.output?.[0].json.response as IDataObject).echo);
		const decoded = Buffer.from(echo.replace(/\r\n/g, ''), 'base64').toString('utf8');
		expect(sentBody).toContain(CALLBACK_CREDENTIALS.clientSecret);
		expect(decoded).not.toContain(CALLBACK_CREDENTIALS.clientSecret);
	});

	// The same echo in an answer Subscribe calls outcome unknown (a 202, docs/subscribe.md: "an error, **Outcome
	// unknown**, with the answer"): the error the user reads quotes the answer's start, here the echoed credential.
	it('a 202 echoing the credential as a serialised Node Buffer: the error shows no client secret', async () => {
		const result = await runSubscribe((sent) => {
			const auth = (JSON.parse(sent) as { callback: { auth: IDataObject } }).callback.auth;
			const echoed = Buffer.from(JSON.stringify(auth.oauthRequest));
			return [202, { received: JSON.parse(JSON.stringify(echoed)) as IDataObject }];
		});
		expect(result.error).toBeDefined();
		expect(shown(result)).not.toContain(
			String([...Buffer.from(CALLBACK_CREDENTIALS.clientSecret)]),
		);
	});

	it('a 201 echoing the body in hex shows no client secret', async () => {
		const result = await runSubscribe((sent) => [
			201,
			{ id: 'sub-1', echo: Buffer.from(sent).toString('hex') },
		]);
		expect(shown(result)).not.toContain(
			Buffer.from(CALLBACK_CREDENTIALS.clientSecret).toString('hex'),
		);
	});
});

describe('Subscribe', () => {
	// docs/subscribe.md: a submitted subscription is "a 200 or 201 with a JSON object that reports no error", and
	// anything else "is an error, **Outcome unknown**". These answers say the subscription was not made; called
	// submitted, the item tells the user to e-mail support and wait 24 to 48 hours for a subscription that is not there.
	it.each([
		['subscribed: false', { subscribed: false, reason: 'callback URL did not answer' }],
		['a message only', { message: 'Subscription failed: the token URL refused the client' }],
		['created: false', { created: false, detail: 'duplicate callback' }],
	])('a 201 with %s is not a submitted subscription', async (_name, answer) => {
		const result = await runSubscribe(() => [201, answer]);
		expect(result.error).toBeDefined();
	});
});

describe('Subscribe kinds', () => {
	// docs/subscribe.md: "There is no way to cancel a subscription, so Subscribe checks every item before it sends the
	// first." A kind mapped from an empty cell (null) or an object is sent as the text "null" or "[object Object]", a
	// subscription nobody asked for (Pre-deliver refuses a Listing ID that is an object for this very reason).
	it.each([
		['null', null],
		['an object', { kind: 'listing_sale' }],
	])('a kind that is %s is refused before anything is sent', async (_name, kind) => {
		nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.optionally()
			.reply(200, { access_token: 't' });
		const posted: unknown[] = [];
		nock(BASE)
			.post(PARTNER_API_PATHS.webhooks)
			.optionally()
			.reply((_path, body) => {
				posted.push(body);
				return [201, { id: 'sub-x' }];
			});
		const items = [{ json: {} }];
		const fake = fakeRun({
			parameters: { ...SUBSCRIBE_PARAMETERS, subscriptionKinds: () => ['listing_sale', kind] },
			items,
			callbackCredentials: CALLBACK_CREDENTIALS,
		});
		await subscribe.call(fake.context, items).catch(() => undefined);
		expect(posted).toEqual([]);
	});
});

const subject = {
	audience: TEST_TRIGGER.webhookId,
	clientId: TEST_TRIGGER.clientId,
	clientSecret: TEST_TRIGGER.clientSecret,
};
const notification = (
	authorization: string,
	extra: Record<string, string> = {},
): TriggerRequest => ({
	headers: { authorization, 'content-type': 'application/json', ...extra },
	body: { eventType: 'listing_sale', listingId: 1 },
});
const basic = (id: string, secret: string) =>
	`Basic ${Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')}`;
let setupCount = 0;
const freshSetup = (over: Partial<TriggerSetup> = {}): TriggerSetup => ({
	...TEST_TRIGGER.setup,
	credentialId: `hostileR4-${++setupCount}`,
	...over,
});

describe('the trigger', () => {
	// docs/trigger.md, Include Request Headers: "The Authorization and Proxy-Authorization headers, which carry the
	// access token, are never included"; the option: "never its access token". A gateway in front that puts its own
	// credential in Authorization (Google's ESPv2) hands the caller's on as X-Forwarded-Authorization; others copy it.
	it.each(['x-forwarded-authorization', 'x-original-authorization'])(
		'the access token forwarded again as %s stays out of the item',
		async (header) => {
			const token = issueAccessToken(subject, 600);
			const setup = freshSetup({ parameters: { options: { includeHeaders: true } } });
			const { result } = await runRecorded(
				setup,
				'default',
				notification(`Bearer ${token}`, { [header]: `Bearer ${token}` }),
			);
			expect(result.workflowData).toBeDefined();
			expect(JSON.stringify(result.workflowData)).not.toContain(token);
		},
	);
});

describe('held: attacks expected to fail that did not', () => {
	it('a token request with Basic and a camelCase clientSecret in the body gets no token', async () => {
		const { result, response } = await runRecorded(freshSetup(), 'setup', {
			headers: {
				'content-type': 'application/json',
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
			},
			body: { grant_type: 'client_credentials', clientSecret: 'something-else-entirely' },
		});
		expectNoExecution(result, response);
		expect(response.status).toBe(400);
	});

	it('a notification with two Authorization headers, the first valid, starts nothing', async () => {
		const token = issueAccessToken(subject, 600);
		const { result, response } = await runRecorded(freshSetup(), 'default', {
			...notification(`Bearer ${token}`),
			rawHeaders: ['Authorization', `Bearer ${token}`, 'AUTHORIZATION', 'Bearer forged'],
		});
		expectNoExecution(result, response);
		expect(response.status).toBe(400);
	});
	// docs/trigger.md: tokens are "bound to this trigger": another trigger on the same credential (whose read the
	// process reuses, per credential) still refuses them.
	it("a token from one trigger's token URL starts nothing at another trigger on the same credential", async () => {
		const credentialId = `hostileR4-shared-${++setupCount}`;
		const triggerA = { ...TEST_TRIGGER.setup, credentialId };
		const issued = await runRecorded(triggerA, 'setup', {
			headers: {
				'content-type': 'application/x-www-form-urlencoded',
				authorization: basic(TEST_TRIGGER.clientId, TEST_TRIGGER.clientSecret),
			},
			body: { grant_type: 'client_credentials' },
		});
		const token = String(issued.response.json.access_token);
		const atA = await runRecorded(triggerA, 'default', notification(`Bearer ${token}`));
		expect(atA.result.workflowData).toBeDefined();
		const triggerB = { ...triggerA, webhookId: '11111111-2222-4333-8444-555555555555' };
		const { result, response } = await runRecorded(
			triggerB,
			'default',
			notification(`Bearer ${token}`),
		);
		expectNoExecution(result, response);
		expect(response.status).toBe(401);
	});

	// A signature spelt with a character Node's base64url decoder skips decodes to the same bytes.
	it('a genuine token with a stray character in its signature starts nothing', async () => {
		const token = issueAccessToken(subject, 600);
		const [version, claims, signature] = token.split('.');
		for (const bent of [`${signature}=`, `${signature.slice(0, 10)}!${signature.slice(10)}`]) {
			const { result, response } = await runRecorded(
				freshSetup(),
				'default',
				notification(`Bearer ${version}.${claims}.${bent}`),
			);
			expectNoExecution(result, response);
			expect(response.status).toBe(401);
		}
	});

	it('Include Request Headers drops Authorization whatever its letter case', async () => {
		const token = issueAccessToken(subject, 600);
		const setup = freshSetup({ parameters: { options: { includeHeaders: true } } });
		const { result } = await runRecorded(setup, 'default', {
			headers: {
				Authorization: `Bearer ${token}`,
				'content-type': 'application/json',
				authorization: `Bearer ${token}`,
			},
			body: { eventType: 'listing_sale' },
		});
		expect(result.workflowData).toBeDefined();
		expect(JSON.stringify(result.workflowData)).not.toContain(token);
	});

	// docs/listing-pre-deliver.md: Skip Listings Already Delivered remembers the listing under the marketplace's ID,
	// however the run named it.
	it('a listing delivered by External Listing ID is skipped when named by its marketplace ID', async () => {
		const store = new MemoryDeduplicationStore();
		await createSeven(store);
		grantTokens('tok-r4-4', 2);
		const uploads = acceptUploads();
		const items = [seated('A', '1', '7'), seated('A', '2', '7')];
		const first = await run(items, { deduplication: store }, BY_EXTERNAL_ID).output();
		const again = [seated('A', '1', 'lst_7'), seated('A', '2', 'lst_7')];
		const rerun = await run(again, { deduplication: store }).output();
		expect({ first: statuses(first), rerun: statuses(rerun), sent: uploads.length }).toEqual({
			first: ['delivered', 'delivered'],
			rerun: ['skipped', 'skipped'],
			sent: 1,
		});
	});

	// docs/subscribe.md: "Both on one server ... a Token URL on another host ... would give the secret away".
	it.each([
		[
			'userinfo naming the callback host',
			'https://n8n.example.test@evil.example/webhook/abc/token',
		],
		['a backslash before the host', 'https://evil.example\\@n8n.example.test/webhook/abc/token'],
	])('Subscribe sends no Token URL on another host: %s', async (_name, tokenUrl) => {
		const items = [{ json: {} }];
		const fake = fakeRun({
			parameters: { ...SUBSCRIBE_PARAMETERS, callbackAuthUrl: tokenUrl },
			items,
			callbackCredentials: CALLBACK_CREDENTIALS,
		});
		const posted: unknown[] = [];
		nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.optionally()
			.reply(200, { access_token: 't' });
		nock(BASE)
			.post(PARTNER_API_PATHS.webhooks)
			.optionally()
			.reply((_path, body) => {
				posted.push(body);
				return [201, { id: 'sub-x' }];
			});
		await subscribe.call(fake.context, items).catch(() => undefined);
		const sentTo = posted.map(
			(body) =>
				new URL(
					(body as { callback: { auth: { tokenEndPoint: string } } }).callback.auth.tokenEndPoint,
				).host,
		);
		expect(sentTo.filter((host) => host !== 'n8n.example.test')).toEqual([]);
	});

	// docs: "a listing's first file that cannot be read is `failed` instead: nothing was sent"; a 401 renews the
	// token and "sends the same bytes again (read from the binary data store again)".
	it('after a 401, a first file gone before the resend is failed, and the next run sends it', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-r4-2', 2);
		const item = seated('A', '1', '9001', 'filesystem');
		const id = item.binary!.data.id!;
		const bytes = storedFiles.get(id)!;
		nock(BASE)
			.post('/sellers/listings/pdf/v3/9001')
			.reply(() => {
				storedFiles.delete(id);
				return [401, { code: 'invalid_access_token' }, { 'Content-Type': 'application/json' }];
			});
		const out = await run([item], {
			continueOnFail: true,
			deduplication: store,
			accessToken: 'tok-old',
		}).output();
		storedFiles.set(id, bytes);
		const again = acceptUploads();
		const rerun = await run([item], { continueOnFail: true, deduplication: store }).output();
		expect({ first: statuses(out), rerun: statuses(rerun), sent: again.length }).toEqual({
			first: ['failed'],
			rerun: ['delivered'],
			sent: 1,
		});
	});
});
