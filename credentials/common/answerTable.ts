/**
 * What an answer of the Partner API, or of the Apigee gateway in front of it, means: one table, read alike by the
 * credential (its token exchange and its test) and by every operation of the node (through the transport). Each row
 * says, for one kind of answer, what became of the request (created, already listed, unknown, not created), whether
 * to try again (after a rate refusal, or with a renewed token), whether the run stops sending, and the words for
 * users. A new answer the world sends is one row here and one test.
 *
 * The service's own error bodies are read defensively: `{code, description}` (its listing service),
 * `{ErrorCode, Error}` (Apigee's OAuth), `{fault: {faultstring, detail: {errorcode}}}` (Apigee's own refusals), and
 * OAuth's `{error, error_description}`; an answer in another shape falls to the rows that read its status alone.
 */
import { extractApiMessage, headerValue, readBody } from './apiAnswers';
import { isPreDeliverPath, PARTNER_API_PATHS } from './partnerApi';

/** What a request did, as far as its answer tells. */
export type Outcome = 'created' | 'alreadyListed' | 'unknown' | 'notCreated';

/** Whether the same request may go again: never, after a rate refusal's wait, or with a renewed access token. */
export type Retry = 'no' | 'rateLimit' | 'renewToken';

/** Which endpoint answered: the token URL, or a request made with the access token. */
export type Endpoint = 'token' | 'api';

/** What an answer says, read once: its status, the API's code and words, and what the rows look at. */
export interface AnswerFacts {
	status: number;
	/** The error code the answer names (`inventory.listings.invalidEvent`, `invalid_client`, a gateway fault's). */
	code?: string;
	/** The API's own words for it (secrets redacted, bounded). */
	words?: string;
	/** The Retry-After header as sent ('' when absent). */
	retryAfter: string;
	/** The WWW-Authenticate header as sent ('' when absent). */
	wwwAuthenticate: string;
	/** The body as text, bounded: for a look at what it names. */
	text: string;
	/** The body is the gateway's own fault (`{"fault": {...}}`), not the service's answer. */
	gatewayFault?: boolean;
}

export interface AnswerContext {
	endpoint: Endpoint;
	/** The API path of the request (which names what it would create, in words). */
	path?: string;
	/**
	 * The identifier the request would create (the External Listing ID): an answer that says "already exists" is
	 * read as *already listed* only when it names this one.
	 */
	createsId?: string | number;
}

/** The rows of the table, by name (the words for users are keyed by it). */
export type RowName =
	| 'quota'
	| 'spikeArrest'
	| 'noApiProduct'
	| 'tokenRefused'
	| 'forbidden'
	| 'alreadyListed'
	| 'conflict'
	| 'notFound'
	| 'tooManyRequests'
	| 'unavailable'
	| 'serverError'
	| 'refused'
	| 'invalidClient'
	| 'invalidGrant'
	| 'unsupportedGrantType'
	| 'loginRefused'
	| 'tokenMissing'
	| 'tokenEndpointFailed'
	| 'tokenRequestRefused'
	| 'noSuchListing';

/** What one answer means. */
export interface AnswerMeaning {
	row: RowName;
	outcome: Outcome;
	retry: Retry;
	/** The run sends nothing more (the plan's quota is used up): every listing left is not created. */
	stopsRun: boolean;
	/** The API's code and words, as the answer gave them. */
	code?: string;
	words?: string;
	/** A spike arrest's allowed rate, in requests per second, where the fault names it ("Allowed rate : 40ps"). */
	allowedPerSecond?: number;
}

interface Row {
	name: RowName;
	endpoint: Endpoint;
	matches: (facts: AnswerFacts, context: AnswerContext) => boolean;
	outcome: Outcome;
	retry: Retry;
	stopsRun?: boolean;
}

/** The longest part of the API's words kept. */
const MAX_WORDS = 300;
/** How much of a body is looked at for what it names. */
const MAX_TEXT = 100_000;

