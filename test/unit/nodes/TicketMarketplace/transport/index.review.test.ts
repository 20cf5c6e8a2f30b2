/**
 * A 2xx whose body does not show the listing created is "outcome unknown"; the API named no error code in it. The
 * output's `apiCode` is "the API's own error code, where its answer named one" (README, docs/listing-create.md):
 * it must not turn an unconfirmed success's `error` or `code` field into one.
 */
import nock from 'nock';

import {
	buildRequest,
	RequestPacer,
	sendRequest,
} from '../../../../../nodes/TicketMarketplace/transport';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';
import { BASE, fakeRun } from '../../../../../support/fakeN8n/actionContext';

afterEach(() => nock.cleanAll());

async function postListingAnswered(status: number, body: object) {
	const api = nock(BASE).post(PARTNER_API_PATHS.listings).reply(status, body);
	const run = fakeRun({ parameters: {}, accessToken: 'tok-0' });
	const result = await sendRequest.call(run.context, {
		request: buildRequest('POST', PARTNER_API_PATHS.listings, { eventId: 1, externalListingId: 2 }),
		itemIndex: 0,
		createsId: 2,
		pacer: new RequestPacer('adaptive', 4),
		confirmedBy: () => false,
	});
	expect(api.isDone()).toBe(true);
	return result;
}

describe('an unconfirmed 2xx carries no apiCode', () => {
	it.each([
		['a 200 with {"error": "x"}', 200, { error: 'x' }],
		['a 201 with {"code": "pending"}', 201, { code: 'pending' }],
	])('%s: outcome unknown, no apiCode', async (_name, status, body) => {
		const result = await postListingAnswered(status, body);
		expect(result).toMatchObject({ kind: 'failed', effect: 'unknown' });
		expect(result).not.toHaveProperty('apiCode');
	});
});
