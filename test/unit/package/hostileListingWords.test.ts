/**
 * Listing → Create against answers whose words or numbers could mislead the reading of "already listed" and
 * "created". Each test names the promise of docs/listing-create.md it checks; the last block keeps attacks that held.
 */
import nock from 'nock';
import type { INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';
import {
	API_CREDENTIALS,
	BASE,
	EXAMPLE_SHEET_PARAMETERS,
	fakeRun,
	MemoryDeduplicationStore,
	oneSeatListings,
	sheetRows,
	type ParameterValue,
} from '../../../support/fakeN8n/actionContext';
import { acceptListings, answerListings, grantTokens } from '../../../support/partnerApiNock';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const JSON_TYPE = { 'Content-Type': 'application/json' };

async function run(
	items: INodeExecutionData[],
	parameters: Record<string, ParameterValue>,
	deduplication = new MemoryDeduplicationStore(),
) {
	const fake = fakeRun({ parameters, items, continueOnFail: true, deduplication });
	return { out: await execute.call(fake.context, items), fake };
}

/** One listing sent against `answer`, then a second run against an API that creates it: what each run did. */
async function answeredThenRunAgain(id: number, answer: [number, unknown]) {
	const store = new MemoryDeduplicationStore();
	const { items, parameters } = oneSeatListings([id], { output: 'row' });
	grantTokens(`tok-r4a-${id}-first`);
	answerListings(() => [answer[0], answer[1], JSON_TYPE]);
	const first = await run(items, parameters, store);
	nock.cleanAll();
	grantTokens(`tok-r4a-${id}-second`);
	const sentAgain = answerListings(() => [201, { id: `L-${id}` }]);
	const second = await run(items, parameters, store);
	return { first: first.out[0].json, second: second.out[0].json, sentAgain };
}

describe('lost: "already listed" read into words that do not say this listing exists', () => {
	// docs/listing-create.md: "*Already listed*: a 400 or 409 that says the listing already exists and names this
	// listing's External Listing ID (as a whole ...) ... without one [a code], the words must say it exists";
	// "Refused: any other 4xx is *not created* and forgotten, so the next run sends it once fixed."
	it('a 409 "Duplicate request detected, retry in 2 seconds" to listing 2 is no proof listing 2 exists', async () => {
		// A gateway's idempotency or replay guard: a request, not the listing, is the duplicate; 2 is a number of seconds.
		const { first, second, sentAgain } = await answeredThenRunAgain(2, [
			409,
			{ message: 'Duplicate request detected, retry in 2 seconds' },
		]);
		// Remembered as created, the listing is never sent again: nothing created it.
		expect(sentAgain).toEqual([2]);
		expect(first.listingStatus).not.toBe('alreadyListed');
		expect(second.listingStatus).toBe('created');
	});

	// docs/listing-create.md: "... neither is an answer that names another ID or something else (a closed event,
	// say): a refusal, not created, not remembered."
	it('"A listing already exists for event 7" names event 7, not External Listing ID 7', async () => {
		// A marketplace that takes one listing per seller and event refuses listing 7; its words name the event.
		const { first, second, sentAgain } = await answeredThenRunAgain(7, [
			400,
			{ description: 'A listing already exists for event 7' },
		]);
		expect(sentAgain).toEqual([7]);
		expect(first.listingStatus).not.toBe('alreadyListed');
		expect(second.listingStatus).toBe('created');
	});

	// docs/listing-create.md: "... and no other listing (`Listing 9001 already exists for the same 2 tickets` is about
	// listing 9001)": an ID only as a count is no ID.
	it('"2 listings already exist for this event" to listing 2 counts listings, it names none', async () => {
		const { first, second, sentAgain } = await answeredThenRunAgain(2, [
			400,
			{ message: 'Too many listings: 2 listings already exist for this event' },
		]);
		expect(sentAgain).toEqual([2]);
		expect(first.listingStatus).not.toBe('alreadyListed');
		expect(second.listingStatus).toBe('created');
	});

	// docs/listing-create.md: "*Already listed*: a 400 or 409 that says the listing already exists and names this
	// listing's External Listing ID (as a whole ...)". A listing code with the ID only as a count of seats names none.
	it('a duplicateListing code whose words name "the same 7 seats" does not name listing 7', async () => {
		const { first, sentAgain } = await answeredThenRunAgain(7, [
			400,
			{
				code: 'inventory.listings.duplicateListing',
				description: 'A listing with the same 7 seats already exists',
			},
		]);
		expect(sentAgain).toEqual([7]);
		expect(first.listingStatus).not.toBe('alreadyListed');
	});
});

describe('lost: a seat refusal read as "already listed" when its code is spelt otherwise', () => {
	// docs/listing-create.md: "A refusal of a seat that exists already (`inventory.listings.duplicateSectionRowSeat`)
	// is never *already listed*, whatever its description names (this listing's ID included)".
	it.each([
		[
			'Code',
			{ Code: 'inventory.listings.duplicateSectionRowSeat', message: 'Listing 7 already exists' },
		],
		[
			'error_code',
			{
				error_code: 'inventory.listings.duplicateSectionRowSeat',
				message: 'Listing 7 already exists',
			},
		],
	])(
		'a duplicateSectionRowSeat spelt `%s` naming listing 7 leaves it to be sent again',
		async (_spelling, body) => {
			const { first, sentAgain } = await answeredThenRunAgain(7, [400, body]);
			// Remembered as created, listing 7 is skipped by every later run, though the API refused it.
			expect(sentAgain).toEqual([7]);
			expect(first.listingStatus).toBe('failed');
		},
	);
});

describe("sent again: a 503 of the listing service read as the gateway's", () => {
	// docs/listing-create.md: "A 503 carrying a code of the service behind the gateway (a namespaced code such as
	// `inventory.…`, not one of Apigee's own) reached that service: its code decides, and
	// `inventory.listings.systemError` is *outcome unknown*"; error fields are read "in any letter case".
	it.each([
		['Code', { Code: 'inventory.listings.systemError', Description: 'Internal error' }],
		['error_code', { error_code: 'inventory.listings.systemError', message: 'Internal error' }],
	])(
		'a 503 whose service code is spelt `%s` is sent once, outcome unknown',
		async (_spelling, body) => {
			grantTokens('tok-r4a-503-0001');
			const received = answerListings(() => [503, body, JSON_TYPE]);
			const { items, parameters } = oneSeatListings([1], { output: 'row' });
			const { out } = await run(items, parameters);
			// The service saw the request and may have saved the listing: sending it again may list it twice.
			expect(received).toEqual([1]);
			expect(out[0].json.listingStatus).toBe('unknown');
		},
	);
});

describe('refused although the service says it failed inside', () => {
	// README.md: "Where the API gives a code, the code decides what its answer means"; outcome unknown is "a server
	// error such as `inventory.listings.systemError`", and "The next run skips it as *unknown*".
	it('a 400 carrying inventory.listings.systemError is outcome unknown, and the next run does not send it again', async () => {
		const { first, sentAgain } = await answeredThenRunAgain(1, [
			400,
			{ code: 'inventory.listings.systemError', description: 'Internal error' },
		]);
		// Forgotten as "not created", it is sent again: if the failing service had saved it, it is listed twice.
		expect(sentAgain).toEqual([]);
		expect(first.listingStatus).toBe('unknown');
	});
});

describe('created without evidence', () => {
	// docs/listing-create.md: "a listing is *created* only when the API answers 200 or 201 with a JSON object ...
	// that reports no error anywhere in it (... no `status` or `state` that says it failed (a word in it that starts
	// with fail, error, reject, refus or declin ..., or an HTTP error number from 400 to 599) ...". Any other
	// success answer "is *outcome unknown*".
	it('a 200 whose status is "400 BAD_REQUEST" (a proxy wrapping the refusal) is not "created"', async () => {
		grantTokens('tok-r4a-status-0001');
		answerListings(() => [
			200,
			{ status: '400 BAD_REQUEST', message: 'eventId: event is not on sale' },
			JSON_TYPE,
		]);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(out[0].json.listingStatus).toBe('unknown');
	});
});

describe('created without evidence (2)', () => {
	// As above: "an HTTP error number from 400 to 599" in a status that says it failed.
	it('a 200 whose status is "HTTP 503 Service Unavailable" is not "created"', async () => {
		grantTokens('tok-r4a-status-0002');
		answerListings(() => [200, { status: 'HTTP 503 Service Unavailable' }, JSON_TYPE]);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(out[0].json.listingStatus).toBe('unknown');
	});
});

/** Every own property of a value, deep (an error object's too), as text. */
function everything(value: unknown, seen = new Set<unknown>()): string {
	if (value === null || typeof value !== 'object') return String(value);
	if (seen.has(value)) return '';
	seen.add(value);
	return Object.getOwnPropertyNames(value)
		.map((key) => `${key}=${everything((value as Record<string, unknown>)[key], seen)}`)
		.join(' ');
}

describe('held: attacks that the code withstood', () => {
	it.each([['07'], [' 7'], [7.0], ['7.0']])(
		'held: External Listing IDs 7 and %p on two items (one listing per item) send listing 7 once',
		async (other) => {
			grantTokens('tok-r4a-held-0001');
			const bodies = acceptListings(5);
			const { items, parameters } = oneSeatListings([1, 2], { output: 'row' });
			parameters.externalListingId = (itemIndex: number) => [7, other][itemIndex];
			await run(items, parameters);
			expect(bodies.map((body) => body.externalListingId)).toEqual([7]);
		},
	);

	// docs/listing-create.md: "Numbers that a sheet gives as text are accepted when exact."
	it.each([['1,000.00'], ['1e3'], ['４９.９０'], ['1.000,00'], ['\u200b49.90']])(
		'held: a sheet price %p is refused, never sent as another amount',
		async (price) => {
			grantTokens('tok-r4a-held-0002');
			const bodies = acceptListings(5);
			const row = {
				listing_id: '7',
				event_id: '55',
				currency: 'EUR',
				ticket_id: 'T-1',
				row: 'A',
				seat: '1',
			};
			const items = sheetRows([{ ...row, price }]);
			const parameters = { ...EXAMPLE_SHEET_PARAMETERS, options: { output: 'row' } };
			const { out } = await run(items, parameters);
			expect(bodies).toEqual([]);
			expect(out[0].json.listingStatus).toBe('invalid');
		},
	);

	it('held: a 409 "Request 3 of 3 already processed" (no word that the listing exists) is refused', async () => {
		grantTokens('tok-r4a-held-0003');
		answerListings(() => [409, { message: 'Request 3 of 3 already processed' }, JSON_TYPE]);
		const { items, parameters } = oneSeatListings([3], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(out[0].json.listingStatus).toBe('failed');
	});

	it('held: a 201 typed application/problem+json is outcome unknown', async () => {
		grantTokens('tok-r4a-held-0004');
		answerListings(() => [201, { id: 'L-1' }, { 'Content-Type': 'application/problem+json' }]);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(out[0].json.listingStatus).toBe('unknown');
	});

	it('held: the token endpoint echoing the stale access token it refuses shows it nowhere', async () => {
		nock(BASE).post(PARTNER_API_PATHS.listings).reply(401, { message: 'Invalid Access Token' });
		nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(401, { ErrorCode: 'invalid_client', Error: 'Token tok-r4a-stale-1234 revoked' });
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const fake = fakeRun({
			parameters,
			items,
			continueOnFail: true,
			accessToken: 'tok-r4a-stale-1234',
		});
		const out = await execute.call(fake.context, items);
		expect(out[0].json.listingStatus).toBe('failed');
		expect(everything(out)).not.toContain('tok-r4a-stale-1234');
	});

	it('held: Validate Only remembers nothing, so the real run after it sends every listing', async () => {
		const store = new MemoryDeduplicationStore();
		const validate = oneSeatListings([1, 2], { output: 'row', validateOnly: true });
		await run(validate.items, validate.parameters, store);
		grantTokens('tok-r4a-held-0006');
		const bodies = acceptListings(5);
		const { items, parameters } = oneSeatListings([1, 2], { output: 'row' });
		await run(items, parameters, store);
		expect(bodies.map((body) => body.externalListingId)).toEqual([1, 2]);
	});

	it('held: the quota on the first listing (Continue On Fail) leaves the others not sent and forgotten', async () => {
		grantTokens('tok-r4a-held-0007');
		const quota = {
			fault: {
				faultstring: 'Rate limit quota violation. Quota limit exceeded',
				detail: { errorcode: 'policies.ratelimit.QuotaViolation' },
			},
		};
		const received = answerListings(() => [429, quota, JSON_TYPE]);
		const store = new MemoryDeduplicationStore();
		const { items, parameters } = oneSeatListings([1, 2, 3], { output: 'row' });
		await run(items, parameters, store);
		expect(received).toEqual([1]);
		nock.cleanAll();
		grantTokens('tok-r4a-held-0008');
		const bodies = acceptListings(5);
		await run(items, parameters, store);
		expect(bodies.map((body) => body.externalListingId)).toEqual([1, 2, 3]);
	});

	it('held: a reset connection is outcome unknown, and no error field holds a secret', async () => {
		grantTokens('tok-r4a-held-0009');
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(out[0].json.listingStatus).toBe('unknown');
		const text = everything(out);
		for (const secret of [
			'tok-r4a-held-0009',
			API_CREDENTIALS.consumerSecret,
			API_CREDENTIALS.password,
		])
			expect(text).not.toContain(secret);
	});

	// docs/listing-create.md: "*Stop and the workflow timeout*: a listing not yet sent is never sent afterwards; it
	// comes out as *not sent* and is forgotten, so the next run sends it."
	it('held: Stop while the memory records the listings before sending sends nothing and keeps nothing', async () => {
		const stop = new AbortController();
		const store = new MemoryDeduplicationStore();
		const helpers = store.helpers.bind(store);
		store.helpers = (caller?: string) => {
			const own = helpers(caller);
			return {
				...own,
				checkProcessedAndRecord: async (values: Array<string | number>, scope: string) => {
					stop.abort();
					return await own.checkProcessedAndRecord(values, scope);
				},
			};
		};
		grantTokens('tok-r4a-held-0010');
		const bodies = acceptListings(5);
		const { items, parameters } = oneSeatListings([1, 2], { output: 'row' });
		const fake = fakeRun({
			parameters,
			items,
			continueOnFail: true,
			deduplication: store,
			cancelSignal: stop.signal,
		});
		const out = await execute.call(fake.context, items);
		expect(bodies).toEqual([]);
		expect(out.map((item) => item.json.listingStatus)).toEqual(['failed', 'failed']);
		expect([...(store.entries.get('workflow') ?? [])]).toEqual([]);
	});
});
