/** The one request that creates a listing: what Validate Only shows and what is sent, body and headers. */
import type { IDataObject } from 'n8n-workflow';

import { buildRequest, PARTNER_API_PATHS } from '../../../transport';
import type { ApiRequest } from '../../../transport';
import { apiPathOf, apiValue, LISTING_FIELDS, PRODUCT_KEYS } from './fields';
import type { Field } from './fields';
import type { ReadyListing } from './nouns';

/** The API's keys of these fields (a dotted path's outer key once), in table order. */
function keysOf(fields: Field[]): string[] {
	return [...new Set(fields.map((field) => apiPathOf(field)[0]))];
}

/** The values at these keys, those without a value left out; a nested object copied. */
function bodyOf(keys: string[], values: IDataObject, body: IDataObject = {}): IDataObject {
	for (const key of keys) {
		const value = values[key];
		if (value === undefined) continue;
		body[key] =
			value !== null && typeof value === 'object' && !Array.isArray(value)
				? { ...(value as IDataObject) }
				: value;
	}
	return body;
}

/** The listing's fields in the body: the required ones come before the products, those with a default after. */
const IN_BODY = LISTING_FIELDS.filter((field) => field.header === undefined);
const BEFORE_PRODUCTS = keysOf(IN_BODY.filter((field) => field.default === undefined));
const AFTER_PRODUCTS = keysOf(IN_BODY.filter((field) => field.default !== undefined));
const IN_HEADERS = LISTING_FIELDS.filter((field) => field.header !== undefined);

export function listingRequest({ level, products }: ReadyListing): ApiRequest {
	const body = bodyOf(BEFORE_PRODUCTS, level);
	body.products = products.map(({ product }) => bodyOf(PRODUCT_KEYS, product));
	bodyOf(AFTER_PRODUCTS, level, body);
	const headers: Record<string, string> = {};
	for (const field of IN_HEADERS) headers[field.header!] = String(apiValue(level, field));
	return buildRequest('POST', PARTNER_API_PATHS.listings, body, headers);
}
