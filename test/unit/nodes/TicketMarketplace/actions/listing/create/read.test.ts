/**
 * The input stage of Listing → Create on its own: items in, listings out (ready with their exact request, or
 * invalid with their problems), no context and no network.
 */
import { listingsOf } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/read';
import { listingRequest as requestOf } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/fields';
import type { ParameterSource } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/settings';
import { listingRequest } from '../../../../../../../support/listingBody';

/** Every parameter a column of the item (as `{{ $json.x }}` would be), else its constant or the fallback. */
function rows(
	items: Array<Record<string, unknown>>,
	constants: Record<string, unknown> = {},
): ParameterSource {
	return {
		get: (name, itemIndex, fallback) =>
			name in items[itemIndex] ? items[itemIndex][name] : (constants[name] ?? fallback),
		readsItem: (name) => items.some((item) => name in item),
		columnOf: () => undefined,
	};
}

const TICKET = { eventId: '55', priceAmount: '10.50', priceCurrency: 'eur' };

/** A row of the grouped mode: one ticket (row A, this seat) of listing `externalListingId`, at TICKET's price. */
function ticket(
	externalListingId: string,
	productExternalId: string,
	productSeat: string,
	overrides: Record<string, string> = {},
) {
	return {
		...TICKET,
		externalListingId,
		productExternalId,
		productRow: 'A',
		productSeat,
		...overrides,
	};
}

describe('Listing → Create input: items to listings', () => {
	it('makes one ready listing per item, with the exact request of spec 2.4', () => {
		const source = rows(
			[{ externalListingId: 7001, eventId: 55, priceAmount: 10.5, priceCurrency: 'EUR' }],
			{
				products: { product: [{ externalId: 'A-1', row: 'A', seat: '1' }] },
			},
		);
		const { listings, blankRows } = listingsOf(source, 1, 'listingPerItem');
		expect(blankRows).toEqual([]);
		expect(listings).toMatchObject([
			{ kind: 'ready', rows: [0], label: 'row 1', externalListingId: 7001 },
		]);
		expect(listings[0].kind === 'ready' && requestOf(listings[0])).toEqual(
			listingRequest({
				eventId: 55,
				amount: 10.5,
				currency: 'EUR',
				externalListingId: 7001,
				products: [{ externalId: 'A-1', row: 'A', seat: '1' }],
			}),
		);
	});

	it('groups ticket rows by External Listing ID, in order of first row, one product per row', () => {
		const source = rows([ticket('2', 't1', '1'), ticket('1', 't2', '2'), ticket('2', 't3', '3')]);
		const { listings } = listingsOf(source, 3, 'ticketPerItem');
		expect(listings.map((listing) => [listing.kind, listing.label, listing.rows])).toEqual([
			['ready', 'listing 2 (rows 1 and 3)', [0, 2]],
			['ready', 'listing 1 (row 2)', [1]],
		]);
		const first = listings[0];
		expect(first.kind === 'ready' && requestOf(first).body?.products).toEqual([
			{ externalId: 't1', row: 'A', seat: '1', productType: 'TICKET', ga: false },
			{ externalId: 't3', row: 'A', seat: '3', productType: 'TICKET', ga: false },
		]);
	});

	it('reports a listing whose rows disagree as invalid, naming the field and both rows', () => {
		const source = rows([ticket('2', 't1', '1'), ticket('2', 't2', '2', { priceAmount: '11' })]);
		const [listing] = listingsOf(source, 2, 'ticketPerItem').listings;
		expect(listing.kind).toBe('invalid');
		expect(listing.kind === 'invalid' && listing.problems).toEqual([
			{
				field: 'Price Amount',
				text: 'differs between the rows of one listing: 10.5 in row 1; 11 in row 2',
				itemIndexes: [0, 1],
			},
		]);
	});

	it('counts blank rows apart and refuses an External Listing ID used by two items', () => {
		const constants = { products: { product: [{ externalId: 'x', ga: true }] } };
		const source = rows(
			[
				{ externalListingId: 9, eventId: 1, priceAmount: 1, priceCurrency: 'EUR' },
				{ externalListingId: '', eventId: '', priceAmount: '', priceCurrency: '' },
				{ externalListingId: 9, eventId: 1, priceAmount: 1, priceCurrency: 'EUR' },
			],
			constants,
		);
		const { listings, blankRows } = listingsOf(source, 3, 'listingPerItem');
		expect(blankRows).toEqual([1]);
		expect(listings.map((listing) => listing.kind)).toEqual(['ready', 'invalid']);
		expect(listings[1].kind === 'invalid' && listings[1].problems[0].text).toBe(
			'9 is already used by row 1; to combine rows into one listing, choose Input Shape → Each Item Is a Ticket',
		);
	});
});

