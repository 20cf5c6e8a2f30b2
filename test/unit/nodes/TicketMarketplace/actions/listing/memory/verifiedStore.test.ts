/**
 * The verified store alone, over the fake n8n's deduplication store: what each method returns when the store works,
 * fails, fails after writing, or is rewritten by another run at every turn. Failures come back typed, never thrown.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { VerifiedStore } from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/verifiedStore';
import {
	ACTION_NODE,
	MemoryDeduplicationStore,
} from '../../../../../../../support/fakeN8n/actionContext';

type Helpers = ReturnType<MemoryDeduplicationStore['helpers']>;
type Method = 'checkProcessedAndRecord' | 'removeProcessed';

/** A store whose calls of `method` fail (after writing, if `afterWrite`), as a locked database does. */
function storeFailing(
	method: Method,
	{
		when = (): boolean => true,
		afterWrite = false,
	}: { when?: (call: number) => boolean; afterWrite?: boolean } = {},
): MemoryDeduplicationStore {
	const store = new MemoryDeduplicationStore();
	const helpers = store.helpers();
	let calls = 0;
	const call = helpers[method] as (...args: unknown[]) => Promise<unknown>;
	store.helpers = (): Helpers => ({
		...helpers,
		[method]: async (...args: unknown[]) => {
			if (!when(++calls)) return await call(...args);
			if (afterWrite) await call(...args);
			throw new Error('database is locked');
		},
	});
	return store;
}

/** A store that another run rewrites from an older read after every call: every write is lost. */
function storeRewritten(): MemoryDeduplicationStore {
	const store = new MemoryDeduplicationStore();
	const helpers = store.helpers();
	store.helpers = (): Helpers => ({
		...helpers,
		checkProcessedAndRecord: async (...args: Parameters<Helpers['checkProcessedAndRecord']>) => {
			const answer = await helpers.checkProcessedAndRecord(...args);
			store.entries.clear();
			return answer;
		},
	});
	return store;
}

function verifiedStore(store: MemoryDeduplicationStore): VerifiedStore {
	const context = {
		getNode: () => ACTION_NODE,
		getExecutionId: () => 'execution 1',
		helpers: store.helpers(),
	} as unknown as IExecuteFunctions;
	return new VerifiedStore(context);
}

const held = (store: MemoryDeduplicationStore) => [...(store.entries.get('workflow') ?? [])];

describe('VerifiedStore', () => {
	it('records, says which keys were new, and forgets the keys with every marker', async () => {
		const store = new MemoryDeduplicationStore();
		const memory = verifiedStore(store);
		const recorded = await memory.record(['a', 'b']);
		expect(recorded).toMatchObject({ ok: true, stood: expect.anything() });
		expect(recorded.ok && recorded.stood.new).toEqual(expect.arrayContaining(['a', 'b']));
		expect(held(store)).toEqual(expect.arrayContaining(['a', 'b']));
		expect(await memory.forget(['a', 'b'])).toEqual({ ok: true });
		expect(held(store)).toEqual([]);
	});

	it('looks without leaving what it added', async () => {
		const store = new MemoryDeduplicationStore();
		const memory = verifiedStore(store);
		await memory.recordOnce(['a']);
		expect(await memory.look(['a', 'b'])).toEqual(new Set(['a']));
		expect(held(store)).toEqual(['a']);
	});

	it.each([
		{
			name: 'the store fails at every record: possibly written (no look could tell)',
			store: () => storeFailing('checkProcessedAndRecord'),
			failure: { kind: 'storeFailed', possiblyWritten: true },
		},
		{
			name: 'the first record writes, then fails: its retry finds the marker',
			store: () =>
				storeFailing('checkProcessedAndRecord', { when: (call) => call === 1, afterWrite: true }),
			failure: { kind: 'storeFailed', possiblyWritten: true },
		},
		{
			name: 'the write stands but every look at it fails',
			store: () => storeFailing('checkProcessedAndRecord', { when: (call) => call > 1 }),
			failure: { kind: 'unconfirmed' },
		},
		{
			name: 'another run rewrites the memory at every turn',
			store: storeRewritten,
			failure: { kind: 'contended', attempts: 4 },
		},
	])('a record returns its failure: $name', async ({ store, failure }) => {
		const outcome = await verifiedStore(store()).record(['a']);
		expect(outcome).toMatchObject({ ok: false, failure });
	});

	it('a record whose first call fails without writing stands on its retry', async () => {
		const store = storeFailing('checkProcessedAndRecord', { when: (call) => call === 1 });
		expect(await verifiedStore(store).record(['a'])).toMatchObject({ ok: true });
		expect(held(store)).toContain('a');
	});

	it("a removal that fails returns the store's failure, nothing written", async () => {
		const outcome = await verifiedStore(storeFailing('removeProcessed')).forget(['a']);
		expect(outcome).toMatchObject({
			ok: false,
			failure: { kind: 'storeFailed', possiblyWritten: false, error: expect.any(Error) },
		});
	});

	it('forgetAhead says false when its removal cannot be verified', async () => {
		expect(await verifiedStore(storeFailing('removeProcessed')).forgetAhead(['a'])).toBe(false);
		expect(await verifiedStore(new MemoryDeduplicationStore()).forgetAhead(['a'])).toBe(true);
	});
});