function stringField(record: Record<string, unknown> | undefined, key: string): string | undefined {
	const value = record?.[key];
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function recordField(
	record: Record<string, unknown> | undefined,
	key: string,
): Record<string, unknown> | undefined {
	const value = record?.[key];
	return value !== null && typeof value === 'object' && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: undefined;
}

/** The body as text (bounded), whatever it is. */
function bodyText(body: unknown): string {
	if (typeof body === 'string') return body.slice(0, MAX_TEXT);
	if (Buffer.isBuffer(body)) return body.toString('utf8', 0, MAX_TEXT);
	try {
		return (JSON.stringify(body) ?? '').slice(0, MAX_TEXT);
	} catch {
		return '';
	}
}

/** The code of an error the answer nests (`{error: {code}}`) or lists (`{errors: [{code}]}`, or a list at the top). */
function nestedCode(body: unknown, json: Record<string, unknown> | undefined): string | undefined {
	let list: unknown = json?.errors ?? body;
	if (typeof list === 'string' && list.trimStart().startsWith('[')) {
		try {
			list = JSON.parse(list);
		} catch {
			list = undefined;
		}
	}
	const error = recordField(json, 'error') ?? (Array.isArray(list) ? list[0] : undefined);
	const record =
		error !== null && typeof error === 'object' ? (error as Record<string, unknown>) : undefined;
	return stringField(record, 'code') ?? stringField(record, 'errorCode');
}

/** Reads an answer once: its status, headers and body, as n8n hands them over; `secrets` never reach the words. */
export function readAnswer(
	status: number,
	headers: Record<string, unknown> | undefined,
	body: unknown,
	secrets?: readonly string[],
): AnswerFacts {
	const { json } = readBody(body, headerValue(headers, 'content-type'));
	const fault = recordField(json, 'fault');
	const code =
		stringField(json, 'code') ??
		stringField(json, 'ErrorCode') ??
		stringField(recordField(fault, 'detail'), 'errorcode') ??
		stringField(json, 'error') ??
		stringField(json, 'errorCode') ??
		nestedCode(body, json);
	const said =
		stringField(json, 'description') ??
		stringField(json, 'Error') ??
		stringField(fault, 'faultstring') ??
		stringField(json, 'error_description');
	// The found words go through extractApiMessage too, which redacts and bounds them.
	const words = extractApiMessage(said ?? json ?? body, secrets)
		?.replace(/\s+/g, ' ')
		.slice(0, MAX_WORDS);
	return {
		status,
		code: code === undefined ? undefined : (extractApiMessage(code, secrets) ?? '').slice(0, 200),
		words: words === code ? undefined : words,
		retryAfter: headerValue(headers, 'retry-after'),
		wwwAuthenticate: headerValue(headers, 'www-authenticate'),
		text: bodyText(body),
		gatewayFault: fault !== undefined,
	};
}

/** Whether the answer's code is this one, in any letter case (Apigee's and OAuth's codes are written both ways). */
function codeIs(facts: AnswerFacts, code: string): boolean {
	return facts.code?.toLowerCase() === code;
}

/** The code and the words together, for the rows that look for a phrase in either. */
function said(facts: AnswerFacts): string {
	return `${facts.code ?? ''} ${facts.words ?? ''}`;
}

/**
 * A gateway limit, by its policy's code; without a code, only by the gateway's own fault (`{"fault": …}`) opening
 * with the policy's sentence ("Rate limit quota violation", "Spike arrest violation"), whatever its status. Words
 * that merely mention a quota or a spike arrest (a per-event limit, an HTML page, a 5xx of the service) are not the
 * gateway's limit: a code decides when there is one, and any other code names something else.
 */
function isGatewayLimit(facts: AnswerFacts, code: RegExp, opening: RegExp): boolean {
	if (facts.code !== undefined) return code.test(facts.code);
	return facts.gatewayFault === true && opening.test(facts.words ?? '');
}

const isQuota = (facts: AnswerFacts) =>
	isGatewayLimit(
		facts,
		/^(policies\.ratelimit\.)?QuotaViolation$/i,
		/^rate limit quota violation\b/i,
	);

const isSpikeArrest = (facts: AnswerFacts) =>
	isGatewayLimit(
		facts,
		/^(policies\.ratelimit\.)?SpikeArrestViolation$/i,
		/^spike arrest violation\b/i,
	);

/**
 * The service behind the gateway is unavailable (HTTP 503: a maintenance page, or Apigee's
 * `messaging.adaptors.http.flow.ServiceUnavailable`): by HTTP's definition (RFC 9110) the request was not handled,
 * so nothing was created and it may go again, paced like a 429.
 */
const isUnavailable = (facts: AnswerFacts) =>
	facts.status === 503 ||
	/^messaging\.adaptors\.http\.flow\.ServiceUnavailable$/i.test(facts.code ?? '');

/** The app lacks the API product: by the gateway's code; without a code, by its words or the service's 403's. */
const isNoApiProduct = (facts: AnswerFacts) =>
	facts.code !== undefined
		? /NoApiProductMatch/i.test(facts.code)
		: /no ?api ?product match/i.test(facts.words ?? '') ||
			(facts.status === 403 && /resource forbidden/i.test(facts.words ?? ''));

const isTokenRefused = (facts: AnswerFacts) =>
	facts.status === 401 ||
	/keymanagement\.service\.(?:access_token_expired|invalid_access_token)/i.test(facts.code ?? '');

/** "already exists", "duplicate", "already listed": the answer says the thing exists. */
const SAYS_EXISTS = /already[\s_-]?(?:exists?|listed|in use|taken)|duplicate|exists already/i;
const NAMES_EXTERNAL_LISTING_ID = /external[\s_-]?listing[\s_-]?id/i;
/** What a refusal about seats names: a seat taken is not this listing's ID taken. */
const ABOUT_SEATS = /seat|\brow\b|section|product|barcode/i;

/**
 * Where an ID may start and end in an answer's words: at the ends of the text, or next to a space, a quote or a
 * bracket, or after `:`, `#`, `=` (`id: 12`, `#12`, `id=12`); before a comma, or a sentence's `.`, `:`, `!`, `?`,
 * `;` followed by a space or the end. So `12` is not named by `12.5`, `012`, `12.0` or `A1/2`'s `A1`: an ID is
 * compared as text, the way the API keeps it, never as a number.
 */
const ID_BEFORE = `(?<=^|[\\s"'\`([{<:#=,])`;
const ID_AFTER = `(?=$|[\\s"'\`)\\]}>,]|[.:;!?](?:\\s|$))`;

/** Whether the text names this ID as a whole token. */
export function namesId(text: string, id: string | number): boolean {
	const wanted = String(id).trim();
	if (wanted === '') return false;
	const escaped = wanted.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	return new RegExp(`${ID_BEFORE}${escaped}${ID_AFTER}`).test(text);
}

/** A code that says a listing, or its External Listing ID, exists already (never a seat, a row or a barcode). */
const CODE_SAYS_LISTED =
	/^(?:duplicate(?:External)?(?:Listing)?Id|duplicateListing|(?:external)?(?:listing)?(?:Id)?AlreadyExists|listingAlreadyListed)$/i;

/**
 * The API holds a listing with this External Listing ID: a 400 or 409 (the service answers business rules with
 * 400) that says so and names this listing's ID. With a code, the code decides what exists (its last part must say
 * the listing or its External Listing ID, as `duplicateExternalListingId`; `duplicateSectionRowSeat` is a seat,
 * whatever its description names); without one, the words do, and words about seats never count. Either way the
 * words must name this ID as a whole token: an answer that names another ID is not this one.
 */
function isAlreadyListed(facts: AnswerFacts, context: AnswerContext): boolean {
	if (context.path !== PARTNER_API_PATHS.listings) return false;
	if ((facts.status !== 400 && facts.status !== 409) || context.createsId === undefined)
		return false;
	const text = said(facts);
	if (!namesId(text, context.createsId)) return false;
	if (facts.code !== undefined)
		// Its last part, in any spelling: duplicateExternalListingId, duplicate_external_listing_id, ...
		return CODE_SAYS_LISTED.test(
			facts.code.slice(facts.code.lastIndexOf('.') + 1).replace(/[_-]/g, ''),
		);
	return (
		SAYS_EXISTS.test(text) && (NAMES_EXTERNAL_LISTING_ID.test(text) || !ABOUT_SEATS.test(text))
	);
}

/** The table, first match wins. */
const ROWS: Row[] = [
	// The gateway refused these before the service saw them: nothing was created.
	{
		name: 'quota',
		endpoint: 'api',
		matches: isQuota,
		outcome: 'notCreated',
		retry: 'no',
		stopsRun: true,
	},
	{
		name: 'spikeArrest',
		endpoint: 'api',
		matches: isSpikeArrest,
		outcome: 'notCreated',
		retry: 'rateLimit',
	},
	{
		name: 'noApiProduct',
		endpoint: 'api',
		matches: isNoApiProduct,
		outcome: 'notCreated',
		retry: 'no',
	},
	{
		name: 'tokenRefused',
		endpoint: 'api',
		matches: isTokenRefused,
		outcome: 'notCreated',
		retry: 'renewToken',
	},
	{
		name: 'forbidden',
		endpoint: 'api',
		matches: (f) => f.status === 403,
		outcome: 'notCreated',
		retry: 'no',
	},
	// Pre-deliver Tickets (a PDF upload onto a listing): its own rows, after the gateway's. A 404 there names the
	// listing, not the address: the service documents it as "no such listing". Its 400 and 500 read as any request's.
	{
		name: 'noSuchListing',
		endpoint: 'api',
		matches: (f, context) => isPreDeliverPath(context.path) && f.status === 404,
		outcome: 'notCreated',
		retry: 'no',
	},
	// End of Pre-deliver Tickets' rows.
	{
		name: 'alreadyListed',
		endpoint: 'api',
		matches: isAlreadyListed,
		outcome: 'alreadyListed',
		retry: 'no',
	},
	{
		name: 'conflict',
		endpoint: 'api',
		matches: (f) => f.status === 409,
		outcome: 'notCreated',
		retry: 'no',
	},
	{
		name: 'notFound',
		endpoint: 'api',
		matches: (f) => f.status === 404 || f.status === 405,
		outcome: 'notCreated',
		retry: 'no',
	},
	{
		name: 'tooManyRequests',
		endpoint: 'api',
		matches: (f) => f.status === 429,
		outcome: 'notCreated',
		retry: 'rateLimit',
	},
	{
		name: 'unavailable',
		endpoint: 'api',
		matches: isUnavailable,
		outcome: 'notCreated',
		retry: 'rateLimit',
	},
	// A failure inside the service (inventory.listings.systemError, a 500, 502 or 504): it may have created the listing.
	{
		name: 'serverError',
		endpoint: 'api',
		matches: (f) => f.status >= 500,
		outcome: 'unknown',
		retry: 'no',
	},
	{
		name: 'refused',
		endpoint: 'api',
		matches: (f) => f.status >= 400 && f.status < 500,
		outcome: 'notCreated',
		retry: 'no',
	},

	{
		name: 'quota',
		endpoint: 'token',
		matches: isQuota,
		outcome: 'notCreated',
		retry: 'no',
		stopsRun: true,
	},
	{
		name: 'spikeArrest',
		endpoint: 'token',
		matches: isSpikeArrest,
		outcome: 'notCreated',
		retry: 'rateLimit',
	},
	{
		name: 'invalidClient',
		endpoint: 'token',
		// Apigee answers a wrong key `invalid_client`, or `invalid_request` with "ClientId is Invalid".
		matches: (f) =>
			codeIs(f, 'invalid_client') ||
			/client ?id is invalid|invalid client ?id|invalid consumer key/i.test(f.words ?? '') ||
			(f.status === 401 && /^basic/i.test(f.wwwAuthenticate)),
		outcome: 'notCreated',
		retry: 'no',
	},
	{
		name: 'invalidGrant',
		endpoint: 'token',
		matches: (f) => codeIs(f, 'invalid_grant') || /developer[- ]portal/i.test(f.words ?? ''),
		outcome: 'notCreated',
		retry: 'no',
	},
	{
		name: 'unsupportedGrantType',
		endpoint: 'token',
		matches: (f) => codeIs(f, 'unsupported_grant_type'),
		outcome: 'notCreated',
		retry: 'no',
	},
	{
		name: 'noApiProduct',
		endpoint: 'token',
		matches: isNoApiProduct,
		outcome: 'notCreated',
		retry: 'no',
	},
	{
		name: 'tokenMissing',
		endpoint: 'token',
		matches: (f) => f.status >= 200 && f.status < 300,
		outcome: 'notCreated',
		retry: 'no',
	},
	{
		name: 'loginRefused',
		endpoint: 'token',
		matches: (f) => f.status === 401 || f.status === 403,
		outcome: 'notCreated',
		retry: 'no',
	},
	{
		name: 'tooManyRequests',
		endpoint: 'token',
		matches: (f) => f.status === 429,
		outcome: 'notCreated',
		retry: 'rateLimit',
	},
	{
		name: 'tokenEndpointFailed',
		endpoint: 'token',
		matches: (f) => f.status >= 500,
		outcome: 'notCreated',
		retry: 'rateLimit',
	},
	{
		name: 'tokenRequestRefused',
		endpoint: 'token',
		matches: () => true,
		outcome: 'notCreated',
		retry: 'no',
	},
];

/** A spike arrest's allowed rate in requests per second: "Allowed rate : 40ps" or "600pm", or spelled out as a MessageRate. */
export function allowedRateOf(words: string | undefined): number | undefined {
	const text = words ?? '';
	const short = /allowed rate\s*:?\s*(\d+(?:\.\d+)?)\s*(ps|pm)\b/i.exec(text);
	// Apigee Edge spells the rate out: "MessageRate{messagesPerPeriod=300, periodInMicroseconds=60000000, ...}".
	const spelled =
		/messagesPerPeriod\s*=\s*(\d+(?:\.\d+)?)[^}]*?periodInMicroseconds\s*=\s*(\d+(?:\.\d+)?)/i.exec(
			text,
		);
	const perSecond = short
		? Number(short[1]) / (short[2].toLowerCase() === 'ps' ? 1 : 60)
		: spelled
			? Number(spelled[1]) / (Number(spelled[2]) / 1_000_000)
			: undefined;
	return perSecond !== undefined && perSecond > 0 && Number.isFinite(perSecond)
		? perSecond
		: undefined;
}

