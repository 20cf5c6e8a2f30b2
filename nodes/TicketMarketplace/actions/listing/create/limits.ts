/** The seller's limits under Options, checked against one valid listing. */
import { LIMIT_OPTIONS } from './description';
import { fieldLabel } from './fieldLabels';
import type { ListingLevel } from './fields';
import type { Problem } from './problems';
import type { ListingLimits } from './settings';

/**
 * A valid listing against the seller's limits (Options): a currency other than the minimum's, a price below the
 * minimum, or more tickets than the maximum. Each names every row of the listing.
 */
export function beyondLimits(
	level: ListingLevel,
	products: unknown[],
	rows: number[],
	limits: ListingLimits,
): Problem[] {
	const problems: Problem[] = [];
	const { amount, currency } = level.pricePerProduct as { amount: number; currency: string };
	if (limits.currency !== undefined && currency !== limits.currency)
		problems.push({
			field: fieldLabel('priceCurrency'),
			text: `${currency} is not ${limits.currency}, the ${LIMIT_OPTIONS.minPriceCurrency} set under Options: only listings priced in ${limits.currency} are sent`,
			itemIndexes: rows,
		});
	else if (limits.minPrice !== undefined && amount < limits.minPrice)
		problems.push({
			field: fieldLabel('priceAmount'),
			text: `${amount} ${currency} is below the ${LIMIT_OPTIONS.minPricePerTicket} set under Options (${limits.minPrice} ${limits.currency}): correct the price, or lower the minimum`,
			itemIndexes: rows,
		});
	if (limits.maxTickets !== undefined && products.length > limits.maxTickets)
		problems.push({
			field: '',
			text: `${products.length} tickets in one listing are more than the ${LIMIT_OPTIONS.maxTicketsPerListing} set under Options (${limits.maxTickets}): split them into several listings, or raise the maximum`,
			itemIndexes: rows,
		});
	return problems;
}
