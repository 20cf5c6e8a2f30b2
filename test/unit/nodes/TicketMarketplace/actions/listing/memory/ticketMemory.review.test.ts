/**
 * Hostile review of the ticket memory's encoding: a listing ID kept as bits beside the ticket's entry. IDs at the
 * edges, tickets whose text holds the separator, tickets that share entries, and a record after a forget.
 */
import { TicketMemory } from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/ticketMemory';
import {
	fakeRun,
	MemoryDeduplicationStore,
	MEMORY_ACCOUNT,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';

function memoryOn(store: MemoryDeduplicationStore): TicketMemory {
	const { items, parameters } = oneSeatListings([1]);
	const fake = fakeRun({ items, parameters, deduplication: store });
	return new TicketMemory(fake.context, MEMORY_ACCOUNT);
}

describe('review: the listing ID read back from its bits', () => {
	it('reads back every ID recorded, at the edges too, for tickets whose text holds the separator', async () => {
		const store = new MemoryDeduplicationStore();
		const held = [
			{ ticket: '55\u0000GA-1', listingId: 1 },
			{ ticket: '55\u0000GA-1 listing bit 0', listingId: 2 },
			{ ticket: '55\u0000GA-1" listing bit 1', listingId: 2 ** 52 },
			{ ticket: '55\u0000A\u000012', listingId: Number.MAX_SAFE_INTEGER },
			{ ticket: '55\u0000A\u0000 listing bit 12', listingId: 4096 },
			{ ticket: '55\u0000["A"]', listingId: 3 },
		];
		await memoryOn(store).record(held);
		const found = await memoryOn(store).listedBefore([
			...held.map((t) => t.ticket),
			'55\u0000GA-2',
		]);
		expect(Object.fromEntries(found)).toEqual(
			Object.fromEntries(held.map(({ ticket, listingId }) => [ticket, listingId])),
		);
	});

	it('a ticket forgotten and recorded again under another listing reads back as that listing', async () => {
		const store = new MemoryDeduplicationStore();
		await memoryOn(store).record([{ ticket: '55\u0000GA-1', listingId: 5 }]);
		expect(await memoryOn(store).forget([{ ticket: '55\u0000GA-1', listingId: 5 }])).toBe(true);
		await memoryOn(store).record([{ ticket: '55\u0000GA-1', listingId: 6 }]);
		const found = await memoryOn(store).listedBefore(['55\u0000GA-1']);
		expect(found.get('55\u0000GA-1')).toBe(6);
		// Nothing but the run's entries is left: the looks took out what they wrote.
		const left = [...(store.entries.get('workflow') ?? [])].filter((key) =>
			key.includes(' ticket '),
		);
		expect(left).toHaveLength(3);
	});
});

describe('review: another run looks at a ticket while this run records it', () => {
	it('the record of this run stands: the look takes out only what it wrote', async () => {
		const store = new MemoryDeduplicationStore();
		const ticket = '55\u0000GA-1';
		let recordB: Promise<void> | undefined;
		let writtenB: (() => void) | undefined;
		const { items: itemsB, parameters: parametersB } = oneSeatListings([1]);
		const fakeB = fakeRun({ items: itemsB, parameters: parametersB, deduplication: store });
		const helpersB = fakeB.context.helpers as unknown as {
			checkProcessedAndRecord: (values: string[], ...rest: unknown[]) => Promise<unknown>;
		};
		const recordOfB = helpersB.checkProcessedAndRecord.bind(helpersB);
		helpersB.checkProcessedAndRecord = async (values, ...rest) => {
			const answer = await recordOfB(values, ...rest);
			if (values.some((value) => value.includes(' listing bit '))) writtenB?.();
			return answer;
		};
		const memoryB = new TicketMemory(fakeB.context, MEMORY_ACCOUNT);
		// Run A's look: its write of the ticket and every bit, then run B's whole record, then A's clean-up.
		const { items, parameters } = oneSeatListings([1]);
		const fakeA = fakeRun({ items, parameters, deduplication: store });
		const helpersA = fakeA.context.helpers as unknown as {
			removeProcessed: (values: string[], scope: string, options: unknown) => Promise<void>;
		};
		const removeA = helpersA.removeProcessed.bind(helpersA);
		helpersA.removeProcessed = async (values, scope, options) => {
			if (recordB === undefined && values.some((value) => value.includes(' listing bit '))) {
				// B's write lands between A's write and A's clean-up; B then goes on as it would.
				const written = new Promise<void>((resolve) => (writtenB = resolve));
				recordB = memoryB.record([{ ticket, listingId: 6 }]);
				await written;
			}
			await removeA(values, scope, options);
		};
		await new TicketMemory(fakeA.context, MEMORY_ACCOUNT).listedBefore([ticket]);
		expect(recordB).toBeDefined();
		await recordB;
		const found = await memoryOn(store).listedBefore([ticket]);
		expect(found.get(ticket)).toBe(6);
	});
});
