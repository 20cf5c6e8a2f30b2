/**
 * The fault oracle (issue 18): generated, seeded scenarios through the real execute() and n8n-core's real request
 * helper and credential, against a fake Partner API that answers each request with a randomly chosen behaviour,
 * and invariants checked after every scenario. A failure names the invariant and prints the scenario;
 * FAULT_ORACLE_SEED replays one seed, FAULT_ORACLE_RUNS sets how many scenarios run.
 */
import fc from 'fast-check';
import nock from 'nock';
import { sleepWithAbort } from 'n8n-workflow';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { sentListingKey } from '../../../nodes/TicketMarketplace/helpers/sentListings';
import { RETRY_POLICY } from '../../../nodes/TicketMarketplace/transport';
import { basicAuthorization } from '../../../credentials/common/partnerApi';
import {
	API_CREDENTIALS,
	BASE,
	fakeRun,
	MemoryDeduplicationStore,
} from '../../../support/fakeN8n/actionContext';

jest.mock('n8n-workflow', () => ({
	...jest.requireActual('n8n-workflow'),
	sleepWithAbort: jest.fn(async (_ms: number, signal?: AbortSignal) => {
		if (signal?.aborted) throw new Error('aborted');
	}),
}));
const waits = sleepWithAbort as jest.MockedFunction<typeof sleepWithAbort>;

const SEED = Number(process.env.FAULT_ORACLE_SEED ?? 1811);
const RUNS = Number(process.env.FAULT_ORACLE_RUNS ?? 10_000);
const LISTING_PATH = '/sellers/inventory/listings/v3';

/** What the fake API does with one listing request. */
const BEHAVIOURS = [
	'created',
	'refused400',
	'rateLimited',
	'rateLimitedZero',
	'rateLimitedPast',
	'rateLimitedHuge',
	'serverErrorCreated',
	'serverErrorNotCreated',
	'resetBefore',
	'resetAfter',
	'redirect301',
	'redirect302',
	'redirect303',
	'redirect307',
	'redirect308',
	'echo',
	'tokenExpired',
] as const;
type Behaviour = (typeof BEHAVIOURS)[number];

interface Scenario {
	listings: number;
	remembered: number[];
	behaviours: Behaviour[];
	loginRefused: boolean;
	cancelAtRequest?: number;
	output: 'listing' | 'row';
	onError: 'stop' | 'continueRegularOutput' | 'continueErrorOutput';
	concurrency: number;
	adaptive: boolean;
}

const scenarios: fc.Arbitrary<Scenario> = fc
	.record({
		listings: fc.integer({ min: 1, max: 6 }),
		remembered: fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { maxLength: 2 }),
		behaviours: fc.array(fc.constantFrom(...BEHAVIOURS), { minLength: 1, maxLength: 12 }),
		// One scenario in ten: the marketplace login is refused.
		loginRefused: fc.integer({ min: 0, max: 9 }).map((value) => value === 0),
		cancelAtRequest: fc.option(fc.integer({ min: 1, max: 8 }), { freq: 4 }),
		output: fc.constantFrom<'listing' | 'row'>('listing', 'row'),
		onError: fc.constantFrom<Scenario['onError']>(
			'stop',
			'continueRegularOutput',
			'continueErrorOutput',
		),
		concurrency: fc.integer({ min: 1, max: 4 }),
		adaptive: fc.boolean(),
	})
	.map((scenario) => ({ ...scenario, cancelAtRequest: scenario.cancelAtRequest ?? undefined }));

/** The fake API: what it saw and what it holds, per External Listing ID. */
class FakeApi {
	readonly seen = new Map<number, number>();
	readonly held = new Map<number, number>();
	readonly tokens: string[] = [];
	private requests = 0;

	constructor(
		private readonly scenario: Scenario,
		private readonly cancel: AbortController,
	) {}