/**
 * What an answer means, by the first row that matches; undefined for an answer no row reads (a 2xx or a 3xx to a
 * request made with the token: the caller's evidence rules and its redirect rule read those).
 */
export function meaningOf(facts: AnswerFacts, context: AnswerContext): AnswerMeaning | undefined {
	const row = ROWS.find(
		(candidate) => candidate.endpoint === context.endpoint && candidate.matches(facts, context),
	);
	if (row === undefined || (context.endpoint === 'api' && facts.status < 400)) return undefined;
	const allowedPerSecond = row.name === 'spikeArrest' ? allowedRateOf(facts.words) : undefined;
	return {
		row: row.name,
		outcome: row.outcome,
		retry: row.retry,
		stopsRun: row.stopsRun === true,
		...(facts.code !== undefined && { code: facts.code }),
		...(facts.words !== undefined && { words: facts.words }),
		...(allowedPerSecond !== undefined && { allowedPerSecond }),
	};
}

/** The API's words and code, quoted as every message quotes them: `The API said: "…" (code …).` */
export function quoteApi(meaning: Pick<AnswerMeaning, 'code' | 'words'>): string {
	const { code, words } = meaning;
	if (words && code) return `The API said: "${words}" (code ${code}).`;
	if (words) return `The API said: "${words}".`;
	if (code) return `The API answered with the code ${code}.`;
	return '';
}

