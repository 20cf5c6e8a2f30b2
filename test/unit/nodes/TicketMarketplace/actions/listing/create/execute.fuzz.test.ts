/**
 * Generated listing inputs through the node's real execute(), per input mode (products defined in the node, as
 * JSON, as seat ranges; grouped sheet rows): every invalid input is refused before anything is sent, with an error
 * that names the rows and the field; every valid input is sent as exactly the body of spec 2.4 (a model written
 * here, independent of the node), in input order. Bounded in count, seeded, and prints its counts.
 */
import fc from 'fast-check';
import nock from 'nock';
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import {
	hugeSheet,
	invalidListingPerItem,
	invalidSheetRows,
	validListingLevel,
	validProducts,
	validSheetRows,
	type InvalidCase,
	type ItemParameters,
} from '../../../../../../../support/arbitraries/listingInputs';
import { listingBody } from '../../../../../../../support/listingBody';
import { BASE, fakeRun } from '../../../../../../../support/fakeN8n/actionContext';
import type { ParameterValue } from '../../../../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';

const INVALID_RUNS = 1000;
const VALID_RUNS = 100;
const SEED = 1114;

type Mode = 'defined' | 'json' | 'seatRange' | 'sheetRows';

/** The node's parameters, each read from the generated item, as an expression per item would give them. */
function parametersOf(
	items: ItemParameters[],
	shape: 'listingPerItem' | 'ticketPerItem',
	options: IDataObject = {},
): Record<string, ParameterValue> {
	const names = new Set(items.flatMap((item) => Object.keys(item)));
	const parameters: Record<string, ParameterValue> = {
		inputShape: shape,
		options: { skipAlreadySent: false, ...options },
	};
	for (const name of names) parameters[name] = (itemIndex: number) => items[itemIndex]?.[name];
	return parameters;
}

function modeOf(invalid: InvalidCase): Mode {
	const item = invalid.items[invalid.defect.items[0]];
	return (item.productsSource as Mode | undefined) ?? 'defined';
}

/** The label(s) the node may use for a defect's field (the arbitraries name fields by their API path). */
function labelsFor(field: string, mode: Mode): string[] {
	const level: Record<string, string> = {
		eventId: 'Event ID',
		externalListingId: 'External Listing ID',
		'pricePerProduct.amount': 'Price Amount',
		'pricePerProduct.currency': 'Currency',
		'Accept-Language': 'Language',
		paymentType: 'Payment Type',
		stockType: 'Stock Type',
	};
	if (level[field]) return [level[field]];
	const product: Record<string, string> = {
		externalId: 'External ID',
		row: 'Row',
		seat: 'Seat',
		ga: 'General Admission',
		productType: 'Product Type',
	};
	if (mode === 'sheetRows')
		return [field === 'externalId' ? 'Product External ID' : product[field]];
	const range = /^seatRanges\[(\d+)\]\.(\w+)$/.exec(field);
	if (range) {
		const names: Record<string, string> = {
			row: 'Row',
			firstSeat: 'First Seat',
			lastSeat: 'Last Seat',
			externalIdPattern: 'External ID Pattern',
		};
		return [`Seat Ranges → Range ${Number(range[1]) + 1} → ${names[range[2]]}`];
	}
	const productField = /^products\[(\d+)\](?:\.(\w+))?$/.exec(field);
	if (productField) {
		// A JSON product's own fields are named as typed; a duplicate id is named by the list it repeats in.
		if (mode === 'json') return ['Products (JSON)'];
		return [
			`Products → Product ${Number(productField[1]) + 1} → ${product[productField[2]]}`,
			'Products → External ID',
		];
	}
	if (field === 'products') return ['Products'];
	throw new Error(`no label known for ${field}`);
}

/** The rows a problem line names: "(row 3)", "(rows 1 and 4)", "(rows 1, 3 and 5–9)". */
function rowsNamed(line: string): Set<number> {
	const match = /\((rows? [0-9–, and]+)\)$/.exec(line);
	const rows = new Set<number>();
	if (!match) return rows;
	for (const part of match[1].replace(/^rows? /, '').split(/, | and /)) {
		const [first, last] = part.split('–').map(Number);
		for (let row = first; row <= (last ?? first); row++) rows.add(row);
	}
	return rows;
}

/** The one place that decides whether an error names the defect: a line with the field's label and all its rows. */
function namesDefect(description: string, invalid: InvalidCase, mode: Mode): boolean {
	const labels = labelsFor(invalid.defect.field, mode);
	const wanted = invalid.defect.items.map((index) => index + 1);
	return description
		.split('\n')
		.some(
			(line) =>
				labels.some((label) => line.startsWith(label)) &&
				wanted.every((row) => rowsNamed(line).has(row)),
		);
}

async function refuses(invalid: InvalidCase, mode: Mode): Promise<void> {
	const items: INodeExecutionData[] = invalid.items.map(() => ({ json: {} }));
	const shape = mode === 'sheetRows' ? 'ticketPerItem' : 'listingPerItem';
	const fake = fakeRun({ parameters: parametersOf(invalid.items, shape), items });
	const sent = nock(BASE).post(/.*/).query(true).reply(201, {});
	let error: unknown;
	try {
		await execute.call(fake.context, items);
	} catch (caught) {
		error = caught;
	}
	const where = `${mode} ${invalid.defect.kind} at ${invalid.defect.field} (items ${invalid.defect.items.join(', ')})`;
	if (!(error instanceof NodeOperationError)) throw new Error(`not refused: ${where}`);
	if (sent.isDone()) throw new Error(`a request was sent for ${where}`);
	nock.cleanAll();
	const description = String(error.description);
	if (!namesDefect(description, invalid, mode))
		throw new Error(`the error does not name ${where}:\n${description.slice(0, 2000)}`);
}

