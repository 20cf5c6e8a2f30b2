import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { asNodeError } from '../../helpers/errors';
import { ItemParameters } from '../../helpers/itemParameters';
import { buildListingUnits, LISTING_PATH } from '../../helpers/listingInput';
import type { InputShape, ListingUnit } from '../../helpers/listingInput';
import {
	blankRowItem,
	blankRowsNotice,
	listingItem,
	rowItems,
	stopSummary,
} from '../../helpers/listingResults';
import type { ListingResult } from '../../helpers/listingResults';
import { NotSentError, RequestPacer } from '../../helpers/pacing';
import type { PacingMode } from '../../helpers/pacing';
import {
	CONTINUE_SETTING,
	mergeProblems,
	problemLine,
	ROWS_CONVENTION,
} from '../../helpers/problems';
import { forgetSent, recordBeforeSending } from '../../helpers/sentListings';
import { headerList, missingColumns, recognisedColumns } from '../../helpers/sheetColumns';
import { apiRequest, failureOutcome, readRunCredential } from '../../transport';
import type { RunCredential } from '../../transport';

/** The most requests in flight by default; adaptive pacing finds the API's own pace below it. */
export const DEFAULT_CONCURRENCY = 16;
export const MAX_CONCURRENCY = 50;
/** Problems spelled out in the one validation error; the rest are counted. */
export const MAX_PROBLEMS_LISTED = 50;

const perItem = { inputShape: ['listingPerItem'] };
const perTicket = { inputShape: ['ticketPerItem'] };
/**
 * Fields that recognised headers replace. `hide` rather than `show`: in "Each Item Is a Listing" the Columns
 * parameter is not displayed, so it has no value to show on.
 */
const recognisedByHeader = { columnMapping: ['auto'] };

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
		displayName: 'Columns',
		name: 'columnMapping',
		type: 'options',
		noDataExpression: true,
		default: 'manual',
		displayOptions: { show: perTicket },
		options: [
			{
				name: 'Map Each Field Below',
				value: 'manual',
				description: 'Set every field, usually by dragging a sheet column onto it',
			},
			{
				name: 'Map Automatically',
				value: 'auto',
				description:
					'Recognise the sheet\'s own headers (listing_id, event_id, price, currency, row, seat, ticket_id, also as listingId or "Listing ID")',
			},
		],
		description: "How the sheet's columns map to the listing fields",
	},
	{
		displayName: `Recognised headers, compared without case, spaces, underscores or hyphens. External Listing ID: ${headerList('externalListingId')}. Event ID: ${headerList('eventId')}. Price Amount: ${headerList('priceAmount')}. Currency: ${headerList('priceCurrency')}. Product External ID: ${headerList('productExternalId')}. Row: ${headerList('productRow')}. Seat: ${headerList('productSeat')}. General Admission: ${headerList('productGa')}. Product Type: ${headerList('productType')}.`,
		name: 'autoMappingNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { ...perTicket, columnMapping: ['auto'] } },
	},
	{
		displayName: 'Event ID',
		name: 'eventId',
		type: 'number',
		required: true,
		displayOptions: { hide: recognisedByHeader },
		default: 0,
		placeholder: 'e.g. 123456',
		description:
			'Identifier of the event on the marketplace (eventId). Whole number; text such as "123456" from a sheet is accepted.',
	},
	{
		displayName: 'External Listing ID',
		name: 'externalListingId',
		type: 'number',
		required: true,
		displayOptions: { hide: recognisedByHeader },
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
		displayOptions: { hide: recognisedByHeader },
		default: 0,
		typeOptions: { numberPrecision: 2 },
		placeholder: 'e.g. 49.90',
		description:
			'Price of each product (pricePerProduct.amount). Must be greater than 0; text such as "49.90" is accepted.',
	},
	{
		displayName: 'Currency',
		name: 'priceCurrency',
		type: 'string',
		required: true,
		displayOptions: { hide: recognisedByHeader },
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
	{
		displayName: 'Product External ID',
		name: 'productExternalId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. {{ $json.ticketId }}',
		displayOptions: { show: perTicket, hide: recognisedByHeader },
		description: 'Your own identifier for the ticket of this item; unique within its listing',
	},
	{
		displayName: 'Row',
		name: 'productRow',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.row }}',
		displayOptions: { show: perTicket, hide: recognisedByHeader },
		description: 'Row label of this ticket; required unless General Admission is on',
	},
	{
		displayName: 'Seat',
		name: 'productSeat',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.seat }}',
		displayOptions: { show: perTicket, hide: recognisedByHeader },
		description: 'Seat label of this ticket; required unless General Admission is on',
	},
	{
		displayName: 'General Admission',
		name: 'productGa',
		type: 'boolean',
		default: false,
		displayOptions: { show: perTicket, hide: recognisedByHeader },
		description:
			'Whether this ticket has no assigned row and seat (ga). Sheet text "true"/"false" is accepted.',
	},
	{
		displayName: 'Product Type',
		name: 'productType',
		type: 'string',
		default: 'TICKET',
		displayOptions: { show: perTicket, hide: recognisedByHeader },
		description: 'Product type of this ticket; "TICKET" is the value the API documents',
	},
	{
		displayName: 'Stock Type',
		name: 'stockType',
		type: 'string',
		default: 'PDF',
		description:
			'Kind of ticket stock (stockType); "PDF" is the value the API documents. Separate several with commas.',
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
				displayName: 'Concurrency Mode',
				name: 'concurrencyMode',
				type: 'options',
				default: 'adaptive',
				options: [
					{
						name: 'Adaptive',
						value: 'adaptive',
						description:
							"Find the API's pace: more requests at once while it answers, fewer on 429 (Retry-After honoured) or slower answers, never more than Max Concurrency",
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
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['listing'], operation: ['create'] } },
	properties,
);

