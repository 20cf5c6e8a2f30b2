/**
 * Hostile review of Minimum Price per Ticket with its currency: spellings of a currency, prices written as text
 * with a currency inside, a listing without a currency. Nothing below the floor, or in another currency, is sent.
 */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import type { ParameterValue } from '../../../../../../../support/fakeN8n/actionContext';
import { fakeRun, oneSeatListings } from '../../../../../../../support/fakeN8n/actionContext';
import { acceptListings, grantTokens } from '../../../../../../../support/partnerApiNock';

const TOOL_TYPE = 'n8n-nodes-ticket-marketplace.ticketMarketplaceTool';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

async function runAsTool(price: ParameterValue, currency: ParameterValue, options: IDataObject) {
	const { items, parameters } = oneSeatListings([1], options);
	const fake = fakeRun({
		items,
		parameters: { ...parameters, priceAmount: price, priceCurrency: currency },
		continueOnFail: true,
	});
	(fake.context.getNode() as { type: string }).type = TOOL_TYPE;
	return await execute.call(fake.context, items).then(
		(output) => ({ output: output as INodeExecutionData[], thrown: undefined }),
		(thrown: unknown) => ({ output: undefined, thrown }),
	);
}

describe('review: Minimum Price per Ticket and its currency', () => {
	it.each([
		['a lower-case currency with spaces on the listing', 25, ' eur ', ' Eur ', true],
		['a price at the floor', 20, 'EUR', 'EUR', true],
		['a price as text at the floor', '20.00', 'EUR', 'eur', true],
		['a price just below the floor', 19.999, 'EUR', 'EUR', false],
		['a price as text with a currency inside', '25 JPY', 'EUR', 'EUR', false],
		['a price with the currency inside, the floor in it', '25 EUR', 'EUR', 'EUR', false],
		['no currency on the listing', 25, '', 'EUR', false],
		['a currency of look-alike letters', 25, 'EUR', 'ЕUR', false],
		['a listing in a currency that differs only by case from another', 25, 'eUr', 'EUR', true],
		['a negative price', -25, 'EUR', 'EUR', false],
		['an infinite price as text', 'Infinity', 'EUR', 'EUR', false],
		['a price in exponent notation below the floor', '1e1', 'EUR', 'EUR', false],
	])('%s', async (_, price, currency, floorCurrency, sent) => {
		grantTokens('tok-review-limits');
		const bodies = acceptListings();
		const { output, thrown } = await runAsTool(price, currency, {
			minPricePerTicket: 20,
			minPriceCurrency: floorCurrency,
		});
		expect(bodies.length > 0).toBe(sent);
		if (sent) expect(bodies[0].pricePerProduct).toMatchObject({ currency: 'EUR' });
		else expect(thrown === undefined ? output![0].json.id : undefined).toBeUndefined();
	});
});
