/**
 * Without a code, "already listed" needs words that say the listing exists and are not about a seat. Seat words are
 * whole words: the marketplace's own name ("Ticket Marketplace"), an event in Seattle or a production are no seats,
 * and a listing the API already holds stays "already listed".
 */
import { meaningOf, readAnswer } from '../../../../../nodes/shared/partnerApi/answerTable';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';

const LISTING_EXISTS = [
	'A listing with External Listing ID 7 already exists on Ticket Marketplace',
	'External Listing ID 7 already exists (event: Seattle Sounders FC vs. Portland)',
	'Duplicate External Listing ID 7 for event 55 (National Theatre production)',
];

describe('code-less words that the listing exists, naming no seat', () => {
	it.each(LISTING_EXISTS)('"%s" is already listed', (words) => {
		const facts = readAnswer(409, { 'content-type': 'application/json' }, { message: words });
		const meaning = meaningOf(facts, {
			endpoint: 'api',
			path: PARTNER_API_PATHS.listings,
			createsId: 7,
		});
		expect(meaning.outcome).toBe('alreadyListed');
	});
});
