// What became of a request to the Partner API or its gateway: one row per kind of answer, first match wins. Retry,
// renewal and stopping read a row's fields and nothing else; its words are keyed by its name (answerWords.ts).
import { CONNECTION_FAILED_BEFORE_SEND, REQUEST_NOT_BUILT, type AnswerFacts } from './apiAnswers';
import { isPreDeliverPath } from './partnerApi';
import { PARTNER_API_PATHS } from './paths';
import { escapeForRegExp } from './redaction';

export { readAnswer, type AnswerFacts } from './apiAnswers';

export interface AnswerContext {
	endpoint: 'token' | 'api';
	path?: string;
	/** The External Listing ID the request would create: "already exists" counts only when it names it. */
	createsId?: string | number;
}

// Apigee and OAuth write codes in either letter case.
const codeIs = (facts: AnswerFacts, code: string) => facts.code?.toLowerCase() === code;

const statusIn = (facts: AnswerFacts, from: number, to: number) =>
	facts.status >= from && facts.status < to;
const is =
	(...statuses: number[]) =>
	(f: AnswerFacts) =>
		statuses.includes(f.status);
const noAnswer = (f: AnswerFacts) => f.status === 0;
const isUpload = (context: AnswerContext) => isPreDeliverPath(context.path);
const failed =
	(...reasons: string[]) =>
	(f: AnswerFacts) =>
		noAnswer(f) && reasons.includes(f.failure ?? '');

// By the policy's code, else by the gateway's own fault opening with its sentence: words that merely mention a
// quota (a per-event limit, a page, a 5xx) are not the gateway's limit.
const gatewayLimit = (policy: string, opening: string) => (facts: AnswerFacts) =>
	facts.code !== undefined
		? new RegExp(`^(policies\\.ratelimit\\.)?${policy}$`, 'i').test(facts.code)
		: facts.gatewayFault === true && new RegExp(`^${opening}\\b`, 'i').test(facts.words ?? '');

const isQuota = gatewayLimit('QuotaViolation', 'rate limit quota violation');
const isSpikeArrest = gatewayLimit('SpikeArrestViolation', 'spike arrest violation');

/** A 503 (or Apigee's ServiceUnavailable): not handled (RFC 9110), so nothing was created and it may go again. */
const isUnavailable = (facts: AnswerFacts) =>
	// A 503 with a code of the service behind the gateway (`inventory.…`, the webhooks') reached it: that code decides.
	(facts.status === 503 && (facts.code === undefined || GATEWAY_CODE.test(facts.code))) ||
	/^messaging\.adaptors\.http\.flow\.ServiceUnavailable$/i.test(facts.code ?? '');
const isSystemError = (facts: AnswerFacts) => /(?:^|\.)system[_-]?error$/i.test(facts.code ?? '');
/** Apigee's own error codes, and codes of no namespace (a proxy's `SERVICE_UNAVAILABLE`). */
const GATEWAY_CODE = /^(?:[^.]*|(?:messaging|protocol|policies|keymanagement|steps|oauth)\..*)$/i;

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
			: 0;
	return perSecond > 0 && Number.isFinite(perSecond) ? perSecond : undefined;
}

/** The app lacks the API product: by the gateway's code, else by the words. */
const isNoApiProduct = (facts: AnswerFacts) =>
	facts.code !== undefined
		? /NoApiProductMatch/i.test(facts.code)
		: /no ?api ?product match/i.test(facts.words ?? '') ||
			(facts.status === 403 && /resource forbidden/i.test(facts.words ?? ''));

/** Apigee answers a wrong key `invalid_client`, or `invalid_request` with "ClientId is Invalid". */
const isInvalidClient = (facts: AnswerFacts) =>
	codeIs(facts, 'invalid_client') ||
	/client ?id is invalid|invalid client ?id|invalid consumer key/i.test(facts.words ?? '') ||
	(facts.status === 401 && /^basic/i.test(facts.wwwAuthenticate ?? ''));

const SAYS_EXISTS = /already[\s_-]?(?:exists?|listed|in use|taken)|duplicate|exists already/i;
// A seat taken is not this listing's ID taken, even where the words also name the listing (whole words: "Seattle"
// is no seat; the marketplace's name no ticket).
const ABOUT_SEATS =
	/(?<![a-z])(?:seats?|rows?|sections?|products?|tickets?(?! ?marketplace)|barcodes?)(?![a-z])/i;

