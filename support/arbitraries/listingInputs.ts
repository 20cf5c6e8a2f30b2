/**
 * Generated listing inputs for Listing → Create (fast-check arbitraries), valid and invalid, for every input mode:
 * one listing per item with products defined in the node, as JSON or as seat ranges, and one ticket per item
 * (grouped sheet rows). Each invalid case carries exactly one defect and says where it is (the items or rows, and
 * the field path), so a test can assert that the error names them, and that nothing is sent. Nothing here asserts
 * on message wording.
 *
 * Defects marked `proposed: true` are refusals asked for that the node may not make yet (over-precise
 * amounts, huge strings, duplicate product ids, prototype-pollution keys): a test can filter on it.
 */
import fc from 'fast-check';

/** Node parameters of one item, by the names the node reads (nodes/TicketMarketplace/helpers/listingInput.ts). */
export type ItemParameters = Record<string, unknown>;

export interface Defect {
	/** Field path as the node names it, e.g. `pricePerProduct.amount`, `products[2].seat`, `Accept-Language`. */
	field: string;
	/** Zero-based item (or sheet row) indexes the error must name. */
	items: number[];
	kind: string;
	proposed?: boolean;
}

export interface InvalidCase {
	items: ItemParameters[];
	defect: Defect;
}

// ---- values -------------------------------------------------------------------------------------------------

const hugeString = fc.integer({ min: 10_000, max: 200_000 }).map((size) => 'x'.repeat(size));

/** Values each listing-level field must refuse (whatever else is right). */
export const invalidValues = {
	positiveId: fc.oneof(
		fc.constantFrom<unknown>(
			0,
			-1,
			1.5,
			'1e3',
			'0x10',
			'12abc',
			'',
			'   ',
			'abc',
			Number.NaN,
			Number.POSITIVE_INFINITY,
			true,
			null,
			undefined,
			{},
			[],
			2 ** 53,
			'-7',
		),
		fc.integer({ max: 0 }),
		fc.double({ noInteger: true, min: 0.001, max: 1e6 }),
	),
	amount: fc.oneof(
		fc.constantFrom<unknown>(
			0,
			-5,
			'0',
			'',
			'thirty',
			'1e3',
			'1,50',
			'49.90 EUR',
			Number.NaN,
			Number.POSITIVE_INFINITY,
			Number.NEGATIVE_INFINITY,
			null,
			true,
			{},
			[],
		),
		fc.double({ max: 0, noNaN: true }),
	),
	overPreciseAmount: fc
		.integer({ min: 1, max: 99_999 })
		.map((thousandths) => (thousandths * 10 + 1) / 10_000),
	currency: fc.oneof(
		fc.constantFrom<unknown>('EU', 'EURO', '€', '', 'E1R', 'E R', 123, null, true, ['EUR']),
		fc.string({ maxLength: 6 }).filter((text) => !/^\s*[A-Za-z]{3}\s*$/.test(text)),
	),
	languageTag: fc.constantFrom<unknown>(
		'',
		'english',
		'en_US',
		'e',
		'en-',
		'-US',
		'en US',
		123,
		null,
		['en-US'],
	),
	paymentType: fc.constantFrom<unknown>('one', 1.5, '', null, '1e2', {}, true),
	stockType: fc.constantFrom<unknown>('', ' , ', [], [1], [''], null, {}),
	requiredLabel: fc.constantFrom<unknown>('', '   ', null, undefined, {}, [], true, Number.NaN),
	sheetBoolean: fc.constantFrom<unknown>('yes', 'maybe', 2, -1, {}, [], 'truthy'),
	/** Prototype-pollution keys, as JSON text keeps them (JSON.parse makes them own properties). */
	pollutingKey: fc.constantFrom('__proto__', 'constructor', 'prototype'),
	hugeString,
};