	intercept(): void {
		nock(BASE)
			.persist()
			.post('/sellers/oauth/accesstoken')
			.query(true)
			.reply(() => {
				if (this.scenario.loginRefused)
					return [401, { error: 'invalid_grant', error_description: 'no' }];
				const token = `tok-oracle-${this.tokens.length + 1}-${'x'.repeat(8)}`;
				this.tokens.push(token);
				return [200, { access_token: token }];
			});
		nock(BASE)
			.persist()
			.post(LISTING_PATH)
			.reply((_uri, body, callback) => {
				const id = Number((body as IDataObject).externalListingId);
				this.seen.set(id, (this.seen.get(id) ?? 0) + 1);
				const behaviour = this.scenario.behaviours[this.requests % this.scenario.behaviours.length];
				this.requests++;
				if (this.requests === this.scenario.cancelAtRequest) this.cancel.abort();
				const create = () => this.held.set(id, (this.held.get(id) ?? 0) + 1);
				const reset = () =>
					callback(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), [0, '']);
				switch (behaviour) {
					case 'created':
						create();
						return callback(null, [201, { listingId: `L-${id}` }]);
					case 'refused400':
						return callback(null, [400, { message: 'invalid listing' }]);
					case 'rateLimited':
						return callback(null, [429, {}, { 'Retry-After': '1' }]);
					case 'rateLimitedZero':
						return callback(null, [429, {}, { 'Retry-After': '0' }]);
					case 'rateLimitedPast':
						return callback(null, [429, {}, { 'Retry-After': 'Thu, 01 Jan 2015 00:00:00 GMT' }]);
					case 'rateLimitedHuge':
						return callback(null, [429, {}, { 'Retry-After': '86400' }]);
					case 'serverErrorCreated':
						create();
						return callback(null, [502, { message: 'upstream' }]);
					case 'serverErrorNotCreated':
						return callback(null, [503, { message: 'busy' }]);
					case 'resetBefore':
						return reset();
					case 'resetAfter':
						create();
						return reset();
					case 'echo':
						return callback(null, [
							400,
							{
								message: `bad: ${API_CREDENTIALS.consumerSecret} ${API_CREDENTIALS.password}`,
								echo: {
									tokens: this.tokens,
									basic: basicAuthorization(
										API_CREDENTIALS.consumerKey,
										API_CREDENTIALS.consumerSecret,
									),
									url: `q=${encodeURIComponent(API_CREDENTIALS.password)}`,
								},
							},
						]);
					case 'tokenExpired':
						// n8n renews the token and sends the request once more (the next behaviour answers it).
						return callback(null, [401, { message: 'token expired' }]);
					default: {
						const status = Number(behaviour.replace('redirect', ''));
						return callback(null, [status, '', { Location: 'https://elsewhere.example.test/x' }]);
					}
				}
			});
	}

	secrets(): string[] {
		const basic = basicAuthorization(API_CREDENTIALS.consumerKey, API_CREDENTIALS.consumerSecret);
		return [
			API_CREDENTIALS.consumerSecret,
			API_CREDENTIALS.password,
			encodeURIComponent(API_CREDENTIALS.password),
			basic.slice('Basic '.length),
			...this.tokens,
		];
	}
}

type State = 'created' | 'skipped' | 'refused' | 'unknown' | 'notSent';

/** Each listing's state as the output items say it (per listing, per row, or the error output's words). */
function statesFromOutput(output: INodeExecutionData[], scenario: Scenario): Map<number, State> {
	// One listing per item, and the output in input order in both modes: item i is listing i + 1.
	return new Map(output.map((item, index) => [index + 1, stateOf(item.json, scenario)]));
}

function stateOf(json: IDataObject, scenario: Scenario): State {
	if (
		scenario.onError === 'continueErrorOutput' &&
		Object.keys(json).sort().join() === 'error,message'
	) {
		const message = String(json.message);
		if (message.includes('may have been created')) return 'unknown';
		if (message.includes('not sent: the run stopped')) return 'notSent';
		return 'refused';
	}
	const detail = (scenario.output === 'row' ? json.listingError : json) as IDataObject | undefined;
	if (scenario.output === 'row') {
		if (json.listingStatus === 'created') return 'created';
		if (json.listingStatus === 'skipped') return 'skipped';
	} else {
		if (json.status === 'skipped') return 'skipped';
		if (json.listingId !== undefined) return 'created';
	}
	if (String(detail?.error).startsWith('Not sent')) return 'notSent';
	return detail?.mayHaveBeenCreated === true ? 'unknown' : 'refused';
}

function fail(invariant: string, detail: string): never {
	throw new Error(`${invariant} broken: ${detail}`);
}

