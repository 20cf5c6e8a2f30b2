import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { runWithConcurrency } from '../../helpers/concurrency';
import { asNodeError } from '../../helpers/errors';
import { buildListingUnits, LISTING_PATH } from '../../helpers/listingInput';
import type { ListingUnit } from '../../helpers/listingInput';
import { toOutputJson } from '../../helpers/output';
import { apiRequest } from '../../transport';

export const DEFAULT_CONCURRENCY = 3;
export const MAX_CONCURRENCY = 10;
/** Problems spelled out in the one validation error; the rest are counted. */
export const MAX_PROBLEMS_LISTED = 50;

const perItem = { inputShape: ['listingPerItem'] };
const perTicket = { inputShape: ['ticketPerItem'] };

const properties: INodeProperties[] = [
	{
		displayName: 'Input Shape',
		name: 'inputShape',
		type: 'options',
		noDataExpression: true,
		default: 'listingPerItem',
		options: [
			{
				name: 'Each Item Is a Listing',
				value: 'listingPerItem',
				description: 'Every input item creates one listing; its products are defined below',
			},
			{
				name: 'Each Item Is a Ticket (Group Sheet Rows)',
				value: 'ticketPerItem',
				description:
					'Every input item is one ticket, e.g. a spreadsheet row. Items that share an External Listing ID become one listing with one product per item.',
			},
		],
		description: 'How input items map to listings',
	},
	{
		displayName:
			'Each item is one ticket. Rows with the same External Listing ID are sent as one listing; they must agree on event, price, currency, stock type, payment type and language, or the listing is reported as invalid with the rows named.',
		name: 'groupingNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: perTicket },
	},
	{
		displayName: 'Event ID',
		name: 'eventId',
		type: 'number',
		required: true,
		default: 0,
		placeholder: 'e.g. 123456',
		description: 'Identifier of the event on the marketplace (eventId). Whole number; text such as "123456" from a sheet is accepted.',
	},
	{
		displayName: 'External Listing ID',
		name: 'externalListingId',
		type: 'number',
		required: true,
		default: 0,
		placeholder: 'e.g. 7001',
		description: 'Your own whole-number identifier for the listing (externalListingId)',
		hint: 'In "Each Item Is a Ticket" mode, rows with the same value are grouped into one listing',
	},
	{
		displayName: 'Price Amount',
		name: 'priceAmount',
		type: 'number',
		required: true,
		default: 0,
		typeOptions: { numberPrecision: 2 },
		placeholder: 'e.g. 49.90',
		description: 'Price of each product (pricePerProduct.amount). Must be greater than 0; text such as "49.90" is accepted.',
	},
	{
		displayName: 'Currency',
		name: 'priceCurrency',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. EUR',
		description: 'Three-letter currency code (pricePerProduct.currency), sent in upper case',
	},
	{
		displayName: 'Products Source',
		name: 'productsSource',
		type: 'options',
		noDataExpression: true,
		default: 'defined',
		displayOptions: { show: perItem },
		options: [
			{ name: 'Defined Below', value: 'defined', description: 'Add each product by hand' },
			{ name: 'JSON', value: 'json', description: 'An array of products, usually from an expression' },
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
						description: 'Your own identifier for this ticket;	must be unique within the listing',
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
						description: 'Product type; \'TICKET\' is the value the API documents, others are passed as typed',
					},
					{
						displayName: 'Row',
						name: 'row',
						type: 'string',
						default: '',
						placeholder: 'e.g. A',
						description: 'Row label;	required unless General Admission is on',
					},
					{
						displayName: 'Seat',
						name: 'seat',
						type: 'string',
						default: '',
						placeholder: 'e.g. 12',
						description: 'Seat label;	required unless General Admission is on',
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
		placeholder: '[{ "externalId": "7001-A-12", "row": "A", "seat": "12", "productType": "TICKET", "ga": false }]',
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
		description: 'Each range becomes one product per seat, from First Seat to Last Seat inclusive (at most 1000 a range)',
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
						description: 'How each product\'s External ID is built. Placeholders (single braces, not an n8n expression):	{listing},	{event},	{row},	{seat}. Must contain	{seat}.',
							hint:	'Row A, seats 1 to 3 of listing 7001 give 7001-A-1, 7001-A-2, 7001-A-3',
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
	{
		displayName: 'Product External ID',
		name: 'productExternalId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. {{ $json.ticketId }}',
		displayOptions: { show: perTicket },
		description: 'Your own identifier for the ticket of this item; unique within its listing',
	},
	{
		displayName: 'Row',
		name: 'productRow',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.row }}',
		displayOptions: { show: perTicket },
		description: 'Row label of this ticket; required unless General Admission is on',
	},
	{
		displayName: 'Seat',
		name: 'productSeat',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.seat }}',
		displayOptions: { show: perTicket },
		description: 'Seat label of this ticket; required unless General Admission is on',
	},
	{
		displayName: 'General Admission',
		name: 'productGa',
		type: 'boolean',
		default: false,
		displayOptions: { show: perTicket },
		description: 'Whether this ticket has no assigned row and seat (ga). Sheet text "true"/"false" is accepted.',
	},
	{
		displayName: 'Product Type',
		name: 'productType',
		type: 'string',
		default: 'TICKET',
		displayOptions: { show: perTicket },
		description: 'Product type of this ticket; "TICKET" is the value the API documents',
	},
	{
		displayName: 'Stock Type',
		name: 'stockType',
		type: 'string',
		default: 'PDF',
		description: 'Kind of ticket stock (stockType); "PDF" is the value the API documents. Separate several with commas.',
	},
	{
		displayName: 'Payment Type',
		name: 'paymentType',
		type: 'number',
		default: 1,
		description: 'Payment type code (paymentType); 1 is the value the API documents',
	},
	{
		displayName: 'Accept-Language',
		name: 'acceptLanguage',
		type: 'string',
		default: 'en-US',
		placeholder: 'e.g. en-US',
		description: 'Language tag sent in the Accept-Language header',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		description: 'Less common settings',
		options: [
			{
				displayName: 'Concurrency',
				name: 'concurrency',
				type: 'number',
				default: DEFAULT_CONCURRENCY,
				typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
				description:
					'How many listings are sent at once (1 to 10; 1 sends one after the other). The first listing is always sent alone so that the access token is fetched once.',
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
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['listing'], operation: ['create'] } },
	properties,
);

