/**
 * What an answer says, read once, and the tests the answer table's rows are made of. Bodies read: `{code, description}`
 * (the service), `{ErrorCode, Error}` (Apigee's OAuth), `{fault: {faultstring, detail: {errorcode}}}` (the gateway),
 * OAuth's `{error, error_description}`; any other shape falls to the rows that read its status alone.
 */
import { extractApiMessage, headerValue, readBody } from './apiAnswers';
import { PARTNER_API_PATHS } from './partnerApi';

/** One request's answer as the rows read it, or what kept an answer from coming. */
export interface AnswerFacts {
	/** 0 when no answer came (see `failure`). */
	status: number;
	code?: string;
	/** The API's own words (secrets redacted, bounded). */
	words?: string;
	wwwAuthenticate?: string;
	/** The body is the gateway's own fault (`{"fault": {...}}`). */
	gatewayFault?: boolean;
	/** No answer: a Node.js network code, `unreadableFile`, `tokenExchange` (nothing sent), '' (unknown). */
	failure?: string;
	/** A 2xx that shows the request was done (the caller's evidence rule). */
	evidence?: boolean;
	/** The run's renewal of a 401: a token refused as soon as issued, or the renewals ran out. */
	renewal?: 'freshTokenRefused' | 'renewalsExhausted';
	/** A rate refusal asks for a longer wait than this node takes. */
	tooLong?: 'retryAfter' | 'spikeInterval';
}

export interface AnswerContext {
	endpoint: 'token' | 'api';
	path?: string;
	/** The External Listing ID the request would create: "already exists" counts only when it names it. */
	createsId?: string | number;
}

const MAX_WORDS = 300;

/** The first of these values that is text, trimmed. */
function firstText(...values: unknown[]): string | undefined {
	for (const value of values)
		if (typeof value === 'string' && value.trim() !== '') return value.trim();
	return undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
	return value !== null && typeof value === 'object' && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: undefined;
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
	const record = asRecord(json?.error) ?? asRecord(Array.isArray(list) ? list[0] : undefined);
	return firstText(record?.code, record?.errorCode);
}

/** Reads an answer once, as n8n hands it over; `secrets` never reach the words. */
export function readAnswer(
	status: number,
	headers: Record<string, unknown> | undefined,
	body: unknown,
	secrets?: readonly string[],
): AnswerFacts {
	const { json } = readBody(body, headerValue(headers, 'content-type'));
	const fault = asRecord(json?.fault);
	const detail = asRecord(fault?.detail);
	const code =
		firstText(json?.code, json?.ErrorCode, detail?.errorcode, json?.error, json?.errorCode) ??
		nestedCode(body, json);
	const said = firstText(
		json?.description,
		json?.Error,
		fault?.faultstring,
		json?.error_description,
	);
	// The found words go through extractApiMessage too, which redacts and bounds them.
	const words = extractApiMessage(said ?? json ?? body, secrets)
		?.replace(/\s+/g, ' ')
		.slice(0, MAX_WORDS);
	return {
		status,
		code: code === undefined ? undefined : (extractApiMessage(code, secrets) ?? '').slice(0, 200),
		words: words === code ? undefined : words,
		wwwAuthenticate: headerValue(headers, 'www-authenticate'),
		gatewayFault: fault !== undefined,
	};
}

/** The answer's code in any letter case (Apigee and OAuth write them both ways). */
export const codeIs = (facts: AnswerFacts, code: string) => facts.code?.toLowerCase() === code;

export const statusIn = (facts: AnswerFacts, from: number, to: number) =>
	facts.status >= from && facts.status < to;

/**
 * A gateway limit: by its policy's code; without one, only by the gateway's own fault opening with the policy's
 * sentence. Words that merely mention a quota (a per-event limit, a page, a 5xx) are not the gateway's limit.
 */
function isGatewayLimit(facts: AnswerFacts, code: RegExp, opening: RegExp): boolean {
	if (facts.code !== undefined) return code.test(facts.code);
	return facts.gatewayFault === true && opening.test(facts.words ?? '');
}

export const isQuota = (facts: AnswerFacts) =>
	isGatewayLimit(
		facts,
		/^(policies\.ratelimit\.)?QuotaViolation$/i,
		/^rate limit quota violation\b/i,
	);

export const isSpikeArrest = (facts: AnswerFacts) =>
	isGatewayLimit(
		facts,
		/^(policies\.ratelimit\.)?SpikeArrestViolation$/i,
		/^spike arrest violation\b/i,
	);

