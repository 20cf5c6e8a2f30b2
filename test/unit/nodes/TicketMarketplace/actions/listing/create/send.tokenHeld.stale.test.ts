/**
 * Listing → Create with a token held that the API no longer takes: many requests at once meet the 401, one login
 * renews it for all, and each listing is created once; a login that fails or a Stop during it creates nothing.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import {
	fakeRun,
	idsUpTo,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';
import { tokenCheckingApi } from '../../../../../../../support/partnerApiNock';

type Grant = () => [number, unknown, Record<string, string>?];

async function create(
	count: number,
	options: IDataObject,
	continueOnFail = true,
	cancelSignal?: AbortSignal,
) {
	const { items, parameters } = oneSeatListings(idsUpTo(count), {
		skipAlreadySent: false,
		...options,
	});
	const fake = fakeRun({ items, parameters, accessToken: 'stale', continueOnFail, cancelSignal });
	return await execute.call(fake.context, items);
}

afterEach(() => nock.cleanAll());

describe('Listing → Create: a stale token held', () => {
	it.each([10, 48])('fixed %i at once, all 401: one login, each created once', async (n) => {
		const api = tokenCheckingApi([]);
		const out = await create(n, { concurrencyMode: 'fixed', concurrency: n });
		expect(api.grants()).toBe(1);
		expect(api.created.size).toBe(n);
		expect([...api.created.values()].every((c) => c === 1)).toBe(true);
		expect(out).toHaveLength(n);
	});

	it('old-token 401s arriving long after the new token is issued and confirmed', async () => {
		// The first listing's 401 comes fast; the others' 401s only after 300 ms.
		const api = tokenCheckingApi([], {
			delay: (id, token) => (token === 'stale' ? (id === 1 ? 5 : 300) : 10),
		});
		const out = await create(20, { concurrencyMode: 'fixed', concurrency: 20 });
		expect(api.grants()).toBe(1);
		expect(api.created.size).toBe(20);
		expect([...api.created.values()].every((c) => c === 1)).toBe(true);
		expect(out.every((item) => item.json.id !== undefined || item.json.status !== undefined)).toBe(
			true,
		);
	});

	it.each([
		['refused', () => [400, { error: 'invalid_grant', error_description: 'bad password' }]],
		['500', () => [500, { message: 'oops' }]],
	] as Array<[string, Grant]>)(
		'login %s: nothing created, every listing named',
		async (_case, grant) => {
			const api = tokenCheckingApi([], { grant: [grant, grant, grant, grant, grant, grant] });
			const out = await create(10, { concurrencyMode: 'fixed', concurrency: 10 });
			expect(api.created.size).toBe(0);
			expect(out).toHaveLength(10);
			const statuses = out.map((item) => item.json.status ?? item.json.error);
			expect(statuses.every((s) => s !== undefined)).toBe(true);
			expect(out.some((i) => i.json.status === 'created')).toBe(false);
		},
	);

	it('login 429 once then ok: one successful login, all created once', async () => {
		const api = tokenCheckingApi([], {
			grant: [() => [429, { message: 'slow down' }, { 'Retry-After': '1' }]],
		});
		const out = await create(10, { concurrencyMode: 'fixed', concurrency: 10 });
		expect(out).toHaveLength(10);
		expect(api.logins()).toBe(1);
		expect(api.created.size).toBe(10);
		expect([...api.created.values()].every((c) => c === 1)).toBe(true);
	});

	it('Stop during the login: nothing created, nothing claimed', async () => {
		const stop = new AbortController();
		const api = tokenCheckingApi([], {
			grant: [
				() => {
					stop.abort();
					return [200, { access_token: 'tok-x' }];
				},
			],
		});
		const out = await create(10, { concurrencyMode: 'fixed', concurrency: 10 }, true, stop.signal);
		expect(api.created.size).toBe(0);
		expect(out.some((i) => i.json.status === 'created')).toBe(false);
	});
});
