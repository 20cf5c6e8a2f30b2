/**
 * Every message the nodes and credentials can raise, held to one shape (n8n's rule: the title says what happened,
 * the description what to do): a title of one line and at most 100 characters; a description that says what to do;
 * lists bounded (fed 400 IDs, the text stays short and says "and N more"); no internal words; no secret.
 *
 * Each message is produced through the real code (execute() with n8n-core's request helper against nock, the
 * credential's token exchange, the trigger's webhooks) or through the builder the code itself calls, never copied.
 */
import nock from 'nock';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestHelper,
	INode,
	INodeExecutionData,
	IWebhookFunctions,
	NodeExecutionHint,
} from 'n8n-workflow';
import { httpRequest } from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';

import { TicketMarketplaceApi } from '../../../credentials/TicketMarketplaceApi.credentials';
import { execute as create } from '../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { execute as forget } from '../../../nodes/TicketMarketplace/actions/listing/forgetSent.operation';
import { execute as subscribe } from '../../../nodes/TicketMarketplace/actions/webhook/subscribe/execute';
import { router } from '../../../nodes/TicketMarketplace/actions/router';
import {
	blankRowsNotice,
	outputItems,
} from '../../../nodes/TicketMarketplace/actions/listing/create/output';
import { sentListingKey } from '../../../nodes/TicketMarketplace/actions/listing/memory/sentListings';
import {
	memoryError,
	nearCapWords,
} from '../../../nodes/TicketMarketplace/actions/listing/memory/memoryMessages';
import {
	failureOf,
	MemoryFailureError,
} from '../../../nodes/TicketMarketplace/actions/listing/memory/memoryFailure';
import { classifyFailure } from '../../../nodes/TicketMarketplace/transport/httpFailure';
import type { HttpFailure } from '../../../nodes/TicketMarketplace/transport/attempt';
import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';
import {
	readAcceptedKinds,
	readTokenLifetime,
} from '../../../nodes/TicketMarketplaceTrigger/options';
import { testCallbackCredential } from '../../../nodes/shared/callbackCredential';
import type { ParameterValue } from '../../../support/fakeN8n/actionContext';
import {
	ACTION_NODE,
	API_CREDENTIALS,
	BASE,
	CALLBACK_CREDENTIALS,
	fakeRun,
	idsUpTo,
	MEMORY_ACCOUNT,
	MemoryDeduplicationStore,
	oneSeatListings,
} from '../../../support/fakeN8n/actionContext';
import { runRecorded } from '../../../support/fakeN8n/recordingResponse';
import { echoedForms, everyText } from '../../../support/errorScan';

const LISTINGS = PARTNER_API_PATHS.listings;
const TOKEN = PARTNER_API_PATHS.grant;
/** How many listings a "big sheet" row feeds: its lists must stay short. */
const MANY = 400;

/** Values that must never be shown (the API credential's and the callback credential's secrets). */
const SECRETS = [
	API_CREDENTIALS.consumerSecret,
	API_CREDENTIALS.password,
	CALLBACK_CREDENTIALS.clientSecret,
	Buffer.from(`${API_CREDENTIALS.consumerKey}:${API_CREDENTIALS.consumerSecret}`).toString(
		'base64',
	),
];

// ---------------------------------------------------------------------------------------------------------------
// The shape

/** Where a message is shown: an error (title and description), an item's fields, a notice, a credential test. */
type Where = 'error' | 'item' | 'notice' | 'credential test' | 'answer to the marketplace';

interface Shown {
	where: Where;
	title: string;
	/** What to do. A notice is one text, which must say it itself. */
	description?: string | null;
	/** Everything the user or a later node can see (for secrets). */
	whole: unknown;
}

interface Row {
	name: string;
	produce: () => Promise<Shown | Shown[]>;
	/** The row feeds this many more IDs than a list may show: the text says "and N more". */
	moreThanShown?: number;
	/** Words this message must carry (it names the failure as such). */
	names?: RegExp[];
	/** Words it must not carry. */
	never?: RegExp[];
	/** Says how things are, with nothing left to do (a listing not remembered, nothing to forget). */
	informational?: boolean;
}

const MAX_TITLE = 100;
const MAX_NOTICE = 600;
/** A bounded message stays well below this, whatever the number of listings. */
const MAX_BOUNDED_TEXT = 2500;

/** Words of what to do, as the descriptions say it. */
const ADVICE =
	/\b(check|set|type|copy|run|look|forget|fix|lower|choose|use|open|add|take|start|wait|e-mail|ask|correct|map|give|keep|rename|switch|leave|send|subscribe|remove|try|make|move|put|write|split|create|delete|activate)\b/i;

