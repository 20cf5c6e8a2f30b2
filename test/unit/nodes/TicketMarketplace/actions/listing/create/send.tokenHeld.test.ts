/**
 * Listing → Create's first sends against the token the credential holds: a token held (and not known to be expired)
 * needs no login, so the first listings go together at once; a held token the API refuses (401) is renewed once for
 * the run; without a token the first listing goes alone (n8n would log in for each request that finds none).
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import { PACE } from '../../../../../../../nodes/TicketMarketplace/transport/limiter';
import {
	BASE,
	fakeRun,
	idsUpTo,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';

type Event = { kind: 'arrived'; id: number; token: string } | { kind: 'answered'; id: number };

/** The API: `accepted` tokens create (the login issues tok-1), others are refused 401; answers after 20 ms. */
function partnerApi(accepted: string[]) {
	const valid = new Set(accepted);
	const events: Event[] = [];
	const created = new Map<number, number>();
	let logins = 0;
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.reply(() => {
			valid.add(`tok-${++logins}`);
			return [200, { access_token: `tok-${logins}` }];
		});
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.listings)
		.reply(function (_uri, body, callback) {
			const token = String(this.req.headers.authorization).replace(/^Bearer /, '');
			const id = Number((body as IDataObject).externalListingId);
			events.push({ kind: 'arrived', id, token });
			const accepts = valid.has(token);
			if (accepts) created.set(id, (created.get(id) ?? 0) + 1);
			setTimeout(() => {
				events.push({ kind: 'answered', id });
				callback(null, accepts ? [201, { id }] : [401, { message: 'invalid token' }]);
			}, 20);
		});
	const arrivals = () => events.filter((event) => event.kind === 'arrived');
	return {
		events,
		created,
		arrivals,
		logins: () => logins,
		/** Requests that reached the API before its first answer. */
		beforeFirstAnswer: () => events.findIndex((event) => event.kind === 'answered'),
	};
}

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
		['adaptive', {}, PACE.initialLimit],
		['fixed (3 at once)', { concurrencyMode: 'fixed', concurrency: 3 }, 3],
	])('%s: the first listings go together, without a login', async (_mode, options, together) => {
		const api = partnerApi(['stored-token']);

		await create(8, 'stored-token', options);

		expect(api.beforeFirstAnswer()).toBe(together);
		expect(api.logins()).toBe(0);
		expect(api.arrivals().every((arrival) => arrival.token === 'stored-token')).toBe(true);
		expect(api.arrivals()).toHaveLength(8);
		expect([...api.created.values()].every((count) => count === 1)).toBe(true);
	});

	it('a held token the API refuses: the first listings go together, one login, each created once', async () => {
		const api = partnerApi([]);

		await create(8, 'stale-token');

		expect(api.beforeFirstAnswer()).toBe(PACE.initialLimit);
		expect(api.logins()).toBe(1);
		const stale = api.arrivals().filter((arrival) => arrival.token === 'stale-token');
		// Only the listings sent before the 401 came carried the old token, each once, and each went again once.
		expect(stale.map((arrival) => arrival.id).sort()).toEqual(idsUpTo(PACE.initialLimit));
		expect(api.arrivals()).toHaveLength(8 + PACE.initialLimit);
		expect(api.created.size).toBe(8);
		expect([...api.created.values()].every((count) => count === 1)).toBe(true);
	});

	it('no token held: the first listing goes alone, after one login', async () => {
		const api = partnerApi([]);

		await create(8, '');

		expect(api.beforeFirstAnswer()).toBe(1);
		expect(api.logins()).toBe(1);
		expect(api.arrivals().every((arrival) => arrival.token === 'tok-1')).toBe(true);
		expect(api.arrivals()).toHaveLength(8);
		expect([...api.created.values()].every((count) => count === 1)).toBe(true);
	});
});
