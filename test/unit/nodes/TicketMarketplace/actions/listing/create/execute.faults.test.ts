/**
 * Listing → Create under the faults the world sends, through the real execute() and
 * n8n-core's real request helper: every listing ends in one state that matches what the API holds, nothing is
 * listed twice, nothing secret reaches an output. Each test failed before its fix.
 */
import nock from 'nock';
import { sleep, sleepWithAbort } from 'n8n-workflow';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { execute as forget } from '../../../../../../../nodes/TicketMarketplace/actions/listing/forgetSent.operation';
import {
	outcomeUnknownKey,
	sentListingKey,
} from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/sentListings';
import { RETRY_POLICY } from '../../../../../../../nodes/TicketMarketplace/transport';
import type { ParameterValue } from '../../../../../../../support/fakeN8n/actionContext';
import { SharedRowStore } from '../../../../../../../support/fakeN8n/sharedRowStore';
import {
	API_CREDENTIALS,
	BASE,
	fakeRun,
	idsUpTo,
	oneSeatListings,
	MEMORY_ACCOUNT,
	MemoryDeduplicationStore,
} from '../../../../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import { grantTokens } from '../../../../../../../support/partnerApiNock';

const waits = sleepWithAbort as jest.MockedFunction<typeof sleepWithAbort>;

const TOKEN = 'tok-faults-0123456789';

/** N listings, one per item, External Listing IDs 1..N. */
const listings = (count: number, options: IDataObject = {}) =>
	oneSeatListings(idsUpTo(count), options);

const tokenApi = (times = 1) => grantTokens(TOKEN, times);

/** A token, then the API creates listing 1 once; the answer tells whether that request has gone out. */
function apiCreatingListing1(): () => boolean {
	tokenApi();
	let sent = false;
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.reply(() => {
			sent = true;
			return [201, { id: 1 }];
		});
	return () => sent;
}

/** Listing 1 run through `store` is created (the test's API creates it), and the memory holds it alone. */
async function expectSentAndRemembered(store: MemoryDeduplicationStore) {
	const { items, parameters } = listings(1);
	const [item] = await execute.call(
		fakeRun({ parameters, items, deduplication: store }).context,
		items,
	);
	expect(item.json).toEqual({ id: 1 });
	expect([...(store.entries.get('workflow') ?? [])]).toEqual([sentListingKey(MEMORY_ACCOUNT, 1)]);
}

function idOf(body: unknown): number {
	return Number((body as IDataObject).externalListingId);
}

type StoreHelpers = ReturnType<MemoryDeduplicationStore['helpers']>;

/** n8n's store in memory, with some of its calls replaced (to make them fail). */
function storeWith(
	replace: (helpers: StoreHelpers) => Partial<StoreHelpers>,
): MemoryDeduplicationStore {
	const store = new MemoryDeduplicationStore();
	const helpers = store.helpers();
	store.helpers = () => ({ ...helpers, ...replace(helpers) });
	return store;
}

const locked = async (): Promise<never> => {
	throw new Error('database is locked');
};

/**
 * n8n's store where another run's write from an older read lands right after each call of `method` (from the
 * moment `from()` holds) and puts the list back as it was: what the call wrote or removed is undone.
 */
function undoneByAnotherRun(
	method: 'checkProcessedAndRecord' | 'removeProcessed',
	from: () => boolean = () => true,
) {
	const undone = { calls: 0 };
	const store: MemoryDeduplicationStore = storeWith((helpers) => {
		// Both methods take (values, scope, options).
		const call = helpers[method] as (...args: unknown[]) => Promise<unknown>;
		return {
			[method]: async (...args: unknown[]) => {
				if (!from()) return await call(...args);
				undone.calls++;
				const before = new Set(store.entries.get('workflow'));
				const answer = await call(...args);
				store.entries.set('workflow', before);
				return answer;
			},
		};
	});
	return { store, undone };
}

/** The error a run without Continue On Fail throws (undefined when it ends normally). */
async function failureOf(
	parameters: Record<string, ParameterValue>,
	items: INodeExecutionData[],
	deduplication: MemoryDeduplicationStore,
) {
	return await execute.call(fakeRun({ parameters, items, deduplication }).context, items).then(
		() => undefined,
		(thrown: Error & { description?: string }) => thrown,
	);
}