// "ID" or "#" alone labels the listing only where no other noun owns it ("event ID 7", "request #2"): after the
// start, a sign, or a small word.
const ID_ALONE = `(?<=(?:^|[^\\w\\s]|\\b(?:the|a|an|its|with|of|for|by|same|under|as|duplicate))\\s*)`;
// An ID counts in words only after a label (`listing 12`, `External Listing ID: 12`, `externalListingId="12"`, `#12`)
// and up to where it may end ("12." but not `12.5`): a bare number may be a count, seconds or an event ("2 listings
// already exist"). An ID is compared as text, the way the API keeps it, never as a number.
const ID_LABEL = `(?:(?<![a-z\\d])(?:external[\\s_-]*)?listing(?:[\\s_-]*id)?|${ID_ALONE}(?:id|#))[)\\]}>"'\`]?\\s*(?:of\\s+)?[:#=]?\\s*[\\[({<"'\`]?`;
const ID_AFTER = `(?=$|[\\s"'\`)\\]}>,]|[.:;!?](?:\\s|$))`;

export function namesId(text: string, id: string | number): boolean {
	const wanted = String(id).trim();
	if (wanted === '') return false;
	const given = `${escapeForRegExp(wanted)}${ID_AFTER}`;
	// Or after the words that say it exists, where the listing was named before them ("Listing already exists: 7").
	const after = `(?<![a-z\\d])(?:external[\\s_-]*)?listing[^.;]*?\\b(?:exists?|listed)\\s*[:=]\\s*["'\`]?`;
	return new RegExp(`${ID_LABEL}${given}|${after}${given}`, 'i').test(text);
}

/** A code that says the listing or its External Listing ID exists (never a seat, a row, a barcode, or a product's
 * `externalId`: the code must name the listing). */
const CODE_SAYS_LISTED =
	/^(?:duplicate(?:External)?ListingId|duplicateListing|(?:external)?listing(?:Id)?AlreadyExists|listingAlreadyListed)$/i;

// The API holds a listing with this ID: a 400 or 409 whose words give this ID by a label, and whose code's last part
// says the listing exists (`duplicateSectionRowSeat` is a seat); without a code, whose words say so, not of seats.
// Beside this ID, another may be the holder's marketplace ID.
function isAlreadyListed(facts: AnswerFacts, { path, createsId }: AnswerContext): boolean {
	const text = `${facts.code ?? ''} ${facts.words ?? ''}`;
	if (path !== PARTNER_API_PATHS.listings || !is(400, 409)(facts)) return false;
	if (createsId === undefined) return false;
	// An ID field of its own counts beside a code (checked below): a request's body echoed is no such answer.
	const inField = facts.code !== undefined && facts.listingId === String(createsId).trim();
	if (!inField && !namesId(text, createsId)) return false;
	if (facts.code !== undefined)
		return CODE_SAYS_LISTED.test(
			facts.code.slice(facts.code.lastIndexOf('.') + 1).replace(/[_-]/g, ''),
		);
	return SAYS_EXISTS.test(text) && !ABOUT_SEATS.test(text);
}

export type Outcome = 'created' | 'alreadyListed' | 'unknown' | 'notCreated';

/** Never; after a rate refusal's wait; after a backoff (connections, a failed token endpoint); with a new token. */
export type Retry = 'no' | 'rateLimit' | 'reconnect' | 'renewToken';

export type Endpoint = AnswerContext['endpoint'];

export type AnswerMeaning = ReturnType<typeof meaningOf>;

const OUTCOMES: readonly string[] = ['created', 'alreadyListed', 'unknown'];
const RETRIES: readonly string[] = ['rateLimit', 'reconnect', 'renewToken'];

/** A row; `how` is its one departure from "not created, not retried, the run goes on". */
const row = <Name extends string>(
	name: Name,
	matches: (facts: AnswerFacts, context: AnswerContext) => boolean,
	how?: Exclude<Outcome, 'notCreated'> | Exclude<Retry, 'no'> | 'stops',
) => ({
	name,
	matches,
	outcome: (OUTCOMES.includes(how ?? '') ? how : 'notCreated') as Outcome,
	retry: (RETRIES.includes(how ?? '') ? how : 'no') as Retry,
	// The run sends nothing more (quota used up, login refused): what is left is not created.
	stopsRun: how === 'stops',
});

