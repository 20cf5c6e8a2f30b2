/**
 * "Already listed … without [a code], the words must say it exists and not be about a seat" (docs/listing-create.md):
 * words that refuse a seat but also name the External Listing ID are a refusal, or a listing never created would be
 * remembered as created and skipped by every later run.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { meaningOf, readAnswer } from '../../../../../../../nodes/shared/partnerApi/answerTable';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import {
	BASE,
	fakeRun,
	MemoryDeduplicationStore,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';
import { grantTokens } from '../../../../../../../support/partnerApiNock';

/** The service's own seat refusal ("Row/Seat combination already exists"), its code dropped, naming the listing. */
const SEAT_REFUSALS = [
	'Row/Seat combination already exists (externalListingId 1)',
	'Duplicate seat A-1 in External Listing ID 1',
	'External Listing ID 1: seat A-1 already exists',
	'Listing 1 was not created: these tickets already exist in another listing',
];

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('a code-less 400 about a seat, naming the External Listing ID', () => {
	it.each(SEAT_REFUSALS)('"%s" is a refusal, not "already listed" (the table)', (words) => {
		const facts = readAnswer(400, { 'content-type': 'application/json' }, { message: words });
		const meaning = meaningOf(facts, {
			endpoint: 'api',
			path: PARTNER_API_PATHS.listings,
			createsId: 1,
		});
		expect(meaning.outcome).toBe('notCreated');
	});

	it('is not remembered: the next run sends the listing again once its seat is fixed', async () => {
		const store = new MemoryDeduplicationStore();
		const received: number[] = [];
		let answer: [number, IDataObject] = [400, { message: SEAT_REFUSALS[0] }];
		grantTokens('tok-r4-seat-0001', 2);
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.times(5)
			.reply((_uri, body) => {
				received.push(Number((body as IDataObject).externalListingId));
				return answer;
			});
		const run = async () => {
			const { items, parameters } = oneSeatListings([1], { output: 'row' });
			const fake = fakeRun({ parameters, items, continueOnFail: true, deduplication: store });
			return (await execute.call(fake.context, items)).map((item) => item.json);
		};
		const [first] = await run();
		expect(first.listingStatus).toBe('failed');
		answer = [201, { id: 'L-1' }];
		const [second] = await run();
		expect(received).toEqual([1, 1]);
		expect(second.listingStatus).toBe('created');
	});
});
