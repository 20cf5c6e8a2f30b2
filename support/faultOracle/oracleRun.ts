/**
 * One run of Listing → Create as the fault oracle drives it: the real execute() with n8n-core's request helper and
 * our credential (fakeRun), one listing per item, against a shared store and API.
 */
import type { INodeExecutionData, NodeExecutionHint } from 'n8n-workflow';

import { execute } from '../../nodes/TicketMarketplace/actions/listing/create.operation';
import { fakeRun } from '../fakeN8n/actionContext';
import type { MemoryDeduplicationStore } from '../fakeN8n/actionContext';
import { consumerKeyOf } from './fakePartnerApi';

export type OnError = 'stop' | 'continueRegularOutput' | 'continueErrorOutput';

export interface RunSettings {
	/** External Listing IDs, one item each, in item order. */
	ids: number[];
	output: 'listing' | 'row';
	onError: OnError;
	concurrency: number;
	adaptive: boolean;
}

export interface RunResult {
	run: string;
	settings: RunSettings;
	output?: INodeExecutionData[];
	thrown?: Error & { description?: string };
	hints: NodeExecutionHint[];
	cancelled: boolean;
}

export async function runListingCreate(
	run: string,
	settings: RunSettings,
	store: MemoryDeduplicationStore,
	cancel: AbortController,
): Promise<RunResult> {
	const items = settings.ids.map((id) => ({ json: { row: id } }));
	const fake = fakeRun({
		parameters: {
			inputShape: 'listingPerItem',
			eventId: 55,
			externalListingId: (itemIndex: number) => settings.ids[itemIndex],
			priceAmount: 10,
			priceCurrency: 'EUR',
			productsSource: 'defined',
			// One seat per listing: a seat in two listings of one event is refused before sending.
			products: (itemIndex: number) => ({
				product: [{ externalId: 'A-1', row: 'A', seat: String(settings.ids[itemIndex]) }],
			}),
			options: {
				output: settings.output,
				concurrencyMode: settings.adaptive ? 'adaptive' : 'fixed',
				concurrency: settings.concurrency,
			},
		},
		items,
		apiCredentials: { consumerKey: consumerKeyOf(run) },
		deduplication: store,
		deduplicationCaller: run,
		continueOnFail: settings.onError !== 'stop',
		onError: settings.onError === 'stop' ? undefined : settings.onError,
		cancelSignal: cancel.signal,
	});
	const result: RunResult = { run, settings, hints: fake.hints, cancelled: false };
	try {
		result.output = await execute.call(fake.context, items);
	} catch (error) {
		result.thrown = error as RunResult['thrown'];
	}
	result.cancelled = cancel.signal.aborted;
	return result;
}
