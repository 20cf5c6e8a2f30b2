/**
 * Review (unlucky user): what a sheet can do to a listing. Promised: one seat once per run (compared ignoring case,
 * invisible characters, full-width digits, Unicode composition); a row that cannot be read blocks its listing;
 * values above 2^53 − 1 refused as too large to send exactly.
 */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import {
	BASE,
	EXAMPLE_SHEET_PARAMETERS,
	fakeRun,
	sheetRows,
} from '../../../../../../../support/fakeN8n/actionContext';

const SHEET = EXAMPLE_SHEET_PARAMETERS;

let ticket = 0;
function seat(listing: string, row: string, seatLabel: string, price = '49.90') {
	return {
		listing_id: listing,
		event_id: '4242',
		price,
		currency: 'EUR',
		ticket_id: `t-${++ticket}`,
		row,
		seat: seatLabel,
	};
}

function acceptListings(): IDataObject[] {
	const bodies: IDataObject[] = [];
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.reply(200, { access_token: 'tok-review-input' });
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.listings)
		.reply((_uri, body) => {
			bodies.push(body as IDataObject);
			return [201, { id: `L-${String((body as IDataObject).externalListingId)}` }];
		});
	return bodies;
}

async function run(items: INodeExecutionData[], parameters = SHEET) {
	const fake = fakeRun({ items, parameters, continueOnFail: true });
	return await execute.call(fake.context, items);
}

afterEach(() => nock.cleanAll());

describe('review: one seat in two listings, spelled with invisible characters the comparison misses', () => {
	it.each([
		[
			'directional isolates (U+2066 … U+2069, which browsers and chat apps wrap mixed-direction text in)',
			'\u2066A\u2069',
			'12',
		],
		['a combining grapheme joiner (U+034F)', 'A', '1\u034f2'],
		['a Hangul filler (U+3164), shown as blank', 'A', '12\u3164'],
	])('%s: the later listing is refused', async (_name, row, seatLabel) => {
		const bodies = acceptListings();
		const items = sheetRows([seat('7001', 'A', '12'), seat('7002', row, seatLabel)]);
		await run(items);
		expect(bodies.map((body) => body.externalListingId)).toEqual([7001]);
	});
});

describe('review: a row whose External Listing ID cannot be read', () => {
	it('grouped rows: the listing it may belong to does not go out without it', async () => {
		const bodies = acceptListings();
		const items = sheetRows([
			seat('7001', 'A', '1'),
			seat('7001', 'A', '2'),
			seat('7001', 'A', '3'),
		]);
		// Sheet row 2's ID is an expression that fails, as `{{ $json.listing_id.trim() }}` on a number would.
		const throwingId = Object.assign(
			(itemIndex: number, json: Record<string, unknown>) => {
				if (itemIndex === 1)
					throw new Error("Cannot read properties of undefined (reading 'trim')");
				return json.listing_id;
			},
			{ expression: '={{ $json.listing_id.trim() }}' },
		);
		await run(items, { ...SHEET, externalListingId: throwingId });
		// Sent now, listing 7001 lacks seat A-2 for good: its ID is remembered and the seat cannot be added.
		expect(bodies).toEqual([]);
	});
});

describe('review: a price that a JSON number cannot carry exactly', () => {
	it('"12345678901234567.89" is refused as too large, not sent as another amount', async () => {
		const bodies = acceptListings();
		await run(sheetRows([seat('7001', 'A', '1', '12345678901234567.89')]));
		const sent = bodies.map((body) => (body.pricePerProduct as IDataObject).amount);
		expect(sent).toEqual([]);
	});
});
