/** Listing → Clear Sent Listings History as the editor shows it: what to clear, and the ID of each item. */
import { updateDisplayOptions } from 'n8n-workflow';

import { perVersion } from '../../versions';

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
