/** Listing → Create: read and check every listing (none is sent while one is invalid, unless errors continue),
 * send the ready ones not sent before, then output one outcome per listing or stop at the first failure. */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { withMoreDescription } from '../../../helpers/errors';
import { firstFailure, stopSummary } from './outcome';
import { outputItems, validateOnlyItem } from './output';
import { readListings } from './read';
import { sendListings } from './send';
import { readSendSettings } from './settings';

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const { listings, blankRows } = readListings(this, items);
	const settings = readSendSettings(this);
	if (settings.validateOnly) return listings.map(validateOnlyItem);
	const outcomes = await sendListings(this, listings, settings);
	const failed = this.continueOnFail() ? undefined : firstFailure(outcomes);
	if (failed) {
		const [listing, { error }] = failed;
		const summary = stopSummary(outcomes, settings.skipAlreadySent);
		throw withMoreDescription(this.getNode(), error, [summary], listing.rows[0]);
	}
	const errorOutput = this.getNode().onError === 'continueErrorOutput';
	return outputItems(items, outcomes, blankRows, settings.perRow, errorOutput);
}