/** A 503 (or Apigee's ServiceUnavailable): not handled (RFC 9110), so nothing was created and it may go again. */
export const isUnavailable = (facts: AnswerFacts) =>
	facts.status === 503 ||
	/^messaging\.adaptors\.http\.flow\.ServiceUnavailable$/i.test(facts.code ?? '');

/** The app lacks the API product: by the gateway's code, else by the words. */
export const isNoApiProduct = (facts: AnswerFacts) =>
	facts.code !== undefined
		? /NoApiProductMatch/i.test(facts.code)
		: /no ?api ?product match/i.test(facts.words ?? '') ||
			(facts.status === 403 && /resource forbidden/i.test(facts.words ?? ''));

// Only a 401: another status, whatever code it carries, may come from past the gateway, and a 500 is never resent.
export const isTokenRefused = (facts: AnswerFacts) => facts.status === 401;

/** Apigee answers a wrong key `invalid_client`, or `invalid_request` with "ClientId is Invalid". */
export const isInvalidClient = (facts: AnswerFacts) =>
	codeIs(facts, 'invalid_client') ||
	/client ?id is invalid|invalid client ?id|invalid consumer key/i.test(facts.words ?? '') ||
	(facts.status === 401 && /^basic/i.test(facts.wwwAuthenticate ?? ''));

/** The request never left this machine: a retry is safe. */
export const CONNECTION_FAILED_BEFORE_SEND = new Set(
	'ECONNREFUSED ENOTFOUND EAI_AGAIN EHOSTUNREACH ENETUNREACH EADDRNOTAVAIL'.split(' '),
);

/** Node.js refused to build the request (a header with a line break): nothing sent, and a retry fails alike. */
export const REQUEST_NOT_BUILT = new Set(
	'ERR_INVALID_CHAR ERR_HTTP_INVALID_HEADER_VALUE ERR_INVALID_HTTP_TOKEN ERR_UNESCAPED_CHARACTERS'.split(
		' ',
	),
);

const SAYS_EXISTS = /already[\s_-]?(?:exists?|listed|in use|taken)|duplicate|exists already/i;
const NAMES_EXTERNAL_LISTING_ID = /external[\s_-]?listing[\s_-]?id/i;
// A seat taken is not this listing's ID taken.
const ABOUT_SEATS = /seat|\brow\b|section|product|barcode/i;

/**
 * Where an ID may start and end in words (`id: 12`, `#12`, `id=12`, "12."), so that `12` is not named by `12.5`,
 * `012` or `A1/2`: an ID is compared as text, the way the API keeps it, never as a number.
 */
const ID_BEFORE = `(?<=^|[\\s"'\`([{<:#=,])`;
const ID_AFTER = `(?=$|[\\s"'\`)\\]}>,]|[.:;!?](?:\\s|$))`;

export function namesId(text: string, id: string | number): boolean {
	const wanted = String(id).trim();
	if (wanted === '') return false;
	const escaped = wanted.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	return new RegExp(`${ID_BEFORE}${escaped}${ID_AFTER}`).test(text);
}

/** A code that says the listing or its External Listing ID exists (never a seat, a row or a barcode). */
const CODE_SAYS_LISTED =
	/^(?:duplicate(?:External)?(?:Listing)?Id|duplicateListing|(?:external)?(?:listing)?(?:Id)?AlreadyExists|listingAlreadyListed)$/i;

/**
 * The API holds a listing with this External Listing ID: a 400 or 409 that names this ID, and whose code's last part
 * says the listing exists (`duplicateSectionRowSeat` is a seat); without a code, whose words say so, not of seats.
 */
export function isAlreadyListed(facts: AnswerFacts, context: AnswerContext): boolean {
	if (context.path !== PARTNER_API_PATHS.listings) return false;
	if ((facts.status !== 400 && facts.status !== 409) || context.createsId === undefined)
		return false;
	const text = `${facts.code ?? ''} ${facts.words ?? ''}`;
	if (!namesId(text, context.createsId)) return false;
	if (facts.code !== undefined)
		return CODE_SAYS_LISTED.test(
			facts.code.slice(facts.code.lastIndexOf('.') + 1).replace(/[_-]/g, ''),
		);
	return (
		SAYS_EXISTS.test(text) && (NAMES_EXTERNAL_LISTING_ID.test(text) || !ABOUT_SEATS.test(text))
	);
}

/** A spike arrest's rate per second: "Allowed rate : 40ps", "600pm", or Apigee Edge's spelled-out MessageRate. */
export function allowedRateOf(words: string | undefined): number | undefined {
	const text = words ?? '';
	const short = /allowed rate\s*:?\s*(\d+(?:\.\d+)?)\s*(ps|pm)\b/i.exec(text);
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
