/**
 * The seller's limits under Options, Minimum Price per Ticket and Maximum Tickets per Listing: a listing beyond
 * them is refused before sending like any invalid listing (field, value, rows; nothing sent; an error item with
 * Continue), from a sheet and from an AI Agent's tool call alike. Unset, they refuse nothing, as a tool too.
 */
import nock from 'nock';
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import type { ParameterValue } from '../../../../../../../support/fakeN8n/actionContext';
import {
	EXAMPLE_SHEET_PARAMETERS,
	fakeRun,
	oneSeatListings,
	sheetRows,
} from '../../../../../../../support/fakeN8n/actionContext';
import { acceptListings, grantTokens } from '../../../../../../../support/partnerApiNock';

const TOOL_TYPE = 'n8n-nodes-ticket-marketplace.ticketMarketplaceTool';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

interface Run {
	items: INodeExecutionData[];
	parameters: Record<string, ParameterValue>;
	continueOnFail?: boolean;
	asTool?: boolean;
}

async function run({ items, parameters, continueOnFail = true, asTool = false }: Run) {
	const fake = fakeRun({ items, parameters, continueOnFail });
	if (asTool) (fake.context.getNode() as { type: string }).type = TOOL_TYPE;
	return await execute.call(fake.context, items).then(
		(output) => ({ output: output as INodeExecutionData[], thrown: undefined }),
		(thrown: unknown) => ({ output: undefined, thrown }),
	);
}

/** Listings per item, each one seat at `price`, with these Options. */
function listingsAt(
	ids: number[],
	price: ParameterValue,
	options: IDataObject,
): { items: INodeExecutionData[]; parameters: Record<string, ParameterValue> } {
	const { items, parameters } = oneSeatListings(ids, options);
	return { items, parameters: { ...parameters, priceAmount: price } };
}

const errorOf = (item: INodeExecutionData) => JSON.stringify(item.json);

describe('Minimum Price per Ticket', () => {
	it('refuses a listing priced below it, naming the field, the value and the row; sends the others', async () => {
		grantTokens('tok-floor');
		const bodies = acceptListings();
		const { items, parameters } = listingsAt(
			[1, 2, 3],
			(itemIndex: number) => [0.01, 20, 19.99][itemIndex],
			{ minPricePerTicket: 20, minPriceCurrency: 'EUR' },
		);
		const { output } = await run({ items, parameters });
		expect(bodies.map((body) => body.externalListingId)).toEqual([2]);
		expect(output).toHaveLength(3);
		expect(errorOf(output![0])).toMatch(
			/Price Amount 0\.01 EUR is below the Minimum Price per Ticket set under Options \(20 EUR\).*\(row 1\)/,
		);
		expect(output![1].json.id).toBe('L-2');
		expect(errorOf(output![2])).toMatch(/Price Amount 19\.99 EUR is below.*\(row 3\)/);
	});

	it('without Continue, stops the run before anything is sent', async () => {
		const { items, parameters } = listingsAt([1, 2], 5, {
			minPricePerTicket: '10',
			minPriceCurrency: 'eur',
		});
		const { thrown } = await run({ items, parameters, continueOnFail: false });
		expect(thrown).toBeInstanceOf(NodeOperationError);
		expect((thrown as NodeOperationError).message).toBe(
			'2 of 2 listings failed validation; nothing was sent',
		);
		expect((thrown as NodeOperationError).description).toMatch(
			/Price Amount 5 EUR is below the Minimum Price per Ticket .* \(rows 1 and 2\)/,
		);
		expect(nock.pendingMocks()).toEqual([]);
	});

	it('refuses a listing of sheet rows as a whole, naming every row of it', async () => {
		grantTokens('tok-floor');
		const bodies = acceptListings();
		const row = (listing: string, price: string, seat: string) => ({
			listing_id: listing,
			event_id: '4242',
			price,
			currency: 'GBP',
			ticket_id: `t-${listing}-${seat}`,
			row: 'A',
			seat,
		});
		const items = sheetRows([
			row('7001', '4.5', '1'),
			row('7001', '4.5', '2'),
			row('7002', '45', '3'),
		]);
		const parameters = {
			...EXAMPLE_SHEET_PARAMETERS,
			options: { minPricePerTicket: 10, minPriceCurrency: 'GBP' },
		};
		const { output } = await run({ items, parameters });
		expect(bodies.map((body) => body.externalListingId)).toEqual([7002]);
		const refused = output!.find((item) => errorOf(item).includes('below'));
		expect(errorOf(refused!)).toMatch(/Price Amount 4\.5 GBP is below .*\(rows 1 and 2\)/);
	});

	it('a listing it refuses holds no other listing back (its seat is not taken)', async () => {
		grantTokens('tok-floor');
		const bodies = acceptListings();
		const { items, parameters } = listingsAt([1, 2], (itemIndex: number) => [1, 30][itemIndex], {
			minPricePerTicket: 20,
			minPriceCurrency: 'EUR',
		});
		// Both listings hold the same seat: only the first, refused for its price, would otherwise block the second.
		parameters.products = { product: [{ externalId: 'A-1', row: 'A', seat: '1' }] };
		const { output } = await run({ items, parameters });
		expect(bodies.map((body) => body.externalListingId)).toEqual([2]);
		expect(output![1].json.id).toBe('L-2');
	});

	it('sends a price equal to it, and sets none when empty or 0', async () => {
		grantTokens('tok-floor', 3);
		const bodies = acceptListings();
		for (const [id, floor] of [
			[1, 20],
			[2, ''],
			[3, 0],
		] as const) {
			const { items, parameters } = listingsAt([id], 20, {
				minPricePerTicket: floor,
				minPriceCurrency: 'EUR',
			});
			await run({ items, parameters });
		}
		expect(bodies.map((body) => body.externalListingId)).toEqual([1, 2, 3]);
	});
});

