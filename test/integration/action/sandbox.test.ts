import { NodeApiError, NodeOperationError, sleepWithAbort } from 'n8n-workflow';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute as createListings } from '../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { execute as subscribe } from '../../../nodes/TicketMarketplace/actions/webhook/subscribe/execute';
import { SANDBOX_DEFAULTS, startSandbox } from '../../../sandbox/index';
import type { Sandbox } from '../../../sandbox/index';
import type { ParameterValue } from '../../../support/fakeN8n/actionContext';
import { listingBody } from '../../../support/listingBody';
import {
	fakeRun,
	GROUPED_SHEET_PARAMETERS,
	MemoryDeduplicationStore,
	sheetRows,
} from '../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';

// Retry waits return at once; what was asked is recorded.
jest.mock('n8n-workflow', () => ({
	...jest.requireActual('n8n-workflow'),
	sleepWithAbort: jest.fn(async () => undefined),
}));

const CALLBACK = { clientId: 'callback-client', clientSecret: 'callback-secret-integration' };

const GROUPED: Record<string, ParameterValue> = {
	...GROUPED_SHEET_PARAMETERS,
	options: { concurrency: 3 },
};

function sheet(listings: number[], seatsPerListing = 2): INodeExecutionData[] {
	// One seat per listing: a seat in two listings of one event is refused before sending.
	const rows = listings.flatMap((listing, index) =>
		Array.from({ length: seatsPerListing }, (_, seat) => ({
			event: '5000',
			listing: String(listing),
			price: '25.50',
			currency: 'EUR',
			ticket: `${listing}-A-${index * seatsPerListing + seat + 1}`,
			row: 'A',
			seat: String(index * seatsPerListing + seat + 1),
			ga: 'false',
		})),
	);
	return sheetRows(rows);
}

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => {
	await sandbox.stop();
});
beforeEach(() => {
	sandbox.reset();
	(sleepWithAbort as jest.Mock).mockClear();
});

function runFor(
	parameters: Record<string, ParameterValue>,
	items: INodeExecutionData[],
	continueOnFail = false,
) {
	return fakeRun(runOptions(parameters, items, continueOnFail));
}

function runOptions(
	parameters: Record<string, ParameterValue>,
	items: INodeExecutionData[],
	continueOnFail = false,
) {
	return {
		parameters,
		items,
		continueOnFail,
		apiCredentials: {
			baseUrl: `${sandbox.url}/`,
			consumerKey: SANDBOX_DEFAULTS.consumerKey,
			consumerSecret: SANDBOX_DEFAULTS.consumerSecret,
			email: SANDBOX_DEFAULTS.marketplaceAccount.email,
			password: SANDBOX_DEFAULTS.marketplaceAccount.password,
		},
		callbackCredentials: CALLBACK,
	};
}

function listingPosts() {
	return sandbox.state().requests.filter((request) => request.path === PARTNER_API_PATHS.listings);
}

