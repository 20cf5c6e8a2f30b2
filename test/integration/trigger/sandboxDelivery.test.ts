/**
 * The sandbox plays the marketplace: a subscription pointing at the trigger's URLs (served by the loopback adapter),
 * activation, a listing, a sale; its delivery (token exchange, then the notification) must reach the trigger
 * through the same path as any client and start exactly one execution with the payload unchanged.
 */
import {
	startSandbox,
	SANDBOX_DEFAULTS,
	type Sandbox,
	type SandboxOptions,
} from '../../../sandbox/index';
import { serveTrigger, type ServedTrigger } from '../../../support/fakeN8n/serveTrigger';
import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';

const CALLBACK_CLIENT = {
	clientId: 'marketplace-callback',
	clientSecret: 'callback secret of 32 characters!',
};
const WEBHOOK_ID = '5d1f0c3e-8a2b-4c7d-9e6f-a1b2c3d4e5f6';

// What the running test started; stopped and cleared after it, so a test failing early never stops a stale server.
const running: { sandbox?: Sandbox; trigger?: ServedTrigger } = {};

afterEach(async () => {
	await running.trigger?.stop();
	await running.sandbox?.stop();
	delete running.trigger;
	delete running.sandbox;
});

async function startBoth(
	options: SandboxOptions,
): Promise<{ sandbox: Sandbox; trigger: ServedTrigger }> {
	const sandbox = await startSandbox({ deliveryAttempts: 1, ...options });
	running.sandbox = sandbox;
	const trigger = await serveTrigger({ webhookId: WEBHOOK_ID, credentials: CALLBACK_CLIENT });
	running.trigger = trigger;
	return { sandbox, trigger };
}

async function partnerToken(sandbox: Sandbox): Promise<string> {
	const basic = Buffer.from(
		`${SANDBOX_DEFAULTS.consumerKey}:${SANDBOX_DEFAULTS.consumerSecret}`,
	).toString('base64');
	const response = await fetch(
		`${sandbox.url}${PARTNER_API_PATHS.grant}?grant_type=client_credentials`,
		{
			method: 'POST',
			headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/json' },
			body: JSON.stringify({
				username: SANDBOX_DEFAULTS.marketplaceAccount.email,
				password: SANDBOX_DEFAULTS.marketplaceAccount.password,
			}),
		},
	);
	expect(response.status).toBe(200);
	return ((await response.json()) as { access_token: string }).access_token;
}

/** What the action node's Webhook → Subscribe sends, with the trigger's two production URLs. */
async function subscribe(sandbox: Sandbox, trigger: ServedTrigger, token: string): Promise<string> {
	const response = await fetch(`${sandbox.url}${PARTNER_API_PATHS.webhooks}`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({
			callback: {
				url: trigger.callbackUrl,
				auth: {
					authType: 'oauth',
					tokenEndPoint: trigger.tokenUrl,
					oauthRequest: { ...CALLBACK_CLIENT, grantType: 'client_credentials' },
				},
			},
			subscription: { listing: ['listing_sale'] },
		}),
	});
	expect(response.ok).toBe(true);
	const subscriptions = sandbox.state().subscriptions;
	expect(subscriptions).toHaveLength(1);
	return subscriptions[0].id;
}

async function createListing(
	sandbox: Sandbox,
	token: string,
	externalListingId: number,
): Promise<string> {
	const response = await fetch(`${sandbox.url}${PARTNER_API_PATHS.listings}`, {
		method: 'POST',
		headers: {
			Authorization: `Bearer ${token}`,
			Accept: 'application/json',
			'Content-Type': 'application/json',
			'Accept-Language': 'en-US',
		},
		body: JSON.stringify({
			eventId: 4242,
			pricePerProduct: { amount: 75, currency: 'EUR' },
			externalListingId,
			products: [
				{
					externalId: `${externalListingId}-A-1`,
					row: 'A',
					seat: '1',
					productType: 'TICKET',
					ga: false,
				},
				{
					externalId: `${externalListingId}-A-2`,
					row: 'A',
					seat: '2',
					productType: 'TICKET',
					ga: false,
				},
			],
			stockType: ['PDF'],
			paymentType: 1,
		}),
	});
	expect(response.ok).toBe(true);
	const listing = sandbox
		.state()
		.listings.find((item) => item.externalListingId === externalListingId);
	expect(listing).toBeDefined();
	return listing!.id;
}

describe.each(['basic', 'client_secret_post', 'client_secret_json', 'subscription_json'] as const)(
	'sandbox sale delivery to the trigger (the sandbox spells its token request %s)',
	(deliveryAuth) => {
		it('subscribe, activate, list, sell: one execution whose item is the delivered payload, unchanged', async () => {
			const { sandbox, trigger } = await startBoth({ deliveryAuth });
			const token = await partnerToken(sandbox);
			sandbox.activateSubscription(await subscribe(sandbox, trigger, token));
			const listingId = await createListing(sandbox, token, 1001);

			const { sale, deliveries } = sandbox.sell(listingId);
			const delivered = await deliveries;

			expect(delivered.map((delivery) => delivery.status)).toEqual(['delivered']);
			expect(trigger.requests).toEqual([
				{ webhook: 'setup', status: 200 },
				{ webhook: 'default', status: 200 },
			]);
			expect(trigger.executions).toHaveLength(1);
			const [execution] = trigger.executions;
			expect(execution.items).toHaveLength(1);
			expect(execution.items[0].json).toEqual({
				...(JSON.parse(execution.rawBody) as object),
				notificationKind: { kind: 'listing_sale', field: 'eventType', sale: true },
			});
			expect(execution.items[0].json).toMatchObject({
				eventType: 'listing_sale',
				listing: { id: listingId, externalListingId: 1001 },
				products: sale.externalIds.map((externalId) => expect.objectContaining({ externalId })),
			});
			expect(trigger.errors).toEqual([]);
		});
	},
);

describe('sandbox sale delivery to the trigger, refusals', () => {
	it('starts nothing when the trigger credential no longer matches the subscription (token endpoint answers 401)', async () => {
		const { sandbox, trigger } = await startBoth({});
		const token = await partnerToken(sandbox);
		sandbox.activateSubscription(await subscribe(sandbox, trigger, token));
		const listingId = await createListing(sandbox, token, 1002);
		trigger.update({
			credentials: { ...CALLBACK_CLIENT, clientSecret: 'rotated secret, not told to them' },
		});

		const delivered = await sandbox.sell(listingId).deliveries;

		expect(delivered.map((delivery) => delivery.status)).toEqual(['failed']);
		expect(trigger.requests).toEqual([{ webhook: 'setup', status: 401 }]);
		expect(trigger.executions).toHaveLength(0);
	});

	it('receives nothing for a listing created before the subscription was activated', async () => {
		const { sandbox, trigger } = await startBoth({});
		const token = await partnerToken(sandbox);
		const subscriptionId = await subscribe(sandbox, trigger, token);
		const earlyListingId = await createListing(sandbox, token, 1003);
		sandbox.activateSubscription(subscriptionId);

		const { sale, deliveries } = sandbox.sell(earlyListingId);
		expect(await deliveries).toEqual([]);
		expect(sale.eligibleForNotifications).toBe(false);
		expect(trigger.requests).toEqual([]);
		expect(trigger.executions).toHaveLength(0);
	});
});
