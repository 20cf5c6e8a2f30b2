/** Listing → Create's products of a listing per item: typed by hand, as JSON, or as seat ranges. */
import type { INodeProperties } from 'n8n-workflow';

const perItem = { inputShape: ['listingPerItem'] };

export const productsProperties: INodeProperties[] = [
	{
		displayName: 'Products Source',
		name: 'productsSource',
		type: 'options',
		noDataExpression: true,
		default: 'defined',
		displayOptions: { show: perItem },
		options: [
			{ name: 'Defined Below', value: 'defined', description: 'Add each product by hand' },
			{
				name: 'JSON',
				value: 'json',
				description: 'An array of products, usually from an expression',
			},
			{
				name: 'Seat Range',
				value: 'seatRange',
				description: 'Rows with a first and last seat, expanded into one product per seat',
			},
		],
		description: 'Where the products (tickets) of the listing come from',
	},
	{
		displayName: 'Products',
		name: 'products',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Product',
		default: {},
		displayOptions: { show: { ...perItem, productsSource: ['defined'] } },
		description: 'The individual tickets of the listing',
		options: [
			{
				displayName: 'Product',
				name: 'product',
				values: [
					{
						displayName: 'External ID',
						name: 'externalId',
						type: 'string',
						default: '',
						placeholder: 'e.g. 7001-A-12',
						description: 'Your own identifier for this ticket; must be unique within the listing',
					},
					{
						displayName: 'General Admission',
						name: 'ga',
						type: 'boolean',
						default: false,
						description: 'Whether the ticket has no assigned row and seat (ga)',
					},
					{
						displayName: 'Product Type',
						name: 'productType',
						type: 'string',
						default: 'TICKET',
						description:
							"Product type; 'TICKET' is the value the API documents, others are passed as typed",
					},
					{
						displayName: 'Row',
						name: 'row',
						type: 'string',
						default: '',
						placeholder: 'e.g. A',
						description: 'Row label; required unless General Admission is on',
					},
					{
						displayName: 'Seat',
						name: 'seat',
						type: 'string',
						default: '',
						placeholder: 'e.g. 12',
						description: 'Seat label; required unless General Admission is on',
					},
				],
			},
		],
	},
	{
		displayName: 'Products (JSON)',
		name: 'productsJson',
		type: 'json',
		// Empty on purpose: a sample product here would be sent by anyone who forgot to replace it.
		default: '[]',
		placeholder:
			'[{ "externalId": "7001-A-12", "row": "A", "seat": "12", "productType": "TICKET", "ga": false }]',
		displayOptions: { show: { ...perItem, productsSource: ['json'] } },
		description:
			'Array of products with the keys externalId, row, seat, productType (default TICKET) and ga (default false). Other keys are refused so that typos are caught.',
		hint: 'Use an expression such as {{ $json.tickets }} to pass an array from a previous node',
	},
	{
		displayName: 'Seat Ranges',
		name: 'seatRanges',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Seat Range',
		default: {},
		displayOptions: { show: { ...perItem, productsSource: ['seatRange'] } },
		description:
			'Each range becomes one product per seat, from First Seat to Last Seat inclusive (at most 1000 a range)',
		options: [
			{
				displayName: 'Range',
				name: 'range',
				values: [
					{
						displayName: 'External ID Pattern',
						name: 'externalIdPattern',
						type: 'string',
						default: '{listing}-{row}-{seat}',
						description:
							"How each product's External ID is built. Placeholders (single braces, not an n8n expression): {listing}, {event}, {row}, {seat}. Must contain {seat}.",
						hint: 'Row A, seats 1 to 3 of listing 7001 give 7001-A-1, 7001-A-2, 7001-A-3',
					},
					{
						displayName: 'First Seat',
						name: 'firstSeat',
						type: 'number',
						default: 1,
						description: 'First seat number of the range',
					},
					{
						displayName: 'Last Seat',
						name: 'lastSeat',
						type: 'number',
						default: 1,
						description: 'Last seat number of the range (inclusive)',
					},
					{
						displayName: 'Product Type',
						name: 'productType',
						type: 'string',
						default: 'TICKET',
						description: 'Product type of every seat of the range',
					},
					{
						displayName: 'Row',
						name: 'row',
						type: 'string',
						default: '',
						placeholder: 'e.g. A',
						description: 'Row label shared by every seat of the range',
					},
				],
			},
		],
	},
];
