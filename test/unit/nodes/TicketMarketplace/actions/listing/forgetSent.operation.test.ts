/**
 * Listing → Clear Sent Listings History reads its input as Create reads a sheet: a blank row (a sheet export's
 * trailing rows) is skipped and said, not refused; a row with a bad ID still is. Through the real execute() of
 * both operations, against one memory, with no network.
 */
import nock from 'nock';
import type { INodeExecutionData } from 'n8n-workflow';

import { execute as create } from '../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { execute as forget } from '../../../../../../nodes/TicketMarketplace/actions/listing/forgetSent.operation';
import { sentListingKey } from '../../../../../../nodes/TicketMarketplace/actions/listing/memory/sentListings';
import {
	column,
	EXAMPLE_SHEET_PARAMETERS,
	fakeRun,
	MEMORY_ACCOUNT,
	MemoryDeduplicationStore,
	sheetRows,
} from '../../../../../../support/fakeN8n/actionContext';
import type { ParameterValue } from '../../../../../../support/fakeN8n/actionContext';
import { acceptListings, grantTokens } from '../../../../../../support/partnerApiNock';

/** The sheet of examples/sheet-to-listings, ending in the blank row a Google Sheets export gives. */
const SHEET = sheetRows([
	{
		listing_id: '7001',
		event_id: '4242',
		price: '49.90',
		currency: 'EUR',
		ticket_id: 't1',
		row: 'A',
		seat: '1',
	},
	{
		listing_id: '7002',
		event_id: '4242',
		price: '49.90',
		currency: 'EUR',
		ticket_id: 't2',
		row: 'A',
		seat: '2',
	},
	{ listing_id: '', event_id: '', price: '', currency: '', ticket_id: '', row: '', seat: '' },
]);

async function runForget(
	items: INodeExecutionData[],
	forgetExternalListingId: ParameterValue,
	store: MemoryDeduplicationStore,
	continueOnFail = false,
) {
	const fake = fakeRun({
		parameters: { forgetScope: 'ids', forgetExternalListingId },
		items,
		deduplication: store,
		continueOnFail,
	});
	const output = await forget.call(fake.context, items);
	return { output, hints: fake.hints };
}

const remembered = (store: MemoryDeduplicationStore) => [...(store.entries.get('workflow') ?? [])];

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('Listing → Clear Sent Listings History: sheet rows as Create reads them', () => {
	it('skips the trailing blank row that Create skips, says so, and clears the other rows', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-forget');
		const bodies = acceptListings();
		const created = fakeRun({
			parameters: { ...EXAMPLE_SHEET_PARAMETERS, options: {} },
			items: SHEET,
			deduplication: store,
		});
		await create.call(created.context, SHEET);
		expect(bodies.map((body) => body.externalListingId)).toEqual([7001, 7002]);
		expect(created.hints.map((hint) => hint.message).join(' ')).toContain('Skipped 1 blank row');
		nock.cleanAll();

		const { output, hints } = await runForget(SHEET, column('listing_id'), store);
		expect(output).toEqual([
			{ json: { forgotten: 7001 }, pairedItem: { item: 0 } },
			{ json: { forgotten: 7002 }, pairedItem: { item: 1 } },
			{
				json: {
					skipped: 'blank',
					message: 'Blank row: its External Listing ID is empty, so it names no listing to clear',
				},
				pairedItem: { item: 2 },
			},
		]);
		expect(hints.map((hint) => hint.message)).toEqual([
			expect.stringContaining('Skipped 1 blank row (row 3)'),
		]);
		expect(remembered(store)).toEqual([]);
	});

	it('reads a blank cell through any expression as blank, as Create does (null, spaces)', async () => {
		const store = new MemoryDeduplicationStore();
		const items = [{ json: { id: 7001 } }, { json: { id: null } }, { json: { id: '  ' } }];
		const { output } = await runForget(
			items,
			(_index: number, json: Record<string, unknown>) => json.id,
			store,
		);
		expect(output.map((item) => item.json.skipped ?? item.json.notRemembered)).toEqual([
			7001,
			'blank',
			'blank',
		]);
	});

	it('still refuses an empty External Listing ID typed in the node (not a row), and a bad one in a row', async () => {
		const store = new MemoryDeduplicationStore();
		await expect(runForget([{ json: {} }], '', store)).rejects.toThrow(
			'External Listing ID is required (a whole number such as 123456); nothing was forgotten',
		);
		await expect(
			runForget(sheetRows([{ listing_id: 'A-100' }]), column('listing_id'), store),
		).rejects.toThrow('External Listing ID must be a whole number greater than 0');
	});

	it('with a row that is not blank among blank ones, clears only that one', async () => {
		const store = new MemoryDeduplicationStore();
		store.entries.set('workflow', new Set([sentListingKey(MEMORY_ACCOUNT, 9)]));
		const items = sheetRows([{ listing_id: '' }, { listing_id: '9' }, { listing_id: '' }]);
		const { output } = await runForget(items, column('listing_id'), store);
		expect(output.map((item) => item.json.forgotten ?? item.json.skipped)).toEqual([
			'blank',
			9,
			'blank',
		]);
		expect(remembered(store)).toEqual([]);
	});
});
