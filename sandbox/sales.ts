/**
 * The marketplace's side of a sale (spec 6): products are sold, and every active listing_sale subscription of the
 * listing's app is notified through `runDelivery` (token exchange with the subscriber, then the callback).
 */
import {
	DEFAULT_SELL_COUNT,
	DELIVERABLE_AUTH_TYPE,
	ERROR_CODE,
	ID_PREFIX,
	saleNotificationPayload,
} from './choices';
import { runDelivery } from './delivery';
import type { Delivery, DeliverySettings, DeliveryTarget } from './delivery';
import { positiveInteger, SandboxError } from './errors';
import { newId } from './records';
import type { ListingRecord } from './records';
import type { SandboxStore } from './store';
import type { Sale, SellOptions, SellResult } from './types';

function chooseProducts(
	listing: ListingRecord,
	sellOptions: SellOptions,
): ListingRecord['products'] {
	if (sellOptions.externalIds !== undefined) {
		const ids = sellOptions.externalIds;
		if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => typeof id !== 'string')) {
			throw new SandboxError(
				400,
				ERROR_CODE.invalidRequest,
				'externalIds must be a non-empty array of strings',
			);
		}
		return [...new Set(ids)].map((externalId) => {
			const product = listing.products.find((p) => p.externalId === externalId);
			if (!product)
				throw new SandboxError(
					404,
					ERROR_CODE.unknownProduct,
					`Listing ${listing.id} has no product with externalId ${externalId}`,
				);
			if (product.sold)
				throw new SandboxError(
					409,
					ERROR_CODE.productNotAvailable,
					`Product ${externalId} of listing ${listing.id} is already sold`,
				);
			return product;
		});
	}
	const count =
		sellOptions.count === undefined
			? DEFAULT_SELL_COUNT
			: positiveInteger(sellOptions.count, 'count');
	const unsold = listing.products.filter((p) => !p.sold);
	if (unsold.length === 0)
		throw new SandboxError(409, ERROR_CODE.soldOut, `Listing ${listing.id} has no unsold products`);
	if (unsold.length < count) {
		throw new SandboxError(
			409,
			ERROR_CODE.productNotAvailable,
			`Listing ${listing.id} has only ${unsold.length} unsold products`,
		);
	}
	return unsold.slice(0, count);
}

/** Where a delivery comes from: a sale and the subscription it notifies, or a sample (no listing, no subscription). */
export interface DeliveryOrigin {
	saleId: string;
	subscriptionId: string;
	sample?: true;
}

/**
 * Starts one notification's delivery to one target, for a sale and a sample alike: records it in the store, then
 * runs it (`runDelivery`: the token exchange with the target, then the callback), with the store's delivery settings
 * unless others are given. `payloadFor` gets the notification's id, which stays the same across retries.
 */
export function startDelivery(
	store: SandboxStore,
	origin: DeliveryOrigin,
	target: DeliveryTarget,
	payloadFor: (notificationId: string) => unknown,
	settings: DeliverySettings = store.deliverySettings,
): { id: string; done: Promise<Delivery> } {
	const delivery: Delivery = {
		id: newId(ID_PREFIX.delivery),
		saleId: origin.saleId,
		subscriptionId: origin.subscriptionId,
		...(origin.sample ? { sample: true } : {}),
		notificationId: newId(ID_PREFIX.notification),
		callbackUrl: target.callbackUrl,
		tokenEndPoint: target.tokenEndPoint,
		clientAuth: settings.clientAuth,
		status: 'pending',
		attempts: [],
		createdAt: new Date().toISOString(),
	};
	store.deliveries.set(delivery.id, delivery);
	if (target.authType !== DELIVERABLE_AUTH_TYPE) {
		delivery.status = 'failed';
		delivery.finishedAt = delivery.createdAt;
		delivery.attempts.push({
			attempt: 1,
			step: 'token',
			at: delivery.createdAt,
			durationMs: 0,
			ok: false,
			error: `authType "${target.authType}" is not deliverable by the sandbox (only "${DELIVERABLE_AUTH_TYPE}")`,
		});
		return { id: delivery.id, done: Promise.resolve(delivery) };
	}
	const done = runDelivery(
		delivery,
		target,
		payloadFor(delivery.notificationId),
		{ ...settings },
		store.timers,
		store.outboundSignal,
	);
	return { id: delivery.id, done };
}

export function sell(
	store: SandboxStore,
	listingId: string,
	sellOptions: SellOptions = {},
): SellResult {
	if (store.stopped) throw new SandboxError(503, ERROR_CODE.serverError, 'The sandbox is stopped');
	const listing = store.listings.get(listingId);
	if (!listing)
		throw new SandboxError(404, ERROR_CODE.unknownListing, `No listing with id ${listingId}`);
	const products = chooseProducts(listing, sellOptions);
	const sale: Sale = {
		id: newId(ID_PREFIX.sale),
		listingId: listing.id,
		externalListingId: listing.body.externalListingId,
		externalIds: products.map((p) => p.externalId),
		occurredAt: new Date(store.now()).toISOString(),
		eligibleForNotifications: listing.eligibleForNotifications,
		deliveryIds: [],
	};
	for (const product of products) {
		product.sold = true;
		product.saleId = sale.id;
	}
	store.sales.push(sale);

	const targets = store.activeSaleSubscriptions(listing.consumerKey);
	if (!listing.eligibleForNotifications) {
		sale.notNotifiedReason =
			'The listing was created before a listing_sale subscription was active, so it is not eligible';
		return { sale: structuredClone(sale), deliveries: Promise.resolve([]) };
	}
	if (targets.length === 0) {
		sale.notNotifiedReason = 'No active listing_sale subscription for this app';
		return { sale: structuredClone(sale), deliveries: Promise.resolve([]) };
	}

	const running = targets.map((subscription) => {
		const started = startDelivery(
			store,
			{ saleId: sale.id, subscriptionId: subscription.id },
			{
				callbackUrl: subscription.callbackUrl,
				tokenEndPoint: subscription.tokenEndPoint,
				clientId: subscription.clientId,
				clientSecret: subscription.clientSecret,
				authType: subscription.authType,
			},
			(notificationId) =>
				saleNotificationPayload({
					notificationId,
					subscriptionId: subscription.id,
					occurredAt: sale.occurredAt,
					listing: {
						id: listing.id,
						externalListingId: listing.body.externalListingId,
						eventId: listing.body.eventId,
						pricePerProduct: listing.body.pricePerProduct,
					},
					products,
				}),
		);
		sale.deliveryIds.push(started.id);
		return started.done;
	});
	const settled = Promise.all(running).then((done) => structuredClone(done));
	return { sale: structuredClone(sale), deliveries: settled };
}
