/**
 * Create's record of a listing's marketplace ID, kept twice with a check: a copy spoilt by a look that stayed behind
 * (every bit of it set), or emptied by one that took out what Create wrote, still leaves the listing found, and mended.
 */
import {
	createdKeys,
	findCreated,
} from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/createdListings';
import { everyBit } from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/verifiedStore';
import {
	fakeRun,
	MemoryDeduplicationStore,
	MEMORY_ACCOUNT,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';

/** Its length, its bytes (40 at most) and a 16-bit check. */
const ID_WIDTH = 6 + 8 * 40 + 16;
const LISTING = { externalListingId: 7, marketplaceId: 'lst_0123456789', seats: ['["A","1"]'] };

function recorded(): { store: MemoryDeduplicationStore; held: Set<string> } {
	const store = new MemoryDeduplicationStore();
	const held = new Set(createdKeys(MEMORY_ACCOUNT, LISTING));
	store.entries.set('workflow', held);
	return { store, held };
}

async function find(store: MemoryDeduplicationStore) {
	const { items, parameters } = oneSeatListings([1]);
	const fake = fakeRun({ items, parameters, deduplication: store });
	return await findCreated(fake.context, MEMORY_ACCOUNT, new Map([[7, ['["A","1"]']]]));
}

const copyEntry = (held: Set<string>, copy: number) =>
	[...held].find((key) => key.endsWith(` marketplace listing copy ${copy}`))!;

describe('the record of a created listing, kept twice', () => {
	// Copy 2's bits are looked at only when copy 1 does not read: a look leaves copy 1 spoilt, as here.
	it.each([1])(
		'reads the ID with copy %i spoilt by a look left behind, and mends it',
		async (copy) => {
			const { store, held } = recorded();
			const entry = copyEntry(held, copy);
			const whole = new Set(held);
			for (const bit of everyBit(entry, ID_WIDTH)) held.add(bit);
			const { found, unreadable } = await find(store);
			expect(found.get(7)).toEqual(LISTING);
			expect(unreadable.size).toBe(0);
			expect(new Set(store.entries.get('workflow'))).toEqual(whole);
		},
	);

	it.each([1, 2])('reads the ID with copy %i emptied, and mends it', async (copy) => {
		const { store, held } = recorded();
		const entry = copyEntry(held, copy);
		const whole = new Set(held);
		for (const key of [...held]) if (key.startsWith(entry)) held.delete(key);
		const { found } = await find(store);
		expect(found.get(7)).toEqual(LISTING);
		expect(new Set(store.entries.get('workflow'))).toEqual(whole);
	});

	it('says unreadable, not "no record", when both copies are spoilt', async () => {
		const { store, held } = recorded();
		for (const copy of [1, 2])
			for (const bit of everyBit(copyEntry(held, copy), ID_WIDTH)) held.add(bit);
		const { found, unreadable } = await find(store);
		expect(found.size).toBe(0);
		expect([...unreadable]).toEqual([7]);
	});
});
