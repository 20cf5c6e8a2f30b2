/**
 * What became of a request to the Partner API, or to the Apigee gateway in front of it: one table, read alike by the
 * credential (its token exchange and its test) and by every operation of the node (through the transport). Each row
 * says, for one kind of answer (a success that shows it, a redirect, a refusal, no answer at all), what became of
 * the request, whether to try it again and how, and whether the run stops sending; its words are keyed by the row's
 * name (answerWords.ts, tokenWords.ts). Retry, renewal and stopping read these fields and nothing else: a new answer
 * the world sends, or a new reading of one ("treat 202 as created"), is one row here and one test.
 */
import {
	allowedRateOf,
	codeIs,
	CONNECTION_FAILED_BEFORE_SEND,
	isAlreadyListed,
	isInvalidClient,
	isNoApiProduct,
	isQuota,
	isSpikeArrest,
	isTokenRefused,
	isUnavailable,
	REQUEST_NOT_BUILT,
	statusIn,
} from './answerFacts';
import type { AnswerContext, AnswerFacts } from './answerFacts';
import { isPreDeliverPath } from './partnerApi';

export {
	allowedRateOf,
	CONNECTION_FAILED_BEFORE_SEND,
	namesId,
	readAnswer,
	REQUEST_NOT_BUILT,
} from './answerFacts';
export type { AnswerContext, AnswerFacts } from './answerFacts';

/** What a request did, as far as its answer tells. */
export type Outcome = 'created' | 'alreadyListed' | 'unknown' | 'notCreated';

/**
 * Whether the same request may go again: never; after a rate refusal's wait (its Retry-After, else a backoff, within
 * the rate refusals' budget); after a backoff, within the budget for connections (a connection refused, a token
 * endpoint that failed); or with a renewed access token.
 */
export type Retry = 'no' | 'rateLimit' | 'reconnect' | 'renewToken';

/** Which endpoint answered: the token URL, or a request made with the access token. */
export type Endpoint = AnswerContext['endpoint'];

/** What one answer means. */
export interface AnswerMeaning {
	row: RowName;
	outcome: Outcome;
	retry: Retry;
	/** The run sends nothing more (the plan's quota is used up, the login refused): what is left is not created. */
	stopsRun: boolean;
	/** The API's code and words, as the answer gave them. */
	code?: string;
	words?: string;
	/** A spike arrest's allowed rate, in requests per second, where the fault names it ("Allowed rate : 40ps"). */
	allowedPerSecond?: number;
}

interface Row {
	name: string;
	matches: (facts: AnswerFacts, context: AnswerContext) => boolean;
	outcome: Outcome;
	retry: Retry;
	stopsRun: boolean;
}

const row = <Name extends string>(
	name: Name,
	matches: Row['matches'],
	outcome: Outcome = 'notCreated',
	retry: Retry = 'no',
	stopsRun = false,
) => ({ name, matches, outcome, retry, stopsRun });

const noAnswer = (f: AnswerFacts) => f.status === 0;
const failedWith = (f: AnswerFacts, codes: Set<string>) => codes.has(f.failure ?? '');

