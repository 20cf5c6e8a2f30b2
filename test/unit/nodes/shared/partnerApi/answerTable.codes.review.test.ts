/**
 * Review reproductions: where an answer's code sits, and what a 503 may say. A code decides what a refusal is about
 * wherever the answer puts it; a 503 is not handled (RFC 9110), whatever its body says.
 */
import { meaningOf, readAnswer } from '../../../../../nodes/shared/partnerApi/answerTable';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';

const SEAT_TAKEN = 'inventory.listings.duplicateSectionRowSeat';
/** A seat refusal whose sentence also says "external listing id 123 … already exists". */
const SEAT_WORDS =
	'Listing with external listing id 123 already exists for section A, row 1, seat 2';

function apiMeaning(status: number, body: unknown, contentType = 'application/json') {
	return meaningOf(readAnswer(status, { 'content-type': contentType }, body), {
		endpoint: 'api',
		path: PARTNER_API_PATHS.listings,
		createsId: 123,
	});
}

describe('a seat refusal is never "already listed", wherever its code sits', () => {
	it.each([
		['under `error`', { error: { code: SEAT_TAKEN, message: SEAT_WORDS } }],
		['in a list of errors', { errors: [{ code: SEAT_TAKEN, description: SEAT_WORDS }] }],
		['as a list at the top', [{ code: SEAT_TAKEN, description: SEAT_WORDS }]],
	])('%s', (_where, body) => {
		expect(apiMeaning(400, body)?.outcome).not.toBe('alreadyListed');
		expect(apiMeaning(409, body)?.outcome).not.toBe('alreadyListed');
	});

	it.each([
		['at the top', { code: SEAT_TAKEN, description: SEAT_WORDS }],
		['as errorCode', { errorCode: SEAT_TAKEN, description: SEAT_WORDS }],
		[
			'as the gateway writes it',
			{ fault: { faultstring: SEAT_WORDS, detail: { errorcode: SEAT_TAKEN } } },
		],
		['in capitals', { code: SEAT_TAKEN.toUpperCase(), description: SEAT_WORDS }],
	])('holds: %s', (_where, body) => {
		expect(apiMeaning(400, body)?.outcome).toBe('notCreated');
		expect(apiMeaning(409, body)?.outcome).toBe('notCreated');
	});

	it('holds: the listing\'s own duplicate under `error` is still "already listed"', () => {
		const body = {
			error: {
				code: 'inventory.listings.duplicateExternalListingId',
				message: 'Listing with external listing id 123 already exists',
			},
		};
		expect(apiMeaning(400, body)?.outcome).toBe('alreadyListed');
	});
});

describe('a code written with underscores', () => {
	it('duplicate_external_listing_id naming this ID is "already listed"', () => {
		const body = {
			code: 'duplicate_external_listing_id',
			message: 'A listing with externalListingId 123 already exists (id lst_7)',
		};
		expect(apiMeaning(409, body)?.outcome).toBe('alreadyListed');
		expect(apiMeaning(400, body)?.outcome).toBe('alreadyListed');
	});

	it('holds: duplicate_section_row_seat is a seat, not "already listed"', () => {
		const body = { code: 'inventory.listings.duplicate_section_row_seat', description: SEAT_WORDS };
		expect(apiMeaning(400, body)?.outcome).toBe('notCreated');
	});
});

describe('a 503', () => {
	it.each([
		['an HTML page', '<html><body>Down for maintenance</body></html>', 'text/html'],
		[
			"Apigee's ServiceUnavailable",
			{
				fault: {
					faultstring: 'The Service is temporarily unavailable',
					detail: { errorcode: 'messaging.adaptors.http.flow.ServiceUnavailable' },
				},
			},
			'application/json',
		],
	])('holds: %s is not created, and retried', (_what, body, contentType) => {
		const meaning = apiMeaning(503, body, contentType);
		expect(meaning?.outcome).toBe('notCreated');
		expect(meaning?.retry).toBe('rateLimit');
	});

	it.each([500, 502, 504])('holds: a %s stays unknown', (status) => {
		expect(apiMeaning(status, '<html>Bad gateway</html>', 'text/html')?.outcome).toBe('unknown');
	});
});
