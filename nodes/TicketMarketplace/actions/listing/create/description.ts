/** Listing → Create's panel in both node versions; the fields come from the field table, placed here. */
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import { optionsCollection } from '../../optionsCollection';
import { perVersion, v1Only } from '../../versions';
import { fieldOf, isUnderOptions } from './fields';
import { FIELDS, property, type Field } from './fieldTable';
import { byLabel, choice, productsProperties } from './productProperties';
import { DEFAULT_CONCURRENCY, LIMIT_OPTIONS, MAX_CONCURRENCY } from './settings';

const perTicket = { inputShape: ['ticketPerItem'] };
/** Fields recognised headers replace: `hide`, as "Each Item Is a Listing" has no Columns value to show on. */
const recognisedByHeader = { columnMapping: ['auto'] };

function parameterOf(field: Field): INodeProperties {
	return {
		...field.panel,
		name: field.parameter,
		...(field.default === undefined && { required: true }),
		default: field.default ?? '',
	};
}

/** A field in the main panel: a ticket's for ticket rows only, hidden while a recognised header stands for it. */
function inMainPanel(field: Field): INodeProperties[] {
	const displayOptions = {
		...(field.per === 'ticket' && { show: perTicket }),
		...(field.headers && { hide: recognisedByHeader }),
	};
	const property = { ...parameterOf(field), displayOptions };
	if (field.place === 'optionsFromV1_1') return [v1Only({ ...property, ...field.v1 })];
	// Required numbers start empty from 1.1 (n8n marks them until set, as in its own nodes); version 1 keeps 0.
	if (field.default === undefined && field.panel.type === 'number')
		return perVersion(property, { v1: { default: 0 } });
	if (!field.seated) return [property];
	// From 1.1, Row and Seat hide while General Admission is `true` (mapped to a column, they stay shown). Version 1
	// keeps them shown: n8n drops a hidden field's value, and its workflows would stop sending a Row and Seat.
	const hide = { ...recognisedByHeader, productGa: [true] };
	return perVersion(property, { latest: { displayOptions: { ...displayOptions, hide } } });
}

/** Where the main panel shows the table's fields (those under Options are sorted there by label). */
const mainPanel = (...names: string[]) => names.flatMap((name) => inMainPanel(fieldOf(name)));

/** The options of a run, beside the fields under Options. */
export const RUN_OPTIONS: INodeProperties[] = [
	property(
		'Max Listings at Once',
		'concurrency',
		'number',
		DEFAULT_CONCURRENCY,
		`The most listings sent at the same time, from 1 to ${MAX_CONCURRENCY}; 1 sends them one after another`,
		{ typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 } },
	),
	property(
		LIMIT_OPTIONS.maxTicketsPerListing,
		'maxTicketsPerListing',
		'number',
		'',
		"Listings with more tickets than this are refused before sending, e.g. a pasted column or an AI Agent's mistake",
		{ placeholder: 'e.g. 50', typeOptions: { minValue: 0, numberPrecision: 0 } },
	),
	property(
		LIMIT_OPTIONS.minPricePerTicket,
		'minPricePerTicket',
		'number',
		'',
		"Listings priced below this are refused before sending, e.g. a typo or an AI Agent's mistake; set its currency too",
		{ placeholder: 'e.g. 20.00', typeOptions: { minValue: 0, numberPrecision: 2 } },
	),
	property(
		LIMIT_OPTIONS.minPriceCurrency,
		'minPriceCurrency',
		'string',
		'',
		'The currency of Minimum Price per Ticket; listings priced in any other currency are refused before sending',
		{ placeholder: 'e.g. EUR' },
	),
	property('Output', 'output', 'options', 'listing', 'What the node outputs', {
		options: [
			choice('One Item per Listing', 'listing', "The marketplace's answer for each listing"),
			choice(
				'One Item per Input Row',
				'row',
				"Each input row with its listing's result, ready to write back to the sheet",
			),
		],
	}),
	property(
		'Pace',
		'concurrencyMode',
		'options',
		'adaptive',
		'How the number of listings sent at the same time is chosen',
		{
			options: [
				choice(
					'Adaptive',
					'adaptive',
					'Send more at once while the marketplace keeps up, and fewer when it asks to slow down',
				),
				choice('Fixed', 'fixed', 'Always send Max Listings at Once at the same time'),
			],
		},
	),
	{
		...property(
			'Remember Listings for Pre-Deliver',
			'rememberForPreDeliver',
			'boolean',
			false,
			'Whether Pre-Deliver Tickets in this workflow can find each listing created by its External Listing ID and check its seats',
		),
		hint: 'Each listing then takes about 180 places in the memory instead of 1, plus 1 per ticket; needs Skip Listings Already Sent on',
	},
	property(
		'Skip Listings Already Sent',
		'skipAlreadySent',
		'boolean',
		true,
		'Whether to skip listings this workflow has sent before, so that a sheet run again lists nothing twice',
	),
	property(
		'Validate Only',
		'validateOnly',
		'boolean',
		false,
		'Whether to only check the input and show the listings that would be sent, without sending anything',
	),
];

