/**
 * Listing → Create's promise against a hostile API (created, refused, outcome unknown, or not sent; never twice,
 * never lost; no secret in an output): answers that name other listings, product codes, counts, encoded echoes.
 */
import nock from 'nock';
import type { INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import {
	API_CREDENTIALS,
	BASE,
	fakeRun,
	MemoryDeduplicationStore,
	oneSeatListings,
	type ParameterValue,
} from '../../../../../../../support/fakeN8n/actionContext';
import { answerListings, grantTokens } from '../../../../../../../support/partnerApiNock';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

async function run(
	items: INodeExecutionData[],
	parameters: Record<string, ParameterValue>,
	deduplication = new MemoryDeduplicationStore(),
	accessToken?: string,
) {
	const fake = fakeRun({ parameters, items, continueOnFail: true, deduplication, accessToken });
	const out = await execute.call(fake.context, items);
	return { out, fake };
}

const allText = (value: unknown) => JSON.stringify(value);

describe('sent twice', () => {
	it('two items with one External Listing ID (listing per item) are not both sent', async () => {
		grantTokens('tok-hA-twice-0001');
		const received = answerListings((_count, body) => [
			201,
			{ id: `L-${String(body.externalListingId)}`, externalListingId: body.externalListingId },
		]);
		const { items, parameters } = oneSeatListings([7, 8], { output: 'row' });
		// Both items carry External Listing ID 7, each with a seat of its own.
		parameters.externalListingId = 7;
		await run(items, parameters);
		expect(received).toEqual([7]);
	});
});

describe('lost: created without evidence', () => {
	it('a 201 whose `data` is a list naming another listing is not "created"', async () => {
		grantTokens('tok-hA-list-0001');
		answerListings(() => [201, { data: [{ id: 'L-999', externalListingId: 999 }] }]);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(out[0].json.listingStatus).toBe('unknown');
	});

	it('a 201 naming another listing under data.listing is outcome unknown', async () => {
		grantTokens('tok-hA-list-0002');
		answerListings(() => [201, { data: { listing: { id: 'L-999', externalListingId: 999 } } }]);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(out[0].json.listingStatus).toBe('unknown');
	});
});

describe('secrets', () => {
	it('a refresh token issued during the run, echoed in a refusal, is redacted', async () => {
		nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(200, { access_token: 'tok-hA-rt-0001', refresh_token: 'rt-hA-fresh-refresh-77' });
		answerListings(() => [
			400,
			{ code: 'x', description: 'echo rt-hA-fresh-refresh-77 tok-hA-rt-0001' },
		]);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(allText(out)).not.toContain('rt-hA-fresh-refresh-77');
		expect(allText(out)).not.toContain('tok-hA-rt-0001');
		expect(allText(out)).not.toContain(API_CREDENTIALS.consumerSecret);
	});
});

describe('lost: "already listed" without evidence', () => {
	it('a product externalId refused as duplicateExternalId is not "already listed"', async () => {
		grantTokens('tok-hA-dup-0001');
		// The product's field is `externalId`; the listing's is `externalListingId`.
		const received = answerListings(() => [
			400,
			{
				code: 'inventory.listings.duplicateExternalId',
				description: 'Product externalId "A-1" is already used, see listing 1',
			},
		]);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const store = new MemoryDeduplicationStore();
		await run(items, parameters, store);
		expect(received).toEqual([1]);
		// The refusal fixed (the product renamed), the next run must send it: it was never created.
		nock.cleanAll();
		grantTokens('tok-hA-dup-0005');
		const again = answerListings(() => [201, { id: 'L-1' }]);
		const second = await run(items, parameters, store);
		expect(again).toEqual([1]);
		expect(second.out[0].json.listingStatus).toBe('created');
	});

	it('"already exists" naming another listing, this ID only as a count, is not "already listed"', async () => {
		grantTokens('tok-hA-dup-0002');
		answerListings(() => [
			409,
			{
				code: 'inventory.listings.duplicateListing',
				description: 'Listing 9001 already exists for the same 2 tickets',
			},
		]);
		const { items, parameters } = oneSeatListings([2], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(out[0].json.listingStatus).not.toBe('alreadyListed');
	});

	it('a duplicateSectionRowSeat naming this ID is a refusal', async () => {
		grantTokens('tok-hA-dup-0003');
		answerListings(() => [
			400,
			{
				code: 'inventory.listings.duplicateSectionRowSeat',
				description: 'listing 1 already exists',
			},
		]);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(out[0].json.listingStatus).toBe('failed');
	});

	it('"listing 12.5 already exists" does not name listing 12', async () => {
		grantTokens('tok-hA-dup-0004');
		answerListings(() => [409, { description: 'Listing 12.5 already exists' }]);
		const { items, parameters } = oneSeatListings([12], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(out[0].json.listingStatus).toBe('failed');
	});
});

describe('sent twice: retries', () => {
	it("held: a 500 that mentions a spike arrest outside the gateway's fault is sent once (unknown)", async () => {
		grantTokens('tok-hA-retry-0001');
		const received = answerListings(() => [
			500,
			{
				description: 'Spike arrest violation. Allowed rate : 10ps',
				code: 'inventory.listings.systemError',
			},
		]);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(received).toEqual([1]);
		expect(out[0].json.listingStatus).toBe('unknown');
	});

	it("held: a 503 with the service's code in a list of errors is sent once (unknown)", async () => {
		grantTokens('tok-hA-retry-0002');
		const received = answerListings(() => [
			503,
			{ errors: [{ code: 'inventory.listings.systemError', message: 'System error' }] },
		]);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(received).toEqual([1]);
		expect(out[0].json.listingStatus).toBe('unknown');
	});

	it('a 401 then a 500 is sent twice at most and ends unknown, remembered', async () => {
		grantTokens('tok-hA-401-0001');
		const received = answerListings((count) =>
			count === 1 ? [401, { fault: { faultstring: 'Invalid Access Token' } }] : [500, {}],
		);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const store = new MemoryDeduplicationStore();
		// A stored token the API no longer takes: one renewal, one re-send.
		const { out } = await run(items, parameters, store, 'tok-hA-401-stale');
		expect(received).toEqual([1, 1]);
		expect(out[0].json.listingStatus).toBe('unknown');
		nock.cleanAll();
		grantTokens('tok-hA-401-0002');
		const again = answerListings(() => [201, { id: 'L-1' }]);
		const second = await run(items, parameters, store);
		expect(again).toEqual([]);
		// Skipped as an earlier unknown: it says "unknown" again, and is not sent.
		expect(second.out[0].json.listingStatus).toBe('unknown');
	});
});

describe('secrets in answers', () => {
	/** The output's text with JSON escapes and HTML character references read back. */
	const decoded = (value: unknown) =>
		allText(value)
			.replace(/\\\\u([0-9a-f]{4})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)))
			.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));

	it('a consumer secret echoed with JSON-escaped letters in a text body is redacted', async () => {
		grantTokens('tok-hA-esc-0001');
		const escaped = [...API_CREDENTIALS.consumerSecret]
			.map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
			.join('');
		// A 200 that is no evidence: its answer is shown (redacted, cut to 300 characters).
		answerListings(() => [200, `{"echo": "${escaped}"}`, { 'Content-Type': 'text/plain' }]);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(out[0].json.listingStatus).toBe('unknown');
		expect(decoded(out)).not.toContain(API_CREDENTIALS.consumerSecret);
	});

	it('a consumer secret echoed as HTML character references in a page is redacted', async () => {
		grantTokens('tok-hA-esc-0003');
		const entities = [...API_CREDENTIALS.consumerSecret]
			.map((char) => `&#${char.charCodeAt(0)};`)
			.join('');
		answerListings(() => [
			200,
			`<html><body>key ${entities}</body></html>`,
			{ 'Content-Type': 'text/html' },
		]);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(out[0].json.listingStatus).toBe('unknown');
		expect(decoded(out)).not.toContain(API_CREDENTIALS.consumerSecret);
	});

	it('the password echoed percent-encoded and as HTML entities is redacted', async () => {
		grantTokens('tok-hA-esc-0002');
		answerListings(() => [
			400,
			{
				description: `u=${encodeURIComponent(API_CREDENTIALS.password)} p=marketplace&#45;password`,
			},
		]);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const { out } = await run(items, parameters);
		expect(allText(out)).not.toContain('marketplace');
	});
});
