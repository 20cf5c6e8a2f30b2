/**
 * What a sheet must never do to a listing: lose a row the node could not read, list one seat twice (within a
 * listing or across the listings of one run, however the seat is spelled in Unicode), send a price it rounded to 0,
 * or blame an ID that is only too large. Through the real execute(); each test failed before its fix.
 */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { labelIdentity } from '../../../../../../../nodes/TicketMarketplace/schemas/listing';
import {
	column,
	EXAMPLE_SHEET_PARAMETERS,
	fakeRun,
	sheetRows,
} from '../../../../../../../support/fakeN8n/actionContext';
import type { ParameterValue } from '../../../../../../../support/fakeN8n/actionContext';
import { acceptListings, grantTokens } from '../../../../../../../support/partnerApiNock';

function seat(listing: string, row: string, seatNumber: string, event = '4242') {
	return {
		listing_id: listing,
		event_id: event,
		price: '49.90',
		currency: 'EUR',
		ticket_id: `${listing}-${row}-${seatNumber}-${Math.random().toString(36).slice(2, 6)}`,
		row,
		seat: seatNumber,
	};
}

/** The API creates every listing it is sent; the bodies say what was sent. */
function acceptAll() {
	grantTokens('tok-integrity');
	return acceptListings();
}

async function run(
	items: INodeExecutionData[],
	parameters: Record<string, ParameterValue>,
	continueOnFail: boolean,
) {
	const fake = fakeRun({ parameters, items, continueOnFail });
	return await execute.call(fake.context, items).then(
		(output) => ({ output, thrown: undefined }),
		(thrown: Error & { description?: string }) => ({ output: [], thrown }),
	);
}

const sentIds = (bodies: IDataObject[]) => bodies.map((body) => body.externalListingId);

afterEach(() => nock.cleanAll());

describe('a ticket row whose parameters cannot be read', () => {
	/** Seat of sheet row 2 is an expression that throws, as `{{ $json.seat.toUpperCase() }}` on a number would. */
	const throwingSeat = Object.assign(
		(itemIndex: number, json: Record<string, unknown>) => {
			if (itemIndex === 1)
				throw new Error("Cannot read properties of undefined (reading 'toUpperCase')");
			return json.seat;
		},
		{ expression: '={{ $json.seat.toUpperCase() }}' },
	);
	const items = sheetRows([
		seat('7001', 'A', '1'),
		seat('7001', 'A', '2'),
		seat('7001', 'A', '3'),
		seat('7002', 'B', '1'),
	]);
	const parameters = { ...EXAMPLE_SHEET_PARAMETERS, productSeat: throwingSeat };

	it('blocks its whole listing, the row and its problem named (Continue); the other listing is sent', async () => {
		const bodies = acceptAll();
		const { output } = await run(items, parameters, true);
		expect(sentIds(bodies)).toEqual([7002]);
		expect(output[0].json.error).toBe('Listing 7001 (rows 1–3) failed validation');
		expect(output[0].json.problems).toEqual([
			"could not read the parameters: Cannot read properties of undefined (reading 'toUpperCase') (row 2)",
		]);
		expect(output[0].json.itemIndexes).toEqual([0, 1, 2]);
	});

	it('blocks the run, naming the row (without Continue)', async () => {
		const bodies = acceptAll();
		const { thrown } = await run(items, parameters, false);
		expect(bodies).toEqual([]);
		expect(thrown?.message).toBe('1 of 2 listings failed validation; nothing was sent');
		expect(thrown?.description).toContain('could not read the parameters');
	});
});

