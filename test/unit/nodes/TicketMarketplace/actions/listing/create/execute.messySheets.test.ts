/**
 * Everyday spreadsheet mistakes, as a no-code user meets them with the sheet-to-listings example's
 * mapping: each asserts the words the user reads (field label, rows counted from 1, the way out) and that nothing
 * is sent for a bad sheet.
 */
import nock from 'nock';
import { NodeOperationError } from 'n8n-workflow';
import type { INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import {
	BASE,
	EXAMPLE_SHEET_PARAMETERS,
	fakeRun,
	sheetRows,
} from '../../../../../../../support/fakeN8n/actionContext';
import type { ParameterValue } from '../../../../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import { acceptListings, grantTokens } from '../../../../../../../support/partnerApiNock';

function seat(
	listing: string,
	row: string,
	seatNumber: string,
	overrides: Record<string, string> = {},
) {
	return {
		listing_id: listing,
		event_id: '4242',
		price: '49.90',
		currency: 'EUR',
		ticket_id: `${listing}-${row}-${seatNumber}`,
		row,
		seat: seatNumber,
		...overrides,
	};
}

const GOOD_SHEET = [seat('7001', 'A', '1'), seat('7001', 'A', '2'), seat('7002', 'B', '1')];

/** The API creates every listing it is sent; the bodies say what was sent. */
function acceptAll() {
	grantTokens('tok', 5);
	return acceptListings();
}

async function run(
	items: INodeExecutionData[],
	parameters: Record<string, ParameterValue> = EXAMPLE_SHEET_PARAMETERS,
	continueOnFail = false,
) {
	const fake = fakeRun({ parameters, items, continueOnFail });
	const output = await execute.call(fake.context, items);
	return { output, hints: fake.hints.map((hint) => hint.message) };
}

/** The one validation error of a bad sheet, split into lines; asserts nothing was sent. */
async function refusal(
	items: INodeExecutionData[],
	parameters: Record<string, ParameterValue> = EXAMPLE_SHEET_PARAMETERS,
) {
	const listings = nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, {});
	const token = nock(BASE)
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.reply(200, { access_token: 'tok' });
	const failure = await run(items, parameters).then(
		() => {
			throw new Error('expected a validation error');
		},
		(error: unknown) => error as NodeOperationError,
	);
	expect(failure).toBeInstanceOf(NodeOperationError);
	expect(listings.isDone()).toBe(false);
	expect(token.isDone()).toBe(false);
	return { message: failure.message, lines: String(failure.description).split('\n') };
}

afterEach(() => nock.cleanAll());

