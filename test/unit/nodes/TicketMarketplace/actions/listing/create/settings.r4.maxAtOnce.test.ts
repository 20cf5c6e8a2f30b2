/**
 * Review r4: Max Listings at Once is the most requests in flight (docs/pacing.md). Its field takes decimals (no
 * numberPrecision), and a value that is not a whole number silently becomes the default, 48: a seller who typed
 * 1.5 to go slowly sends 48 at once.
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