/** What a request was for, in the words its messages use. */
export interface Subject {
	/** "the listing" */
	what: string;
	/** How to find out whether a request of unknown outcome was done, with what the node offers. */
	howToCheck: string;
	/** What to do about a refused request. */
	fix: string;
	/** What to do when the API kept answering "too many requests". */
	rateLimited: string;
	/** The API product the request needs, as the developer portal names it. */
	product: string;
}

export function subjectOf(path: string | undefined): Subject {
	if (isPreDeliverPath(path))
		return {
			what: "the tickets' upload",
			howToCheck:
				'Open the listing on the marketplace and check whether its tickets show as delivered before uploading them again.',
			fix: "Check the Listing ID (the marketplace's ID that Create outputs), each ticket's row and seat, and its PDF, then run the workflow again.",
			rateLimited: 'Lower Options → Max Listings at Once, or run the workflow later.',
			product: 'the seller listing API',
		};
	if (path === PARTNER_API_PATHS.listings)
		return {
			what: 'the listing',
			howToCheck:
				'Look the listing up on the marketplace by its External Listing ID before sending it again.',
			fix: "Correct what the API names in the sheet or the node's fields, then run the workflow again.",
			rateLimited: 'Lower Options → Max Listings at Once, or run the workflow later.',
			product: 'the seller listing API',
		};
	if (path === PARTNER_API_PATHS.webhooks)
		return {
			what: 'the subscription',
			howToCheck:
				"Ask the marketplace's API support whether the subscription exists before subscribing again.",
			fix: "Correct what the API names in the node's fields, then run it again.",
			rateLimited: 'Run the workflow again later.',
			product: 'the webhook API',
		};
	return {
		what: 'the request',
		howToCheck: 'Find out on the marketplace whether it was done before running it again.',
		fix: 'Correct what the API names, then run the workflow again.',
		rateLimited: 'Run the workflow again later.',
		product: 'the API product this request needs',
	};
}