const positiveId = fc.integer({ min: 1, max: 9_999_999 });
const amount = fc.integer({ min: 1, max: 999_999 }).map((cents) => cents / 100);
const currency = fc.constantFrom('EUR', 'USD', 'GBP', 'chf');
const label = fc.stringMatching(/^[A-Za-z0-9-]{1,12}$/);

export const validListingLevel = fc.record({
	eventId: positiveId,
	priceAmount: amount,
	priceCurrency: currency,
	externalListingId: positiveId,
	stockType: fc.constantFrom('PDF', 'PDF,MOBILE'),
	paymentType: fc.constantFrom(1, 2),
	acceptLanguage: fc.constantFrom('en-US', 'de-DE', 'fr'),
});

export const validProduct = fc.oneof(
	fc.record({
		externalId: label,
		row: label,
		seat: label,
		productType: fc.constant('TICKET'),
		ga: fc.constant(false),
	}),
	fc.record({ externalId: label, productType: fc.constant('TICKET'), ga: fc.constant(true) }),
);

/** Products with distinct external ids and distinct seats (row and seat compare without case). */
export const validProducts = fc
	.uniqueArray(validProduct, {
		minLength: 1,
		maxLength: 8,
		selector: (product) => product.externalId,
	})
	.filter((products) => {
		const seats = products.flatMap((product) =>
			'row' in product ? [`${product.row}\u0000${product.seat}`.toUpperCase()] : [],
		);
		return new Set(seats).size === seats.length;
	});

/** Listing-level fields and the value arbitraries that break them, with the field name the node reports. */
const LEVEL_DEFECTS: Array<{
	parameter: string;
	field: string;
	values: fc.Arbitrary<unknown>;
	kind: string;
	proposed?: boolean;
}> = [
	{
		parameter: 'eventId',
		field: 'eventId',
		values: invalidValues.positiveId,
		kind: 'not a positive whole number',
	},
	{
		parameter: 'externalListingId',
		field: 'externalListingId',
		values: invalidValues.positiveId,
		kind: 'not a positive whole number',
	},
	{
		parameter: 'priceAmount',
		field: 'pricePerProduct.amount',
		values: invalidValues.amount,
		kind: 'not a positive finite amount',
	},
	{
		parameter: 'priceAmount',
		field: 'pricePerProduct.amount',
		values: invalidValues.overPreciseAmount,
		kind: 'more than two decimals',
		proposed: true,
	},
	{
		parameter: 'priceCurrency',
		field: 'pricePerProduct.currency',
		values: invalidValues.currency,
		kind: 'not a currency code',
	},
	{
		parameter: 'acceptLanguage',
		field: 'Accept-Language',
		values: invalidValues.languageTag,
		kind: 'not a language tag',
	},
	{
		parameter: 'paymentType',
		field: 'paymentType',
		values: invalidValues.paymentType,
		kind: 'not a whole number',
	},
	{
		parameter: 'stockType',
		field: 'stockType',
		values: invalidValues.stockType,
		kind: 'no stock type',
	},
];

const levelDefect = fc
	.constantFrom(...LEVEL_DEFECTS)
	.chain((defect) => defect.values.map((value) => ({ ...defect, value })));

