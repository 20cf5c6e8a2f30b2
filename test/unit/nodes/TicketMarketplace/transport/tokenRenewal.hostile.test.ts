/**
 * Review (hostile API, unlucky user): the token and the run's Stop. Promised: one renewal at a time per run, at
 * most 3 per run; a token exchange bounded by 30 s and the run's cancel signal; a listing not yet sent when the
 * run stops is "not sent" and forgotten.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute } from '../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';
import {
	BASE,
	fakeRun,
	idsUpTo,
	MemoryDeduplicationStore,
	oneSeatListings,
} from '../../../../../support/fakeN8n/actionContext';

const TOKEN_PATH = PARTNER_API_PATHS.grant;
const LISTING_PATH = PARTNER_API_PATHS.listings;

const remembered = (store: MemoryDeduplicationStore) =>
	[...store.entries.values()].reduce((sum, values) => sum + values.size, 0);

afterEach(() => nock.cleanAll());

describe('review: the token expires in a 429 storm, 10 in flight', () => {
	it('logs in once, and creates every listing exactly once (regression)', async () => {
		const valid = new Set(['stored-token']);
		const created = new Map<number, number>();
		let logins = 0;
		let requests = 0;
		nock(BASE)
			.persist()
			.post(TOKEN_PATH)
			.query(true)
			.delay(15)
			.reply(() => {
				logins++;
				valid.clear();
				valid.add(`tok-${logins}`);
				return [200, { access_token: `tok-${logins}`, token_type: 'mac', expires_in: -5 }];
			});
		nock(BASE)
			.persist()
			.post(LISTING_PATH)
			.reply(function (_uri, body) {
				requests++;
				// Every third request is rate limited, whatever its token, before the token is looked at.
				if (requests % 3 === 0) return [429, { message: 'slow down' }, { 'Retry-After': '0' }];
				const token = String(this.req.headers.authorization).replace(/^Bearer /, '');
				if (!valid.has(token)) return [401, { error: 'invalid_token' }];
				const id = Number((body as IDataObject).externalListingId);
				created.set(id, (created.get(id) ?? 0) + 1);
				if ([...created.values()].reduce((a, b) => a + b, 0) === 15) valid.delete('stored-token');
				return [201, { id }];
			});
		const { items, parameters } = oneSeatListings(idsUpTo(60), { concurrency: 10 });
		const fake = fakeRun({ items, parameters, accessToken: 'stored-token' });

		const output = await execute.call(fake.context, items);

		expect(logins).toBe(1);
		expect(created.size).toBe(60);
		expect([...created.values()].every((count) => count === 1)).toBe(true);
		expect(output.every((item) => typeof item.json.id === 'number')).toBe(true);
	}, 30_000);
});

describe('review: a token endpoint that hands out a token no HTTP header can carry', () => {
	it('a token with a line break: nothing could be sent, so the listings are not "outcome unknown" and are not remembered', async () => {
		nock(BASE)
			.persist()
			.post(TOKEN_PATH)
			.query(true)
			.reply(200, { access_token: 'tok-line\r\nX-Injected: 1' });
		let received = 0;
		nock(BASE)
			.persist()
			.post(LISTING_PATH)
			.reply(() => {
				received++;
				return [201, { id: 1 }];
			});
		const store = new MemoryDeduplicationStore();
		const { items, parameters } = oneSeatListings([1, 2, 3], { concurrency: 3 });
		const fake = fakeRun({ items, parameters, deduplication: store, continueOnFail: true });

		const output = await execute.call(fake.context, items);

		expect(received).toBe(0);
		expect(output.filter((item) => item.json.mayHaveBeenCreated === true)).toEqual([]);
		expect(remembered(store)).toBe(0);
	});
});

describe('review: Stop between the record before sending and the first request', () => {
	it('sends nothing, says not sent, and leaves nothing remembered (regression)', async () => {
		const stop = new AbortController();
		class StopAfterRecord extends MemoryDeduplicationStore {
			override helpers(caller?: string) {
				const helpers = super.helpers(caller);
				return {
					...helpers,
					// The count is the record's last call before sending: Stop arrives right after it.
					getProcessedDataCount: async (scope: string) => {
						const count = await helpers.getProcessedDataCount(scope);
						stop.abort();
						return count;
					},
				};
			}
		}
		nock(BASE).persist().post(TOKEN_PATH).query(true).reply(200, { access_token: 'tok-stop' });
		const listing = nock(BASE).post(LISTING_PATH).reply(201, { id: 1 });
		const store = new StopAfterRecord();
		const { items, parameters } = oneSeatListings([1, 2], { concurrency: 2 });
		const fake = fakeRun({ items, parameters, deduplication: store, cancelSignal: stop.signal });

		const output = await execute.call(fake.context, items);

		expect(stop.signal.aborted).toBe(true);
		expect(listing.isDone()).toBe(false);
		expect(output.map((item) => item.json.error)).toEqual([
			'Not sent: the run stopped before this listing was sent',
			'Not sent: the run stopped before this listing was sent',
		]);
		expect(remembered(store)).toBe(0);
	});
});

describe('review: the fourth expiry in one run (the 3-renewals cap)', () => {
	it('does not claim the API refused "a token it had just issued" when that token had created listings', async () => {
		let issued = 0;
		let current = 'stored-token';
		let usesLeft = 2;
		nock(BASE)
			.persist()
			.post(TOKEN_PATH)
			.query(true)
			.reply(() => {
				current = `tok-${++issued}`;
				usesLeft = 2;
				return [200, { access_token: current }];
			});
		nock(BASE)
			.persist()
			.post(LISTING_PATH)
			.reply(function (_uri, body) {
				const token = String(this.req.headers.authorization).replace(/^Bearer /, '');
				// Each token works for two listings, then the API expires it (a short-lived token).
				if (token !== current || usesLeft === 0) return [401, { error: 'invalid_token' }];
				usesLeft--;
				return [201, { id: (body as IDataObject).externalListingId }];
			});
		const { items, parameters } = oneSeatListings(idsUpTo(12));
		const fake = fakeRun({
			items,
			parameters,
			accessToken: 'stored-token',
			continueOnFail: true,
		});

		const output = await execute.call(fake.context, items);

		expect(issued).toBeLessThanOrEqual(3);
		const refused = output.find((item) => item.json.httpCode === '401');
		expect(refused).toBeDefined();
		// Neither the title nor the description may say so (the title says what happened).
		expect(`${String(refused?.json.error)} ${String(refused?.json.description)}`).not.toMatch(
			/just issued/,
		);
		expect(String(refused?.json.error)).toMatch(/kept expiring/);
	});
});