/** An answer in words, as n8n shows an error: a one-line title, then what to do. */
export interface AnswerWords {
	title: string;
	advice: string;
}

/** What a request to the API answered, when it ends there: how many rate refusals it met on the way. */
export interface ApiWordsContext {
	path?: string;
	status: number;
	/** Rate refusals (429, spike arrest) this request met, the last one included. */
	rateRefusals: number;
	/** The wait the API asked for in its last rate refusal, in words, if it said. */
	lastWait?: string;
}

const PLAN_QUOTA_ADVICE =
	"The quota counts requests per day (some plans per hour): run the workflow again once it has reset, or raise it by upgrading your app's plan in the Account section of the developer portal. Lowering Max Listings at Once does not help against it.";

/**
 * The words for an answer of the API that ends a request (the token URL's are tokenWords). Every message says
 * whether anything was created; the rows of unknown outcome leave that to the caller, which adds how to check.
 */
export function apiWords(meaning: AnswerMeaning, context: ApiWordsContext): AnswerWords {
	const subject = subjectOf(context.path);
	const quoted = quoteApi(meaning);
	const { status } = context;
	const times = `${context.rateRefusals} time${context.rateRefusals === 1 ? '' : 's'}`;
	const advice = (...parts: string[]) => parts.filter(Boolean).join(' ');
	switch (meaning.row) {
		case 'quota':
			return {
				title: `Quota used up: the Partner API refused the request because your plan's quota is used up (HTTP ${status})`,
				advice: advice(
					quoted,
					'Nothing was created by this request, and the run sent nothing more: the listings left are not created, and the next run sends them.',
					PLAN_QUOTA_ADVICE,
				),
			};
		case 'spikeArrest':
			return {
				title: `Rate limit: the Partner API's spike arrest refused the request ${times} (HTTP ${status})`,
				advice: advice(
					quoted,
					context.lastWait ? `It last asked to wait ${context.lastWait}.` : '',
					`Nothing was created by these attempts. ${subject.rateLimited}`,
				),
			};
		case 'tooManyRequests':
			return {
				title: `Rate limit: the Partner API answered "too many requests" ${times}`,
				advice: advice(
					quoted,
					context.lastWait ? `It last asked to wait ${context.lastWait}.` : '',
					`Nothing was created by these attempts. ${subject.rateLimited}`,
				),
			};
		case 'unavailable':
			return {
				title: `Unavailable: the Partner API answered "service unavailable" ${times} (HTTP ${status})`,
				advice: advice(
					quoted,
					context.lastWait ? `It last asked to wait ${context.lastWait}.` : '',
					`The marketplace did not handle these attempts (down or under maintenance): nothing was created. Run the workflow again later.`,
				),
			};
		case 'noApiProduct':
			return {
				title: `Your app on the developer portal lacks the API product for this request (HTTP ${status})`,
				advice: advice(
					quoted,
					`Nothing was created. The login works, but your app is not subscribed to ${subject.product}: on the developer portal, add that API product to your app, then run the workflow again.`,
				),
			};
		case 'tokenRefused':
		case 'forbidden':
			return {
				title: `The Partner API refused access (HTTP ${status})`,
				advice: advice(
					quoted,
					'Nothing was created. Check the Ticket Marketplace API credential: the consumer key and secret of your app, the e-mail and password of the marketplace account (not the developer-portal account), and that your app subscribes to the seller API products.',
				),
			};
		case 'alreadyListed':
			return {
				title:
					status === 409
						? 'Already listed: the API holds a listing with this External Listing ID (HTTP 409)'
						: `Already listed: the API holds a listing with this External Listing ID (HTTP ${status})`,
				advice: advice(
					quoted,
					'Nothing new was created. For a new listing, give it a new External Listing ID.',
				),
			};
		case 'conflict':
			return subject.what === 'the listing'
				? {
						title: 'Conflict: the Partner API refused the listing (HTTP 409)',
						advice: advice(
							quoted,
							'The answer does not name the External Listing ID, so it is not read as "already listed": nothing was created. Check the listing on the marketplace by its External Listing ID before listing these seats under another ID.',
						),
					}
				: {
						title:
							'Conflict: the Partner API already holds what this request would create (HTTP 409)',
						advice: advice(quoted, `Nothing new was created. ${subject.howToCheck}`),
					};
		case 'notFound':
			return {
				title: `The Partner API has no such address (HTTP ${status})`,
				advice:
					"Nothing was created. Check the Base URL of the Ticket Marketplace API credential: the API's address, without a path.",
			};
		case 'serverError':
			return {
				title: `Outcome unknown: the Partner API failed with a server error (HTTP ${status})`,
				advice: quoted,
			};
		default:
			return {
				title: `The Partner API refused ${subject.what} (HTTP ${status})`,
				advice: advice(quoted || 'The API gave no reason.', `Nothing was created. ${subject.fix}`),
			};
	}
}

