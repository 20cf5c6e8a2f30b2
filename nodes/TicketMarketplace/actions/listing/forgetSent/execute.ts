/** Listing → Clear Sent Listings History: forgets every ID, or each item's (read as Create reads a sheet's rows). */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { positiveId } from '../../../schemas/listing';
import { refuseAsAgentTool } from '../../../helpers/agentTool';
import { RunMemory } from '../memory/runMemory';
import { storeError } from '../memory/memoryMessages';
import { SCOPE, STORE_OPTIONS } from '../memory/verifiedStore';
import { readRunCredential } from '../../../transport';
import { isBlankRow, ItemParameters } from '../create/settings';
import { blankRowsNotice } from '../create/output';
import { memoryAccount } from '../create/send';

const ID_PARAMETER = 'forgetExternalListingId';
/** What an AI Agent's call is told: the history keeps Create from listing a ticket twice. */
const AS_TOOL = [
	'Clear Sent Listings History cannot run as an AI Agent tool; nothing was forgotten',
	'The history is what keeps Create from listing the same tickets twice, and an agent cannot know whether a listing was removed from the marketplace.',
] as const;

/** What one input item asks: an ID to forget, a blank row to skip, or a refusal (its ID is not valid). */
type Entry =
	| { kind: 'refused'; item: INodeExecutionData }
	| { kind: 'blank'; itemIndex: number }
	| { kind: 'id'; itemIndex: number; id: number };

const MAP_IDS =
	'Map External Listing ID to a column of whole numbers (for example {{ $json.listing_id }}), then run the workflow again.';
const BLANK = 'Blank row: its External Listing ID is empty, so it names no listing to clear';

type Items = INodeExecutionData[];

export async function execute(this: IExecuteFunctions, items: Items): Promise<Items> {
	refuseAsAgentTool(this, ...AS_TOOL);
	if (this.getNodeParameter('forgetScope', 0, 'ids') === 'all') {
		const entries = await forgetAll(this);
		const pairedItem = items.map((_, item) => ({ item }));
		return [{ json: { forgotten: 'all', entries }, pairedItem }];
	}
	const entries = readEntries(this, items);
	const blankRows = entries.flatMap((entry) => (entry.kind === 'blank' ? [entry.itemIndex] : []));
	if (blankRows.length)
		this.addExecutionHints({ message: blankRowsNotice(blankRows), location: 'outputPane' });
	const requested = entries.flatMap((entry) => (entry.kind === 'id' ? [entry.id] : []));
	// The memory of the credential's account on its API, as Create keeps it.
	const memory = new RunMemory(this, memoryAccount(await readRunCredential.call(this)));
	const forgotten = await memory.forgetOnRequest(requested);
	return entries.map((entry) => outputOf(entry, forgotten));
}

/** Forgets everything this workflow remembers in n8n's deduplication store with the scope "workflow". */
async function forgetAll(context: IExecuteFunctions): Promise<number> {
	try {
		const entries = await context.helpers.getProcessedDataCount(SCOPE, STORE_OPTIONS);
		await context.helpers.clearAllProcessedItems(SCOPE, STORE_OPTIONS);
		return entries;
	} catch (error) {
		throw storeError(context, error, 'forget');
	}
}

/** Each item's ID, read as Create reads a sheet; one not valid stops the run, or with Continue On Fail is its error. */
function readEntries(context: IExecuteFunctions, items: Items): Entry[] {
	const source = new ItemParameters(context, items);
	return items.map((_, itemIndex): Entry => {
		const value = source.get(ID_PARAMETER, itemIndex);
		if (isBlankRow(source, { [ID_PARAMETER]: value })) return { kind: 'blank', itemIndex };
		const parsed = positiveId.safeParse(value);
		if (parsed.success) return { kind: 'id', itemIndex, id: parsed.data };
		const message = `External Listing ID ${parsed.error.issues[0]?.message ?? 'is not valid'}; nothing was forgotten`;
		const description = MAP_IDS;
		const error = new NodeOperationError(context.getNode(), message, { description, itemIndex });
		if (!context.continueOnFail()) throw error;
		const json: IDataObject = { error: error.message };
		return { kind: 'refused', item: { json, pairedItem: { item: itemIndex }, error } };
	});
}

/** Each item says whether the memory held its ID (for this workflow, account and API) and now forgot it. */
function outputOf(entry: Entry, forgotten: Set<number>): INodeExecutionData {
	if (entry.kind === 'refused') return entry.item;
	const pairedItem = { item: entry.itemIndex };
	if (entry.kind === 'blank') return { json: { skipped: 'blank', message: BLANK }, pairedItem };
	const { id } = entry;
	const message = `Nothing to forget: External Listing ID ${id} is not remembered for this account and Base URL`;
	const json = forgotten.has(id) ? { forgotten: id } : { notRemembered: id, message };
	return { json, pairedItem };
}
