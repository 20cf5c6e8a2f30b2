/**
 * Hostile review of the notifications URL: what a stranger who knows the trigger's published URLs can make it do,
 * and which sales a trigger whose Accepted Kinds is listing_sale answers 200 and drops for good.
 */
import { issueAccessToken } from '../../../../nodes/TicketMarketplaceTrigger/accessToken';
import { RecordingResponse, runRecorded } from '../../../../support/fakeN8n/recordingResponse';
import {
	TEST_TRIGGER,
	type TriggerRequest,
	type TriggerSetup,
} from '../../../../support/fakeN8n/triggerContext';

const subject = {
	audience: TEST_TRIGGER.webhookId,
	clientId: TEST_TRIGGER.clientId,
	clientSecret: TEST_TRIGGER.clientSecret,
};

function now(): number {
	return Math.floor(Date.now() / 1000);
}

function jsonRequest(authorization: string, body: unknown): TriggerRequest {
	return { headers: { authorization, 'content-type': 'application/json' }, body };
}

const SALE = { listingId: 7, quantity: 2 };

describe('review: a stranger who knows the URLs cannot make every request read the credential', () => {
	async function notifyCounting(
		request: TriggerRequest,
		credentialId: string,
		webhook: 'default' | 'setup' = 'default',
	) {
		const response = new RecordingResponse();
		const { createTriggerContext } = await import('../../../../support/fakeN8n/triggerContext');
		const context = createTriggerContext(TEST_TRIGGER.setup, webhook, request, response);
		const internals = context as unknown as {
			node: { credentials: Record<string, { id: string }> };
			additionalData: { credentialsHelper: { getDecrypted: () => Promise<unknown> } };
		};
		internals.node.credentials.ticketMarketplaceCallbackApi.id = credentialId;
		let reads = 0;
		const helper = internals.additionalData.credentialsHelper;
		const getDecrypted = helper.getDecrypted.bind(helper);
		helper.getDecrypted = async () => {
			reads += 1;
			return await getDecrypted();
		};
		const { TicketMarketplaceTrigger } = await import(
			'../../../../nodes/TicketMarketplaceTrigger/TicketMarketplaceTrigger.node'
		);
		const result = await new TicketMarketplaceTrigger().webhook.call(context);
		return { result, response, reads };
	}

	it('forged tokens naming the webhook ID of the published URL cost at most one read of the credential', async () => {
		const credentialId = 'review-forged-tokens';
		const sale = await notifyCounting(
			jsonRequest(`Bearer ${issueAccessToken(subject, 3600, now())}`, SALE),
			credentialId,
		);
		expect(sale.result.workflowData).toHaveLength(1);
		// The audience is the webhook ID, which the URL shows; the expiry is the stranger's choice; the signature
		// is any 32 bytes. Nothing in such a token needs the client secret.
		let reads = 0;
		for (let attempt = 0; attempt < 5; attempt++) {
			const forged = issueAccessToken(
				{ ...subject, clientSecret: `a stranger's guess number ${attempt}` },
				3600,
				now(),
			);
			const knock = await notifyCounting(jsonRequest(`Bearer ${forged}`, SALE), credentialId);
			expect(knock.response.status).toBe(401);
			reads += knock.reads;
		}
		expect(reads).toBeLessThanOrEqual(1);
	});

	it("a stranger's token request and forged tokens after it cost one read of the credential in all", async () => {
		const credentialId = 'review-token-then-forged';
		const basic = Buffer.from(`${TEST_TRIGGER.clientId}:a stranger's guessed secret`).toString(
			'base64',
		);
		const asked = await notifyCounting(
			{
				headers: {
					authorization: `Basic ${basic}`,
					'content-type': 'application/x-www-form-urlencoded',
				},
				body: { grant_type: 'client_credentials' },
			},
			credentialId,
			'setup',
		);
		expect(asked.response.status).toBe(401);
		let reads = asked.reads;
		for (let attempt = 0; attempt < 3; attempt++) {
			const forged = issueAccessToken(
				{ ...subject, clientSecret: `a stranger's guess number ${attempt}` },
				3600,
				now(),
			);
			const knock = await notifyCounting(jsonRequest(`Bearer ${forged}`, SALE), credentialId);
			expect(knock.response.status).toBe(401);
			reads += knock.reads;
		}
		expect(reads).toBe(1);
	});
});