describe('a ticket row whose External Listing ID cannot be read', () => {
	const failure = "Cannot read properties of undefined (reading 'trim')";
	/** The ID of sheet row 2 is an expression that throws, as `{{ $json.listing_id.trim() }}` on a number would. */
	const throwingOn = (rows: number[], value: (json: Record<string, unknown>) => unknown) =>
		Object.assign(
			(itemIndex: number, json: Record<string, unknown>) => {
				if (rows.includes(itemIndex)) throw new Error(failure);
				return value(json);
			},
			{ expression: '={{ $json.listing_id.trim() }}' },
		);
	const items = sheetRows([
		seat('7001', 'A', '1'),
		seat('7001', 'A', '2'),
		seat('7001', 'A', '3'),
		seat('7002', 'B', '1'),
		seat('7003', 'C', '1', '4343'),
	]);

	it('holds back every listing of its event, naming the row; other events are sent (Continue)', async () => {
		const bodies = acceptAll();
		const parameters = {
			...EXAMPLE_SHEET_PARAMETERS,
			externalListingId: throwingOn([1], (json) => json.listing_id),
		};
		const { output } = await run(items, parameters, true);
		expect(sentIds(bodies)).toEqual([7003]);
		const problem = `External Listing ID could not be read (${failure}): the row may belong to any listing of event 4242, and none is sent without it (row 2)`;
		expect(output.map((item) => [item.json.error, item.json.problems])).toEqual([
			['Listing 7001 (rows 1 and 3) failed validation', [problem]],
			[
				'No External Listing ID (row 2) failed validation',
				[`could not read the parameters: ${failure} (row 2)`],
			],
			['Listing 7002 (row 4) failed validation', [problem]],
			[undefined, undefined],
		]);
	});

	it('holds back every listing when its Event ID cannot be read either (Continue)', async () => {
		const bodies = acceptAll();
		const parameters = {
			...EXAMPLE_SHEET_PARAMETERS,
			externalListingId: throwingOn([1], (json) => json.listing_id),
			eventId: throwingOn([1], (json) => json.event_id),
		};
		const { output } = await run(items, parameters, true);
		expect(bodies).toEqual([]);
		expect(output[3].json.problems).toEqual([
			`External Listing ID could not be read (${failure}), and the row has no usable Event ID either: it may belong to any listing of this run, and none is sent without it (row 2)`,
		]);
	});

	it('blocks the run (without Continue)', async () => {
		const bodies = acceptAll();
		const parameters = {
			...EXAMPLE_SHEET_PARAMETERS,
			externalListingId: throwingOn([1], (json) => json.listing_id),
		};
		const { thrown } = await run(items, parameters, false);
		expect(bodies).toEqual([]);
		expect(thrown?.description).toContain('may belong to any listing of event 4242');
	});
});

describe('one seat listed twice', () => {
	it.each([
		['a zero-width space', 'A', '12', 'A', '1\u200b2'],
		['a word joiner and a BOM', 'A', '12', '\ufeffA', '12\u2060'],
		['NFC against NFD', 'Ré', '1', 'Re\u0301', '1'],
		['full-width digits and letters', 'A', '12', 'Ａ', '１２'],
		['another case and spaces around', 'a', '12', ' A ', ' 12'],
	])(
		'within one listing, however spelled (%s): the listing is invalid',
		async (_name, row1, seat1, row2, seat2) => {
			const bodies = acceptAll();
			const items = sheetRows([
				seat('7001', row1, seat1),
				seat('7001', row2, seat2),
				seat('7002', 'B', '1'),
			]);
			const { output } = await run(items, EXAMPLE_SHEET_PARAMETERS, true);
			expect(sentIds(bodies)).toEqual([7002]);
			expect(output[0].json.error).toBe('Listing 7001 (rows 1 and 2) failed validation');
			expect(String((output[0].json.problems as string[])[0])).toContain(
				'is listed twice in one listing (rows 1 and 2)',
			);
		},
	);

	it('across two listings of one event in one run: the later one is invalid, naming the other listing and its rows', async () => {
		const bodies = acceptAll();
		const items = sheetRows([
			seat('7001', 'A', '1'),
			seat('7001', 'A', '2'),
			seat('7002', 'B', '5'),
			seat('7002', 'A', '\u200b2'),
		]);
		const { output } = await run(items, EXAMPLE_SHEET_PARAMETERS, true);
		expect(sentIds(bodies)).toEqual([7001]);
		expect(output[1].json.error).toBe('Listing 7002 (rows 3 and 4) failed validation');
		expect(output[1].json.problems).toEqual([
			'Seat row "A" seat "\u200b2" is also in listing 7001 (rows 1 and 2) of event 4242: a seat can be sold only once (row 4)',
		]);
	});

	it('across listings one per item (without Continue): nothing is sent', async () => {
		const bodies = acceptAll();
		const items = [{ json: {} }, { json: {} }];
		const parameters: Record<string, ParameterValue> = {
			inputShape: 'listingPerItem',
			eventId: 55,
			externalListingId: (itemIndex: number) => itemIndex + 1,
			priceAmount: 10,
			priceCurrency: 'EUR',
			productsSource: 'defined',
			products: (itemIndex: number) => ({
				product: [
					{ externalId: `x-${itemIndex}`, row: 'A', seat: String(itemIndex + 1) },
					{ externalId: `y-${itemIndex}`, row: 'A', seat: '９' },
				],
			}),
			options: { skipAlreadySent: false },
		};
		const { thrown } = await run(items, parameters, false);
		expect(bodies).toEqual([]);
		expect(thrown?.description).toContain(
			'Products → Product 2 → Seat row "A" seat "９" is also in listing 1 (row 1) of event 55: a seat can be sold only once (row 2)',
		);
	});

	it('sends the seat as written, and leaves alone other events and General Admission', async () => {
		const bodies = acceptAll();
		const items = sheetRows([
			seat('7001', 'A', '1\u200b'),
			seat('7002', 'A', '1', '4343'),
			{ ...seat('7003', '', ''), ga: 'true' },
			{ ...seat('7004', '', ''), ga: 'true' },
		]);
		const { output } = await run(
			items,
			{ ...EXAMPLE_SHEET_PARAMETERS, productGa: column('ga') },
			true,
		);
		expect(output.map((item) => item.json.error)).toEqual([
			undefined,
			undefined,
			undefined,
			undefined,
		]);
		expect(sentIds(bodies)).toEqual([7001, 7002, 7003, 7004]);
		expect((bodies[0].products as IDataObject[])[0].seat).toBe('1\u200b');
	});
});

