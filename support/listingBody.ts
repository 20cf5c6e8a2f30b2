/**
 * Spec 2.4's listing body, as the tests expect our node to send it: written once here, from the spec, not from the
 * node's code. stockType and paymentType default to the node's defaults (["PDF"] and 1).
 */
import { PARTNER_API_PATHS } from '../nodes/shared/partnerApi/paths';

export interface ExpectedProduct {
	externalId: unknown;
	row?: unknown;
	seat?: unknown;
	ga?: boolean;
	productType?: string;
}

export interface ExpectedListing {
	eventId: unknown;
	amount: unknown;
	currency: unknown;
	externalListingId: unknown;
	products: ExpectedProduct[];
	stockType?: string[];
	paymentType?: unknown;
}

export function listingBody(listing: ExpectedListing): Record<string, unknown> {
	return {
		eventId: listing.eventId,
		pricePerProduct: { amount: listing.amount, currency: listing.currency },
		externalListingId: listing.externalListingId,
		products: listing.products.map((product) => ({
			externalId: product.externalId,
			// A standing ticket (ga) has no row or seat.
			...(product.ga ? {} : { row: product.row, seat: product.seat }),
			productType: product.productType ?? 'TICKET',
			ga: product.ga === true,
		})),
		stockType: listing.stockType ?? ['PDF'],
		paymentType: listing.paymentType ?? 1,
	};
}

/** The whole request of a listing, as Validate Only shows it: a JSON POST to the listings path, in this language. */
export function listingRequest(listing: ExpectedListing, acceptLanguage = 'en-US') {
	return {
		method: 'POST',
		path: PARTNER_API_PATHS.listings,
		headers: {
			Accept: 'application/json',
			'Content-Type': 'application/json',
			'Accept-Language': acceptLanguage,
		},
		body: listingBody(listing),
	};
}
