import type {
	NodeExecutionHint,
	IDataObject,
	IAdditionalCredentialOptions,
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import {
	httpRequest,
	httpRequestWithAuthentication,
} from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';

import { apiCredentialsHelper } from './apiCredentialsHelper';
import { withTokenIssued } from './issuedToken';

export const BASE = 'https://partner.api.test';
export const API_CREDENTIALS = {
	baseUrl: `${BASE}/`,
	consumerKey: 'ck-unit',
	consumerSecret: 'cs-unit-secret',
	email: 'seller@example.test',
	password: 'marketplace-password',
	accessToken: '',
};
/** The run memory's account for API_CREDENTIALS (its keys name the API and the account). */
export const MEMORY_ACCOUNT = { baseUrl: BASE, email: API_CREDENTIALS.email };
export const CALLBACK_CREDENTIALS = {
	clientId: 'marketplace-client',
	clientSecret: 'callback-secret-4f9a',
};

export type ParameterValue =
	| unknown
	| ((itemIndex: number, json: Record<string, unknown>) => unknown);

/** A parameter function may say which expression it stands for; the node sees that raw text, as in n8n. */
type ParameterFunction = ((itemIndex: number, json: Record<string, unknown>) => unknown) & {
	expression?: string;
};

/**
 * What n8n's checkProcessedAndRecord answers for values against what a store holds: those it did not hold are new
 * (and now held), the others were processed.
 */
export function recordValues<T extends string | number>(
	values: T[],
	held: { has(value: string): boolean; add(value: string): unknown },
): { new: T[]; processed: T[] } {
	const result = { new: [] as T[], processed: [] as T[] };
	for (const value of values) {
		if (held.has(String(value))) result.processed.push(value);
		else {
			held.add(String(value));
			result.new.push(value);
		}
	}
	return result;
}

/** n8n's deduplication store, in memory: values per scope, as checkProcessedAndRecord keeps them. */
export class MemoryDeduplicationStore {
	readonly entries = new Map<string, Set<string>>();
	calls: Array<{ method: string; values: Array<string | number> }> = [];

	private scope(scope: string): Set<string> {
		const existing = this.entries.get(scope) ?? new Set<string>();
		this.entries.set(scope, existing);
		return existing;
	}

	/** `caller` tags the calls of one run where a store model tells runs apart. */
	helpers(_caller?: string) {
		return {
			checkProcessedAndRecord: async (values: Array<string | number>, scope: string) => {
				this.calls.push({ method: 'checkProcessedAndRecord', values });
				return recordValues(values, this.scope(scope));
			},
			removeProcessed: async (values: Array<string | number>, scope: string) => {
				this.calls.push({ method: 'removeProcessed', values });
				for (const value of values) this.scope(scope).delete(String(value));
			},
			clearAllProcessedItems: async (scope: string) => {
				this.calls.push({ method: 'clearAllProcessedItems', values: [] });
				this.entries.delete(scope);
			},
			getProcessedDataCount: async (scope: string) => this.scope(scope).size,
		};
	}
}

export interface FakeRunOptions {
	items?: INodeExecutionData[];
	parameters: Record<string, ParameterValue>;
	continueOnFail?: boolean;
	accessToken?: string;
	callbackCredentials?: ICredentialDataDecryptedObject;
	/** Overrides of the API credential, e.g. the sandbox's URL and demo app. */
	apiCredentials?: Partial<typeof API_CREDENTIALS>;
	/** n8n's deduplication store; a fresh one per run unless a test shares one across runs. */
	deduplication?: MemoryDeduplicationStore;
	/** Who this run is to the deduplication store (overlapping runs share one store). */
	deduplicationCaller?: string;
	/** Settings → On Error, as n8n keeps it on the node. */
	onError?: INode['onError'];
	/** Settings → Retry On Fail. */
	retryOnFail?: boolean;
	/** The execution's cancel signal (n8n aborts it on Stop and on the workflow timeout). */
	cancelSignal?: AbortSignal;
	/** The node's version (1 unless a test says otherwise). */
	typeVersion?: number;
}

export interface FakeRun {
	context: IExecuteFunctions;
	/** What n8n would have stored in the credential (the token after preAuthentication). */
	stored: ICredentialDataDecryptedObject;
	tokenRequests: () => number;
	deduplication: MemoryDeduplicationStore;
	/** How often the node read each credential type. */
	credentialReads: Record<string, number>;
	/** What the node showed in the output pane (addExecutionHints). */
	hints: NodeExecutionHint[];
}

/** The action node as a workflow holds it, before its parameters. */
export const ACTION_NODE: INode = {
	id: 'node-1',
	name: 'Ticket Marketplace',
	type: 'n8n-nodes-ticket-marketplace.ticketMarketplace',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/**
 * An IExecuteFunctions whose parameters come from a table and whose httpRequestWithAuthentication is n8n-core's
 * real one, driving our real credential (preAuthentication, Bearer header, one renewal after a 401) through a
 * credentials helper that stores the token as n8n does. Requests are real HTTP, so nock sees them.
 */
export function fakeRun(options: FakeRunOptions): FakeRun {
	const items = options.items ?? [{ json: {} }];
	const login: ICredentialDataDecryptedObject = {
		...API_CREDENTIALS,
		...options.apiCredentials,
		accessToken: options.accessToken ?? '',
	};
	// A stored token is one n8n got for this login (the credential's hidden field says so), unless a test sets it.
	const stored =
		login.accessToken !== '' && login.refreshToken === undefined
			? withTokenIssued(login, String(login.accessToken))
			: login;
	const { credentialsHelper, savedTokens } = apiCredentialsHelper(stored);
	const deduplication = options.deduplication ?? new MemoryDeduplicationStore();
	// What n8n keeps in node.parameters: constants as they are, expressions as their raw text.
	const rawParameters = Object.fromEntries(
		Object.entries(options.parameters).map(([name, value]) => [
			name,
			typeof value === 'function'
				? ((value as ParameterFunction).expression ?? `={{ /* ${name} set by the test */ $json }}`)
				: value,
		]),
	);
	const node: INode = {
		...ACTION_NODE,
		typeVersion: options.typeVersion ?? ACTION_NODE.typeVersion,
		parameters: rawParameters as INode['parameters'],
		...(options.onError && { onError: options.onError }),
		...(options.retryOnFail && { retryOnFail: true }),
	};
	const additionalData = { credentialsHelper } as unknown as IWorkflowExecuteAdditionalData;

	const resolve = (value: unknown, itemIndex: number) =>
		typeof value === 'function'
			? (value as ParameterFunction)(itemIndex, items[itemIndex]?.json ?? {})
			: value;
	const getNodeParameter = (name: string, itemIndex: number, fallback?: unknown) => {
		if (name in options.parameters) return resolve(options.parameters[name], itemIndex);
		// A path such as `options.stockType` reads inside a collection, as n8n's getNodeParameter does.
		const [first, ...rest] = name.split('.');
		let value: unknown = rest.length > 0 ? options.parameters[first] : undefined;
		for (const key of rest) {
			value =
				value !== null && typeof value === 'object'
					? (value as Record<string, unknown>)[key]
					: undefined;
		}
		if (value !== undefined) return resolve(value, itemIndex);
		if (fallback !== undefined) return fallback;
		throw new Error(`Test did not set parameter "${name}"`);
	};

	const credentialReads: Record<string, number> = {};
	const hints: NodeExecutionHint[] = [];
	const context = {
		getInputData: () => items,
		getNode: () => node,
		getNodeParameter,
		continueOnFail: () => options.continueOnFail ?? false,
		getExecutionCancelSignal: () => options.cancelSignal,
		addExecutionHints: (...added: NodeExecutionHint[]) => hints.push(...added),
		getCredentials: async (type: string) => {
			credentialReads[type] = (credentialReads[type] ?? 0) + 1;
			if (type === 'ticketMarketplaceApi') return { ...stored };
			if (type === 'ticketMarketplaceCallbackApi' && options.callbackCredentials)
				return { ...options.callbackCredentials };
			throw new Error(
				`Node "Ticket Marketplace" does not have any credentials of type "${type}" set`,
			);
		},
		helpers: {} as IExecuteFunctions['helpers'],
	} as unknown as IExecuteFunctions;
	context.helpers = {
		...deduplication.helpers(options.deduplicationCaller),
		httpRequest,
		async httpRequestWithAuthentication(
			this: IExecuteFunctions,
			type: string,
			request: IHttpRequestOptions,
			additionalCredentialOptions?: IAdditionalCredentialOptions,
		) {
			return await httpRequestWithAuthentication.call(
				this as never,
				type,
				request,
				{} as Workflow,
				node,
				additionalData,
				additionalCredentialOptions,
			);
		},
	} as unknown as IExecuteFunctions['helpers'];

	return {
		context,
		stored,
		tokenRequests: () => savedTokens.length,
		deduplication,
		credentialReads,
		hints,
	};
}

/** Items as a sheet node hands them over: every cell is text. */
/**
 * One listing per item with the given External Listing IDs, one event, each listing with a seat of its own (a seat
 * in two listings of one event is refused before sending), sent at a fixed concurrency of 1 unless options say.
 */
export function oneSeatListings(
	ids: number[],
	options: IDataObject = {},
): { items: INodeExecutionData[]; parameters: Record<string, ParameterValue> } {
	return {
		items: ids.map((id) => ({ json: { id } })),
		parameters: {
			inputShape: 'listingPerItem',
			eventId: 55,
			externalListingId: (itemIndex: number) => ids[itemIndex],
			priceAmount: 10,
			priceCurrency: 'EUR',
			productsSource: 'defined',
			products: (itemIndex: number) => ({
				product: [{ externalId: 'A-1', row: 'A', seat: String(ids[itemIndex]) }],
			}),
			options: { concurrencyMode: 'fixed', concurrency: 1, ...options },
		},
	};
}

/** IDs 1..count. */
export const idsUpTo = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

export function sheetRows(rows: Array<Record<string, string>>): INodeExecutionData[] {
	return rows.map((json) => ({ json }));
}

/** Parameters that read a column of the current item, as an expression such as {{ $json.seat }} would. */
export function column(name: string): ParameterFunction {
	const read: ParameterFunction = (_itemIndex: number, json: Record<string, unknown>) => json[name];
	read.expression = `={{ $json.${name} }}`;
	return read;
}

/**
 * Listing → Create as examples/sheet-to-listings.workflow.json maps a sheet: one ticket a row, each field read from its
 * column (listing_id, event_id, price, currency, ticket_id, row, seat); without the memory of listings sent.
 */
export const EXAMPLE_SHEET_PARAMETERS: Record<string, ParameterValue> = {
	inputShape: 'ticketPerItem',
	columnMapping: 'manual',
	externalListingId: column('listing_id'),
	eventId: column('event_id'),
	priceAmount: column('price'),
	priceCurrency: column('currency'),
	productExternalId: column('ticket_id'),
	productRow: column('row'),
	productSeat: column('seat'),
	options: { skipAlreadySent: false },
};

/** Listing → Create in the grouped sheet mode, every value read from a column of the row as a sheet workflow sets it. */
export const GROUPED_SHEET_PARAMETERS: Record<string, ParameterValue> = {
	inputShape: 'ticketPerItem',
	eventId: column('event'),
	externalListingId: column('listing'),
	priceAmount: column('price'),
	priceCurrency: column('currency'),
	productExternalId: column('ticket'),
	productRow: column('row'),
	productSeat: column('seat'),
	productGa: column('ga'),
	productType: 'TICKET',
	stockType: 'PDF',
	paymentType: 1,
	acceptLanguage: 'en-US',
	options: {},
};