describe('Ticket Marketplace action node against the sandbox', () => {
	it('creates grouped sheet rows as listings, one token for the whole run, output in input order', async () => {
		const items = sheet([101, 102, 103, 104, 105]);
		const run = runFor(GROUPED, items);
		const output = await createListings.call(run.context, items);

		const state = sandbox.state();
		expect(state.listings.map((listing) => listing.externalListingId).sort()).toEqual([
			101, 102, 103, 104, 105,
		]);
		const first = state.listings.find((listing) => listing.externalListingId === 101);
		expect(first?.body).toEqual(
			listingBody({
				eventId: 5000,
				amount: 25.5,
				currency: 'EUR',
				externalListingId: 101,
				products: [
					{ externalId: '101-A-1', row: 'A', seat: '1' },
					{ externalId: '101-A-2', row: 'A', seat: '2' },
				],
			}),
		);
		expect(state.tokens.count).toBe(1);
		expect(output).toHaveLength(5);
		output.forEach((item, index) => {
			expect(item.pairedItem).toEqual([{ item: index * 2 }, { item: index * 2 + 1 }]);
		});
		// The sandbox's answer is passed through as returned; it names the listing it created.
		const answers = output.map((item) => JSON.stringify(item.json));
		state.listings.forEach((listing) => {
			expect(answers.some((answer) => answer.includes(listing.id))).toBe(true);
		});
		expect(answers.findIndex((answer) => answer.includes(first!.id))).toBe(0);
	});

	it('sends nothing when any row is invalid', async () => {
		const items = sheet([201, 202]);
		items[3].json.seat = '';
		const run = runFor(GROUPED, items);
		await expect(createListings.call(run.context, items)).rejects.toThrow(NodeOperationError);
		expect(sandbox.state().requests).toEqual([]);
	});

	it('waits out a 429 as the Retry-After header asks, and creates the listing once', async () => {
		sandbox.addFault({
			endpoint: 'listings',
			sequence: ['429', 'ok'],
			kind: '429',
			retryAfterSeconds: 2,
		});
		const items = sheet([301]);
		const run = runFor(GROUPED, items);
		const output = await createListings.call(run.context, items);

		expect(sleepWithAbort).toHaveBeenCalledWith(2000, expect.any(AbortSignal));
		expect(listingPosts().map((request) => request.status)).toEqual([429, expect.any(Number)]);
		expect(sandbox.state().listings).toHaveLength(1);
		expect(output).toHaveLength(1);
	});

	it('renews an expired token and still creates the listing once', async () => {
		const items = sheet([401, 402]);
		const first = runFor(GROUPED, items.slice(0, 2));
		await createListings.call(first.context, items.slice(0, 2));
		const token = first.stored.accessToken as string;
		expect(token).toBeTruthy();
		expect(sandbox.expireTokens({ all: true })).toBe(1);

		// A later execution starts with the stored (now expired) token, as n8n would.
		const second = fakeRun({ ...runOptions(GROUPED, items.slice(2)), accessToken: token });
		await createListings.call(second.context, items.slice(2));

		expect(second.tokenRequests()).toBe(1);
		expect(sandbox.state().tokens.count).toBe(2);
		expect(
			sandbox
				.state()
				.listings.map((listing) => listing.externalListingId)
				.sort(),
		).toEqual([401, 402]);
		expect(
			listingPosts().filter((request) => request.status !== null && request.status < 300),
		).toHaveLength(2);
	});

	it.each([
		[
			'a 502',
			{
				endpoint: 'listings' as const,
				kind: '5xx' as const,
				status: 502,
				sequence: ['5xx' as const],
			},
		],
		[
			'a dropped connection',
			{ endpoint: 'listings' as const, kind: 'drop' as const, sequence: ['drop' as const] },
		],
	])('never re-sends a listing after %s, and says it may exist', async (_name, fault) => {
		sandbox.addFault(fault);
		const items = sheet([501, 502]);
		const run = runFor({ ...GROUPED, options: { concurrency: 1 } }, items);

		let failure: NodeApiError | undefined;
		try {
			await createListings.call(run.context, items);
		} catch (error) {
			failure = error as NodeApiError;
		}
		expect(failure).toBeInstanceOf(NodeApiError);
		expect(failure?.description).toContain(
			'may or may not have been created. It was not sent again, so nothing was created twice. Look the listing up on the marketplace by its External Listing ID before sending it again.',
		);
		expect(failure?.description).toContain('Not sent, the run stopped first: 1 listing (502).');
		const posted = listingPosts().map(
			(request) => (request.body as IDataObject | undefined)?.externalListingId,
		);
		expect(posted).toEqual([501]);
	});

	// A gateway's 503 maintenance page: the request was not handled (RFC 9110), so it is sent again, paced like a 429.
	it.each([
		['an HTML page', false],
		["Apigee's ServiceUnavailable fault", true],
	])(
		'of 20 listings with three 503 maintenance answers (%s), all 20 are created, each once',
		async (_name, fault) => {
			sandbox.addFault({
				endpoint: 'listings',
				kind: 'maintenance',
				fault,
				sequence: ['ok', 'maintenance', 'ok', 'ok', 'maintenance', 'ok', 'maintenance'],
			});
			const ids = Array.from({ length: 20 }, (_, index) => 601 + index);
			const items = sheet(ids, 1);
			// Fixed pace: each refused listing waits its own Retry-After (at once here), no pause of the whole run.
			const run = runFor(
				{ ...GROUPED, options: { concurrency: 3, concurrencyMode: 'fixed' } },
				items,
				true,
			);
			const output = await createListings.call(run.context, items);
			const created = sandbox.state().listings.map((listing) => listing.externalListingId);
			expect([...created].sort()).toEqual(ids);
			expect(listingPosts().filter((request) => request.status === 503)).toHaveLength(3);
			expect(output.every((item) => item.json.error === undefined)).toBe(true);
		},
	);

	it('a listing the 503 kept unsent is not created, not remembered, and the next run sends it', async () => {
		sandbox.addFault({ endpoint: 'listings', kind: 'maintenance' });
		const store = new MemoryDeduplicationStore();
		const items = sheet([701], 1);
		const first = await createListings.call(
			fakeRun({ ...runOptions(GROUPED, items, true), deduplication: store }).context,
			items,
		);
		expect(String(first[0].json.error)).toMatch(/^Unavailable: .*\(HTTP 503\)$/);
		expect(first[0].json.mayHaveBeenCreated).toBe(false);
		expect(sandbox.state().listings).toHaveLength(0);
		sandbox.clearFaults();
		await createListings.call(
			fakeRun({ ...runOptions(GROUPED, items, true), deduplication: store }).context,
			items,
		);
		expect(sandbox.state().listings.map((listing) => listing.externalListingId)).toEqual([701]);
		// The node's own backoff between the 503s, waited in real time, takes about 5 s.
	}, 20_000);

	it('subscribes the callback with the callback credential and reports the identifier the sandbox gave', async () => {
		const run = runFor(
			{
				callbackUrl: 'http://127.0.0.1:9/webhook/notify',
				callbackAuthUrl: 'http://127.0.0.1:9/webhook/token',
				clientCredentialsSource: 'credential',
				subscriptionKinds: ['listing_sale'],
				options: {},
			},
			[{ json: {} }],
		);
		const output = await subscribe.call(run.context, [{ json: {} }]);

		const [subscription] = sandbox.state().subscriptions;
		expect(subscription.callback.auth.oauthRequest.clientId).toBe(CALLBACK.clientId);
		expect(subscription.subscription.listing).toEqual(['listing_sale']);
		expect(output[0].json.subscriptionId).toBe(subscription.id);
		expect(typeof output[0].json.subscriptionIdField).toBe('string');
		expect(output[0].json.nextStep).toContain(subscription.id);
		expect(JSON.stringify(output)).not.toContain(CALLBACK.clientSecret);
	});

	it('explains a developer-portal login refused by the token exchange', async () => {
		const items = sheet([601], 1);
		const run = fakeRun({
			parameters: GROUPED,
			items,
			apiCredentials: {
				baseUrl: sandbox.url,
				consumerKey: SANDBOX_DEFAULTS.consumerKey,
				consumerSecret: SANDBOX_DEFAULTS.consumerSecret,
				email: SANDBOX_DEFAULTS.developerAccount.email,
				password: SANDBOX_DEFAULTS.developerAccount.password,
			},
		});
		await expect(createListings.call(run.context, items)).rejects.toMatchObject({
			message:
				'Login refused: the token endpoint refused the marketplace e-mail and password (HTTP 401)',
			description: expect.stringMatching(
				/your marketplace account.*not your developer-portal login/,
			),
		});
		expect(listingPosts()).toEqual([]);
	});
});