describe('Minimum Price Currency', () => {
	it('refuses a listing in another currency, whatever its amount: a floor of 20 EUR lets no 25 JPY through', async () => {
		grantTokens('tok-currency');
		const bodies = acceptListings();
		const { items, parameters } = listingsAt([1, 2], 25, {
			minPricePerTicket: 20,
			minPriceCurrency: 'EUR',
		});
		parameters.priceCurrency = (itemIndex: number) => ['JPY', 'eur'][itemIndex];
		const { output } = await run({ items, parameters, asTool: true });
		expect(bodies.map((body) => body.externalListingId)).toEqual([2]);
		expect(errorOf(output![0])).toMatch(
			/Currency JPY is not EUR, the Minimum Price Currency set under Options: only listings priced in EUR are sent.*\(row 1\)/,
		);
		expect(output![1].json.id).toBe('L-2');
	});

	it('alone, without a minimum, refuses every other currency too', async () => {
		grantTokens('tok-currency');
		const bodies = acceptListings();
		const { items, parameters } = listingsAt([1], 25, { minPriceCurrency: 'GBP' });
		const { output } = await run({ items, parameters });
		expect(bodies).toEqual([]);
		expect(errorOf(output![0])).toMatch(/Currency EUR is not GBP/);
	});

	it('a minimum without its currency stops the run before anything is read or sent', async () => {
		const { items, parameters } = listingsAt([1], 25, { minPricePerTicket: 20 });
		const { thrown } = await run({ items, parameters, asTool: true });
		expect(thrown).toBeInstanceOf(NodeOperationError);
		expect((thrown as NodeOperationError).message).toBe(
			'Minimum Price per Ticket under Options needs its currency',
		);
		expect((thrown as NodeOperationError).description).toMatch(
			/Add Options → Minimum Price Currency/,
		);
		expect(nock.pendingMocks()).toEqual([]);
	});
});