const API_ROWS = [
	row('unreadableFile', failed('unreadableFile')),
	row('tokenExchange', failed('tokenExchange'), 'stops'),
	row('connectionRefused', failed(...CONNECTION_FAILED_BEFORE_SEND), 'reconnect'),
	row('requestNotBuilt', failed(...REQUEST_NOT_BUILT)),
	// An error without a network code, after the credential handed the request on to be sent.
	row('failedAfterHanding', failed('handedOn'), 'unknown'),
	row('connectionLost', (f) => noAnswer(f) && !!f.failure, 'unknown'),
	row('notSent', noAnswer),
	// The evidence is the caller's (showsCreated): without one, every 2xx shows it.
	row('created', (f) => statusIn(f, 200, 300) && f.evidence !== false, 'created'),
	row('unconfirmed', (f) => statusIn(f, 200, 300), 'unknown'),
	// A 303, or a 302 (post/redirect/get as many servers answer it), may follow a processed request.
	row('seeOther', is(302, 303), 'unknown'),
	row('redirected', (f) => statusIn(f, 300, 400)),
	row('unexpected', (f) => f.status < 200),
	// A rate refusal that asks for more than this node waits (the transport's RETRY_POLICY).
	row('spikeTooSlow', (f) => f.tooLong === 'spikeInterval', 'stops'),
	row('waitTooLong', (f) => f.tooLong === 'retryAfter'),
	// A 401 no renewal mends: a token refused as soon as issued, or once the run's renewals ran out.
	row('freshTokenRefused', (f) => f.renewal === 'freshTokenRefused', 'stops'),
	row('renewalsExhausted', (f) => f.renewal === 'renewalsExhausted', 'stops'),
	// Refused by the gateway before the service saw them: nothing was created.
	row('quota', isQuota, 'stops'),
	row('spikeArrest', isSpikeArrest, 'rateLimit'),
	row('noApiProduct', isNoApiProduct),
	// A failure inside the service (a 500, 502, 504), or its systemError whatever the status: it may have created it.
	row('serverError', (f) => isSystemError(f) || (f.status >= 500 && !isUnavailable(f)), 'unknown'),
	// Only a 401: another status, whatever code it carries, may come from past the gateway; a 500 is never resent.
	row('tokenRefused', is(401), 'renewToken'),
	row('forbidden', is(403)),
	// Content Too Large (RFC 9110): refused unread, as Apigee refuses a body over its limit ("Body buffer overflow").
	row('tooLarge', is(413)),
	// Pre-deliver: the service documents a 404 as "no such listing", not a wrong address.
	row('noSuchListing', (f, c) => isUpload(c) && f.status === 404),
	// Pre-deliver: a conflict may mean the tickets have their PDFs already, this upload's or an earlier one.
	row('uploadConflict', (f, c) => isUpload(c) && f.status === 409, 'unknown'),
	row('alreadyListed', isAlreadyListed, 'alreadyListed'),
	row('conflict', is(409)),
	row('notFound', is(404, 405)),
	row('tooManyRequests', is(429), 'rateLimit'),
	row('unavailable', isUnavailable, 'rateLimit'),
	row('refused', () => true),
] as const;

/** The token URL (an exchange creates nothing, whatever its answer). */
const TOKEN_ROWS = [
	// Not the token endpoint's answer: a redirect (never followed), an address that is not there.
	row('tokenRedirected', (f) => statusIn(f, 300, 400)),
	row('tokenUrlNotFound', is(404, 405)),
	row('quota', isQuota, 'stops'),
	row('spikeArrest', isSpikeArrest, 'rateLimit'),
	row('invalidClient', isInvalidClient),
	row(
		'invalidGrant',
		(f) => codeIs(f, 'invalid_grant') || /developer[- ]portal/i.test(f.words ?? ''),
	),
	row('unsupportedGrantType', (f) => codeIs(f, 'unsupported_grant_type')),
	row('noApiProduct', isNoApiProduct),
	row('tokenMissing', (f) => statusIn(f, 200, 300)),
	row('loginRefused', is(401, 403)),
	row('tooManyRequests', is(429), 'rateLimit'),
	row('tokenEndpointFailed', (f) => f.status >= 500, 'reconnect'),
	row('tokenRequestRefused', () => true),
] as const;

export type ApiRowName = (typeof API_ROWS)[number]['name'];
export type RowName = ApiRowName | (typeof TOKEN_ROWS)[number]['name'];
type Row = ReturnType<typeof row<string>>;

/** Every row, for a look at the table as data (its tests). */
export const ANSWER_ROWS: Readonly<Record<Endpoint, readonly Row[]>> = {
	api: API_ROWS,
	token: TOKEN_ROWS,
};

/** What an answer means, by the first row that matches (each list ends in a catch-all). */
export function meaningOf(facts: AnswerFacts, context: AnswerContext) {
	const found = ANSWER_ROWS[context.endpoint].find((one) => one.matches(facts, context))!;
	// A spike arrest's allowed rate per second, where the fault names it ("Allowed rate : 40ps").
	const allowedPerSecond = found.name === 'spikeArrest' ? allowedRateOf(facts.words) : undefined;
	return {
		row: found.name as RowName,
		outcome: found.outcome,
		retry: found.retry,
		stopsRun: found.stopsRun,
		// A success's own fields are not the API's error code (support goes by that code).
		...(facts.code !== undefined && !statusIn(facts, 200, 300) && { code: facts.code }),
		...(facts.words !== undefined && { words: facts.words }),
		...(allowedPerSecond !== undefined && { allowedPerSecond }),
	};
}
