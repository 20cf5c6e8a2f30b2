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
import type { Delivery } from './delivery';
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

	const runTimers = store.timers;
	const runSignal = store.outboundSignal;
	const running = targets.map((subscription) => {
		const delivery: Delivery = {
			id: newId(ID_PREFIX.delivery),
			saleId: sale.id,
			subscriptionId: subscription.id,
			notificationId: newId(ID_PREFIX.notification),
			callbackUrl: subscription.callbackUrl,
			tokenEndPoint: subscription.tokenEndPoint,
			clientAuth: store.deliverySettings.clientAuth,
			status: 'pending',
			attempts: [],
			createdAt: new Date().toISOString(),
		};
		store.deliveries.set(delivery.id, delivery);
		sale.deliveryIds.push(delivery.id);
		if (subscription.authType !== DELIVERABLE_AUTH_TYPE) {
			delivery.status = 'failed';
			delivery.finishedAt = delivery.createdAt;
			delivery.attempts.push({
				attempt: 1,
				step: 'token',
				at: delivery.createdAt,
				durationMs: 0,
				ok: false,
				error: `authType "${subscription.authType}" is not deliverable by the sandbox (only "${DELIVERABLE_AUTH_TYPE}")`,
			});
			return Promise.resolve(delivery);
		}
		const payload = saleNotificationPayload({
			notificationId: delivery.notificationId,
			subscriptionId: subscription.id,
			occurredAt: sale.occurredAt,
			listing: {
				id: listing.id,
				externalListingId: listing.body.externalListingId,
				eventId: listing.body.eventId,
				pricePerProduct: listing.body.pricePerProduct,
			},
			products,
		});
		return runDelivery(
			delivery,
			{
				callbackUrl: subscription.callbackUrl,
				tokenEndPoint: subscription.tokenEndPoint,
				clientId: subscription.clientId,
				clientSecret: subscription.clientSecret,
				authType: subscription.authType,
			},
			payload,
			{ ...store.deliverySettings },
			runTimers,
			runSignal,
		);
	});
	const settled = Promise.all(running).then((done) => structuredClone(done));
	return { sale: structuredClone(sale), deliveries: settled };
}
