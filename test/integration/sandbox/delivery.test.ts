import { SandboxAdminClient, basicClientAuthorization, startSandbox } from '../../../sandbox/index';
import type { Sandbox, SandboxOptions } from '../../../sandbox/index';
import { backoffDelayMs } from '../../../sandbox/delivery';
import {
	activeSubscription,
	createListing,
	getToken,
	startReceiver,
	subscribe,
} from '../../../support/sandboxRequests';
import type { Receiver, ReceiverOptions } from '../../../support/sandboxRequests';

/** These tests pin the sandbox's own older answer shapes (`--answers spec`); service.test.ts covers the default. */
const SPEC = { shapes: 'spec' } as const;

// Characters that RFC 6749 2.3.1 says must be form-urlencoded before Basic encoding.
const CLIENT = { clientId: 'marketplace client:1', clientSecret: 's3cr&t:+/ é' };

describe('sandbox sale deliveries (spec 5.7, 6)', () => {
	let sandbox: Sandbox | undefined;
	let receiver: Receiver | undefined;

	afterEach(async () => {
		await sandbox?.stop();
		await receiver?.stop();
		sandbox = undefined;
		receiver = undefined;
	});

	async function setUp(
		// The receiver takes the two form spellings only; the JSON ones are tested against the trigger.
		sandboxOptions: Omit<SandboxOptions, 'deliveryAuth'> & {
			deliveryAuth?: ReceiverOptions['clientAuth'];
		},
		receiverOptions: Partial<ReceiverOptions> = {},
	) {
		sandbox = await startSandbox({
			deliveryBaseDelayMs: 5,
			deliveryTimeoutMs: 2000,
			...sandboxOptions,
			answers: SPEC,
		});
		receiver = await startReceiver({
			...CLIENT,
			clientAuth: sandboxOptions.deliveryAuth ?? 'basic',
			...receiverOptions,
		});
		const token = await getToken(sandbox);
		const subscriptionId = await activeSubscription(sandbox, token, receiver, CLIENT);
		const listing = await createListing(sandbox, token);
		return {
			sandbox,
			receiver,
			token,
			subscriptionId,
			listingId: listing.body.id as string,
			listing: listing.body,
		};
	}

	it('sells a product, exchanges client credentials by HTTP Basic and posts the notification with the Bearer token', async () => {
		const { sandbox, receiver, subscriptionId, listingId, listing } = await setUp({});
		const { sale, deliveries } = sandbox.sell(listingId, { externalIds: ['p-2'] });
		expect(sale).toMatchObject({ listingId, externalIds: ['p-2'], eligibleForNotifications: true });
		const [delivery] = await deliveries;

		expect(delivery).toMatchObject({ status: 'delivered', subscriptionId, clientAuth: 'basic' });
		expect(delivery.attempts.map((a) => [a.attempt, a.step, a.status, a.ok])).toEqual([
			[1, 'token', 200, true],
			[1, 'callback', 200, true],
		]);
		expect(receiver.tokenRequests).toEqual([
			{ status: 200, grantType: 'client_credentials', reason: undefined },
		]);
		expect(receiver.callbacks).toHaveLength(1);
		const [callback] = receiver.callbacks;
		expect(callback.authorization).toBe('Bearer receiver-token-1');
		expect(callback.contentType).toBe('application/json');
		expect(callback.body).toEqual({
			notificationId: delivery.notificationId,
			eventType: 'listing_sale',
			subscriptionId,
			occurredAt: sale.occurredAt,
			listing: {
				id: listingId,
				externalListingId: listing.externalListingId,
				eventId: listing.eventId,
				pricePerProduct: listing.pricePerProduct,
			},
			products: [{ externalId: 'p-2', row: 'A', seat: '2' }],
		});
		const products = sandbox.state().listings[0].products;
		expect(products.map((p) => [p.externalId, p.sold])).toEqual([
			['p-1', false],
			['p-2', true],
			['p-3', false],
		]);
	});

	it('form-urlencodes the client id and secret before Basic encoding (RFC 6749 2.3.1)', () => {
		const header = basicClientAuthorization('a b:c', 'x&y é');
		expect(Buffer.from(header.slice('Basic '.length), 'base64').toString()).toBe(
			'a+b%3Ac:x%26y+%C3%A9',
		);
	});

	it('authenticates with client_secret_post when configured, and the Basic-only receiver refuses it', async () => {
		const { sandbox, receiver, listingId } = await setUp({ deliveryAuth: 'client_secret_post' });
		const [delivery] = await sandbox.sell(listingId).deliveries;
		expect(delivery).toMatchObject({ status: 'delivered', clientAuth: 'client_secret_post' });
		expect(receiver.callbacks.map((c) => c.status)).toEqual([200]);

		// Switched to Basic, the same receiver (which only takes client_secret_post) refuses every attempt.
		sandbox.configureDelivery({ clientAuth: 'basic', attempts: 2 });
		const [refused] = await sandbox.sell(listingId).deliveries;
		expect(refused.status).toBe('failed');
		expect(refused.attempts.map((a) => [a.attempt, a.step, a.status])).toEqual([
			[1, 'token', 401],
			[2, 'token', 401],
		]);
	});

	it('retries with backoff when the receiver fails first, recording every attempt', async () => {
		const { sandbox, receiver, listingId } = await setUp(
			{ deliveryAttempts: 4 },
			{ failTokenRequests: 1, failCallbacks: 1 },
		);
		const [delivery] = await sandbox.sell(listingId).deliveries;
		expect(delivery.status).toBe('delivered');
		expect(delivery.attempts.map((a) => [a.attempt, a.step, a.status, a.ok])).toEqual([
			[1, 'token', 503, false],
			[2, 'token', 200, true],
			[2, 'callback', 500, false],
			[3, 'token', 200, true],
			[3, 'callback', 200, true],
		]);
		expect(delivery.attempts[0].error).toBe('token endpoint answered 503');
		// The same notification id on every retry, so the receiver can drop duplicates.
		const ids = receiver.callbacks.map(
			(c) => (c.body as { notificationId: string }).notificationId,
		);
		expect(new Set(ids)).toEqual(new Set([delivery.notificationId]));
	});

	it('gives up after the configured attempts and records connection errors', async () => {
		sandbox = await startSandbox({ deliveryAttempts: 3, deliveryBaseDelayMs: 1, answers: SPEC });
		const token = await getToken(sandbox);
		// Port 9 (discard) on loopback has no listener here: every attempt is a refused connection.
		const dead = {
			callbackUrl: 'http://127.0.0.1:9/callback',
			tokenUrl: 'http://127.0.0.1:9/token',
		};
		await activeSubscription(sandbox, token, dead);
		const listingId = (await createListing(sandbox, token)).body.id as string;
		const [delivery] = await sandbox.sell(listingId, { count: 2 }).deliveries;
		expect(delivery.status).toBe('failed');
		expect(delivery.attempts).toHaveLength(3);
		for (const attempt of delivery.attempts) {
			expect(attempt).toMatchObject({ step: 'token', ok: false, status: undefined });
			expect(attempt.error).toMatch(/ECONNREFUSED|fetch failed/);
		}
	});

	it('backs off exponentially, capped at the maximum', () => {
		const settings = {
			clientAuth: 'basic' as const,
			attempts: 6,
			baseDelayMs: 100,
			maxDelayMs: 500,
			timeoutMs: 1000,
		};
		expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(settings, n))).toEqual([
			100, 200, 400, 500, 500,
		]);
	});

	it('does not notify for a listing created before activation (not eligible)', async () => {
		sandbox = await startSandbox({ answers: SPEC });
		receiver = await startReceiver({ ...CLIENT, clientAuth: 'basic' });
		const token = await getToken(sandbox);
		const pending = await subscribe(sandbox, token, undefined);
		const early = (await createListing(sandbox, token)).body.id as string;
		await activeSubscription(sandbox, token, receiver, CLIENT);
		sandbox.activateSubscription(pending.body.id as string);

		const { sale, deliveries } = sandbox.sell(early);
		expect(await deliveries).toEqual([]);
		expect(sale.eligibleForNotifications).toBe(false);
		expect(sale.notNotifiedReason).toMatch(/not eligible/);
		expect(receiver.tokenRequests).toHaveLength(0);
		expect(sandbox.state().sales).toHaveLength(1);
	});

	it('sells by count, refuses sold and unknown products, and reports sold out', async () => {
		const { sandbox, listingId } = await setUp({});
		expect(sandbox.sell(listingId, { count: 2 }).sale.externalIds).toEqual(['p-1', 'p-2']);
		expect(() => sandbox.sell(listingId, { externalIds: ['p-1'] })).toThrow(/already sold/);
		expect(() => sandbox.sell(listingId, { externalIds: ['nope'] })).toThrow(
			/no product with externalId nope/,
		);
		expect(() => sandbox.sell(listingId, { count: 2 })).toThrow(/only 1 unsold/);
		sandbox.sell(listingId);
		expect(() => sandbox.sell(listingId)).toThrow(/no unsold products/);
		expect(() => sandbox.sell('lst_unknown')).toThrow(/No listing with id lst_unknown/);
	});

	it('sells over the admin HTTP API and answers the delivery outcome; errors map to statuses', async () => {
		const { sandbox, receiver, listingId } = await setUp({});
		const admin = new SandboxAdminClient(sandbox.url);
		const result = await admin.sell(listingId, { externalIds: ['p-3'] });
		expect(result.complete).toBe(true);
		expect(result.deliveries.map((d) => d.status)).toEqual(['delivered']);
		expect(receiver.callbacks).toHaveLength(1);

		const unknown = await fetch(`${sandbox.url}/__sandbox/listings/lst_nope/sell`, {
			method: 'POST',
		});
		expect(unknown.status).toBe(404);
		expect(await unknown.json()).toMatchObject({ error: 'unknown_listing' });
		const sold = await fetch(`${sandbox.url}/__sandbox/listings/${listingId}/sell`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ externalIds: ['p-3'] }),
		});
		expect(sold.status).toBe(409);
		expect(await sold.json()).toMatchObject({ error: 'product_not_available' });
	});

	it('stop cancels a pending retry: the deliveries promise settles as cancelled', async () => {
		const { sandbox: running, listingId } = await setUp(
			{ deliveryAttempts: 3, deliveryBaseDelayMs: 60_000 },
			{ failTokenRequests: 5 },
		);
		const { deliveries } = running.sell(listingId);
		// Wait until the first attempt is recorded and the long backoff has begun.
		for (let i = 0; i < 200 && !running.state().deliveries[0]?.nextAttemptAt; i++)
			await new Promise((r) => setTimeout(r, 5));
		expect(running.state().deliveries[0].nextAttemptAt).toBeDefined();
		await running.stop();
		const [delivery] = await deliveries;
		expect(delivery.status).toBe('cancelled');
		expect(delivery.attempts).toHaveLength(1);
	});
});
