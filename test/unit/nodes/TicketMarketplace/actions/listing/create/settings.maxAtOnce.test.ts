/**
 * Max Listings at Once is the most requests in flight (docs/pacing.md): a number with decimals (from an expression)
 * is taken down to a whole one, never replaced by the default of 48.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { readSendSettings } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/settings';

const withOptions = (options: Record<string, unknown>) =>
	({ getNodeParameter: () => options }) as unknown as IExecuteFunctions;

it.each([
	[1.5, 1],
	[2.5, 2],
	[0.5, 1],
])('Max Listings at Once %s sends at most %s at once', (typed, most) => {
	const { maxConcurrency } = readSendSettings(
		withOptions({ concurrencyMode: 'fixed', concurrency: typed }),
	);
	expect(maxConcurrency).toBeLessThanOrEqual(most);
});
