/**
 * The listing-input generators (support/arbitraries/listingInputs.ts) against the node's schemas: generated valid
 * values pass, and each generated listing-level or seat-range defect that the node already refuses is refused at
 * the field the defect names. Keeps the generators honest for the tests that use them.
 */
import fc from 'fast-check';

import {
	levelOf,
	listingLevelSchema,
} from '../../../../nodes/TicketMarketplace/actions/listing/create/fields';
import { seatRangeSchema } from '../../../../nodes/TicketMarketplace/schemas/listing';
import {
	invalidListingPerItem,
	invalidSeatRange,
	validListingLevel,
} from '../../../../support/arbitraries/listingInputs';

const RUNS = 300;

function issuePaths(result: {
	success: boolean;
	error?: { issues: Array<{ path: Array<string | number> }> };
}): string[] {
	return (result.error?.issues ?? []).map((issue) =>
		issue.path.join('.').replace(/^acceptLanguage$/, 'Accept-Language'),
	);
}

describe('listing input generators', () => {
	it('valid listing-level values pass the schema', () => {
		fc.assert(
			fc.property(validListingLevel, (level) =>
				expect(listingLevelSchema.safeParse(levelOf(level)).success).toBe(true),
			),
			{ numRuns: RUNS, seed: 11 },
		);
	});

	it('a listing-level defect is refused at the field it names (defects the node already refuses)', () => {
		let checked = 0;
		fc.assert(
			fc.property(invalidListingPerItem, ({ items, defect }) => {
				const [index] = defect.items;
				if (
					defect.proposed ||
					!/^(eventId|externalListingId|pricePerProduct\.|paymentType|stockType|Accept-Language)/.test(
						defect.field,
					)
				)
					return;
				checked += 1;
				expect(issuePaths(listingLevelSchema.safeParse(levelOf(items[index])))).toEqual([
					defect.field,
				]);
				for (const [position, item] of items.entries()) {
					if (position !== index)
						expect(listingLevelSchema.safeParse(levelOf(item)).success).toBe(true);
				}
			}),
			{ numRuns: RUNS, seed: 11 },
		);
		expect(checked).toBeGreaterThan(RUNS / 10);
	});

	it('a seat-range defect is refused at the field it names', () => {
		fc.assert(
			fc.property(invalidSeatRange, ({ range, field }) => {
				expect(issuePaths(seatRangeSchema.safeParse(range))).toContain(field);
			}),
			{ numRuns: RUNS, seed: 11 },
		);
	});
});