/** A products JSON value (as the node receives it: an array, or text of one) with one defect. */
export const invalidJsonProducts: fc.Arbitrary<{
	value: unknown;
	field: string;
	kind: string;
	proposed?: boolean;
}> = fc.oneof(
	fc
		.constantFrom<unknown>([], '[]', {}, 'not json', '{"externalId":"a"}', 42, null)
		.map((value) => ({ value, field: 'products', kind: 'not a non-empty array' })),
	fc.tuple(validProducts, fc.nat()).chain(([products, at]) => {
		const index = at % products.length;
		const broken = (change: (product: Record<string, unknown>) => Record<string, unknown>) =>
			products.map((product, position) => (position === index ? change({ ...product }) : product));
		return fc.oneof(
			invalidValues.requiredLabel.map((externalId) => ({
				value: broken((product) => ({ ...product, externalId })),
				field: `products[${index}].externalId`,
				kind: 'missing or not text',
			})),
			fc.constantFrom('row', 'seat').map((field) => ({
				value: broken((product) => {
					const { [field]: _dropped, ...rest } = { ...product, ga: false, row: 'A', seat: '1' };
					return rest;
				}),
				field: `products[${index}].${field}`,
				kind: 'ga false without row or seat',
			})),
			invalidValues.sheetBoolean.map((ga) => ({
				value: broken((product) => ({ ...product, ga })),
				field: `products[${index}].ga`,
				kind: 'not a boolean',
			})),
			fc.constantFrom('Seat', 'externalID', 'price').map((key) => ({
				value: broken((product) => ({ ...product, [key]: 'x' })),
				field: `products[${index}]`,
				kind: 'unknown key',
			})),
			invalidValues.pollutingKey.map((key) => ({
				// Text, so that the key survives as an own property when the node parses it.
				value: JSON.stringify(products).replace(/^\[\{/, `[{"${key}":{"polluted":true},`),
				field: 'products[0]',
				kind: 'prototype-pollution key',
				proposed: true,
			})),
			fc.constant({
				value: [...products, { ...products[index] }],
				field: `products[${products.length}].externalId`,
				kind: 'duplicate product id',
				proposed: true,
			}),
			hugeString.map((huge) => ({
				value: broken((product) => ({ ...product, externalId: huge })),
				field: `products[${index}].externalId`,
				kind: 'huge string',
				proposed: true,
			})),
		);
	}),
);

/** A seat range (node parameters) with one defect. */
export const invalidSeatRange: fc.Arbitrary<{
	range: Record<string, unknown>;
	field: string;
	kind: string;
}> = fc
	.record({
		row: label,
		firstSeat: fc.integer({ min: 1, max: 500 }),
		count: fc.integer({ min: 1, max: 20 }),
	})
	.chain(({ row, firstSeat, count }) => {
		const valid = {
			row,
			firstSeat,
			lastSeat: firstSeat + count - 1,
			externalIdPattern: '{listing}-{row}-{seat}',
			productType: 'TICKET',
		};
		return fc.oneof(
			invalidValues.requiredLabel.map((value) => ({
				range: { ...valid, row: value },
				field: 'row',
				kind: 'missing row',
			})),
			fc.constantFrom<unknown>('one', 1.5, '', null).map((value) => ({
				range: { ...valid, firstSeat: value },
				field: 'firstSeat',
				kind: 'not a whole number',
			})),
			fc.constant({
				range: { ...valid, lastSeat: firstSeat - 1 },
				field: 'lastSeat',
				kind: 'below firstSeat',
			}),
			fc.integer({ min: 1001, max: 100_000 }).map((seats) => ({
				range: { ...valid, lastSeat: firstSeat + seats - 1 },
				field: 'lastSeat',
				kind: 'too many seats',
			})),
			fc
				.constantFrom('{listing}-{row}', 'fixed-id', '{seat}-{price}', '{Seat}')
				.map((externalIdPattern) => ({
					range: { ...valid, externalIdPattern },
					field: 'externalIdPattern',
					kind: 'pattern without {seat} or with an unknown placeholder',
				})),
		);
	});

/** `count` valid items of one listing per item (products defined in the node). */
function validListingItems(count: number) {
	return fc.array(
		fc.tuple(validListingLevel, validProducts).map(
			([level, products]): ItemParameters => ({
				...level,
				productsSource: 'defined',
				products: { product: products },
			}),
		),
		{ minLength: count, maxLength: count },
	);
}

/** One listing per item, in every products source; one item carries one defect. */
export const invalidListingPerItem: fc.Arbitrary<InvalidCase> = fc
	.tuple(fc.integer({ min: 1, max: 6 }), fc.nat())
	.chain(([count, at]) =>
		fc.tuple(
			validListingItems(count),
			fc.constant(at % count),
			fc.constantFrom('level', 'json', 'seatRange', 'defined'),
		),
	)
	.chain(([items, index, where]) => {
		const withDefect = (change: ItemParameters, defect: Omit<Defect, 'items'>): InvalidCase => ({
			items: items.map((item, position) => (position === index ? { ...item, ...change } : item)),
			defect: { ...defect, items: [index] },
		});
		if (where === 'level') {
			return levelDefect.map((defect) =>
				withDefect(
					{ [defect.parameter]: defect.value },
					{ field: defect.field, kind: defect.kind, proposed: defect.proposed },
				),
			);
		}
		if (where === 'json') {
			return invalidJsonProducts.map((defect) =>
				withDefect(
					{ productsSource: 'json', productsJson: defect.value },
					{ field: defect.field, kind: defect.kind, proposed: defect.proposed },
				),
			);
		}
		if (where === 'seatRange') {
			return invalidSeatRange.map((defect) =>
				withDefect(
					{ productsSource: 'seatRange', seatRanges: { range: [defect.range] } },
					{ field: `seatRanges[0].${defect.field}`, kind: defect.kind },
				),
			);
		}
		return fc
			.constantFrom<
				[ItemParameters, string, string]
			>([{ products: { product: [] } }, 'products', 'no products'], [{ products: { product: [{ externalId: 'a', ga: false }] } }, 'products[0].row', 'ga false without row or seat'], [{ products: { product: [{ externalId: '', row: 'A', seat: '1', ga: false }] } }, 'products[0].externalId', 'missing or not text'])
			.map(([change, field, kind]) => withDefect(change, { field, kind }));
	});

/** A sheet row of the grouped mode, by the parameters the node reads for it. */
export function sheetRow(
	level: Record<string, unknown>,
	product: { externalId: string; row?: string; seat?: string; ga?: boolean },
): ItemParameters {
	return {
		...level,
		productExternalId: product.externalId,
		productRow: product.row ?? '',
		productSeat: product.seat ?? '',
		productType: 'TICKET',
		productGa: product.ga ?? false,
	};
}

/**
 * Ways a sheet spells one seat number that the node must read as that number (a seat is compared after Unicode
 * normalisation, and sent as written): full-width digits, and invisible characters pasted in.
 */
export const seatSpellings: Record<string, (seat: string) => string> = {
	plain: (seat) => seat,
	'full-width digits': (seat) =>
		seat.replace(/[0-9]/g, (digit) => String.fromCharCode(0xff10 + Number(digit))),
	'zero-width space': (seat) => `${seat}\u200b`,
	'word joiner': (seat) => `\u2060${seat}`,
};
const seatSpelling = fc.constantFrom(...Object.keys(seatSpellings));

/**
 * Valid grouped sheet rows: listings of 1 to 5 seats each, rows of one listing together or interleaved, seats
 * spelled in any of seatSpellings. Each listing has its own row, so no seat is in two listings of one event.
 */
export const validSheetRows: fc.Arbitrary<ItemParameters[]> = fc
	.uniqueArray(
		fc.tuple(validListingLevel, fc.array(seatSpelling, { minLength: 1, maxLength: 5 }), label),
		{
			minLength: 1,
			maxLength: 6,
			selector: ([level]) => level.externalListingId,
		},
	)
	.chain((listings) => {
		const rows = listings.flatMap(([level, spellings, label]) => {
			const row = `${label}-${level.externalListingId}`;
			return spellings.map((spelling, seat) =>
				sheetRow(level, {
					externalId: `${level.externalListingId}-${row}-${seat + 1}`,
					row,
					seat: seatSpellings[spelling](String(seat + 1)),
				}),
			);
		});
		return fc.shuffledSubarray(rows, { minLength: rows.length, maxLength: rows.length });
	});

/** Grouped sheet rows with one defect: a bad value in one row, or rows of one listing that disagree. */
export const invalidSheetRows: fc.Arbitrary<InvalidCase> = fc
	.tuple(validSheetRows, fc.nat(), fc.boolean())
	.chain(([rows, at, disagree]) => {
		const index = at % rows.length;
		const listingId = rows[index].externalListingId;
		const sameListing = rows.flatMap((row, position) =>
			row.externalListingId === listingId ? [position] : [],
		);
		if (disagree && sameListing.length > 1) {
			// One row of a multi-row listing with another (itself valid) event, price or currency.
			return fc
				.constantFrom<
					[string, string, unknown]
				>(['eventId', 'eventId', 987_654_321], ['priceAmount', 'pricePerProduct.amount', 12_345.67], ['priceCurrency', 'pricePerProduct.currency', 'JPY'])
				.map(([parameter, field, value]) => ({
					items: rows.map((row, position) =>
						position === index ? { ...row, [parameter]: value } : row,
					),
					defect: { field, items: sameListing, kind: 'rows of one listing disagree' },
				}));
		}
		return fc.oneof(
			levelDefect.map((defect) => ({
				items: rows.map((row, position) =>
					position === index ? { ...row, [defect.parameter]: defect.value } : row,
				),
				defect: {
					field: defect.field,
					items: [index],
					kind: defect.kind,
					proposed: defect.proposed,
				},
			})),
			fc
				.constantFrom<
					[string, unknown, string]
				>(['productRow', '', 'ga false without row or seat'], ['productSeat', '', 'ga false without row or seat'], ['productExternalId', '', 'missing or not text'])
				.map(([parameter, value, kind]) => ({
					items: rows.map((row, position) =>
						position === index ? { ...row, [parameter]: value } : row,
					),
					defect: {
						field:
							parameter === 'productExternalId'
								? 'externalId'
								: parameter === 'productRow'
									? 'row'
									: 'seat',
						items: [index],
						kind,
					},
				})),
			fc.constant<InvalidCase>({
				items: [...rows, { ...rows[index] }],
				defect: {
					field: 'externalId',
					items: [index, rows.length],
					kind: 'duplicate product id',
					proposed: true,
				},
			}),
			// The seat of one row again, spelled otherwise, under its own product id: in the same listing, or in a
			// new listing of the same event (which comes later, so it is the one refused).
			fc.tuple(seatSpelling, fc.boolean()).map(([spelling, sameListing]): InvalidCase => {
				const original = rows[index];
				// The seat as a number again, whatever spelling it was generated in.
				const seatNumber = String(original.productSeat)
					.normalize('NFKC')
					.replace(/[\u200b\u2060]/g, '');
				const again: ItemParameters = {
					...original,
					productExternalId: `${String(original.productExternalId)}-again`,
					productSeat: seatSpellings[spelling](seatNumber),
					...(!sameListing && {
						externalListingId: Math.max(...rows.map((row) => Number(row.externalListingId))) + 1,
					}),
				};
				return {
					items: [...rows, again],
					defect: {
						field: 'seat',
						items: sameListing ? [index, rows.length] : [rows.length],
						kind: sameListing
							? 'seat listed twice in one listing'
							: 'seat in two listings of one event',
					},
				};
			}),
		);
	});

/** A huge valid sheet (for limits and timing), `rows` rows in listings of `seatsPerListing`. */
export function hugeSheet(rows: number, seatsPerListing = 4): ItemParameters[] {
	return Array.from({ length: rows }, (_, index) => {
		const listing = Math.floor(index / seatsPerListing);
		const level = {
			eventId: 7000,
			priceAmount: 25,
			priceCurrency: 'EUR',
			externalListingId: 100_000 + listing,
			stockType: 'PDF',
			paymentType: 1,
			acceptLanguage: 'en-US',
		};
		return sheetRow(level, {
			externalId: `${100_000 + listing}-A-${index}`,
			row: 'A',
			seat: String(index),
		});
	});
}
