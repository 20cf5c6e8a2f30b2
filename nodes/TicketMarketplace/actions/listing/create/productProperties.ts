/** Listing → Create's tickets of a listing per item: typed by hand, as JSON, or as seat ranges. */
import type { INodeProperties } from 'n8n-workflow';

import { perVersion } from '../../versions';
import { TICKET_FIELDS } from './fields';
import { SEAT_RANGE_FIELDS, SOURCE_LABELS, type Field } from './fieldTable';

const perItem = { inputShape: ['listingPerItem'] };

export function choice(name: string, value: string, description: string) {
	return { name, value, description };
}

/** n8n's alphabetical order of a collection's values. */
export const byLabel = (a: INodeProperties, b: INodeProperties) =>
	a.displayName.localeCompare(b.displayName);

/** A ticket field as a value of Products → Product: named by its API key, as a JSON product names it too. */
function productValue(field: Field): INodeProperties {
	return { ...field.panel, ...field.product, name: field.api, default: field.default ?? '' };
}

/** Version 1: every ticket value in n8n's alphabetical order, Row and Seat always shown. */
const productV1 = TICKET_FIELDS.map(productValue).sort(byLabel);
/** 1.1: the product type comes from Options; Row and Seat follow the General Admission switch. */
const productLatest = TICKET_FIELDS.filter((field) => field.place === 'main')
	.map((field) => ({
		...productValue(field),
		// Hidden for a standing ticket (n8n drops a hidden value, so version 1 keeps them shown).
		...(field.seated && { displayOptions: { hide: { ga: [true] } } }),
	}))
	.sort(byLabel);

const rangeV1 = [...SEAT_RANGE_FIELDS].sort(byLabel);
const rangeLatest = SEAT_RANGE_FIELDS.filter((field) => field.name !== 'productType');

/** A list of tickets or ranges: version 1 has a product type of its own; 1.1 takes it from Options. */
function collection(
	group: 'products.product' | 'seatRanges.range',
	look: Pick<INodeProperties, 'placeholder' | 'description'>,
	source: string,
	values: { v1: INodeProperties[]; latest: INodeProperties[] },
): INodeProperties[] {
	const [name, entry] = group.split('.');
	const options = (entries: INodeProperties[]) => ({
		options: [{ displayName: SOURCE_LABELS[group], name: entry, values: entries }],
	});
	return perVersion(
		{
			displayName: SOURCE_LABELS[name],
			name,
			type: 'fixedCollection',
			typeOptions: { multipleValues: true },
			default: {},
			displayOptions: { show: { ...perItem, productsSource: [source] } },
			...look,
			options: [],
		},
		{ v1: options(values.v1), latest: options(values.latest) },
	);
}

export const productsProperties: INodeProperties[] = [
	{
		displayName: 'Products Source',
		name: 'productsSource',
		type: 'options',
		noDataExpression: true,
		default: 'defined',
		displayOptions: { show: perItem },
		options: [
			choice('Define Below', 'defined', 'Add each ticket by hand'),
			choice('JSON', 'json', 'A list of tickets, usually from an expression'),
			choice('Seat Range', 'seatRange', 'Rows with a first and a last seat, one ticket per seat'),
		],
		description: "Where the listing's tickets come from",
	},
	...collection(
		'products.product',
		{ placeholder: 'Add Product', description: 'The tickets of the listing' },
		'defined',
		{ v1: productV1, latest: productLatest },
	),
	{
		displayName: SOURCE_LABELS.productsJson,
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
	...collection(
		'seatRanges.range',
		{
			placeholder: 'Add Seat Range',
			description: 'One ticket per seat from First Seat to Last Seat, at most 1000 a range',
		},
		'seatRange',
		{ v1: rangeV1, latest: rangeLatest },
	),
];