beforeEach(() => waits.mockClear());
afterEach(() => nock.cleanAll());

describe('Listing → Create under faults', () => {
	it('case 1: a 429 storm with Retry-After ends after a bounded number of attempts, refused and forgotten', async () => {
		tokenApi();
		let attempts = 0;
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.times(50)
			.reply(() => {
				attempts++;
				return [429, { message: 'slow down' }, { 'Retry-After': '1' }];
			});
		const { items, parameters } = listings(1);
		const fake = fakeRun({ parameters, items, continueOnFail: true });
		const [item] = await execute.call(fake.context, items);
		expect(attempts).toBe(RETRY_POLICY.maxRateLimitRetries + 1);
		expect(item.json.error).toBe(
			`Rate limit: the Partner API answered "too many requests" ${RETRY_POLICY.maxRateLimitRetries + 1} times`,
		);
		expect(item.json.description).toBe(
			'The API said: "slow down". It last asked to wait 1 s. Nothing was created by these attempts. Lower Options → Max Listings at Once, or run the workflow later.',
		);
		expect(item.json.mayHaveBeenCreated).toBe(false);
		expect(fake.deduplication.entries.get('workflow')?.size ?? 0).toBe(0);
	});

	it.each([
		['0', '0'],
		['a date in the past', 'Thu, 01 Jan 2015 00:00:00 GMT'],
	])('case 1: a Retry-After of %s still waits and still counts', async (_name, retryAfter) => {
		tokenApi();
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.times(50)
			.reply(429, {}, { 'Retry-After': retryAfter });
		const { items, parameters } = listings(1);
		await execute.call(fakeRun({ parameters, items, continueOnFail: true }).context, items);
		expect(waits).toHaveBeenCalledTimes(RETRY_POLICY.maxRateLimitRetries);
		for (const [ms] of waits.mock.calls)
			expect(ms).toBeGreaterThanOrEqual(RETRY_POLICY.minRetryWaitMs);
	});

	it('case 2: after Stop, listings not yet sent are "not sent", never sent, and forgotten', async () => {
		tokenApi();
		const stop = new AbortController();
		const seen: number[] = [];
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.times(30)
			.reply((_uri, body) => {
				seen.push(idOf(body));
				if (seen.length === 5) stop.abort();
				return [201, { id: idOf(body) }];
			});
		const { items, parameters } = listings(30);
		const fake = fakeRun({ parameters, items, continueOnFail: true, cancelSignal: stop.signal });
		const output = await execute.call(fake.context, items);
		expect(seen).toEqual([1, 2, 3, 4, 5]);
		const notSent = output.filter((item) => String(item.json.error).startsWith('Not sent'));
		expect(notSent).toHaveLength(25);
		const remembered = fake.deduplication.entries.get('workflow') ?? new Set();
		// Listing 5 was in flight when the run stopped: its outcome is unknown, and remembered as such.
		expect(output[4].json.mayHaveBeenCreated).toBe(true);
		expect([...remembered].sort()).toEqual(
			[
				...[1, 2, 3, 4, 5].map((id) => sentListingKey(MEMORY_ACCOUNT, id)),
				outcomeUnknownKey(MEMORY_ACCOUNT, 5),
			].sort(),
		);
	});

	it('case 11: a stopped run does not wait out a pending Retry-After', async () => {
		tokenApi();
		const stop = new AbortController();
		nock(BASE).post(PARTNER_API_PATHS.listings).reply(429, {}, { 'Retry-After': '300' });
		waits.mockImplementationOnce(async (_ms, signal) => {
			stop.abort();
			if (signal?.aborted) throw new Error('aborted');
		});
		const { items, parameters } = listings(1);
		const fake = fakeRun({ parameters, items, continueOnFail: true, cancelSignal: stop.signal });
		const [item] = await execute.call(fake.context, items);
		// The wait ends on Stop: its signal is aborted by the run's (through the pacer, which Stop closes).
		expect(waits.mock.calls[0][1]?.aborted).toBe(true);
		// The API's 429 is the last word: not created, and nothing more was sent.
		expect(item.json.error).toBe('Rate limit: the Partner API answered "too many requests" 1 time');
		expect(item.json.description).toContain('It last asked to wait 5 min.');
		expect(item.json.mayHaveBeenCreated).toBe(false);
	});

	it('case 3: IDs seen again near the cap move to the young end, and a notice says how close the memory is', async () => {
		const store = new MemoryDeduplicationStore();
		// Listing 1 is the oldest entry: first to be dropped at the cap unless seen again moves it.
		const scope = new Set<string>([sentListingKey(MEMORY_ACCOUNT, 1)]);
		for (let id = 1000; id < 1000 + 95_000; id++) scope.add(sentListingKey(MEMORY_ACCOUNT, id));
		store.entries.set('workflow', scope);
		tokenApi();
		const { items, parameters } = listings(1);
		const fake = fakeRun({ parameters, items, deduplication: store });
		const [item] = await execute.call(fake.context, items);
		expect(item.json.status).toBe('skipped');
		expect([...store.entries.get('workflow')!].pop()).toBe(sentListingKey(MEMORY_ACCOUNT, 1));
		expect(fake.hints.map((hint) => hint.message).join('\n')).toContain('of at most 100000');
	});

	it('case 4: with the error output, failed and invalid listings come out in the only shape n8n routes there; created ones do not', async () => {
		const { items, parameters } = listings(3);
		// Listing 3 is invalid (price 0); listing 2 is refused by the API.
		parameters.priceAmount = (itemIndex: number) => (itemIndex === 2 ? 0 : 10);
		for (const output of ['listing', 'row']) {
			nock.cleanAll();
			tokenApi();
			nock(BASE)
				.post(PARTNER_API_PATHS.listings)
				.times(2)
				.reply((_uri, body) =>
					idOf(body) === 2 ? [400, { message: 'no' }] : [201, { id: idOf(body) }],
				);
			const run = { ...parameters, options: { ...(parameters.options as IDataObject), output } };
			const result = await execute.call(
				fakeRun({ parameters: run, items, continueOnFail: true, onError: 'continueErrorOutput' })
					.context,
				items,
			);
			// n8n-core's handleNodeErrorOutput: json exactly { error } or { error, message } goes to the error output.
			const routed = result.map((item) => {
				const keys = Object.keys(item.json).sort().join(',');
				return item.error !== undefined || keys === 'error' || keys === 'error,message';
			});
			expect(routed).toEqual([false, true, true]);
			expect(String(result[1].json.message)).toContain('External Listing ID 2: not created.');
			expect(String(result[2].json.message)).toContain('row 3: not sent: it failed validation.');
		}
	});

	it('case 5: a refused login stops sending: one login attempt, the rest not sent, the login named', async () => {
		let logins = 0;
		nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.times(200)
			.reply(() => {
				logins++;
				return [401, { error: 'invalid_grant', error_description: 'bad password' }];
			});
		const api = nock(BASE).post(PARTNER_API_PATHS.listings).times(200).reply(201, {});
		const { items, parameters } = listings(20, { concurrencyMode: 'adaptive', concurrency: 16 });
		const output = await execute.call(
			fakeRun({ parameters, items, continueOnFail: true }).context,
			items,
		);
		expect(logins).toBe(1);
		expect(api.isDone()).toBe(false);
		expect(String(output[0].json.error)).toBe(
			'Login refused: the token endpoint refused the marketplace e-mail and password (HTTP 401)',
		);
		expect(output.slice(1).every((item) => String(item.json.error).startsWith('Not sent'))).toBe(
			true,
		);
	});

	it('case 6: an API error that echoes the request leaks no credential value into any output', async () => {
		tokenApi();
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(function () {
				return [
					400,
					{
						message: `bad request from ${String(this.req.headers.authorization)}`,
						echo: {
							authorization: this.req.headers.authorization,
							url: `x?secret=${encodeURIComponent(API_CREDENTIALS.consumerSecret)}`,
							password: API_CREDENTIALS.password,
						},
					},
				];
			});
		const { items, parameters } = listings(1, { output: 'row' });
		const output = await execute.call(
			fakeRun({ parameters, items, continueOnFail: true }).context,
			items,
		);
		const text =
			JSON.stringify(output) +
			String(output[0].error?.message) +
			String(output[0].error?.description);
		for (const secret of [TOKEN, API_CREDENTIALS.consumerSecret, API_CREDENTIALS.password]) {
			expect(text).not.toContain(secret);
			expect(text).not.toContain(encodeURIComponent(secret));
		}
		expect(text).toContain('[redacted]');
	});

	it.each([301, 307, 308])(
		'case 7: a %s is not followed: no token goes elsewhere, refused, not created',
		async (status) => {
			tokenApi();
			nock(BASE)
				.post(PARTNER_API_PATHS.listings)
				.reply(status, '', { Location: 'https://elsewhere.example.test/steal' });
			const elsewhere = nock('https://elsewhere.example.test')
				.post('/steal')
				.reply(201, {})
				.get('/steal')
				.reply(200, { ok: 1 });
			const { items, parameters } = listings(1);
			const fake = fakeRun({ parameters, items, continueOnFail: true });
			const [item] = await execute.call(fake.context, items);
			expect(elsewhere.pendingMocks()).toHaveLength(2);
			expect(item.json.mayHaveBeenCreated).toBe(false);
			expect(String(item.json.error)).toBe(
				`The Partner API answered with a redirect (HTTP ${status}), which is not followed`,
			);
			expect(String(item.json.description)).toContain(
				'was redirected to https://elsewhere.example.test/steal.',
			);
			expect(fake.deduplication.entries.get('workflow')?.size ?? 0).toBe(0);
		},
	);

	it.each([302, 303])(
		'case 7b: a %s (post/redirect/get) is not followed, of unknown outcome, and not sent again',
		async (status) => {
			tokenApi();
			const posted = nock(BASE)
				.post(PARTNER_API_PATHS.listings)
				.reply(status, '', { Location: `${BASE}/listings/1` });
			const elsewhere = nock(BASE).get('/listings/1').reply(200, {});
			const { items, parameters } = listings(1);
			const fake = fakeRun({ parameters, items, continueOnFail: true });
			const [item] = await execute.call(fake.context, items);
			expect(posted.isDone()).toBe(true);
			expect(elsewhere.isDone()).toBe(false);
			expect(item.json).toMatchObject({ httpCode: String(status), mayHaveBeenCreated: true });
			expect(String(item.json.description).split('before sending it again')).toHaveLength(2);
			const again = fakeRun({
				parameters,
				items,
				continueOnFail: true,
				deduplication: fake.deduplication,
			});
			const [second] = await execute.call(again.context, items);
			expect(second.json).toMatchObject({ status: 'unknown', mayHaveBeenCreated: true });
			expect(String(second.json.message)).toMatch(/^Not sent, outcome unknown/);
			expect(nock.pendingMocks()).toEqual([`GET ${BASE}:443/listings/1`]);
			nock.cleanAll();
		},
	);

	it('case 8: a memory failure after sending says what was created and never advises turning the memory off', async () => {
		const sent = apiCreatingListing1();
		const store = storeWith((helpers) => ({
			checkProcessedAndRecord: async (...args) =>
				sent() ? await locked() : await helpers.checkProcessedAndRecord(...args),
		}));
		const { items, parameters } = listings(1);
		const error = await failureOf(parameters, items, store);
		expect(error?.description).toContain('were sent before this happened');
		expect(error?.description).toContain('Created in this run: 1 listing (1).');
		expect(error?.description).not.toMatch(/turn off/i);
	});

	it('case 9: an ID another run erased from the memory while this one sent is recorded again', async () => {
		tokenApi();
		const store = new MemoryDeduplicationStore();
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(() => {
				// Another run's read-modify-write lands now and erases this run's record.
				store.entries.get('workflow')?.clear();
				return [201, { id: 1 }];
			});
		const { items, parameters } = listings(1);
		await execute.call(fakeRun({ parameters, items, deduplication: store }).context, items);
		expect([...(store.entries.get('workflow') ?? [])]).toEqual([sentListingKey(MEMORY_ACCOUNT, 1)]);
	});

	it('case 9: two runs that record one ID at the same moment send it once (each write is verified after a pause)', async () => {
		const turn = async () => await new Promise<void>((resolve) => setImmediate(resolve));
		// n8n's store: read, a database round trip, write back whole. The pause outlasts the round trip.
		const store = new SharedRowStore(turn);
		jest.mocked(sleep).mockImplementation(async () => {
			for (let turns = 0; turns < 4; turns++) await turn();
		});
		tokenApi(2);
		const received: number[] = [];
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.listings)
			.reply((_uri, body) => {
				received.push(idOf(body));
				return [201, { id: idOf(body) }];
			});
		const { items, parameters } = listings(1);
		const runs = ['A', 'B'].map(async (caller) => {
			const fake = fakeRun({
				parameters,
				items,
				deduplication: store,
				deduplicationCaller: caller,
			});
			return (await execute.call(fake.context, items))[0].json;
		});
		const outputs = await Promise.all(runs);
		expect(received).toEqual([1]);
		// The run that lost the race skipped it while the other was sending it: its outcome was not known yet.
		expect(
			outputs.map((json) => (json.status === 'unknown' ? 'unknown' : 'created')).sort(),
		).toEqual(['created', 'unknown']);
		// The two first writes collided (one erased the other), and the run that lost its write saw it.
		expect(store.lostUpdates.length).toBeGreaterThan(0);
		// The listing is held once, as sent. A run's markers may outlive it: its last, unverified removal can be undone
		// by the other run's stale write, depending on when nock's reply timer fires against the store's turns.
		const held = [...(store.entries.get('workflow') ?? [])];
		expect(held.filter((key) => !key.startsWith('ticket-marketplace run '))).toEqual([
			sentListingKey(MEMORY_ACCOUNT, 1),
		]);
		jest.mocked(sleep).mockImplementation(async () => undefined);
	});

	it('a memory that cannot forget a refused listing says it is still remembered, and no longer promises that a rerun sends it', async () => {
		tokenApi();
		nock(BASE).post(PARTNER_API_PATHS.listings).reply(400, { message: 'invalid listing' });
		const store = storeWith(() => ({ removeProcessed: locked }));
		const { items, parameters } = listings(1);
		const fake = fakeRun({ parameters, items, deduplication: store, continueOnFail: true });
		const [item] = await execute.call(fake.context, items);
		expect(item.json.description).toContain('invalid listing');
		const notice = fake.hints.map((hint) => hint.message).join('\n');
		expect(notice).toContain(
			'Not created, but still remembered as sent (the next run would skip them): 1.',
		);
		expect(notice).toContain('Listing → Clear Sent Listings History');
		expect(notice).not.toContain('it sends only');
	});

	it('a refused listing that another run brings back into the memory after every removal is named as still remembered', async () => {
		tokenApi();
		nock(BASE).post(PARTNER_API_PATHS.listings).reply(400, { message: 'invalid listing' });
		const { store, undone } = undoneByAnotherRun('removeProcessed');
		const { items, parameters } = listings(1);
		const fake = fakeRun({ parameters, items, deduplication: store, continueOnFail: true });
		const [item] = await execute.call(fake.context, items);
		expect(item.json.description).toContain('invalid listing');
		expect([...(store.entries.get('workflow') ?? [])]).toContain(sentListingKey(MEMORY_ACCOUNT, 1));
		// Four removals after sending (a run that sends writes nothing only to look before it), each undone: bounded,
		// and the run says so instead of promising that a rerun sends it.
		expect(undone.calls).toBe(4);
		const notice = fake.hints.map((hint) => hint.message).join('\n');
		expect(notice).toContain('other runs kept changing it');
		expect(notice).toContain(
			'Not created, but still remembered as sent (the next run would skip them): 1.',
		);
		expect(notice).toContain('start them further apart');
		expect(notice).not.toContain('Check that n8n can write to its database');
	});

	it('a record whose looks all fail sends nothing and takes its own keys out again (it may have stood)', async () => {
		let writes = 0;
		const store: MemoryDeduplicationStore = storeWith((helpers) => ({
			checkProcessedAndRecord: async (values, scope) => {
				// The first call writes the run's keys; every look after it (one marker) fails.
				if (writes++ > 0 && values.length === 1) throw new Error('SQLITE_BUSY: database is locked');
				return await helpers.checkProcessedAndRecord(values, scope);
			},
		}));
		const { items, parameters } = listings(1);
		const error = await failureOf(parameters, items, store);
		expect(error?.description).toContain('Nothing was sent.');
		const held = [...(store.entries.get('workflow') ?? [])].map(String);
		expect(held.filter((key) => key.startsWith('ticket-marketplace listing'))).toEqual([]);
	});

	it('a record that another run erases after every write sends nothing, and says to start the runs further apart', async () => {
		const { store, undone } = undoneByAnotherRun('checkProcessedAndRecord');
		const { items, parameters } = listings(1);
		const error = await failureOf(parameters, items, store);
		expect(error?.message).toBe(
			"n8n's memory of listings already sent could not be used: other runs kept changing it",
		);
		expect(error?.description).toContain('Nothing was sent.');
		expect(error?.description).toContain('start them further apart');
		// Four writes, each looked at once: bounded; no request went out. Each write was proven erased, so the run
		// has no key of its own to take out again, and no look after.
		expect(undone.calls).toBe(8);
		expect(store.entries.get('workflow') ?? new Set()).toEqual(new Set());
	});

	it('a record after sending that another run erases every time fails the run saying what was created', async () => {
		const sent = apiCreatingListing1();
		const { store, undone } = undoneByAnotherRun('checkProcessedAndRecord', sent);
		const { items, parameters } = listings(1);
		const error = await failureOf(parameters, items, store);
		expect(error?.message).toContain('other runs kept changing it');
		expect(error?.description).toContain('were sent before this happened');
		expect(error?.description).toContain('Created in this run: 1 listing (1).');
		expect(error?.description).toContain('start them further apart');
		expect(error?.description).not.toMatch(/turn off/i);
		// Four writes, each looked at once, and the look after removing the created listing's "outcome unknown": bounded.
		expect(undone.calls).toBe(9);
	});

	it("a store call that fails once (two runs inserting a workflow's memory at once) is made again: the listing is sent and remembered", async () => {
		tokenApi();
		nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, { id: 1 });
		let failed = false;
		const store = storeWith((helpers) => ({
			checkProcessedAndRecord: async (...args) => {
				if (!failed) {
					failed = true;
					throw new Error('duplicate key value violates unique constraint "PK_processed_data"');
				}
				return await helpers.checkProcessedAndRecord(...args);
			},
		}));
		await expectSentAndRemembered(store);
	});

	it('a failed first write that went through after all (its retry finds the marker): nothing is sent, and the error names the IDs now remembered', async () => {
		let failed = false;
		const store = storeWith((helpers) => ({
			checkProcessedAndRecord: async (...args) => {
				const answer = await helpers.checkProcessedAndRecord(...args);
				if (!failed) {
					failed = true;
					throw new Error('Connection terminated unexpectedly');
				}
				return answer;
			},
		}));
		const { items, parameters } = listings(2);
		const fake = fakeRun({ parameters, items, deduplication: store });
		// No listing request may go: nock refuses any request it was not told about.
		const error = (await execute.call(fake.context, items).catch((caught: unknown) => caught)) as {
			message: string;
			description?: string;
		};
		expect(error.message).toContain("n8n's memory of listings already sent could not be used");
		expect(error.description).toContain('Nothing was sent.');
		expect(error.description).toContain(
			'Not sent, but possibly remembered as sent (the next run may skip them): 1 and 2.',
		);
		expect(error.description).toContain('Listing → Clear Sent Listings History');
	});

	it('a memory that cannot count still sends: the count only feeds the notice near the cap', async () => {
		tokenApi();
		nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, { id: 1 });
		const store = storeWith(() => ({ getProcessedDataCount: locked }));
		await expectSentAndRemembered(store);
	});

	it('case 12: Forget Sent Listings says which IDs the memory held and which it did not', async () => {
		const store = new MemoryDeduplicationStore();
		store.entries.set('workflow', new Set([sentListingKey(MEMORY_ACCOUNT, 7)]));
		const items = [{ json: {} }, { json: {} }];
		const fake = fakeRun({
			parameters: {
				forgetScope: 'ids',
				forgetExternalListingId: (itemIndex: number) => [7, 8][itemIndex],
			},
			items,
			deduplication: store,
		});
		const output = await forget.call(fake.context, items);
		expect(output.map((item) => item.json)).toEqual([
			{ forgotten: 7 },
			{
				notRemembered: 8,
				message:
					'Nothing to forget: External Listing ID 8 is not remembered for this account and Base URL',
			},
		]);
		expect(store.entries.get('workflow')?.size).toBe(0);
	});
});
