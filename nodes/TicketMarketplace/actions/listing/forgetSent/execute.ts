/**
 * Listing → Clear Sent Listings History: forgets every ID the workflow remembers, or the ID of each input item, so
 * that Create sends those listings again. Items are read as Create reads sheet rows: a blank row is skipped.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { positiveId } from '../../../schemas/listing';
import { refuseAsAgentTool } from '../../../helpers/agentTool';
import { RunMemory } from '../memory/runMemory';
import { countSent, forgetAllSent } from '../memory/sentListings';
import { readRunCredential } from '../../../transport';
import { ItemParameters } from '../create/parameterSource';
import { blankRowsNotice } from '../create/output';
import { isBlankRow } from '../create/listingRows';

const ID_PARAMETER = 'forgetExternalListingId';

/** What one input item asks: an ID to forget, a blank row to skip, or a refusal (its ID is not valid). */
type Entry =
	| { kind: 'refused'; item: INodeExecutionData }
	| { kind: 'blank'; itemIndex: number }
	| { kind: 'id'; itemIndex: number; id: number };

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	refuseAsAgentTool(
		this,
		'Clear Sent Listings History cannot run as an AI Agent tool; nothing was forgotten',
		'The history is what keeps Create from listing the same tickets twice, and an agent cannot know whether a listing was removed from the marketplace.',
	);
	if (this.getNodeParameter('forgetScope', 0, 'ids') === 'all') return await forgetAll(this, items);
	const entries = readEntries(this, items);
	const blankRows = entries.flatMap((entry) => (entry.kind === 'blank' ? [entry.itemIndex] : []));
	if (blankRows.length)
		this.addExecutionHints({ message: blankRowsNotice(blankRows), location: 'outputPane' });
	const requested = entries.flatMap((entry) => (entry.kind === 'id' ? [entry.id] : []));
	const forgotten = await forgetRequested(this, requested);
	return entries.map((entry) => outputOf(entry, forgotten));
}

/** Forgets every ID the workflow remembers: one item saying how many entries there were. */
async function forgetAll(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const count = await countSent(context);
	await forgetAllSent(context);
	return [
		{
			json: { forgotten: 'all', entries: count },
			pairedItem: items.map((_, item) => ({ item })),
		},
	];
}

/**
 * Each item's External Listing ID, read as Create reads a sheet, so that a row Create skips as blank is skipped here
 * too. An ID that is not valid stops the run, or with Continue On Fail becomes that item's error.
 */
function readEntries(context: IExecuteFunctions, items: INodeExecutionData[]): Entry[] {
	const entries: Entry[] = [];
	const source = new ItemParameters(context, items);
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const value = source.get(ID_PARAMETER, itemIndex);
		if (isBlankRow(source, { [ID_PARAMETER]: value })) {
			entries.push({ kind: 'blank', itemIndex });
			continue;
		}
		const parsed = positiveId.safeParse(value);
		if (parsed.success) {
			entries.push({ kind: 'id', itemIndex, id: parsed.data });
			continue;
		}
		const error = new NodeOperationError(
			context.getNode(),
			`External Listing ID ${parsed.error.issues[0]?.message ?? 'is not valid'}; nothing was forgotten`,
			{
				description:
					'Map External Listing ID to a column of whole numbers (for example {{ $json.listing_id }}), then run the workflow again.',
				itemIndex,
			},
		);
		if (!context.continueOnFail()) throw error;
		entries.push({
			kind: 'refused',
			item: {
				json: { error: error.message } as IDataObject,
				pairedItem: { item: itemIndex },
				error,
			},
		});
	}
	return entries;
}

/** Forgets the requested IDs in the memory of the credential's account on its API, as Listing → Create keeps it. */
async function forgetRequested(
	context: IExecuteFunctions,
	requested: number[],
): Promise<Set<number>> {
	const { baseUrl, decrypted } = await readRunCredential.call(context);
	return await new RunMemory(context, {
		baseUrl,
		email: String(decrypted.data?.email ?? ''),
	}).forgetOnRequest(requested);
}

/** Each item says whether the memory held its ID (for this workflow, account and API) and now forgot it. */
function outputOf(entry: Entry, forgotten: Set<number>): INodeExecutionData {
	if (entry.kind === 'refused') return entry.item;
	if (entry.kind === 'blank')
		return {
			json: {
				skipped: 'blank',
				message: 'Blank row: its External Listing ID is empty, so it names no listing to clear',
			},
			pairedItem: { item: entry.itemIndex },
		};
	const { itemIndex, id } = entry;
	return forgotten.has(id)
		? { json: { forgotten: id }, pairedItem: { item: itemIndex } }
		: {
				json: {
					notRemembered: id,
					message: `Nothing to forget: External Listing ID ${id} is not remembered for this account and Base URL`,
				},
				pairedItem: { item: itemIndex },
			};
}
