/** The one request that creates a listing: what Validate Only shows and what is sent, body and headers. */
import type { IDataObject } from 'n8n-workflow';

import { buildRequest, PARTNER_API_PATHS } from '../../../transport';
import type { ApiRequest } from '../../../transport';
import { apiValue, LISTING_FIELDS, TICKET_FIELDS } from './fields';
import type { Field } from './fields';
import type { ReadyListing } from './validateListing';

/** Values at the fields' API paths, those without a value left out. */
function bodyOf(fields: Field[], values: IDataObject): IDataObject {
	const body: IDataObject = {};
	for (const field of fields) {
		const value = apiValue(values, field);
		if (value === undefined) continue;
		const [outer, inner] = field.api.split('.');
		if (inner === undefined) body[outer] = value;
		else body[outer] = { ...(body[outer] as IDataObject), [inner]: value };
	}
	return body;
}

/** The body: the listing's required fields, its products, then the values that have a default. */
export function listingRequest({ level, products }: ReadyListing): ApiRequest {
	const inBody = LISTING_FIELDS.filter((field) => field.header === undefined);
	const body: IDataObject = {
		...bodyOf(
			inBody.filter((field) => field.default === undefined),
			level,
		),
		products: products.map(({ product }) => bodyOf(TICKET_FIELDS, product)),
		...bodyOf(
			inBody.filter((field) => field.default !== undefined),
			level,
		),
	};
	const headers = Object.fromEntries(
		LISTING_FIELDS.filter((field) => field.header !== undefined).map((field) => [
			field.header,
			String(apiValue(level, field)),
		]),
	);
	return buildRequest('POST', PARTNER_API_PATHS.listings, body, headers);
}