describe('one General Admission ticket listed twice', () => {
	const standing = (listing: string, ticketId: string, event = '4242') => ({
		...seat(listing, '', '', event),
		ticket_id: ticketId,
		ga: 'true',
	});
	const parameters = { ...EXAMPLE_SHEET_PARAMETERS, productGa: column('ga') };

	it('across two listings of one event (without Continue): nothing is sent, and the error names the earlier listing', async () => {
		const bodies = acceptAll();
		const items = sheetRows([standing('7001', 'GA-1'), standing('7002', 'GA-1')]);
		const { thrown } = await run(items, parameters, false);
		expect(bodies).toEqual([]);
		expect(thrown?.description).toContain(
			'"GA-1" (General Admission) is also in listing 7001 (row 1) of event 4242: a ticket can be sold only once (row 2)',
		);
	});

	it('with Continue: the earlier listing is sent, the later one is an error item; under another event it is sent', async () => {
		const bodies = acceptAll();
		const items = sheetRows([
			standing('7001', 'GA-1'),
			standing('7002', 'GA-1'),
			standing('7003', 'GA-1', '4343'),
		]);
		const { output } = await run(items, parameters, true);
		expect(sentIds(bodies)).toEqual([7001, 7003]);
		expect(output.map((item) => item.json.error)).toEqual([
			undefined,
			'Listing 7002 (row 2) failed validation',
			undefined,
		]);
	});
});

describe('how seats are compared', () => {
	it('ignores only what shows as nothing: every other assigned character changes the label', () => {
		const ignored = /\p{Default_Ignorable_Code_Point}|\s|\p{Unassigned}/u;
		const lost: string[] = [];
		for (let codePoint = 0; codePoint <= 0x10ffff; codePoint++) {
			if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
			const character = String.fromCodePoint(codePoint);
			if (ignored.test(character)) continue;
			if (labelIdentity(`A${character}`) === labelIdentity('A'))
				lost.push(`U+${codePoint.toString(16).toUpperCase()}`);
		}
		expect(lost).toEqual([]);
	});
});

describe('numbers at the edges', () => {
	const oneListing = (eventId: unknown, priceAmount: unknown): Record<string, ParameterValue> => ({
		inputShape: 'listingPerItem',
		eventId,
		externalListingId: 1,
		priceAmount,
		priceCurrency: 'EUR',
		productsSource: 'defined',
		products: { product: [{ externalId: 'A-1', row: 'A', seat: '1' }] },
		options: { skipAlreadySent: false },
	});

	it.each([1e-9, 1e-12, Number.MIN_VALUE])(
		'a price of %s is refused, not sent as 0',
		async (price) => {
			const bodies = acceptAll();
			const { thrown } = await run([{ json: {} }], oneListing(55, price), false);
			expect(bodies).toEqual([]);
			expect(thrown?.description).toContain(
				`Price Amount ${String(price)} is below 0.01, the smallest price`,
			);
		},
	);

	it.each(['12345678901234567.89', '90071992547409.91', '10000000000000', 1e15])(
		'a price of %s is refused as too large, not sent as another amount',
		async (price) => {
			const bodies = acceptAll();
			const { thrown } = await run([{ json: {} }], oneListing(55, price), false);
			expect(bodies).toEqual([]);
			expect(thrown?.description).toContain(
				`Price Amount ${typeof price === 'string' ? `"${price}"` : String(price)} is too large: prices up to 9999999999999.99 can be sent exactly`,
			);
		},
	);

	it.each(['9999999999999.99', 9999999999999.99])(
		'the largest price, %s, is sent as written',
		async (price) => {
			const bodies = acceptAll();
			const { thrown } = await run([{ json: {} }], oneListing(55, price), false);
			expect(thrown).toBeUndefined();
			expect(JSON.stringify(bodies[0].pricePerProduct)).toBe(
				'{"amount":9999999999999.99,"currency":"EUR"}',
			);
		},
	);

	it.each(['9007199254740993', 9007199254740992, '123456789012345678901'])(
		'an Event ID of %s is called too large, not "not a whole number"',
		async (eventId) => {
			const bodies = acceptAll();
			const { thrown } = await run([{ json: {} }], oneListing(eventId, 10), false);
			expect(bodies).toEqual([]);
			expect(thrown?.description).toContain('Event ID is too large');
			expect(thrown?.description).not.toContain('must be a whole number');
		},
	);
});
