/** The stop summary of Listing → Create: every listing in exactly one group, counted and named. */
import type { Outcome } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/nouns';
import type { Listing } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/nouns';
import { stopSummary } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/outcome';

import {
	ALREADY_LISTED,
	failure,
	OUTCOMES,
	ready,
} from '../../../../../../../support/listingOutcomes';

describe('Listing → Create stop summary', () => {
	const reports = OUTCOMES;

	it('names every listing in exactly one group of the stop summary', () => {
		const summary = stopSummary(new Map(reports), true);
		const lines = summary.split('\n');
		expect(lines).toEqual([
			'Created in this run: 1 listing (1).',
			'Not created: 1 listing (2): refused.',
			'Outcome unknown, may have been created: 1 listing (3): reset.',
			'  Look these up on the marketplace by External Listing ID before sending them again.',
			'Not sent, the run stopped first: 1 listing (4).',
			'Skipped, already sent by this workflow: 1 listing (5).',
			'Skip Listings Already Sent is on: once the cause is fixed, run the workflow again; it sends only the listings not created and not sent, and skips the others.',
		]);
		for (const id of [1, 2, 3, 4, 5]) {
			expect(summary.match(new RegExp(`\\(${id}\\)`, 'g'))).toHaveLength(1);
		}
	});

	it('counts each group and names its first listings, however many; several reasons get a line each', () => {
		const many = Array.from({ length: 400 }, (_, index): [Listing, Outcome] => [
			ready(index + 1, [index]),
			index === 0
				? { kind: 'notCreated', error: failure('Login refused') }
				: index < 5
					? { kind: 'notCreated', error: failure(`reason ${index}`) }
					: { kind: 'notSent' },
		]);
		const summary = stopSummary(new Map(many), false);
		expect(summary.split('\n')).toEqual([
			'No listing was created in this run.',
			'Not created: 5 listings:',
			'  - Login refused: 1',
			'  - reason 1: 2',
			'  - reason 2: 3',
			'  - for other reasons: 4 and 5',
			'Not sent, the run stopped first: 395 listings (6, 7, 8, 9, 10, 11, 12, 13, 14, 15 and 385 more).',
		]);
	});

	it('names an already listed listing once in the stop summary', () => {
		const conflict = ALREADY_LISTED;
		const summary = stopSummary(new Map([...reports, conflict]), true);
		expect(summary).toContain(
			'Already listed (the API holds a listing with this External Listing ID), not created again: 1 listing (6).',
		);
		expect(summary.match(/\(6\)/g)).toHaveLength(1);
	});
});