async function runScenario(scenario: Scenario): Promise<void> {
	nock.cleanAll();
	waits.mockClear();
	const cancel = new AbortController();
	const api = new FakeApi(scenario, cancel);
	api.intercept();
	const store = new MemoryDeduplicationStore();
	store.entries.set('workflow', new Set(scenario.remembered.map((id) => sentListingKey(BASE, id))));
	const items = Array.from({ length: scenario.listings }, (_, index) => ({
		json: { row: index + 1 },
	}));
	const parameters = {
		inputShape: 'listingPerItem',
		eventId: 55,
		externalListingId: (itemIndex: number) => itemIndex + 1,
		priceAmount: 10,
		priceCurrency: 'EUR',
		productsSource: 'defined',
		products: { product: [{ externalId: 'A-1', row: 'A', seat: '1' }] },
		options: {
			output: scenario.output,
			concurrencyMode: scenario.adaptive ? 'adaptive' : 'fixed',
			concurrency: scenario.concurrency,
		},
	};
	const fake = fakeRun({
		parameters,
		items,
		deduplication: store,
		continueOnFail: scenario.onError !== 'stop',
		onError: scenario.onError === 'stop' ? undefined : scenario.onError,
		cancelSignal: cancel.signal,
	});
	let output: INodeExecutionData[] | undefined;
	let thrown: (Error & { description?: string }) | undefined;
	try {
		output = await execute.call(fake.context, items);
	} catch (error) {
		thrown = error as Error & { description?: string };
	}

	// I4: no credential value or token in any output or error.
	const text =
		JSON.stringify(output ?? null) +
		String(thrown?.message) +
		String(thrown?.description) +
		fake.hints.map((hint) => hint.message).join('\n');
	for (const secret of api.secrets()) {
		if (text.includes(secret))
			fail('I4 (no secret in outputs)', `"${secret.slice(0, 6)}…" appears`);
	}
	// I5: no wait beyond the cap; bounded attempts per listing.
	for (const [ms] of waits.mock.calls) {
		if (ms > RETRY_POLICY.maxRetryAfterMs) fail('I5 (bounded waits)', `waited ${ms} ms`);
	}
	// Each attempt may be answered 401 and sent once more after n8n renews the token.
	const maxAttempts =
		2 * (1 + RETRY_POLICY.maxRateLimitRetries + RETRY_POLICY.maxConnectionRetries);
	for (const [id, count] of api.seen) {
		if (count > maxAttempts) fail('I5 (bounded attempts)', `listing ${id} sent ${count} times`);
	}
	// The API never holds a listing twice.
	for (const [id, count] of api.held) {
		if (count > 1) fail('I2 (nothing created twice)', `listing ${id} created ${count} times`);
	}
	const memory = new Set(store.entries.get('workflow') ?? []);
	const remembered = (id: number) => memory.has(sentListingKey(BASE, id));
	// I3 (every run): whatever the API holds is remembered, so no later run sends it again.
	for (const id of api.held.keys()) {
		if (!remembered(id)) fail('I3 (created ⇒ remembered)', `listing ${id} is held but forgotten`);
	}
	if (!output) {
		if (scenario.onError !== 'stop') fail('I1', `threw with Continue: ${thrown?.message}`);
		return;
	}
	// I6: one item per listing (or per row), each paired with its own row.
	if (output.length !== scenario.listings) fail('I6 (paired items)', `${output.length} items`);
	output.forEach((item, index) => {
		const paired = JSON.stringify(item.pairedItem);
		if (paired !== JSON.stringify([{ item: index }]) && paired !== JSON.stringify({ item: index }))
			fail('I6 (paired items)', `item ${index} paired with ${paired}`);
	});
	// I1 and I2: each listing in one state, and the API agrees.
	const states = statesFromOutput(output, scenario);
	const cancelled = cancel.signal.aborted;
	for (let id = 1; id <= scenario.listings; id++) {
		const state = states.get(id);
		const held = api.held.has(id);
		const seen = api.seen.has(id);
		const wasRemembered = scenario.remembered.includes(id);
		if (state === 'created' && !held) fail('I2 (created ⇒ held)', `listing ${id}`);
		if (state === 'skipped' && (!wasRemembered || seen))
			fail('I2 (skipped ⇒ remembered, unseen)', `listing ${id}`);
		if (state === 'notSent' && seen) fail('I2 (not sent ⇒ never seen)', `listing ${id}`);
		if (state === 'refused' && held) fail('I2 (refused ⇒ not held)', `listing ${id}`);
		// A request in flight when the run is stopped is aborted by n8n: whether its bytes left cannot be known
		// (the fake API may not have read it yet), so it is reported unknown, the safe side.
		if (state === 'unknown' && !seen && !cancelled) fail('I2 (unknown ⇒ it left)', `listing ${id}`);
		// I3: the memory is exactly created ∪ unknown (∪ what was remembered before).
		const shouldRemember = state === 'created' || state === 'unknown' || wasRemembered;
		if (remembered(id) !== shouldRemember)
			fail(
				'I3 (memory = created ∪ unknown)',
				`listing ${id} (${String(state)}) remembered: ${remembered(id)}`,
			);
	}
	// I7: with the error output, exactly the listings not created or skipped take the shape n8n routes there.
	if (scenario.onError === 'continueErrorOutput') {
		output.forEach((item, index) => {
			const routed = Object.keys(item.json).sort().join() === 'error,message';
			const state = states.get(index + 1);
			if (routed !== (state !== 'created' && state !== 'skipped'))
				fail('I7 (error output)', `listing ${index + 1} (${String(state)}) routed: ${routed}`);
		});
	}
}

afterEach(() => nock.cleanAll());

describe('Listing → Create: the fault oracle', () => {
	it(`keeps every promise in ${RUNS} generated fault scenarios (seed ${SEED})`, async () => {
		const started = Date.now();
		await fc.assert(fc.asyncProperty(scenarios, runScenario), { numRuns: RUNS, seed: SEED });
		console.log(`fault oracle: ${RUNS} scenarios (seed ${SEED}) in ${Date.now() - started} ms`);
	}, 600_000);
});