/** Words of the code, not of the user; advice that contradicts the rest; checks the node offers no way to do. */
const DENIED: RegExp[] = [
	/young end/i,
	/rewrote it/i,
	/times in a row/i,
	/\b(a|the|its|this|that|each|every|another run's) looks?\b/i,
	/\bmarkers?\b/i,
	/RequestResult|tokenExchange|preAuthentication|httpRequest|refusedAfterRenewal/,
	/\bundefined\b|\[object Object\]|\bNaN\b/,
	/check (it |them )?before (re-?running|sending)/i,
	/turn(ing)? (it )?off[^.]*Skip Listings Already Sent|Skip Listings Already Sent[^.]*turn(ed)? off/i,
	/\bin flight\b|\bround trip\b|\b429s\b/i,
];

function sentences(text: string): { title: string; description: string } {
	const cut = text.indexOf('. ');
	return cut < 0
		? { title: text, description: '' }
		: { title: text.slice(0, cut), description: text.slice(cut + 2) };
}

function ofError(error: unknown): Shown {
	const thrown = error as { message?: string; description?: string | null };
	return {
		where: 'error',
		title: String(thrown?.message),
		description: thrown?.description ?? null,
		whole: error,
	};
}

/** An output item's words: its error (else its status) as the title, its message or description as what to do. */
function ofItem(item: INodeExecutionData | IDataObject): Shown {
	const json = ('json' in item ? item.json : item) as IDataObject;
	const detail = (json.listingError ?? json) as IDataObject;
	const title = detail.error ?? json.status ?? json.listingStatus ?? detail.message;
	const description =
		detail.error !== undefined
			? (detail.message ?? detail.description)
			: title === detail.message
				? undefined
				: (detail.message ?? json.listingMessage);
	return {
		where: 'item',
		title: String(title),
		description: description === undefined || description === null ? null : String(description),
		whole: json,
	};
}

function ofNotice(hint: NodeExecutionHint | string): Shown {
	const message = typeof hint === 'string' ? hint : hint.message;
	return { where: 'notice', title: message, description: message, whole: hint };
}

function check(row: Row, shown: Shown): void {
	const text = `${shown.title}\n${shown.description ?? ''}`;
	const problems: string[] = [];
	if (shown.where === 'notice') {
		if (shown.title.length > MAX_NOTICE)
			problems.push(`notice of ${shown.title.length} characters`);
	} else {
		if (/\n/.test(shown.title)) problems.push('title of more than one line');
		if (shown.title.length > MAX_TITLE) problems.push(`title of ${shown.title.length} characters`);
	}
	if (shown.where !== 'answer to the marketplace' && !row.informational) {
		if (!shown.description?.trim()) problems.push('no description');
		else if (!ADVICE.test(shown.description))
			problems.push('a description that says nothing to do');
	}
	for (const denied of [...DENIED, ...(row.never ?? [])])
		if (denied.test(text)) problems.push(`says ${String(denied)}: "${text.match(denied)?.[0]}"`);
	for (const wanted of row.names ?? [])
		if (!wanted.test(text)) problems.push(`does not say ${String(wanted)}`);
	if (row.moreThanShown !== undefined) {
		if (!text.includes(`and ${row.moreThanShown} more`))
			problems.push(`no "and ${row.moreThanShown} more"`);
		if (text.length > MAX_BOUNDED_TEXT) problems.push(`${text.length} characters for one list`);
	}
	const seen = everyText(shown.whole).join('\n');
	for (const secret of SECRETS)
		for (const [form, echo] of Object.entries(echoedForms(secret)))
			if (echo.length >= 6 && seen.includes(echo))
				problems.push(`shows a secret (${form}) "${echo.slice(0, 4)}…"`);
	if (problems.length)
		throw new Error(
			`${shown.where} "${shown.title.slice(0, 160)}": ${problems.join('; ')}\n--- description ---\n${String(shown.description).slice(0, 1500)}`,
		);
}

// ---------------------------------------------------------------------------------------------------------------
// The real code paths

const node: INode = ACTION_NODE;

function tokenEndpoint(base = BASE) {
	return nock(base).post(TOKEN).query(true);
}

function tokenIssued(times = 10) {
	tokenEndpoint().times(times).reply(200, { access_token: 'tok-messages-0123456789' });
}

/** Listings 1..count (one per item); the API answers each with `answer`. */
async function createRun(
	count: number,
	options: {
		answer?: (id: number) => nock.ReplyFnResult;
		continueOnFail?: boolean;
		onError?: INode['onError'];
		output?: 'listing' | 'row';
		store?: MemoryDeduplicationStore;
		parameters?: Record<string, ParameterValue>;
		items?: INodeExecutionData[];
		concurrency?: number;
	} = {},
) {
	const { items, parameters } = oneSeatListings(idsUpTo(count), {
		...(options.output && { output: options.output }),
		...(options.concurrency && { concurrency: options.concurrency }),
	});
	if (options.answer) {
		const answer = options.answer;
		nock(BASE)
			.post(LISTINGS)
			.times(count * 10)
			.reply((_uri, body) => answer(Number((body as IDataObject).externalListingId)));
	}
	const fake = fakeRun({
		parameters: { ...parameters, ...options.parameters },
		items: options.items ?? items,
		deduplication: options.store ?? new MemoryDeduplicationStore(),
		continueOnFail: options.continueOnFail ?? options.onError !== undefined,
		onError: options.onError,
	});
	const run = await create.call(fake.context, options.items ?? items).then(
		(output) => ({ output, thrown: undefined }),
		(thrown: unknown) => ({ output: undefined, thrown }),
	);
	return { ...run, hints: fake.hints };
}

async function thrownBy(run: Promise<{ thrown?: unknown; output?: unknown }>): Promise<Shown> {
	const { thrown, output } = await run;
	if (thrown === undefined)
		throw new Error(`expected an error, got ${JSON.stringify(output).slice(0, 300)}`);
	return ofError(thrown);
}

/** The credential's token exchange, as its test in n8n and every run perform it. */
async function tokenExchangeMessage(answer: (scope: nock.Interceptor) => void): Promise<Shown> {
	answer(tokenEndpoint());
	const helper = { helpers: { httpRequest } } as unknown as IHttpRequestHelper;
	const error = await new TicketMarketplaceApi().preAuthentication
		.call(helper, { ...API_CREDENTIALS })
		.then(
			() => undefined,
			(caught: unknown) => caught,
		);
	if (!(error instanceof Error)) throw new Error('the token exchange was expected to fail');
	return { where: 'credential test', ...sentences(error.message), whole: error };
}

function failure(failure: Partial<HttpFailure>, path: string = LISTINGS): Shown {
	const { error } = classifyFailure(
		node,
		{ headers: {}, message: `HTTP ${failure.status}`, ...failure },
		{
			method: 'POST',
			path,
			baseUrl: BASE,
			itemIndex: 0,
			secrets: SECRETS,
			rateLimitAnswers: 7,
			connectionRetries: 3,
		},
	);
	return ofError(error);
}

/** A store whose calls of `method` fail (as a locked database does). */
function failingStore(
	method: 'checkProcessedAndRecord' | 'removeProcessed',
	when: (call: number) => boolean = () => true,
	afterWrite = false,
): MemoryDeduplicationStore {
	const store = new MemoryDeduplicationStore();
	const helpers = store.helpers();
	let calls = 0;
	store.helpers = () => ({
		...helpers,
		[method]: async (...args: Parameters<typeof helpers.removeProcessed>) => {
			calls++;
			if (!when(calls)) return await (helpers[method] as (...a: unknown[]) => unknown)(...args);
			if (afterWrite) await (helpers[method] as (...a: unknown[]) => unknown)(...args);
			throw new Error(afterWrite ? 'Connection terminated unexpectedly' : 'database is locked');
		},
	});
	return store;
}

function storeHolding(ids: number[], outcomeUnknown = false): MemoryDeduplicationStore {
	const store = new MemoryDeduplicationStore();
	store.entries.set(
		'workflow',
		new Set(
			ids.flatMap((id) => [
				sentListingKey(MEMORY_ACCOUNT, id),
				...(outcomeUnknown ? [`${sentListingKey(MEMORY_ACCOUNT, id)} outcome unknown`] : []),
			]),
		),
	);
	return store;
}

async function forgetRun(ids: unknown[], store: MemoryDeduplicationStore) {
	const items = ids.map(() => ({ json: {} }));
	const fake = fakeRun({
		parameters: { forgetScope: 'ids', forgetExternalListingId: (index: number) => ids[index] },
		items,
		deduplication: store,
	});
	return await forget.call(fake.context, items).then(
		(output) => ({ output, thrown: undefined }),
		(thrown: unknown) => ({ output: undefined, thrown }),
	);
}

const SUBSCRIBE: Record<string, ParameterValue> = {
	callbackUrl: 'https://n8n.example.test/webhook/abc/notifications',
	callbackAuthUrl: 'https://n8n.example.test/webhook/abc/token',
	subscriptionKinds: ['listing_sale'],
	options: {},
};

async function subscribeRun(
	parameters: Record<string, ParameterValue>,
	options: {
		count?: number;
		callback?: ICredentialDataDecryptedObject;
		cancelSignal?: AbortSignal;
	} = {},
) {
	const items = Array.from({ length: options.count ?? 1 }, () => ({ json: {} }));
	const fake = fakeRun({
		parameters,
		items,
		callbackCredentials: options.callback ?? CALLBACK_CREDENTIALS,
		cancelSignal: options.cancelSignal,
	});
	return await subscribe.call(fake.context, items).then(
		(output) => ({ output, thrown: undefined }),
		(thrown: unknown) => ({ output: undefined, thrown }),
	);
}

function triggerOptionsContext(options: IDataObject): IWebhookFunctions {
	return {
		getNode: () => ({ ...node, name: 'Ticket Marketplace Trigger' }),
		getNodeParameter: (name: string, fallback: unknown) =>
			options[name.replace(/^options\./, '')] ?? fallback,
	} as unknown as IWebhookFunctions;
}

const TRIGGER = {
	credentials: { clientId: 'marketplace-client', clientSecret: CALLBACK_CREDENTIALS.clientSecret },
	webhookId: 'hook-1',
};

async function triggerAnswer(
	webhook: 'setup' | 'default',
	request: Parameters<typeof runRecorded>[2],
	credentials: ICredentialDataDecryptedObject = TRIGGER.credentials,
): Promise<Shown> {
	const { response } = await runRecorded({ ...TRIGGER, credentials }, webhook, request);
	const json = response.json;
	return {
		where: 'answer to the marketplace',
		title: String(json.error_description ?? json.message),
		whole: json,
	};
}

// ---------------------------------------------------------------------------------------------------------------
// Every message

const rows: Row[] = [
	// The credential's token exchange (its Test button, and every run's login)
	{
		name: 'credential: the consumer key and secret are refused',
		produce: async () =>
			await tokenExchangeMessage((endpoint) =>
				endpoint.reply(
					401,
					{ error: 'invalid_client', error_description: `Unknown client. ${'x'.repeat(400)}` },
					{ 'WWW-Authenticate': 'Basic realm="partner"' },
				),
			),
		names: [/consumer key/i],
	},
	{
		name: 'credential: the marketplace login is refused',
		produce: async () =>
			await tokenExchangeMessage((endpoint) =>
				endpoint.reply(400, {
					error: 'invalid_grant',
					error_description: 'Bad credentials\nfor this account',
				}),
			),
		names: [/login refused/i, /e-mail/i, /password/i],
	},
	{
		name: 'credential: a developer-portal account is refused',
		produce: async () =>
			await tokenExchangeMessage((endpoint) =>
				endpoint.reply(403, { message: 'This is a developer-portal account.' }),
			),
		names: [/login refused/i, /developer-portal/i],
	},
	{
		name: 'credential: a refusal that does not say which login',
		produce: async () =>
			await tokenExchangeMessage((endpoint) => endpoint.reply(401, { status: 401 })),
		names: [/login refused/i, /consumer key/i, /password/i],
	},
	{
		name: 'credential: the Base URL answers with a web page',
		produce: async () =>
			await tokenExchangeMessage((endpoint) =>
				endpoint.reply(200, '<html><body>Welcome</body></html>', { 'Content-Type': 'text/html' }),
			),
		names: [/Base URL/],
	},
	{
		name: 'credential: the Base URL has no token endpoint',
		produce: async () =>
			await tokenExchangeMessage((endpoint) => endpoint.reply(404, { message: 'Not Found' })),
		names: [/Base URL/],
	},
	{
		name: 'credential: a success without an access token',
		produce: async () =>
			await tokenExchangeMessage((endpoint) => endpoint.reply(200, { token_type: 'Bearer' })),
		names: [/access token/i],
	},
	{
		name: 'credential: the token endpoint fails',
		produce: async () =>
			await tokenExchangeMessage((endpoint) =>
				endpoint.reply(503, { message: 'maintenance\nback at 10:00' }),
			),
	},
	{
		name: 'credential: the token endpoint asks to wait',
		produce: async () =>
			await tokenExchangeMessage((endpoint) =>
				endpoint.reply(429, { message: 'slow down' }, { 'Retry-After': '30' }),
			),
	},
	{
		name: 'credential: the token request is redirected',
		produce: async () =>
			await tokenExchangeMessage((endpoint) =>
				endpoint.reply(301, '', { Location: 'https://www.partner.api.test/sellers/login?next=1' }),
			),
		names: [/redirect/i, /Base URL/],
		// The title names no method, path or security reasoning: the description does.
		never: [/^[^\n]*(\b(POST|GET) \/|secret|password|nowhere else)/],
	},
	{
		name: 'credential: the Base URL cannot be reached',
		produce: async () =>
			await tokenExchangeMessage((endpoint) =>
				endpoint.replyWithError(
					Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
				),
			),
		names: [/could not be reached|could not connect/i],
		never: [/ECONNREFUSED/],
	},

	// Listing → Create: a run that stops
	{
		name: `create: a wrong password on ${MANY} listings`,
		produce: async () => {
			tokenEndpoint().reply(400, {
				error: 'invalid_grant',
				error_description: 'Bad credentials',
			});
			return await thrownBy(createRun(MANY, { concurrency: 4 }));
		},
		moreThanShown: MANY - 1 - 10,
		names: [/login refused/i, /e-mail/i, /Nothing was sent|not sent/i],
		never: [/Refused by the (Partner )?API/i],
	},
	{
		name: 'create: the consumer key is refused',
		produce: async () => {
			tokenEndpoint().reply(401, { error: 'invalid_client' });
			return await thrownBy(createRun(3));
		},
		names: [/login refused/i, /consumer key/i],
		never: [/Refused by the (Partner )?API/i],
	},
	{
		name: 'create: the API refuses a token it has just issued',
		produce: async () => {
			tokenIssued();
			return await thrownBy(createRun(3, { answer: () => [401, { message: 'Unauthorized' }] }));
		},
		names: [/API product/i],
	},
	{
		name: 'create: the API refuses a listing with a long, multi-line answer',
		produce: async () => {
			tokenIssued();
			return await thrownBy(
				createRun(3, {
					answer: (id) =>
						id === 1
							? [400, { message: `eventId 55 is not on sale.\n${'detail '.repeat(80)}` }]
							: [201, { id }],
				}),
			);
		},
	},
	{
		name: 'create: a server error (the listing may have been created)',
		produce: async () => {
			tokenIssued();
			return await thrownBy(createRun(2, { answer: () => [500, { message: 'internal error' }] }));
		},
		names: [/External Listing ID/],
	},
	{
		name: 'create: a 202 that does not show the listing was created',
		produce: async () => {
			tokenIssued();
			return await thrownBy(createRun(2, { answer: () => [202, ''] }));
		},
		names: [/External Listing ID/],
	},
	{
		name: 'create: a redirect',
		produce: async () => {
			tokenIssued();
			return await thrownBy(
				createRun(2, {
					answer: () => [301, '', { Location: 'https://www.partner.api.test/listings' }],
				}),
			);
		},
		names: [/redirect/i, /Base URL/],
		never: [/^[^\n]*\b(POST|GET) \//, /^[^\n]*token goes nowhere/],
	},
	{
		name: 'create: the rate limit, past every retry',
		produce: async () => {
			tokenIssued();
			return await thrownBy(createRun(2, { answer: () => [429, '', { 'Retry-After': '1' }] }));
		},
		names: [/rate limit/i, /Max Concurrency|later/i],
	},
	{
		name: 'create: the API asks to wait longer than the node waits',
		produce: async () => {
			tokenIssued();
			return await thrownBy(createRun(2, { answer: () => [429, '', { 'Retry-After': '600' }] }));
		},
	},
	{
		name: `create: ${MANY} listings fail validation, each its own way`,
		produce: async () =>
			await thrownBy(
				createRun(MANY, {
					parameters: { priceAmount: (itemIndex: number) => `${itemIndex},50` },
				}),
			),
		moreThanShown: MANY - 10,
	},
	{
		name: `create: one problem on ${MANY / 2} scattered rows`,
		produce: async () =>
			await thrownBy(
				createRun(MANY, {
					parameters: {
						priceAmount: (itemIndex: number) => (itemIndex % 2 === 0 ? '49,90' : 10),
					},
				}),
			),
		moreThanShown: MANY / 2 - 20,
	},

	// Listing → Create: what each listing says (Continue, the error output, per row)
	{
		name: 'create (Continue): every kind of outcome, per listing',
		produce: async () => {
			tokenIssued();
			const answers: Record<number, nock.ReplyFnResult> = {
				1: [201, { id: 1 }],
				2: [400, { message: 'bad seat' }],
				3: [500, { message: 'boom' }],
				4: [409, { message: 'externalListingId 4 already exists' }],
			};
			const { output } = await createRun(4, {
				continueOnFail: true,
				answer: (id) => answers[id],
			});
			return output!.slice(1).map(ofItem);
		},
	},
	{
		name: 'create (error output): failed, unknown, invalid',
		produce: async () => {
			tokenIssued();
			const { output } = await createRun(4, {
				onError: 'continueErrorOutput',
				parameters: { priceAmount: (itemIndex: number) => (itemIndex === 3 ? 'abc' : 10) },
				answer: (id) => (id === 1 ? [400, { message: 'bad seat' }] : [500, { message: 'boom' }]),
			});
			return output!.map(ofItem);
		},
	},
	{
		name: 'create (per row): a listing not sent when the run stopped',
		produce: async () => {
			tokenEndpoint().reply(400, { error: 'invalid_grant' });
			const { output } = await createRun(3, { continueOnFail: true, output: 'row' });
			return output!.map(ofItem);
		},
	},
	{
		name: 'create: skipped listings (sent before, and sent before with no answer)',
		produce: async () => {
			const created = await createRun(1, { store: storeHolding([1]) });
			const unknown = await createRun(1, { store: storeHolding([1], true) });
			return [...created.output!, ...unknown.output!].map(ofItem);
		},
		never: [/turn/i],
	},
	{
		name: `create: the notice for ${MANY} listings skipped whose outcome is unknown`,
		produce: async () => {
			const { hints } = await createRun(MANY, { store: storeHolding(idsUpTo(MANY), true) });
			return hints.map(ofNotice);
		},
		moreThanShown: MANY - 10,
	},
	{
		name: 'create: blank rows, and the notice near the memory cap',
		produce: async () => {
			const items = idsUpTo(MANY).map((id) => ({ json: { id } }));
			return [
				ofNotice(blankRowsNotice(idsUpTo(MANY).filter((index) => index % 2 === 0))),
				ofItem(outputItems(items, new Map(), [0], true, false)[0]),
				ofNotice(nearCapWords(95_000)),
			];
		},
	},
	{
		name: "create: listings beyond the seller's limits, and a limit that cannot be used",
		produce: async () => {
			const limits = {
				concurrencyMode: 'fixed',
				minPricePerTicket: 20,
				minPriceCurrency: 'EUR',
				maxTicketsPerListing: 1,
			};
			const tooMany = {
				product: [
					{ externalId: 'A-1', row: 'A', seat: '1' },
					{ externalId: 'A-2', row: 'A', seat: '2' },
				],
			};
			const refused = { parameters: { priceAmount: 5, products: tooMany, options: limits } };
			const items = await createRun(MANY, { ...refused, onError: 'continueErrorOutput' });
			return [
				await thrownBy(createRun(MANY, refused)),
				...items.output!.slice(0, 2).map(ofItem),
				await thrownBy(createRun(1, { parameters: { options: { minPricePerTicket: 'twenty' } } })),
			];
		},
		names: [/Minimum Price per Ticket|Maximum Tickets per Listing/],
	},
	{
		name: 'create: Map Automatically finds no column',
		produce: async () => {
			const columns = Object.fromEntries(
				Array.from({ length: 60 }, (_, index) => [`column ${index}`, 'x']),
			);
			return await thrownBy(
				createRun(1, {
					items: [{ json: columns }],
					parameters: { inputShape: 'ticketPerItem', columnMapping: 'auto' },
				}),
			);
		},
	},

	// The memory of listings sent
	{
		name: 'memory: it cannot be read before sending',
		produce: async () =>
			await thrownBy(createRun(3, { store: failingStore('checkProcessedAndRecord') })),
		names: [/Nothing was sent/i, /Skip Listings Already Sent on/i],
	},
	{
		name: `memory: a first write that went through after all, ${MANY} listings`,
		produce: async () =>
			await thrownBy(
				createRun(MANY, {
					store: failingStore('checkProcessedAndRecord', (call) => call === 1, true),
				}),
			),
		moreThanShown: MANY - 10,
		names: [/possibly remembered as sent/, /Clear Sent Listings History/],
	},
	{
		name: `memory: it cannot forget ${MANY} listings the API did not create`,
		produce: async () => {
			tokenEndpoint().reply(400, { error: 'invalid_grant' });
			return await thrownBy(createRun(MANY, { store: failingStore('removeProcessed') }));
		},
		moreThanShown: MANY - 10,
		names: [/remembered as sent/, /Clear Sent Listings History/],
	},
	{
		name: 'memory: other runs keep changing it',
		produce: async () => {
			const context = { getNode: () => node } as unknown as IExecuteFunctions;
			const contended = new MemoryFailureError({ kind: 'contended', attempts: 4 });
			return [
				ofError(memoryError(context, failureOf(contended), 'before')),
				ofError(memoryError(context, failureOf(contended), 'after')),
				ofError(
					memoryError(
						context,
						failureOf(new Error('SQLITE_BUSY: database is locked\n  at x')),
						'forget',
					),
				),
			];
		},
	},
	{
		name: `forget: the removal fails for ${MANY} IDs`,
		produce: async () => {
			const thrown = await forgetRun(idsUpTo(MANY), failingStore('removeProcessed'));
			return ofError(thrown.thrown);
		},
		moreThanShown: MANY - 10,
	},
	{
		name: `forget: the memory does not answer for ${MANY} IDs`,
		produce: async () => {
			const thrown = await forgetRun(idsUpTo(MANY), failingStore('checkProcessedAndRecord'));
			return ofError(thrown.thrown);
		},
		moreThanShown: MANY - 10,
	},
	{
		name: 'forget: an ID that is no whole number',
		produce: async () => ofError((await forgetRun(['7.5'], new MemoryDeduplicationStore())).thrown),
	},
	{
		name: 'forget: an ID the memory does not hold',
		produce: async () => ofItem((await forgetRun([8], new MemoryDeduplicationStore())).output![0]),
		informational: true,
	},

	// Webhook → Subscribe
	{
		name: 'subscribe: the callback credential cannot be used',
		produce: async () =>
			await thrownBy(
				subscribeRun(SUBSCRIBE, {
					callback: { clientId: 'marketplace-client', clientSecret: 'short' },
				}),
			),
	},
	{
		name: 'subscribe: the subscription is invalid',
		produce: async () =>
			await thrownBy(subscribeRun({ ...SUBSCRIBE, callbackUrl: 'n8n.example.test/hook' })),
	},
	{
		name: 'subscribe: URLs the trigger can never serve',
		produce: async () =>
			await thrownBy(
				subscribeRun({
					...SUBSCRIBE,
					callbackUrl: 'https://n8n.example.test/webhook-test/abc/token',
					callbackAuthUrl: 'https://n8n.example.test/webhook/def/notifications',
				}),
			),
	},
	{
		name: 'subscribe and forget: refused as an AI Agent tool',
		produce: async () => {
			const asTool = (options: Parameters<typeof fakeRun>[0]) => {
				const fake = fakeRun(options);
				(fake.context.getNode() as INode).type += 'Tool';
				return fake.context;
			};
			const items = [{ json: {} }];
			const outcome = (run: Promise<unknown>) =>
				run.then(
					(output) => ({ output, thrown: undefined }),
					(thrown: unknown) => ({ output: undefined, thrown }),
				);
			return [
				await thrownBy(
					outcome(
						subscribe.call(
							asTool({ parameters: SUBSCRIBE, callbackCredentials: CALLBACK_CREDENTIALS }),
							items,
						),
					),
				),
				await thrownBy(outcome(forget.call(asTool({ parameters: { forgetScope: 'all' } }), items))),
			];
		},
	},
	{
		name: 'subscribe: the run stopped before the request',
		produce: async () => {
			const stop = new AbortController();
			stop.abort();
			return await thrownBy(subscribeRun(SUBSCRIBE, { cancelSignal: stop.signal }));
		},
	},
	{
		name: 'subscribe: a failure after 40 subscriptions went through',
		produce: async () => {
			tokenIssued();
			let calls = 0;
			nock(BASE)
				.post(PARTNER_API_PATHS.webhooks)
				.times(41)
				.reply(() => (++calls <= 40 ? [201, { id: `sub-${calls}` }] : [400, { message: 'no' }]));
			// One trigger per item: the same subscription twice would be sent once.
			const perItem = (path: string) => (itemIndex: number) =>
				`https://n8n.example.test/webhook/abc${itemIndex}/${path}`;
			const parameters = {
				...SUBSCRIBE,
				callbackUrl: perItem('notifications'),
				callbackAuthUrl: perItem('token'),
			};
			return await thrownBy(subscribeRun(parameters, { count: 41 }));
		},
		moreThanShown: 40 - 10,
	},
	{
		name: 'subscribe: no identifier in the answer',
		produce: async () => {
			tokenIssued();
			nock(BASE).post(PARTNER_API_PATHS.webhooks).reply(201, { status: 'PENDING' });
			const { output } = await subscribeRun(SUBSCRIBE);
			return output!.map((item) => ({
				where: 'item' as const,
				title: String(item.json.message),
				description: String(item.json.nextStep),
				whole: item.json,
			}));
		},
	},
	{
		name: 'subscribe: the API refuses the subscription',
		produce: async () => {
			tokenIssued();
			nock(BASE)
				.post(PARTNER_API_PATHS.webhooks)
				.reply(400, { message: `callback ${CALLBACK_CREDENTIALS.clientSecret} is not https` });
			return await thrownBy(subscribeRun(SUBSCRIBE));
		},
	},

	// The transport's failures that a nock answer cannot make
	{
		name: 'transport: no connection, a time-out, a failure before sending, a 303, a 403, a 404',
		produce: async () => [
			failure({ code: 'ECONNREFUSED' }),
			failure({ code: 'ETIMEDOUT' }),
			failure({ code: 'ETIMEDOUT' }, PARTNER_API_PATHS.webhooks),
			failure({ message: 'Invalid URL\nat new URL' }),
			failure({ status: 303, headers: { location: '/elsewhere' } }),
			failure({ status: 403, body: { message: 'forbidden' } }),
			failure({ status: 404, body: '<html>Not Found</html>' }),
			failure({ status: 409, body: { message: 'exists' } }, PARTNER_API_PATHS.webhooks),
			failure({ status: 502, body: 'Bad Gateway' }, PARTNER_API_PATHS.webhooks),
		],
	},
	{
		name: 'node: an operation this version does not have',
		produce: async () => {
			const context = {
				getInputData: () => [],
				getNode: () => node,
				getNodeParameter: (name: string) => (name === 'resource' ? 'listing' : 'delete'),
			} as unknown as IExecuteFunctions;
			return ofError(await router.call(context).catch((error: unknown) => error));
		},
	},

	// The trigger
	{
		name: 'trigger: options that cannot be used',
		produce: async () => {
			const lifetime = (() => {
				try {
					readTokenLifetime(triggerOptionsContext({ tokenLifetime: 5 }));
				} catch (error) {
					return error;
				}
			})();
			const kinds = (() => {
				try {
					readAcceptedKinds(triggerOptionsContext({ acceptedKinds: 7 }));
				} catch (error) {
					return error;
				}
			})();
			return [ofError(lifetime), ofError(kinds)];
		},
	},
	{
		name: 'trigger and callback credential: the credential cannot be used',
		produce: async () => {
			const credential = { clientId: ' marketplace-client', clientSecret: 'short' };
			const test = await testCallbackCredential.call({} as never, {
				id: '1',
				name: 'callback',
				type: 'ticketMarketplaceCallbackApi',
				data: credential,
			});
			return [
				{ where: 'credential test' as const, ...sentences(test.message), whole: test },
				await triggerAnswer(
					'setup',
					{
						headers: { 'content-type': 'application/json' },
						body: {
							grant_type: 'client_credentials',
							client_id: 'marketplace-client',
							client_secret: 'x',
						},
					},
					credential,
				),
			];
		},
	},
	{
		name: 'trigger: what the marketplace is answered when refused',
		produce: async () => [
			await triggerAnswer('setup', {
				headers: { 'content-type': 'application/json' },
				body: {
					grant_type: 'client_credentials',
					client_id: 'marketplace-client',
					client_secret: `${CALLBACK_CREDENTIALS.clientSecret}-wrong`,
				},
			}),
			await triggerAnswer('default', { headers: { 'content-type': 'application/json' } }),
			await triggerAnswer('default', {
				headers: { 'content-type': 'application/json', authorization: 'Bearer tmt1.x.y' },
				body: {},
			}),
		],
	},
];

afterEach(() => {
	nock.cleanAll();
});

describe('every message says what happened in its title and what to do in its description', () => {
	it.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
		const produced = await row.produce();
		const shown = Array.isArray(produced) ? produced : [produced];
		expect(shown.length).toBeGreaterThan(0);
		const failures: string[] = [];
		for (const message of shown) {
			try {
				check(row, message);
			} catch (error) {
				failures.push((error as Error).message);
			}
		}
		if (failures.length) throw new Error(failures.join('\n\n'));
	});

	it('errors leave the node as n8n error types, each with the item it concerns', async () => {
		tokenEndpoint().reply(400, { error: 'invalid_grant' });
		const { thrown } = await createRun(2);
		expect(thrown instanceof NodeApiError || thrown instanceof NodeOperationError).toBe(true);
	});
});
