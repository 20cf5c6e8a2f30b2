/**
 * Review reproductions: answers the answer table once misread.
 */
import { meaningOf, namesId, readAnswer } from '../../../../../nodes/shared/partnerApi/answerTable';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';

const LISTINGS = PARTNER_API_PATHS.listings;

function apiMeaning(status: number, body: unknown, createsId: string | number) {
	return meaningOf(readAnswer(status, { 'content-type': 'application/json' }, body), {
		endpoint: 'api',
		path: LISTINGS,
		createsId,
	});
}

function tokenMeaning(status: number, body: unknown) {
	return meaningOf(readAnswer(status, { 'content-type': 'application/json' }, body), {
		endpoint: 'token',
	});
}

describe('answer table under review', () => {
	it('holds: a 400 duplicate naming a longer ID (70011 for 7001) is not "already listed"', () => {
		const meaning = apiMeaning(
			400,
			{
				code: 'inventory.listings.duplicateExternalListingId',
				description: 'Listing with external listing id 70011 already exists',
			},
			7001,
		);
		expect(meaning?.outcome).toBe('notCreated');
	});

	it('a 400 duplicate naming "12.5" is not read as "already listed" for the listing "12"', () => {
		const meaning = apiMeaning(
			400,
			{
				code: 'inventory.listings.duplicateExternalListingId',
				description: 'Listing with external listing id 12.5 already exists',
			},
			'12',
		);
		// Today: alreadyListed, so listing "12" is remembered as listed and never sent again.
		expect(meaning?.outcome).not.toBe('alreadyListed');
	});

	it('a 400 duplicate naming "A1/2" is not read as "already listed" for the listing "A1"', () => {
		const meaning = apiMeaning(
			400,
			{
				code: 'inventory.listings.duplicateExternalListingId',
				description: 'Listing with external listing id A1/2 already exists',
			},
			'A1',
		);
		expect(meaning?.outcome).not.toBe('alreadyListed');
	});

	it('a 409 seat conflict that echoes the request (externalListingId) is not "already listed"', () => {
		const meaning = apiMeaning(
			409,
			{
				code: 'inventory.listings.duplicateSectionRowSeat',
				description: 'Row/Seat combination already exists',
				request: { externalListingId: 'L-1' },
			},
			'L-1',
		);
		// Today: alreadyListed (a 409 whose body merely contains "externalListingId"), so the listing is
		// remembered as listed although another listing holds its seats and nothing was created.
		expect(meaning?.outcome).not.toBe('alreadyListed');
	});

	it('a 409 naming ANOTHER External Listing ID is not "already listed"', () => {
		const meaning = apiMeaning(
			409,
			{ description: 'External Listing ID OTHER-9 already exists' },
			'L-1',
		);
		expect(meaning?.outcome).not.toBe('alreadyListed');
	});

	it('invalid_client written in capitals is diagnosed as the consumer key or secret', () => {
		const meaning = tokenMeaning(401, { ErrorCode: 'INVALID_CLIENT', Error: 'Unauthorized' });
		expect(meaning?.row).toBe('invalidClient');
	});

	it('holds: a quota body is a quota with 429, 500, 503 and 403', () => {
		const body = {
			fault: {
				faultstring: 'Rate limit quota violation. Quota limit exceeded. Identifier : _default',
				detail: { errorcode: 'policies.ratelimit.QuotaViolation' },
			},
		};
		for (const status of [429, 500, 503, 403])
			expect(apiMeaning(status, body, 'L-1')).toMatchObject({ row: 'quota', stopsRun: true });
	});

	it('holds: a spike arrest without its rate is retried, not created', () => {
		const meaning = apiMeaning(
			500,
			{
				fault: {
					faultstring: 'Spike arrest violation',
					detail: { errorcode: 'policies.ratelimit.SpikeArrestViolation' },
				},
			},
			'L-1',
		);
		expect(meaning).toMatchObject({
			row: 'spikeArrest',
			outcome: 'notCreated',
			retry: 'rateLimit',
		});
	});

	it('holds: an HTML gateway page and an empty 500 are unknown', () => {
		expect(
			meaningOf(readAnswer(502, { 'content-type': 'text/html' }, '<html>Bad gateway</html>'), {
				endpoint: 'api',
				path: LISTINGS,
				createsId: 'L-1',
			})?.outcome,
		).toBe('unknown');
		expect(
			meaningOf(readAnswer(500, {}, ''), { endpoint: 'api', path: LISTINGS, createsId: 'L-1' })
				?.outcome,
		).toBe('unknown');
	});

	it('reads a 409 that says THIS External Listing ID exists as "already listed"', () => {
		const meaning = apiMeaning(
			409,
			{ description: 'External Listing ID L-1 already exists' },
			'L-1',
		);
		expect(meaning?.outcome).toBe('alreadyListed');
	});

	it("reads the token endpoint's codes in any letter case", () => {
		expect(tokenMeaning(400, { error: 'INVALID_GRANT' })?.row).toBe('invalidGrant');
		expect(tokenMeaning(400, { error: 'Unsupported_Grant_Type' })?.row).toBe(
			'unsupportedGrantType',
		);
		expect(
			apiMeaning(
				429,
				{ fault: { faultstring: 'x', detail: { errorcode: 'POLICIES.RATELIMIT.QUOTAVIOLATION' } } },
				'L-1',
			)?.row,
		).toBe('quota');
	});
});

describe('namesId: an ID counts only as a whole token after a label', () => {
	it.each([
		['Listing 12 already exists', '12'],
		['externalListingId "12" already exists', '12'],
		['External listing ID: 12 already exists', '12'],
		['external_listing_id 12 already exists', '12'],
		["id '12' exists", '12'],
		['id:12 exists', '12'],
		['listing #12 exists', '12'],
		['externalListingId=12 exists', '12'],
		['already exists: listing 12.', '12'],
		['Listing A1/2 exists', 'A1/2'],
		['id 12.5 exists', '12.5'],
	])('%j names %j', (text, id) => {
		expect(namesId(text, id)).toBe(true);
	});

	it.each([
		['Listing 12.5 already exists', '12'],
		['Listing 12.0 already exists', '12'],
		['Listing 012 already exists', '12'],
		['Listing 112 already exists', '12'],
		['Listing 12-b already exists', '12'],
		['Listing A1/2 already exists', 'A1'],
		['Listing A1/2 already exists', '2'],
		['listings/12 already exists', '12'],
		['Listing 12:30 already exists', '12'],
		['Listing 12 already exists', ''],
		// A bare number may be a count, seconds or an event.
		['already exists: 12', '12'],
		['(12) exists', '12'],
		['ids 11,12, 13', '12'],
		['12 listings already exist', '12'],
		['A listing already exists for event 12', '12'],
		['A listing with the same 12 seats already exists', '12'],
	])('%j does not name %j', (text, id) => {
		expect(namesId(text, id)).toBe(false);
	});
});
