/** Listing → Create's less common settings: pacing, output, memory of sent listings, Validate Only. */
import type { INodeProperties } from 'n8n-workflow';

/**
 * The most requests in flight by default; adaptive pacing finds the API's own pace below it. 48: against an API
 * without a limit (100 ms a request) 400 listings take about 1.3 s instead of 2.9 s at 16 (the pacer's simulation;
 * bench/README.md for n8n). 64 saved 0.2 s more there, but against 100 requests a second it sent twice as many
 * requests into the limit before the first 429 came back (simulated with n8n's late reading of answers).
 */
export const DEFAULT_CONCURRENCY = 48;
export const MAX_CONCURRENCY = 100;

export const optionsProperty: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	description: 'Less common settings',
	options: [
		{
			displayName: 'Concurrency Mode',
			name: 'concurrencyMode',
			type: 'options',
			default: 'adaptive',
			options: [
				{
					name: 'Adaptive',
					value: 'adaptive',
					description:
						"Find the API's pace: more requests at once while it answers, fewer on 429 or slower answers. When 429s show a per-second limit (two that agree: one alone may be random), every send waits for the Retry-After, then goes at the pace the API accepted. Never more than Max Concurrency.",
				},
				{
					name: 'Fixed',
					value: 'fixed',
					description: 'Always send Max Concurrency requests at once',
				},
			],
			description:
				'How many listings are sent at once. The first listing always goes alone so that the access token is fetched once.',
		},
		{
			displayName: 'Max Concurrency',
			name: 'concurrency',
			type: 'number',
			default: DEFAULT_CONCURRENCY,
			typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
			description: `The most listings in flight at once (1 to ${MAX_CONCURRENCY}; 1 sends one after the other). In Fixed mode, exactly this many.`,
		},
		{
			displayName: 'Output',
			name: 'output',
			type: 'options',
			default: 'listing',
			options: [
				{
					name: 'One Item per Listing',
					value: 'listing',
					description: "The API's answer for each listing, paired with the rows it came from",
				},
				{
					name: 'One Item per Input Row',
					value: 'row',
					description:
						"Each row's own fields plus externalListingId, listingStatus (created, skipped, failed, invalid) and listingResponse or listingError: ready to update the sheet row by row",
				},
			],
			description: 'What the node outputs',
		},
		{
			displayName: 'Skip Listings Already Sent',
			name: 'skipAlreadySent',
			type: 'boolean',
			default: true,
			description:
				"Whether to remember every External Listing ID this workflow sends (in n8n's database, per workflow and API Base URL) and skip it in later runs, so a sheet run twice, a retried execution or Settings → Retry On Fail never lists a ticket twice. An ID is forgotten again only when the API provably refused it. To send an ID again, use Listing → Forget Sent Listings.",
		},
		{
			displayName: 'Validate Only',
			name: 'validateOnly',
			type: 'boolean',
			default: false,
			description:
				'Whether to only check the input and output the exact requests that would be sent (method, path, headers, body) without sending anything',
		},
	],
};
