/**
 * The Partner API on nock, as most unit tests answer it: the token exchange, and a listing endpoint that creates
 * every listing it is sent. Tests that need other answers build their own scopes.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { PARTNER_API_PATHS } from '../nodes/shared/partnerApi/paths';
import { BASE } from './fakeN8n/actionContext';

/** The token exchange answers `times` requests (any query) with `token`. */
export function grantTokens(token: string, times = 1): nock.Scope {
	return nock(BASE)
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.times(times)
		.reply(200, { access_token: token });
}

/**
 * The listing endpoint creates each listing it is sent (up to `times`), with the id `L-<External Listing ID>`; the
 * bodies it was sent, in order, fill the array returned.
 */
export function acceptListings(times = 50): IDataObject[] {
	const bodies: IDataObject[] = [];
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(times)
		.reply((_uri, body) => {
			bodies.push(body as IDataObject);
			return [201, { id: `L-${String((body as IDataObject).externalListingId)}` }];
		});
	return bodies;
}