describe('one ticket in two listings of one run', () => {
	/** A General Admission ticket row: nothing but its External ID tells it apart. */
	const standing = (listing: string, ticketId: string, eventId = '55') =>
		ticket(listing, ticketId, '', { productRow: '', productGa: 'true', eventId });

	it('refuses the later listing of one event that repeats a General Admission ticket, naming the earlier one', () => {
		const source = rows([
			standing('7001', 'GA-1'),
			standing('7001', 'GA-2'),
			standing('7002', 'GA-3'),
			standing('7002', 'GA-2'),
		]);
		const { listings } = listingsOf(source, 4, 'ticketPerItem');
		expect(listings.map((listing) => listing.kind)).toEqual(['ready', 'invalid']);
		expect(listings[1].kind === 'invalid' && listings[1].problems).toEqual([
			{
				field: 'Product External ID',
				text: '"GA-2" (General Admission) is also in listing 7001 (rows 1 and 2) of event 55: a ticket can be sold only once',
				itemIndexes: [3],
			},
		]);
	});

	it('refuses it across listings one per item too, and names the product in the node', () => {
		const source = rows(
			[
				{ externalListingId: 1, eventId: 55, priceAmount: 10, priceCurrency: 'EUR' },
				{ externalListingId: 2, eventId: 55, priceAmount: 10, priceCurrency: 'EUR' },
			],
			{ products: { product: [{ externalId: 'GA-1', ga: true }] } },
		);
		const { listings } = listingsOf(source, 2, 'listingPerItem');
		expect(listings[1].kind === 'invalid' && listings[1].problems).toEqual([
			{
				field: 'Products → Product 1 → External ID',
				text: '"GA-1" (General Admission) is also in listing 1 (row 1) of event 55: a ticket can be sold only once',
				itemIndexes: [1],
			},
		]);
	});

	it('leaves the same External ID under another event alone: there it names another ticket', () => {
		const source = rows([standing('7001', 'GA-1', '55'), standing('7002', 'GA-1', '56')]);
		const { listings } = listingsOf(source, 2, 'ticketPerItem');
		expect(listings.map((listing) => listing.kind)).toEqual(['ready', 'ready']);
	});

	it('says a seat listed twice once, as a seat, also when its External ID repeats too', () => {
		const source = rows([ticket('7001', 't1', '1'), ticket('7002', 't1', '1')]);
		const { listings } = listingsOf(source, 2, 'ticketPerItem');
		expect(listings[1].kind === 'invalid' && listings[1].problems).toEqual([
			{
				field: 'Seat',
				text: 'row "A" seat "1" is also in listing 7001 (row 1) of event 55: a seat can be sold only once',
				itemIndexes: [1],
			},
		]);
	});

	it('tells seated tickets apart by their seats: an External ID on another seat is another ticket', () => {
		const source = rows([ticket('7001', 't1', '1'), ticket('7002', 't1', '2')]);
		const { listings } = listingsOf(source, 2, 'ticketPerItem');
		expect(listings.map((listing) => listing.kind)).toEqual(['ready', 'ready']);
	});

	it('lets a refused listing hold no other back', () => {
		const source = rows([
			standing('7001', 'GA-1'),
			standing('7002', 'GA-1'),
			standing('7003', 'GA-1'),
		]);
		const { listings } = listingsOf(source, 3, 'ticketPerItem');
		expect(listings.map((listing) => listing.kind)).toEqual(['ready', 'invalid', 'invalid']);
		expect(listings[2].kind === 'invalid' && listings[2].problems[0].text).toContain(
			'listing 7001 (row 1)',
		);
	});
});