function errorItem(unit: ListingUnit, message: string, extra: IDataObject = {}): INodeExecutionData {
	return {
		json: { error: message, itemIndexes: unit.itemIndexes, ...extra },
		pairedItem: unit.itemIndexes.map((item) => ({ item })),
	};
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const units = buildListingUnits.call(this, items.length);
	const invalid = units.filter((unit) => unit.problems.length > 0);
	const continueOnFail = this.continueOnFail();

	if (invalid.length && !continueOnFail) {
		const lines = invalid.flatMap((unit) => unit.problems.map((problem) => `${unit.label}: ${problem}`));
		// A sheet with one wrong column fails on every row: show enough to fix it, and count the rest.
		const shown = lines.slice(0, MAX_PROBLEMS_LISTED);
		if (lines.length > shown.length) {
			shown.push(
				`... and ${lines.length - shown.length} more problem(s). Turn on Continue On Fail (Settings) to get one error item per invalid listing and send the valid ones.`,
			);
		}
		throw new NodeOperationError(
			this.getNode(),
			`${invalid.length} of ${units.length} listing${units.length === 1 ? '' : 's'} failed validation; nothing was sent`,
			{ description: shown.join('\n'), itemIndex: invalid[0].itemIndexes[0] },
		);
	}

	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const validateOnly = options.validateOnly === true;
	const requested = Number(options.concurrency ?? DEFAULT_CONCURRENCY);
	const concurrency = Number.isInteger(requested) ? Math.min(Math.max(requested, 1), MAX_CONCURRENCY) : DEFAULT_CONCURRENCY;

	const valid = units.filter((unit) => unit.problems.length === 0);
	const outcomes = validateOnly
		? valid.map((unit) => ({
				ok: true,
				value: {
					validateOnly: true,
					method: 'POST',
					path: LISTING_PATH,
					headers: { Accept: 'application/json', 'Content-Type': 'application/json', ...unit.headers },
					body: unit.body,
				} as unknown,
			}))
		: await runWithConcurrency(
				valid,
				concurrency,
				async (unit) =>
					await apiRequest.call(this, {
						method: 'POST',
						path: LISTING_PATH,
						body: unit.body,
						headers: unit.headers,
						itemIndex: unit.itemIndexes[0],
					}),
				!continueOnFail,
			);

	if (!continueOnFail) {
		const failedAt = outcomes.findIndex((outcome) => !outcome.ok && !('skipped' in outcome && outcome.skipped));
		if (failedAt >= 0) {
			const error = (outcomes[failedAt] as { error?: unknown }).error;
			const created = valid.filter((_, index) => outcomes[index].ok);
			const notSent = valid.filter((_, index) => 'skipped' in outcomes[index] && outcomes[index].skipped);
			const summary = [
				`Failed: ${valid[failedAt].label}.`,
				created.length
					? `Created before the failure: ${created.map((unit) => `${unit.externalListingId} (${unit.label})`).join(', ')}; do not send these again.`
					: 'No listing was created in this run.',
				notSent.length ? `Not sent: ${notSent.map((unit) => unit.label).join(', ')}.` : '',
			]
				.filter(Boolean)
				.join(' ');
			const nodeError = asNodeError(this.getNode(), error, valid[failedAt].itemIndexes[0]);
			nodeError.description = [nodeError.description, summary].filter(Boolean).join('\n');
			throw nodeError;
		}
	}

	// Results and failures come out in input order, whatever order the requests finished in.
	const resultByUnit = new Map<ListingUnit, INodeExecutionData>();
	valid.forEach((unit, index) => {
		const outcome = outcomes[index] as { ok: boolean; value?: unknown; error?: unknown };
		resultByUnit.set(
			unit,
			outcome.ok
				? { json: toOutputJson(outcome.value), pairedItem: unit.itemIndexes.map((item) => ({ item })) }
				: errorItem(unit, outcome.error instanceof Error ? outcome.error.message : String(outcome.error), {
						description: (outcome.error as { description?: string | null } | undefined)?.description ?? null,
						httpCode: (outcome.error as { httpCode?: string | null } | undefined)?.httpCode ?? null,
					}),
		);
	});
	return units.map(
		(unit) => resultByUnit.get(unit) ?? errorItem(unit, `${unit.label} failed validation`, { problems: unit.problems }),
	);
}
