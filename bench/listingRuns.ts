/**
 * Runs the action node's real execute() (Listing -> Create) against a sandbox, through the unit tests' fake
 * IExecuteFunctions (support/fakeN8n/actionContext.ts), whose httpRequestWithAuthentication is n8n-core's own and
 * drives our real credential: token exchange once, Bearer header, renewal after a 401.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { TicketMarketplace } from '../nodes/TicketMarketplace/TicketMarketplace.node';
import { SANDBOX_DEFAULTS } from '../sandbox/index';
import type { Sandbox } from '../sandbox/index';
import { column, fakeRun, sheetRows } from '../support/fakeN8n/actionContext';

export type ListingShape = 'grouped' | 'ungrouped';

export interface ListingCase {
	shape: ListingShape;
	items: INodeExecutionData[];
	/** How many listings the items make. */
	listings: number;
}

const FIRST_EXTERNAL_LISTING_ID = 7001;
const node = new TicketMarketplace();

/** Sheet rows as a spreadsheet node hands them over (every cell text), `rowsPerListing` consecutive rows a listing. */
export function groupedCase(rows: number, rowsPerListing: number): ListingCase {
	const items = sheetRows(
		Array.from({ length: rows }, (_, index) => {
			const listing = FIRST_EXTERNAL_LISTING_ID + Math.floor(index / rowsPerListing);
			// One seat per listing: a seat in two listings of one event is refused before sending.
			const seat = String(index + 1);
			return {
				listing: String(listing),
				event: '4242',
				price: '49.90',
				currency: 'eur',
				row: 'A',
				seat,
				ticket: `${listing}-A-${seat}`,
			};
		}),
	);
	return { shape: 'grouped', items, listings: Math.ceil(rows / rowsPerListing) };
}

/** One item per listing, its one ticket given as a JSON array (as from an expression such as {{ $json.tickets }}). */
export function ungroupedCase(count: number): ListingCase {
	const items = Array.from({ length: count }, (_, index) => {
		const listing = FIRST_EXTERNAL_LISTING_ID + index;
		return {
			json: {
				listing,
				event: 4242,
				price: 49.9,
				currency: 'EUR',
				tickets: [{ externalId: `${listing}-A-1`, row: 'A', seat: String(listing) }],
			},
		};
	});
	return { shape: 'ungrouped', items, listings: count };
}

function parametersFor(
	shape: ListingShape,
	options: { concurrency: number; validateOnly: boolean },
) {
	const common = {
		resource: 'listing',
		operation: 'create',
		eventId: column('event'),
		externalListingId: column('listing'),
		priceAmount: column('price'),
		priceCurrency: column('currency'),
		stockType: 'PDF',
		paymentType: 1,
		acceptLanguage: 'en-US',
		options,
	};
	if (shape === 'grouped') {
		return {
			...common,
			inputShape: 'ticketPerItem',
			productExternalId: column('ticket'),
			productRow: column('row'),
			productSeat: column('seat'),
			productGa: false,
			productType: 'TICKET',
		};
	}
	return {
		...common,
		inputShape: 'listingPerItem',
		productsSource: 'json',
		productsJson: column('tickets'),
	};
}

export interface ListingRun {
	wallMs: number;
	output: INodeExecutionData[];
	/** Token exchanges the credential made (preAuthentication calls) during the run. */
	tokenRequests: number;
}

/** One execute() of the node over `listingCase`, with the sandbox's demo credentials and a fresh (empty) token. */
export async function runListingCreate(
	sandbox: Sandbox,
	listingCase: ListingCase,
	options: { concurrency: number; validateOnly?: boolean },
): Promise<ListingRun> {
	const run = fakeRun({
		items: listingCase.items,
		parameters: parametersFor(listingCase.shape, {
			concurrency: options.concurrency,
			validateOnly: options.validateOnly ?? false,
		}),
	});
	// The fake's credential points at a nock host; aim it at the sandbox and its demo app and account instead.
	Object.assign(run.stored, {
		baseUrl: sandbox.url,
		consumerKey: SANDBOX_DEFAULTS.consumerKey,
		consumerSecret: SANDBOX_DEFAULTS.consumerSecret,
		email: SANDBOX_DEFAULTS.marketplaceAccount.email,
		password: SANDBOX_DEFAULTS.marketplaceAccount.password,
	});
	const started = performance.now();
	const [output] = await node.execute.call(run.context);
	return { wallMs: performance.now() - started, output, tokenRequests: run.tokenRequests() };
}

/** Output items that report a failure instead of a created (or validated) listing. */
export function failedItems(output: INodeExecutionData[]): INodeExecutionData[] {
	return output.filter((item) => item.json.error !== undefined);
}