/** Where the marketplace login goes wrong most: the developer-portal login typed instead. */
const MARKETPLACE_LOGIN_HINT =
	'Check Marketplace Account E-Mail and Password in the credential: they are the login of your marketplace account (where tickets are bought and sold), not your developer-portal login.';
const APP_KEYS_HINT =
	"Copy Consumer Key and Consumer Secret again from your app's page on the developer portal.";

/** The words for the token URL's answer (a refused login, a quota, a failure), by its row. */
export function tokenWords(meaning: AnswerMeaning, status: number, where: string): AnswerWords {
	const quoted = quoteApi(meaning);
	const advice = (...parts: string[]) => parts.filter(Boolean).join(' ');
	switch (meaning.row) {
		case 'quota':
			return {
				title: `Quota used up: the token endpoint refused the login because your plan's quota is used up (HTTP ${status})`,
				advice: advice(quoted, 'Nothing was sent with this credential.', PLAN_QUOTA_ADVICE),
			};
		case 'spikeArrest':
		case 'tooManyRequests':
			return {
				title: `The token endpoint asked to wait (HTTP ${status}, too many requests)`,
				advice: advice(
					quoted,
					'Run the workflow again in a few minutes; if other workflows use the same credential at the same time, start them further apart.',
				),
			};
		case 'invalidClient':
			return {
				title: `Login refused: the token endpoint refused the consumer key and secret (HTTP ${status})`,
				advice: advice(
					quoted,
					"The consumer key (the app's client ID) or the consumer secret is not one the developer portal issued.",
					APP_KEYS_HINT,
				),
			};
		case 'invalidGrant':
			return {
				title: `Login refused: the token endpoint refused the marketplace e-mail and password (HTTP ${status})`,
				advice: advice(quoted, MARKETPLACE_LOGIN_HINT),
			};
		case 'unsupportedGrantType':
			return {
				title: `The token endpoint refused the kind of login this credential asks for (HTTP ${status})`,
				advice: advice(
					quoted,
					`${where} does not take the grant type the Partner API documents. Check that the Base URL is the Partner API's address, without a path.`,
				),
			};
		case 'noApiProduct':
			return {
				title: `Your app on the developer portal lacks the API product for the login (HTTP ${status})`,
				advice: advice(
					quoted,
					'On the developer portal, add the seller API products to your app, then test the credential again.',
				),
			};
		case 'tokenMissing':
			return {
				title: `The token endpoint answered without an access token (HTTP ${status})`,
				advice: advice(
					quoted,
					`Check the Base URL (${where} answered), and that your app on the developer portal subscribes to the seller API products.`,
				),
			};
		case 'loginRefused':
			return {
				title: `Login refused by the token endpoint (HTTP ${status})`,
				advice: advice(
					quoted,
					`The API did not say which login it refused. ${APP_KEYS_HINT} Then ${MARKETPLACE_LOGIN_HINT.charAt(0).toLowerCase()}${MARKETPLACE_LOGIN_HINT.slice(1)}`,
				),
			};
		case 'tokenEndpointFailed':
			return {
				title: `The token endpoint failed (HTTP ${status})`,
				advice: advice(
					quoted,
					'The API could not log in for now. Run the workflow again in a few minutes.',
				),
			};
		default:
			return {
				title: `The token endpoint failed (HTTP ${status})`,
				advice: advice(
					quoted,
					"The token request was not accepted. Check the credential's Base URL, Consumer Key and Consumer Secret, and the marketplace e-mail and password.",
				),
			};
	}
}
