/** Listing → Clear Sent Listings History: forgets every ID, or each item's (read as Create reads a sheet's rows). */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { positiveId } from '../../schemas/listing';
import { refuseAsAgentTool } from '../../helpers/agentTool';
import { readRunCredential } from '../../transport';
import { perVersion } from '../versions';
import { RunMemory } from './memory/runMemory';
import { failureOf } from './memory/memoryFailure';
import { memoryError } from './memory/memoryMessages';
import { SCOPE, STORE_OPTIONS } from './memory/verifiedStore';
import { isBlankRow, ItemParameters } from './create/settings';
import { blankRowsNotice } from './create/output';
import { memoryAccount } from './create/send';

export const description = updateDisplayOptions(
	{ show: { resource: ['listing'], operation: ['forgetSent'] } },
	[
		{
			displayName:
				'Create skips every listing this workflow has sent before. Clear a listing here to send it again, for example after deleting it on the marketplace.',
			name: 'forgetNotice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'Clear',
			name: 'forgetScope',
			type: 'options',
			noDataExpression: true,
			default: 'ids',
			options: [
				{
					name: 'All',
					value: 'all',
					description:
						'Everything this workflow remembers, including what its Remove Duplicates nodes remember for the workflow',
				},
				{
					name: 'Listings From Input',
					value: 'ids',
					description: 'One External Listing ID per input item',
				},
			],
			description: 'Which listings to clear from the history',
		},
		...perVersion(
			{
				displayName: 'External Listing ID',
				name: 'forgetExternalListingId',
				type: 'number',
				required: true,
				default: '',
				placeholder: 'e.g. 7001',
				displayOptions: { show: { forgetScope: ['ids'] } },
				description: 'The listing to clear, usually mapped from a column of the input',
			},
			{ v1: { default: 0 }, latest: { default: '' } },
		),
	],
);

/** What one input item asks: an ID to forget, a blank row to skip, or its refusal as output (its ID is not valid). */
type Entry = number | 'blank' | INodeExecutionData;
type Items = INodeExecutionData[];
const BLANK = 'Blank row: its External Listing ID is empty, so it names no listing to clear';

export async function execute(this: IExecuteFunctions, items: Items): Promise<Items> {
	refuseAsAgentTool(
		this,
		'Clear Sent Listings History cannot run as an AI Agent tool; nothing was forgotten',
		'The history is what keeps Create from listing the same tickets twice, and an agent cannot know whether a listing was removed from the marketplace.',
	);
	if (this.getNodeParameter('forgetScope', 0, 'ids') === 'all') {
		try {
			const entries = await this.helpers.getProcessedDataCount(SCOPE, STORE_OPTIONS);
			await this.helpers.clearAllProcessedItems(SCOPE, STORE_OPTIONS);
			const pairedItem = items.map((_, item) => ({ item }));
			return [{ json: { forgotten: 'all', entries }, pairedItem }];
		} catch (error) {
			throw memoryError(this, failureOf(error), 'forget');
		}
	}
	const entries = readEntries(this, items);
	const blankRows = entries.flatMap((entry, itemIndex) => (entry === 'blank' ? [itemIndex] : []));
	if (blankRows.length)
		this.addExecutionHints({ message: blankRowsNotice(blankRows), location: 'outputPane' });
	const memory = new RunMemory(this, memoryAccount(await readRunCredential.call(this)));
	const requested = entries.filter((entry) => typeof entry === 'number');
	const forgotten = await memory.forgetOnRequest(requested);
	return entries.map((entry, item) => outputOf(entry, item, forgotten));
}

/** Each item's ID, read as Create reads a sheet; one not valid stops the run, or with Continue On Fail is its error. */
function readEntries(context: IExecuteFunctions, items: Items): Entry[] {
	const source = new ItemParameters(context, items);
	return items.map((_, itemIndex): Entry => {
		const value = source.get('forgetExternalListingId', itemIndex);
		if (isBlankRow(source, { forgetExternalListingId: value })) return 'blank';
		const parsed = positiveId.safeParse(value);
		if (parsed.success) return parsed.data;
		const message = `External Listing ID ${parsed.error.issues[0]?.message ?? 'is not valid'}; nothing was forgotten`;
		const description =
			'Map External Listing ID to a column of whole numbers (for example {{ $json.listing_id }}), then run the workflow again.';
		const error = new NodeOperationError(context.getNode(), message, { description, itemIndex });
		if (!context.continueOnFail()) throw error;
		return { json: { error: error.message }, pairedItem: { item: itemIndex }, error };
	});
}

/** Each item says whether the memory held its ID (for this workflow, account and API) and now forgot it. */
function outputOf(entry: Entry, item: number, forgotten: Set<number>): INodeExecutionData {
	if (typeof entry === 'object') return entry;
	const pairedItem = { item };
	if (entry === 'blank') return { json: { skipped: 'blank', message: BLANK }, pairedItem };
	const message = `Nothing to forget: External Listing ID ${entry} is not remembered for this account and Base URL`;
	const json = forgotten.has(entry) ? { forgotten: entry } : { notRemembered: entry, message };
	return { json, pairedItem };
}