describe('messy sheets: the everyday mess', () => {
	it('skips a blank row at the end (every cell empty, as Google Sheets and Excel export it), says so, and sends the rest', async () => {
		const bodies = acceptAll();
		const blank = {
			listing_id: '',
			event_id: '',
			price: '',
			currency: '',
			ticket_id: '',
			row: '',
			seat: '',
		};
		const { output, hints } = await run(sheetRows([...GOOD_SHEET, blank]));

		expect(bodies.map((body) => body.externalListingId)).toEqual([7001, 7002]);
		expect(output.map((item) => item.json.id)).toEqual(['L-7001', 'L-7002']);
		expect(hints).toEqual([
			'Skipped 1 blank row (row 4): every field read from it was empty. If a row should be a listing, check that its columns are mapped. Rows are counted from 1, in the order the items reach this node.',
		]);
	});

	it('skips rows that arrive with no cells at all, and gives each its own paired item in the per-row output', async () => {
		acceptAll();
		const items = [...sheetRows(GOOD_SHEET), { json: {} }, { json: {} }];
		const { output, hints } = await run(items, {
			...EXAMPLE_SHEET_PARAMETERS,
			options: { skipAlreadySent: false, output: 'row' },
		});

		expect(output.map((item) => item.json.listingStatus)).toEqual([
			'created',
			'created',
			'created',
			'blank',
			'blank',
		]);
		expect(output.map((item) => item.pairedItem)).toEqual(
			[0, 1, 2, 3, 4].map((item) => ({ item })),
		);
		expect(hints[0]).toMatch(/^Skipped 2 blank rows \(rows 4 and 5\)/);
	});

	it('a sheet of blank rows only sends nothing and fails nothing', async () => {
		const { output, hints } = await run([{ json: {} }, { json: { listing_id: ' ' } }]);
		expect(output).toEqual([]);
		expect(hints[0]).toMatch(/^Skipped 2 blank rows/);
	});

	it.each([
		[
			'no seat column at all',
			(row: Record<string, string>) => ({ ...row, seat: undefined }),
			'Seat reads the column "seat"',
			'"listing_id", "event_id", "price", "currency", "ticket_id" and "row"',
		],
		[
			'a misspelled header',
			(row: Record<string, string>) => ({ ...row, seat: undefined, Seet: row.seat }),
			'Seat reads the column "seat"',
			'"Seet"',
		],
		[
			'a CSV whose first header carries a byte-order mark',
			(row: Record<string, string>) => ({
				...row,
				listing_id: undefined,
				'\uFEFFlisting_id': row.listing_id,
			}),
			'External Listing ID reads the column "listing_id"',
			'"listing_id" (preceded by an invisible byte-order mark)',
		],
	])(
		'%s: says the column is missing or empty in every row, and lists the columns the rows do have',
		async (_name, change, missing, columns) => {
			const rows = GOOD_SHEET.map(
				(row) => JSON.parse(JSON.stringify(change(row))) as Record<string, string>,
			);
			const { lines } = await refusal(sheetRows(rows));
			expect(lines[0]).toMatch(
				new RegExp(`^${missing}, which is missing( or empty)? in every row\\.$`),
			);
			expect(lines[1]).toContain('The rows have the columns: ');
			expect(lines[1]).toContain(columns);
			expect(lines[1]).toContain(
				"Check the header's spelling, or map the field to one of these columns.",
			);
		},
	);

	it('general-admission rows mapped like the example: names General Admission and how to map it, never "ga"', async () => {
		const { lines } = await refusal(sheetRows([seat('7001', '', '')]));
		expect(lines[0]).toContain('(or map it to a column, such as {{ $json.ga }})');
		expect(lines.join('\n')).toContain(
			'Row is empty: a seated ticket needs a Row and a Seat. For standing tickets, switch on General Admission',
		);
		expect(lines.join('\n')).not.toMatch(/\bga is\b|products\[/);
	});

	it('refuses the same row and seat twice in one listing, naming both rows', async () => {
		const { message, lines } = await refusal(
			sheetRows([
				seat('7001', 'A', '1'),
				seat('7001', 'A', '2'),
				seat('7001', 'A', '1', { ticket_id: 'other' }),
			]),
		);
		expect(message).toBe('1 of 1 listing failed validation; nothing was sent');
		expect(lines[0]).toBe(
			'Seat row "A" seat "1" is listed twice in one listing (rows 1 and 3): a seat can be sold only once (rows 1 and 3)',
		);
	});

	it('refuses a price with more than two decimals, with a hint', async () => {
		const { lines } = await refusal(sheetRows([seat('7001', 'A', '1', { price: '49.999' })]));
		expect(lines[0]).toBe(
			'Price Amount "49.999" has more than 2 decimals: a price is in currency units and cents, such as 50.00 (row 1)',
		);
	});

	it('refuses a European decimal comma with the way out', async () => {
		const rows = Array.from({ length: 2000 }, (_, index) =>
			seat(String(7001 + Math.floor(index / 5)), 'A', String((index % 5) + 1), { price: '49,90' }),
		);
		const { message, lines } = await refusal(sheetRows(rows));
		expect(message).toBe('400 of 400 listings failed validation; nothing was sent');
		expect(lines[0]).toBe(
			`Price Amount "49,90" is not a number (a decimal comma): write 49.90, or map {{ $json.price.replace(',', '.') }} (rows 1–2000)`,
		);
		expect(lines[1]).toBe(
			"Fix these values in the sheet or the node's fields, then run the workflow again.",
		);
		expect(lines[2]).toBe(
			'To send the valid listings and get one error item per invalid one, set Settings → On Error → Continue (using error output).',
		);
	});

	it('groups rows with an unusable listing id by that id, so the counts are right', async () => {
		const rows = [
			seat('A-100', 'A', '1'),
			seat('A-100', 'A', '2'),
			seat('A-101', 'B', '1'),
			seat('A-101', 'B', '2'),
		];
		const { message, lines } = await refusal(sheetRows(rows));
		expect(message).toBe('2 of 2 listings failed validation; nothing was sent');
		expect(lines.slice(0, 2)).toEqual([
			'External Listing ID must be a whole number greater than 0 (got "A-100") (rows 1 and 2)',
			'External Listing ID must be a whole number greater than 0 (got "A-101") (rows 3 and 4)',
		]);
	});

	it('with On Error → Continue, a bad id is one error item for its rows, and the good listings are sent', async () => {
		const bodies = acceptAll();
		const rows = [
			seat('7001', 'A', '1'),
			seat('A-100', 'A', '1'),
			seat('A-100', 'A', '2'),
			seat('7001', 'A', '2'),
		];
		const { output } = await run(sheetRows(rows), EXAMPLE_SHEET_PARAMETERS, true);
		expect(bodies.map((body) => body.externalListingId)).toEqual([7001]);
		expect(output[1].json).toMatchObject({
			error: 'Listing "A-100" (rows 2 and 3) failed validation',
			itemIndexes: [1, 2],
		});
		expect(output[1].pairedItem).toEqual([{ item: 1 }, { item: 2 }]);
	});

	it('accepts a computed price with binary noise as two decimals and sends it rounded', async () => {
		const bodies = acceptAll();
		await run(sheetRows([seat('7001', 'A', '1')]), {
			...EXAMPLE_SHEET_PARAMETERS,
			priceAmount: () => 49.9 * 1.1,
		});
		expect(bodies[0].pricePerProduct).toEqual({ amount: 54.89, currency: 'EUR' });
	});
});
