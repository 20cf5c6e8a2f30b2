/**
 * Listing → Pre-deliver Tickets driven as the hostile reviews drive it: the real execute(), Create's real execute()
 * and memory, n8n-core's request helpers and nock.
 */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { PARTNER_API_PATHS } from '../nodes/shared/partnerApi/paths';
import { execute as create } from '../nodes/TicketMarketplace/actions/listing/create.operation';
import { execute as preDeliver } from '../nodes/TicketMarketplace/actions/listing/preDeliver.operation';
import { BASE, column, fakeRun, MemoryDeduplicationStore } from './fakeN8n/actionContext';
import type { FakeRunOptions, ParameterValue } from './fakeN8n/actionContext';
import { withBinaryHelpers } from './fakeN8n/binaryItems';
import { grantTokens } from './partnerApiNock';

export interface Upload {
	path: string;
	body: string;
}

/** The upload endpoint answers `status` and `answer`; each request's path and body (latin1) fill the array. */
export function acceptUploads(
	status = 200,
	answer: unknown = { ok: true },
	headers: Record<string, string> = { 'Content-Type': 'application/json' },
	times = 10,
): Upload[] {
	const uploads: Upload[] = [];
	nock(BASE)
		.post(/^\/sellers\/listings\/pdf\/v3\//)
		.times(times)
		.reply((path, body) => {
			uploads.push({ path, body: Buffer.from(String(body), 'hex').toString('latin1') });
			return [status, answer as nock.Body, headers];
		});
	return uploads;
}

/** The products of an upload's `listing` part. */
export const productsOf = (upload: Upload) =>
	JSON.parse(/\r\n\r\n(\{"products".*?\})\r\n--/s.exec(upload.body)![1]).products as IDataObject[];

export const BY_MARKETPLACE_ID = {
	binaryPropertyName: 'data',
	listingId: column('listing'),
	generalAdmission: column('ga'),
	row: column('row'),
	seat: column('seat'),
	options: { concurrencyMode: 'fixed', concurrency: 1 },
};
export const BY_EXTERNAL_ID = {
	...BY_MARKETPLACE_ID,
	listingBy: 'externalId',
	externalListingId: column('listing'),
};

export function run(
	items: INodeExecutionData[],
	options: Partial<FakeRunOptions> = {},
	parameters: Record<string, ParameterValue> = BY_MARKETPLACE_ID,
) {
	const fake = fakeRun({ parameters, items, ...options });
	withBinaryHelpers(fake.context, items);
	return { fake, output: async () => await preDeliver.call(fake.context, items) };
}

/** Listing → Create over sheet rows (columns listing, ticket, row, seat, ga), one listing at a time, with `options`. */
export function createParameters(options: IDataObject): Record<string, ParameterValue> {
	return {
		inputShape: 'ticketPerItem',
		eventId: 55,
		externalListingId: column('listing'),
		priceAmount: 10,
		priceCurrency: 'EUR',
		productExternalId: column('ticket'),
		productRow: column('row'),
		productSeat: column('seat'),
		productGa: column('ga'),
		options: { concurrencyMode: 'fixed', concurrency: 1, ...options },
	};
}

/** Listing → Create (Remember Listings for Pre-Deliver on) of listing 7, seats, answered with `id`. */
export async function createSeven(store: MemoryDeduplicationStore, id = 'lst_7') {
	grantTokens('tok-create');
	nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, { id, externalListingId: 7 });
	const items = [
		{ json: { listing: 7, ticket: 'T1', row: 'A', seat: '1' } },
		{ json: { listing: 7, ticket: 'T2', row: 'A', seat: '2' } },
	];
	const parameters = createParameters({ rememberForPreDeliver: true });
	const fake = fakeRun({ parameters, items, deduplication: store });
	await create.call(fake.context, items);
	expect(nock.pendingMocks()).toEqual([]);
}

/**
 * Whether n8n sends an output item to the error output of a node set to "Continue (using error output)": as
 * n8n-core's WorkflowExecute.handleNodeErrorOutput decides it (an `error`, alone or beside a non-empty `message`).
 */
export function goesToErrorOutput({ json }: INodeExecutionData): boolean {
	const keys = Object.keys(json).length;
	return !!json.error && (keys === 1 || (keys === 2 && !!json.message));
}
