/**
 * Listing → Create's first sends against the token the credential holds: a token held (and not known to be expired)
 * needs no login, so the first listings go together at once; a held token the API refuses (401) is renewed once for
 * the run; without a token the first listing goes alone (n8n would log in for each request that finds none).
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PACE } from '../../../../../../../nodes/TicketMarketplace/transport/limiter';
import {
	fakeRun,
	idsUpTo,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';
import { tokenCheckingApi } from '../../../../../../../support/partnerApiNock';

async function create(count: number, accessToken: string, options: IDataObject = {}) {
	const { items, parameters } = oneSeatListings(idsUpTo(count), {
		concurrencyMode: 'adaptive',
		concurrency: 48,
		skipAlreadySent: false,
		...options,
	});
	const fake = fakeRun({ items, parameters, accessToken });
	const output = await execute.call(fake.context, items);
	expect(output.map((item) => item.json.id)).toEqual(idsUpTo(count));
}

afterEach(() => nock.cleanAll());

describe('Listing → Create: the first sends with a token held', () => {
	it.each([
		['adaptive', {}, PACE.burst],
		['fixed (3 at once)', { concurrencyMode: 'fixed', concurrency: 3 }, 3],
	])('%s: the first listings go together, without a login', async (_mode, options, together) => {
		const api = tokenCheckingApi(['stored-token']);

		await create(8, 'stored-token', options);

		expect(api.beforeFirstAnswer()).toBe(together);
		expect(api.logins()).toBe(0);
		expect(api.arrivals().every((arrival) => arrival.token === 'stored-token')).toBe(true);
		expect(api.arrivals()).toHaveLength(8);
		expect([...api.created.values()].every((count) => count === 1)).toBe(true);
	});

	it('a held token the API refuses: the first listings go together, one login, each created once', async () => {
		const api = tokenCheckingApi([]);

		await create(8, 'stale-token');

		expect(api.beforeFirstAnswer()).toBe(PACE.burst);
		expect(api.logins()).toBe(1);
		const stale = api.arrivals().filter((arrival) => arrival.token === 'stale-token');
		// Only the listings sent before the 401 came carried the old token, each once, and each went again once.
		expect(stale.map((arrival) => arrival.id).sort()).toEqual(idsUpTo(PACE.burst));
		expect(api.arrivals()).toHaveLength(8 + PACE.burst);
		expect(api.created.size).toBe(8);
		expect([...api.created.values()].every((count) => count === 1)).toBe(true);
	});

	it('no token held: the first listing goes alone, after one login', async () => {
		const api = tokenCheckingApi([]);

		await create(8, '');

		expect(api.beforeFirstAnswer()).toBe(1);
		expect(api.logins()).toBe(1);
		expect(api.arrivals().every((arrival) => arrival.token === 'tok-1')).toBe(true);
		expect(api.arrivals()).toHaveLength(8);
		expect([...api.created.values()].every((count) => count === 1)).toBe(true);
	});
});