/** Spec 2.4's body for the generated values (currency sent upper case, stock types split at commas). */
function modelBody(
	level: ItemParameters,
	products: Array<Record<string, unknown>>,
): Record<string, unknown> {
	return listingBody({
		eventId: level.eventId,
		amount: level.priceAmount,
		currency: String(level.priceCurrency).toUpperCase(),
		externalListingId: level.externalListingId,
		products: products.map((product) => ({
			externalId: product.externalId,
			row: product.row,
			seat: product.seat,
			ga: product.ga === true,
		})),
		stockType: String(level.stockType).split(','),
		paymentType: level.paymentType,
	});
}

async function sendsExactly(
	items: ItemParameters[],
	shape: 'listingPerItem' | 'ticketPerItem',
	expected: Array<Record<string, unknown>>,
): Promise<void> {
	const bodies: IDataObject[] = [];
	nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: 'tok' });
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(expected.length)
		.reply((_uri, body) => {
			bodies.push(body as IDataObject);
			return [201, { id: 'ok' }];
		});
	const fake = fakeRun({
		parameters: parametersOf(items, shape, { concurrencyMode: 'fixed', concurrency: 1 }),
		items: items.map(() => ({ json: {} })),
	});
	await execute.call(
		fake.context,
		items.map(() => ({ json: {} })),
	);
	expect(bodies).toEqual(expected);
	nock.cleanAll();
}

const counts: Record<string, number> = {};

afterAll(() => {
	console.log(
		`listing fuzz (seed ${SEED}): ${Object.entries(counts)
			.map(([name, count]) => `${name} ${count}`)
			.join(', ')}`,
	);
});

describe('Listing → Create under generated input', () => {
	it.each<Mode>(['defined', 'json', 'seatRange'])(
		`refuses ${INVALID_RUNS} generated invalid listings per item (products: %s), naming the row and the field, sending nothing`,
		async (mode) => {
			const cases = invalidListingPerItem.filter((invalid) => modeOf(invalid) === mode);
			await fc.assert(
				fc.asyncProperty(cases, async (invalid) => {
					await refuses(invalid, mode);
					counts[`invalid ${mode}`] = (counts[`invalid ${mode}`] ?? 0) + 1;
				}),
				{ numRuns: INVALID_RUNS, seed: SEED },
			);
		},
	);

	it(`refuses ${INVALID_RUNS} generated invalid grouped sheet rows, naming the rows and the field, sending nothing`, async () => {
		await fc.assert(
			fc.asyncProperty(invalidSheetRows, async (invalid) => {
				await refuses(invalid, 'sheetRows');
				counts['invalid sheetRows'] = (counts['invalid sheetRows'] ?? 0) + 1;
			}),
			{ numRuns: INVALID_RUNS, seed: SEED },
		);
	});

	it('refuses one bad row in a 20,000-row sheet, naming it, sending nothing', async () => {
		const rows = hugeSheet(20_000);
		rows[12_345] = { ...rows[12_345], productSeat: '' };
		await refuses(
			{
				items: rows,
				defect: { field: 'seat', items: [12_345], kind: 'ga false without row or seat' },
			},
			'sheetRows',
		);
	});

	it('sends generated valid listings per item as exactly the body of spec 2.4, in input order', async () => {
		const listings = fc.uniqueArray(fc.tuple(validListingLevel, validProducts), {
			minLength: 1,
			maxLength: 5,
			selector: ([level]) => level.externalListingId,
		});
		await fc.assert(
			fc.asyncProperty(listings, async (generated) => {
				const items = generated.map(
					([level, products]): ItemParameters => ({
						...level,
						productsSource: 'defined',
						products: { product: products },
					}),
				);
				await sendsExactly(
					items,
					'listingPerItem',
					generated.map(([level, products]) => modelBody(level, products)),
				);
				counts['valid per item'] = (counts['valid per item'] ?? 0) + 1;
			}),
			{ numRuns: VALID_RUNS, seed: SEED },
		);
		// Generous: a loaded 2-core machine once took more than jest's default 5 s for these runs.
	}, 60_000);

	it('sends generated valid sheet rows as one body per listing, its rows in order, listings in order of first row', async () => {
		await fc.assert(
			fc.asyncProperty(validSheetRows, async (rows) => {
				const order: number[] = [];
				const byListing = new Map<number, ItemParameters[]>();
				for (const row of rows) {
					const id = row.externalListingId as number;
					if (!byListing.has(id)) order.push(id);
					byListing.set(id, [...(byListing.get(id) ?? []), row]);
				}
				const expected = order.map((id) => {
					const group = byListing.get(id)!;
					return modelBody(
						group[0],
						group.map((row) => ({
							externalId: row.productExternalId,
							row: row.productRow,
							seat: row.productSeat,
							ga: row.productGa,
						})),
					);
				});
				await sendsExactly(rows, 'ticketPerItem', expected);
				counts['valid sheetRows'] = (counts['valid sheetRows'] ?? 0) + 1;
			}),
			{ numRuns: VALID_RUNS, seed: SEED },
		);
		// Generous: a loaded 2-core machine once took more than jest's default 5 s for these runs.
	}, 60_000);
});