/** Options in alphabetical order, as n8n lists them: the run's, and the fields under Options in that version. */
function optionsOf(readsAsV1: boolean): INodeProperties[] {
	const fields = FIELDS.filter((field) => isUnderOptions(field, readsAsV1)).map(parameterOf);
	return [...RUN_OPTIONS, ...fields].sort(byLabel);
}

export const properties: INodeProperties[] = [
	...perVersion(
		{
			displayName: 'Input Shape',
			name: 'inputShape',
			type: 'options',
			noDataExpression: true,
			default: 'ticketPerItem',
			options: [
				choice(
					'Each Item Is a Ticket (Sheet Row)',
					'ticketPerItem',
					'Every item is one ticket, and items with the same External Listing ID become one listing',
				),
				choice(
					'Each Item Is a Listing',
					'listingPerItem',
					'Every item is one listing, with its tickets set below',
				),
			],
			description: 'What each input item stands for',
		},
		{ v1: { default: 'listingPerItem' } },
	),
	{
		displayName: 'Columns',
		name: 'columnMapping',
		type: 'options',
		noDataExpression: true,
		default: 'manual',
		displayOptions: { show: perTicket },
		options: [
			choice(
				'Map Automatically',
				'auto',
				"Read each field from the sheet's column of the same name, such as listing_id",
			),
			choice(
				'Map Each Column Manually',
				'manual',
				'Set each field below, usually by dragging a column onto it',
			),
		],
		description: "How the sheet's columns become the listing's fields",
	},
	{
		displayName:
			'Needs the columns listing_id, event_id, price, currency and ticket_id, and reads row, seat and general_admission when present. Names such as "Listing ID" or listingId work too.',
		name: 'autoMappingNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { ...perTicket, columnMapping: ['auto'] } },
	},
	{
		displayName:
			"As an AI Agent's tool, set Options → Minimum Price per Ticket and Maximum Tickets per Listing, so that a price or a number of tickets the model gets wrong is refused",
		name: 'agentLimitsNotice',
		type: 'notice',
		default: '',
		// Only in the tool variant (n8n names it with "Tool"); Map Automatically has a notice of its own.
		displayOptions: { show: { '@tool': [true] }, hide: { columnMapping: ['auto'] } },
	},
	...mainPanel('eventId', 'externalListingId', 'priceAmount', 'priceCurrency'),
	...productsProperties,
	// General Admission before Row and Seat, which it hides; then version 1's values with a default.
	...mainPanel('productExternalId', 'productGa', 'productRow', 'productSeat', 'productType'),
	...mainPanel('stockType', 'paymentType', 'acceptLanguage'),
	...perVersion(optionsCollection(optionsOf(false)), { v1: { options: optionsOf(true) } }),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['listing'], operation: ['create'] } },
	properties,
);
