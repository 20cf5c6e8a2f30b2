/**
 * Review r5: without a code, "already listed" needs words that say the listing exists and are not about a seat. The
 * seat test is now a bare substring match on seat|section|product|ticket, even where the words name the External
 * Listing ID: the marketplace's own name ("Ticket Marketplace"), an event in Seattle or a production are read as
 * words about seats, and a listing the API already holds becomes a refusal (forgotten, the run stopped without
 * Continue), where before the External Listing ID named settled it.
 */
import { meaningOf, readAnswer } from '../../../../../nodes/shared/partnerApi/answerTable';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';

const LISTING_EXISTS = [
	'A listing with External Listing ID 7 already exists on Ticket Marketplace',
	'External Listing ID 7 already exists (event: Seattle Sounders FC vs. Portland)',
	'Duplicate External Listing ID 7 for event 55 (National Theatre production)',
];

describe('r5: code-less words that the listing exists, naming no seat', () => {
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