describe('Maximum Tickets per Listing', () => {
	const products = (count: number) =>
		JSON.stringify(
			Array.from({ length: count }, (_, index) => ({
				externalId: `T-${index}`,
				row: 'A',
				seat: String(index + 1),
			})),
		);

	it('refuses a listing with more tickets, and sends one with as many', async () => {
		grantTokens('tok-max');
		const bodies = acceptListings();
		const { items, parameters } = oneSeatListings([1, 2], { maxTicketsPerListing: 2 });
		const { output } = await run({
			items,
			parameters: {
				...parameters,
				productsSource: 'json',
				productsJson: (itemIndex: number) => products([3, 2][itemIndex]),
			},
		});
		expect(bodies.map((body) => body.externalListingId)).toEqual([2]);
		expect(errorOf(output![0])).toMatch(
			/3 tickets in one listing are more than the Maximum Tickets per Listing set under Options \(2\).*\(row 1\)/,
		);
		expect(output![1].json.id).toBe('L-2');
	});
});

describe('a limit that cannot be used', () => {
	it.each([
		['minPricePerTicket', 'abc', /^Minimum Price per Ticket under Options cannot be used$/],
		['minPricePerTicket', -5, /^Minimum Price per Ticket under Options cannot be used$/],
		['maxTicketsPerListing', 2.5, /^Maximum Tickets per Listing under Options cannot be used$/],
		['minPriceCurrency', 'euro', /^Minimum Price Currency under Options cannot be used$/],
	])('%s %p stops the run before anything is read or sent', async (option, value, title) => {
		const { items, parameters } = oneSeatListings([1], { [option]: value });
		const { thrown } = await run({ items, parameters });
		expect(thrown).toBeInstanceOf(NodeOperationError);
		expect((thrown as NodeOperationError).message).toMatch(title);
		expect((thrown as NodeOperationError).description).toMatch(
			/remove the option|three-letter currency code/,
		);
		expect(nock.pendingMocks()).toEqual([]);
	});
});

describe("as an AI Agent's tool, every value chosen by the model", () => {
	/** The reviewer's call: 2,000 tickets at 0.01 each, in one listing. */
	function reviewersCall(options: IDataObject) {
		const { items, parameters } = oneSeatListings([1], options);
		const products = Array.from({ length: 2000 }, (_, index) => ({
			externalId: `T-${index}`,
			row: 'A',
			seat: String(index + 1),
		}));
		return {
			items,
			parameters: {
				...parameters,
				priceAmount: 0.01,
				productsSource: 'json',
				productsJson: JSON.stringify(products),
			},
		};
	}

	it('with the limits set, the call lists nothing, and the model is told why', async () => {
		grantTokens('tok-agent');
		const bodies = acceptListings();
		const { output } = await run({
			...reviewersCall({
				minPricePerTicket: 20,
				minPriceCurrency: 'EUR',
				maxTicketsPerListing: 50,
			}),
			asTool: true,
		});
		expect(bodies).toEqual([]);
		expect(output).toHaveLength(1);
		expect(output![0].json.id).toBeUndefined();
		expect(errorOf(output![0])).toMatch(/Price Amount 0\.01 EUR is below/);
		expect(errorOf(output![0])).toMatch(/2000 tickets in one listing are more than/);
	});

	it('the floor alone refuses it too', async () => {
		grantTokens('tok-agent');
		const bodies = acceptListings();
		const { output } = await run({
			...reviewersCall({ minPricePerTicket: 20, minPriceCurrency: 'EUR' }),
			asTool: true,
		});
		expect(bodies).toEqual([]);
		expect(errorOf(output![0])).toMatch(/below the Minimum Price per Ticket/);
	});

	it('without limits, a tool call is not refused: the listing is sent as the model chose it', async () => {
		grantTokens('tok-agent');
		const bodies = acceptListings();
		const { items, parameters } = oneSeatListings([1]);
		const { output } = await run({ items, parameters, asTool: true });
		expect(bodies.map((body) => body.externalListingId)).toEqual([1]);
		expect(output![0].json.id).toBe('L-1');
	});
});