describe('review: a listing_sale-only trigger does not drop a sale on a guess', () => {
	const saleOnly: TriggerSetup = {
		...TEST_TRIGGER.setup,
		parameters: { options: { acceptedKinds: 'listing_sale' } },
	};

	async function startsFor(body: object): Promise<boolean> {
		const { result, response } = await runRecorded(
			saleOnly,
			'default',
			jsonRequest(`Bearer ${issueAccessToken(subject, 3600, now())}`, body),
		);
		if (result.workflowData !== undefined) return true;
		expect(response.status).toBe(200);
		return false;
	}

	it.each([
		['the live event as a slug in `event`', { event: 'coldplay-wembley-2026', ...SALE }],
		['the live event as an upper-case slug in `event`', { event: 'ADELE-LIVE-2026', ...SALE }],
		['the show in lower case in `type` (as `Concert` starts)', { type: 'concert', ...SALE }],
		['a cricket Test match as a slug in `event`', { event: 'test-match-lords-2026', ...SALE }],
		['a band as a slug in `event`', { event: 'status_quo_live', ...SALE }],
	])('starts for a sale that names %s and no kind', async (_, body) => {
		expect(await startsFor(body)).toBe(true);
	});

	it.each([
		['tickets_sold', { eventType: 'tickets_sold', ...SALE }],
		['ticket.sold', { type: 'ticket.sold', ...SALE }],
		['listing_sales', { eventType: 'listing_sales', ...SALE }],
		['LISTING-SOLD-V2', { eventType: 'LISTING-SOLD-V2', ...SALE }],
		['sale.updated (topic + action)', { topic: 'sale', action: 'updated', ...SALE }],
		['order.created (a buyer’s order is a sale)', { eventType: 'order.created', ...SALE }],
		['payment_received', { eventType: 'payment_received', ...SALE }],
		['sales.completed_v2 (topic + action)', { topic: 'sales', action: 'completed_v2', ...SALE }],
	])('starts for a sale-like kind outside the sale spellings: %s', async (_, body) => {
		expect(await startsFor(body)).toBe(true);
	});
});

describe('review: an Accepted Kinds the user mistyped does not drop every sale for good', () => {
	it.each(['listing_sale; sale.provisional', 'listing sale', 'Listing Sale', 'sales'])(
		'Accepted Kinds %j: a listing_sale notification is not answered 200 and dropped',
		async (acceptedKinds) => {
			const { result, response } = await runRecorded(
				{ ...TEST_TRIGGER.setup, parameters: { options: { acceptedKinds } } },
				'default',
				jsonRequest(`Bearer ${issueAccessToken(subject, 3600, now())}`, {
					eventType: 'listing_sale',
					...SALE,
				}),
			);
			const dropped = result.workflowData === undefined && response.status === 200;
			expect(dropped).toBe(false);
		},
	);
});

describe('review: keys that name the prototype', () => {
	it('reads no kind through __proto__ or constructor, and keeps them as keys of the item', async () => {
		const body = JSON.parse(
			'{"__proto__": {"eventType": "inventory_status"}, "constructor": {"type": "ping"}, "listingId": 7}',
		) as object;
		const { result } = await runRecorded(
			{ ...TEST_TRIGGER.setup, parameters: { options: { acceptedKinds: 'listing_sale' } } },
			'default',
			jsonRequest(`Bearer ${issueAccessToken(subject, 3600, now())}`, body),
		);
		const item = result.workflowData?.[0]?.[0]?.json as Record<string, unknown>;
		expect(Object.getOwnPropertyNames(item).sort()).toEqual(
			['__proto__', 'constructor', 'listingId', 'notificationKind'].sort(),
		);
		expect(item.notificationKind).toEqual({ kind: null, field: null, sale: null });
		expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
	});
});
describe('a recent credential read found out of date is forgotten', () => {
	afterEach(() => jest.restoreAllMocks());

	it('after the clock steps back, a credential that can no longer be read refuses a notification again', async () => {
		const credentialId = 'review-clock-steps-back';
		const base = 1_900_000_000_000;
		const clock = jest.spyOn(Date, 'now').mockReturnValue(base);
		const subject = {
			audience: TEST_TRIGGER.webhookId,
			clientId: TEST_TRIGGER.clientId,
			clientSecret: TEST_TRIGGER.clientSecret,
		};
		const token = issueAccessToken(subject, 3600, Math.floor(base / 1000));
		const request: TriggerRequest = {
			headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
			body: SALE,
		};
		// A usable credential is read and remembered.
		const first = await runRecorded({ ...TEST_TRIGGER.setup, credentialId }, 'default', request);
		expect(first.result.workflowData).toHaveLength(1);
		// The clock steps back 5 s, and the credential is deleted: refused.
		const gone = {
			...TEST_TRIGGER.setup,
			credentialId,
			credentials: new Error('Credential not found'),
		};
		clock.mockReturnValue(base - 5_000);
		const second = await runRecorded(gone, 'default', request);
		expect(second.response.status).toBe(401);
		// Half a second after the first read's time: the credential still cannot be read, so still refused.
		clock.mockReturnValue(base + 500);
		const third = await runRecorded(gone, 'default', request);
		expect(third.result.workflowData).toBeUndefined();
		expect(third.response.status).toBe(401);
	});
});