interface SendSettings {
	validateOnly: boolean;
	mode: PacingMode;
	maxConcurrency: number;
	skipAlreadySent: boolean;
	perRow: boolean;
}

function readSendSettings(options: IDataObject): SendSettings {
	const requested = Number(options.concurrency ?? DEFAULT_CONCURRENCY);
	return {
		validateOnly: options.validateOnly === true,
		mode: options.concurrencyMode === 'fixed' ? 'fixed' : 'adaptive',
		maxConcurrency: Number.isInteger(requested)
			? Math.min(Math.max(requested, 1), MAX_CONCURRENCY)
			: DEFAULT_CONCURRENCY,
		skipAlreadySent: options.skipAlreadySent !== false,
		perRow: options.output === 'row',
	};
}

async function sendListings(
	context: IExecuteFunctions,
	units: ListingUnit[],
	settings: SendSettings,
	credential: RunCredential,
	stopOnFailure: boolean,
	results: Map<ListingUnit, ListingResult>,
): Promise<void> {
	const pacer = new RequestPacer(settings.mode, settings.maxConcurrency, stopOnFailure);
	await Promise.all(
		units.map(async (unit) => {
			try {
				const response = await apiRequest.call(context, {
					method: 'POST',
					path: LISTING_PATH,
					body: unit.body,
					headers: unit.headers,
					itemIndex: unit.itemIndexes[0],
					pacer,
					credential,
				});
				results.set(unit, { status: 'created', response });
			} catch (error) {
				if (error instanceof NotSentError) {
					results.set(unit, { status: 'notSent' });
					return;
				}
				// Without Continue On Fail the pacer has stopped: requests in flight finish and are reported.
				results.set(unit, { status: 'failed', error, outcome: failureOutcome(error) });
			}
		}),
	);
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const shape = this.getNodeParameter('inputShape', 0, 'listingPerItem') as InputShape;
	const params = new ItemParameters(this, items);
	const autoColumns =
		shape === 'ticketPerItem' && this.getNodeParameter('columnMapping', 0, 'manual') === 'auto';
	const source = autoColumns && items.length > 0 ? recognisedColumns(this, items, params) : params;
	const { units, blankItemIndexes } = buildListingUnits(source, items.length, shape);
	const invalid = units.filter((unit) => unit.problems.length > 0);
	const continueOnFail = this.continueOnFail();
	if (blankItemIndexes.length) {
		this.addExecutionHints({ message: blankRowsNotice(blankItemIndexes), location: 'outputPane' });
	}

	if (invalid.length && !continueOnFail) {
		const columns = missingColumns(items, source, new Set(blankItemIndexes));
		const lines = mergeProblems(invalid.flatMap((unit) => unit.problems)).map(problemLine);
		// A sheet with one wrong column fails on every row: show enough to fix it, and count the rest.
		const shown = lines.slice(0, MAX_PROBLEMS_LISTED);
		if (lines.length > shown.length)
			shown.push(`... and ${lines.length - shown.length} more problem(s).`);
		const noun = units.length === 1 ? 'listing' : 'listings';
		throw new NodeOperationError(
			this.getNode(),
			`${invalid.length} of ${units.length} ${noun} failed validation; nothing was sent`,
			{
				description: [
					...columns,
					...shown,
					`To send the valid listings and get one error item per invalid one, set ${CONTINUE_SETTING}.`,
					ROWS_CONVENTION,
					...(blankItemIndexes.length ? [blankRowsNotice(blankItemIndexes)] : []),
				].join('\n'),
				itemIndex: invalid[0].itemIndexes[0],
			},
		);
	}

	const settings = readSendSettings(this.getNodeParameter('options', 0, {}) as IDataObject);
	const valid = units.filter((unit) => unit.problems.length === 0);
	const results = new Map<ListingUnit, ListingResult>();
	for (const unit of invalid) results.set(unit, { status: 'invalid' });

	if (settings.validateOnly) {
		return units.map((unit) =>
			unit.problems.length
				? listingItem(unit, { status: 'invalid' })
				: {
						json: {
							validateOnly: true,
							method: 'POST',
							path: LISTING_PATH,
							headers: {
								Accept: 'application/json',
								'Content-Type': 'application/json',
								...unit.headers,
							},
							body: unit.body,
						},
						pairedItem: unit.itemIndexes.map((item) => ({ item })),
					},
		);
	}

	let toSend = valid;
	// Read once for the run rather than once per request.
	const credential = valid.length > 0 ? await readRunCredential.call(this) : undefined;
	const baseUrl = credential?.baseUrl ?? '';
	if (settings.skipAlreadySent && valid.length > 0) {
		// Recorded before sending: a run that dies half-way must not leave a created listing unremembered.
		const alreadySent = await recordBeforeSending(
			this,
			baseUrl,
			valid.map((unit) => unit.externalListingId as number),
		);
		toSend = valid.filter((unit) => {
			if (!alreadySent.has(unit.externalListingId as number)) return true;
			results.set(unit, { status: 'skipped' });
			return false;
		});
	}

	if (credential) await sendListings(this, toSend, settings, credential, !continueOnFail, results);

	if (settings.skipAlreadySent && valid.length > 0) {
		const provablyNotCreated = toSend.filter((unit) => {
			const result = results.get(unit);
			return (
				result?.status === 'notSent' ||
				(result?.status === 'failed' && result.outcome === 'refused')
			);
		});
		await forgetSent(
			this,
			baseUrl,
			provablyNotCreated.map((unit) => unit.externalListingId as number),
		);
	}

	if (!continueOnFail) {
		const firstFailed = units.find((unit) => results.get(unit)?.status === 'failed');
		if (firstFailed) {
			const error = (results.get(firstFailed) as { error: unknown }).error;
			const nodeError = asNodeError(this.getNode(), error, firstFailed.itemIndexes[0]);
			nodeError.description = [
				nodeError.description,
				stopSummary(units, results, settings.skipAlreadySent),
			]
				.filter(Boolean)
				.join('\n');
			throw nodeError;
		}
	}

	// Results come out in input order, whatever order the requests finished in.
	if (settings.perRow) {
		const byRow = new Array<INodeExecutionData>(items.length);
		for (const unit of units) {
			for (const [itemIndex, item] of rowItems(
				items,
				unit,
				results.get(unit) ?? { status: 'notSent' },
			))
				byRow[itemIndex] = item;
		}
		for (const itemIndex of blankItemIndexes) {
			byRow[itemIndex] = blankRowItem(items, itemIndex);
		}
		return byRow;
	}
	return units.map((unit) => listingItem(unit, results.get(unit) ?? { status: 'notSent' }));
}
