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

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	refuseAsAgentTool(
		this,
		'Clear Sent Listings History cannot run as an AI Agent tool; nothing was forgotten',
		'The history is what keeps Create from listing the same tickets twice, and an agent cannot know whether a listing was removed from the marketplace.',
	);
	if (this.getNodeParameter('forgetScope', 0, 'ids') === 'all') {
		const count = await countSent(this);
		await forgetAllSent(this);
		return [
			{
				json: { forgotten: 'all', entries: count },
				pairedItem: items.map((_, item) => ({ item })),
			},
		];
	}
	type Entry =
		| { kind: 'refused'; item: INodeExecutionData }
		| { kind: 'blank'; itemIndex: number }
		| { kind: 'id'; itemIndex: number; id: number };
	const output: Entry[] = [];
	// Read as Create reads a sheet, so that a row Create skips as blank is skipped here too.
	const source = new ItemParameters(this, items);
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const value = source.get(ID_PARAMETER, itemIndex);
		if (isBlankRow(source, { [ID_PARAMETER]: value })) {
			output.push({ kind: 'blank', itemIndex });
			continue;
		}
		const parsed = positiveId.safeParse(value);
		if (!parsed.success) {
			const error = new NodeOperationError(
				this.getNode(),
				`External Listing ID ${parsed.error.issues[0]?.message ?? 'is not valid'}; nothing was forgotten`,
				{
					description:
						'Map External Listing ID to a column of whole numbers (for example {{ $json.listing_id }}), then run the workflow again.',
					itemIndex,
				},
			);
			if (!this.continueOnFail()) throw error;
			output.push({
				kind: 'refused',
				item: {
					json: { error: error.message } as IDataObject,
					pairedItem: { item: itemIndex },
					error,
				},
			});
			continue;
		}
		output.push({ kind: 'id', itemIndex, id: parsed.data });
	}
	const blankRows = output.flatMap((entry) => (entry.kind === 'blank' ? [entry.itemIndex] : []));
	if (blankRows.length)
		this.addExecutionHints({ message: blankRowsNotice(blankRows), location: 'outputPane' });
	const requested = output.flatMap((entry) => (entry.kind === 'id' ? [entry.id] : []));
	const { baseUrl, decrypted } = await readRunCredential.call(this);
	// The memory of the credential's marketplace account on its API, as Listing → Create keeps it.
	const forgotten = await new RunMemory(this, {
		baseUrl,
		email: String(decrypted.data?.email ?? ''),
	}).forgetOnRequest(requested);
	// Each item says whether the memory held its ID (for this workflow, account and API) and now forgot it.
	return output.map((entry): INodeExecutionData => {
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
	});
}
