/** The one request that creates a listing: what Validate Only shows and what is sent, body and headers. */
import type { IDataObject } from 'n8n-workflow';

import { buildRequest, PARTNER_API_PATHS } from '../../../transport';
import type { ApiRequest } from '../../../transport';
import type { ReadyListing } from './listingInput';

export function listingRequest({ level, products }: ReadyListing): ApiRequest {
	const body: IDataObject = {
		eventId: level.eventId,
		pricePerProduct: {
			amount: level.pricePerProduct.amount,
			currency: level.pricePerProduct.currency,
		},
		externalListingId: level.externalListingId,
		products: products.map(({ product }) => {
			const sent: IDataObject = { externalId: product.externalId };
			if (product.row !== undefined) sent.row = product.row;
			if (product.seat !== undefined) sent.seat = product.seat;
			sent.productType = product.productType;
			sent.ga = product.ga;
			return sent;
		}),
		stockType: level.stockType,
		paymentType: level.paymentType,
	};
	return buildRequest('POST', PARTNER_API_PATHS.listings, body, {
		'Accept-Language': level.acceptLanguage,
	});
}