/** A request made with the access token: the rows in order, first match wins. */
const API_ROWS = [
	// No answer came.
	row('unreadableFile', (f) => noAnswer(f) && f.failure === 'unreadableFile'),
	row(
		'tokenExchange',
		(f) => noAnswer(f) && f.failure === 'tokenExchange',
		'notCreated',
		'no',
		true,
	),
	row(
		'connectionRefused',
		(f) => noAnswer(f) && failedWith(f, CONNECTION_FAILED_BEFORE_SEND),
		'notCreated',
		'reconnect',
	),
	row('requestNotBuilt', (f) => noAnswer(f) && failedWith(f, REQUEST_NOT_BUILT)),
	row('connectionLost', (f) => noAnswer(f) && !!f.failure, 'unknown'),
	row('notSent', noAnswer),
	// The evidence is the caller's (showsCreated): without one, every 2xx shows it.
	row('created', (f) => statusIn(f, 200, 300) && f.evidence !== false, 'created'),
	row('unconfirmed', (f) => statusIn(f, 200, 300), 'unknown'),
	row('seeOther', (f) => f.status === 303, 'unknown'),
	row('redirected', (f) => statusIn(f, 300, 400)),
	row('unexpected', (f) => f.status < 200),
	// A rate refusal that asks for more than this node waits (see the transport's RETRY_POLICY).
	row('spikeTooSlow', (f) => f.tooLong === 'spikeInterval', 'notCreated', 'no', true),
	row('waitTooLong', (f) => f.tooLong === 'retryAfter'),
	// A 401 no renewal mends: a token refused as soon as issued, or once the run's renewals ran out.
	row('freshTokenRefused', (f) => f.renewal === 'freshTokenRefused', 'notCreated', 'no', true),
	row('renewalsExhausted', (f) => f.renewal === 'renewalsExhausted', 'notCreated', 'no', true),
	// The gateway refused these before the service saw them: nothing was created.
	row('quota', isQuota, 'notCreated', 'no', true),
	row('spikeArrest', isSpikeArrest, 'notCreated', 'rateLimit'),
	row('noApiProduct', isNoApiProduct),
	row('tokenRefused', isTokenRefused, 'notCreated', 'renewToken'),
	row('forbidden', (f) => f.status === 403),
	// Pre-deliver Tickets: a 404 names the listing, not the address (the service documents it as "no such listing").
	row('noSuchListing', (f, context) => isPreDeliverPath(context.path) && f.status === 404),
	row('alreadyListed', isAlreadyListed, 'alreadyListed'),
	row('conflict', (f) => f.status === 409),
	row('notFound', (f) => f.status === 404 || f.status === 405),
	row('tooManyRequests', (f) => f.status === 429, 'notCreated', 'rateLimit'),
	row('unavailable', isUnavailable, 'notCreated', 'rateLimit'),
	// A failure inside the service (inventory.listings.systemError, a 500, 502 or 504): it may have created the listing.
	row('serverError', (f) => f.status >= 500, 'unknown'),
	row('refused', () => true),
] as const;

/** The token URL: the rows in order, first match wins (a token exchange creates nothing, whatever its answer). */
const TOKEN_ROWS = [
	// Not the token endpoint's answer: a redirect (never followed), an address that is not there.
	row('tokenRedirected', (f) => statusIn(f, 300, 400)),
	row('tokenUrlNotFound', (f) => f.status === 404 || f.status === 405),
	row('quota', isQuota, 'notCreated', 'no', true),
	row('spikeArrest', isSpikeArrest, 'notCreated', 'rateLimit'),
	row('invalidClient', isInvalidClient),
	row(
		'invalidGrant',
		(f) => codeIs(f, 'invalid_grant') || /developer[- ]portal/i.test(f.words ?? ''),
	),
	row('unsupportedGrantType', (f) => codeIs(f, 'unsupported_grant_type')),
	row('noApiProduct', isNoApiProduct),
	row('tokenMissing', (f) => statusIn(f, 200, 300)),
	row('loginRefused', (f) => f.status === 401 || f.status === 403),
	row('tooManyRequests', (f) => f.status === 429, 'notCreated', 'rateLimit'),
	row('tokenEndpointFailed', (f) => f.status >= 500, 'notCreated', 'reconnect'),
	row('tokenRequestRefused', () => true),
] as const;

/** The rows of the table, by name (the words for users are keyed by it). */
export type ApiRowName = (typeof API_ROWS)[number]['name'];
export type RowName = ApiRowName | (typeof TOKEN_ROWS)[number]['name'];

/** Every row, for a look at the table as data (its tests). */
export const ANSWER_ROWS: Readonly<Record<Endpoint, readonly Row[]>> = {
	api: API_ROWS,
	token: TOKEN_ROWS,
};

/** What an answer means, by the first row that matches: every answer has one (each list ends in a catch-all). */
export function meaningOf(facts: AnswerFacts, context: AnswerContext): AnswerMeaning {
	const found = ANSWER_ROWS[context.endpoint].find((candidate) =>
		candidate.matches(facts, context),
	)!;
	const allowedPerSecond = found.name === 'spikeArrest' ? allowedRateOf(facts.words) : undefined;
	return {
		row: found.name as RowName,
		outcome: found.outcome,
		retry: found.retry,
		stopsRun: found.stopsRun,
		...(facts.code !== undefined && { code: facts.code }),
		...(facts.words !== undefined && { words: facts.words }),
		...(allowedPerSecond !== undefined && { allowedPerSecond }),
	};
}
