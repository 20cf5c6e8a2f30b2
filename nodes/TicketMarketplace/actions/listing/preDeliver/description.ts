import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import { optionsCollection } from '../../optionsCollection';
import { RUN_OPTIONS } from '../create/description';

/** Row or Seat, hidden for General Admission. */
const seatPart = (displayName: string, example: string): INodeProperties => ({
	displayName,
	name: displayName.toLowerCase(),
	type: 'string',
	default: '',
	placeholder: `e.g. ${example}`,
	required: true,
	displayOptions: { show: { generalAdmission: [false] } },
	description: `The ticket's ${displayName.toLowerCase()}, as on the listing`,
});

/** One ticket PDF per item, and the ticket it is for. */
export const description = updateDisplayOptions(
	{ show: { resource: ['listing'], operation: ['preDeliver'] } },
	[
		{
			displayName: 'Input Binary Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			placeholder: 'e.g. data',
			description: 'The name of the input binary field holding the ticket PDF',
		},
		{
			displayName: 'Listing',
			name: 'listingBy',
			type: 'options',
			options: [
				{ name: 'By External Listing ID', value: 'externalId' },
				{ name: 'By Marketplace Listing ID', value: 'marketplaceId' },
			],
			default: 'marketplaceId',
			description: "How the ticket's listing is named: by the marketplace's ID, or by your own",
		},
		{
			displayName: 'Listing ID',
			name: 'listingId',
			type: 'string',
			default: '',
			placeholder: 'e.g. {{ $json.listingId }}',
			required: true,
			displayOptions: { show: { listingBy: ['marketplaceId'] } },
			description:
				"The marketplace's ID of the listing the ticket belongs to: the ID Create outputs, not the External Listing ID",
		},
		{
			displayName: 'External Listing ID',
			name: 'externalListingId',
			type: 'string',
			default: '',
			placeholder: 'e.g. {{ $json.listing_id }}',
			required: true,
			displayOptions: { show: { listingBy: ['externalId'] } },
			description:
				'Your own ID of the listing, for one that Listing → Create created in this workflow',
		},
		{
			displayName: 'General Admission',
			name: 'generalAdmission',
			type: 'boolean',
			default: false,
			description: 'Whether the ticket has no row and seat (they are sent as GA)',
		},
		seatPart('Row', 'E'),
		seatPart('Seat', '151'),
		optionsCollection([
			...RUN_OPTIONS.filter((option) => ['concurrency', 'concurrencyMode'].includes(option.name)),
			{
				displayName: 'Skip Listings Already Delivered',
				name: 'skipAlreadySent',
				type: 'boolean',
				default: true,
				description:
					'Whether to skip listings this workflow delivered before; one that brings a ticket not delivered yet is uploaded again, whole',
			},
		]),
	],
);
