/**
 * Listing → Create, start to end, in three stages: read every item into listings and check them all (nothing is
 * sent while any listing is invalid, unless errors continue); send the ready ones this workflow has not sent
 * before; report one outcome per listing, in input order.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { validateOnlyItem } from './output';
import { readListings } from './read';
import { reportListings } from './outcome';
import { sendListings } from './send';

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const read = readListings(this, items);
	if (read.settings.validateOnly) return read.listings.map(validateOnlyItem);
	const outcomes = await sendListings(this, read.listings, read.settings);
	return reportListings(this, items, outcomes, read);
}
