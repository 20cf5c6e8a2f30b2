/** Listing → Create's tickets of a listing per item: typed by hand, as JSON, or as seat ranges. */
import type { INodeProperties } from 'n8n-workflow';

import { perVersion } from '../../versions';

const perItem = { inputShape: ['listingPerItem'] };

const externalId: INodeProperties = {
	displayName: 'External ID',
	name: 'externalId',
	type: 'string',
	default: '',
	placeholder: 'e.g. 7001-A-12',
	description: 'Your own identifier for this ticket, unique within the listing',
};
const generalAdmission: INodeProperties = {
	displayName: 'General Admission',
	name: 'ga',
	type: 'boolean',
	default: false,
	description: 'Whether the ticket has no assigned row and seat',
};
const productType: INodeProperties = {
	displayName: 'Product Type',
	name: 'productType',
	type: 'string',
	default: 'TICKET',
	description: 'Product type of this ticket; TICKET is the one the marketplace documents',
};
const row: INodeProperties = {
	displayName: 'Row',
	name: 'row',
	type: 'string',
	default: '',
	placeholder: 'e.g. A',
	description: 'Row of this ticket',
};
const seat: INodeProperties = {
	displayName: 'Seat',
	name: 'seat',
	type: 'string',
	default: '',
	placeholder: 'e.g. 12',
	description: 'Seat of this ticket',
};
/** From 1.1, hidden for a standing ticket (n8n drops a hidden value, so version 1 keeps them shown). */
const standing = { hide: { ga: [true] } };

const firstSeat: INodeProperties = {
	displayName: 'First Seat',
	name: 'firstSeat',
	type: 'number',
	default: 1,
	description: 'Number of the first seat of the range',
};
const lastSeat: INodeProperties = {
	displayName: 'Last Seat',
	name: 'lastSeat',
	type: 'number',
	default: 1,
	description: 'Number of the last seat of the range, included',
};
const rangeRow: INodeProperties = {
	displayName: 'Row',
	name: 'row',
	type: 'string',
	default: '',
	placeholder: 'e.g. A',
	description: 'Row of every seat of the range',
};
const externalIdPattern: INodeProperties = {
	displayName: 'External ID Pattern',
	name: 'externalIdPattern',
	type: 'string',
	default: '{listing}-{row}-{seat}',
	description: "How each ticket's External ID is built from {listing}, {event}, {row} and {seat}",
	hint: 'Row A, seats 1 to 3 of listing 7001 give 7001-A-1, 7001-A-2 and 7001-A-3',
};
const rangeProductType: INodeProperties = {
	displayName: 'Product Type',
	name: 'productType',
	type: 'string',
	default: 'TICKET',
	description: 'Product type of every seat of the range',
};

export const productsProperties: INodeProperties[] = [
	{
		displayName: 'Products Source',
		name: 'productsSource',
		type: 'options',
		noDataExpression: true,
		default: 'defined',
		displayOptions: { show: perItem },
		options: [
			{ name: 'Define Below', value: 'defined', description: 'Add each ticket by hand' },
			{
				name: 'JSON',
				value: 'json',
				description: 'A list of tickets, usually from an expression',
			},
			{
				name: 'Seat Range',
				value: 'seatRange',
				description: 'Rows with a first and a last seat, one ticket per seat',
			},
		],
		description: "Where the listing's tickets come from",
	},
	...perVersion(
		{
			displayName: 'Products',
			name: 'products',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true },
			placeholder: 'Add Product',
			default: {},
			displayOptions: { show: { ...perItem, productsSource: ['defined'] } },
			description: 'The tickets of the listing',
			options: [],
		},
		{
			// Version 1: the fields in n8n's alphabetical order, Product Type per ticket, Row and Seat always shown.
			v1: {
				options: [
					{
						displayName: 'Product',
						name: 'product',
						values: [externalId, generalAdmission, productType, row, seat],
					},
				],
			},
			// 1.1: the product type comes from Options; Row and Seat follow the General Admission switch.
			latest: {
				options: [
					{
						displayName: 'Product',
						name: 'product',
						values: [
							externalId,
							generalAdmission,
							{ ...row, displayOptions: standing },
							{ ...seat, displayOptions: standing },
						],
					},
				],
			},
		},
	),
	{
		displayName: 'Products (JSON)',
		name: 'productsJson',
		type: 'json',
		// Empty on purpose: a sample product here would be sent by anyone who forgot to replace it.
		default: '[]',
		placeholder:
			'[{ "externalId": "7001-A-12", "row": "A", "seat": "12", "productType": "TICKET", "ga": false }]',
		displayOptions: { show: { ...perItem, productsSource: ['json'] } },
		description: 'A list of tickets, usually passed from a previous node by an expression',
		// The keys are what the user types here, so this hint names them.
		hint: 'Each ticket as in [{ "externalId": "7001-A-12", "row": "A", "seat": "12", "ga": false }]',
	},
	...perVersion(
		{
			displayName: 'Seat Ranges',
			name: 'seatRanges',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true },
			placeholder: 'Add Seat Range',
			default: {},
			displayOptions: { show: { ...perItem, productsSource: ['seatRange'] } },
			description: 'One ticket per seat from First Seat to Last Seat, at most 1000 a range',
			options: [],
		},
		{
			// Version 1: n8n's alphabetical order, with a product type per range.
			v1: {
				options: [
					{
						displayName: 'Range',
						name: 'range',
						values: [externalIdPattern, firstSeat, lastSeat, rangeProductType, rangeRow],
					},
				],
			},
			// 1.1: in the order a seat range is read; the product type comes from Options.
			latest: {
				options: [
					{
						displayName: 'Range',
						name: 'range',
						values: [firstSeat, lastSeat, rangeRow, externalIdPattern],
					},
				],
			},
		},
	),
];
