/**
 * What became of a request to the Partner API (or its Apigee gateway), for the credential and every operation alike:
 * one row per kind of answer, first match wins. Retry, renewal and stopping read these fields and nothing else; the
 * words are keyed by the row's name (answerWords.ts, tokenWords.ts).
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

export * from './answerFacts';

export type Outcome = 'created' | 'alreadyListed' | 'unknown' | 'notCreated';

/** Never; after a rate refusal's wait; after a backoff (connections, a failed token endpoint); with a new token. */
export type Retry = 'no' | 'rateLimit' | 'reconnect' | 'renewToken';

export type Endpoint = AnswerContext['endpoint'];

export interface AnswerMeaning {
	row: RowName;
	outcome: Outcome;
	retry: Retry;
	/** The run sends nothing more (quota used up, login refused): what is left is not created. */
	stopsRun: boolean;
	code?: string;
	words?: string;
	/** A spike arrest's allowed rate per second, where the fault names it ("Allowed rate : 40ps"). */
	allowedPerSecond?: number;
}

interface Row {
	name: string;
	matches: (facts: AnswerFacts, context: AnswerContext) => boolean;
	outcome: Outcome;
	retry: Retry;
	stopsRun: boolean;
}

const OUTCOMES: readonly string[] = ['created', 'alreadyListed', 'unknown'];
const RETRIES: readonly string[] = ['rateLimit', 'reconnect', 'renewToken'];

/** A row; `how` is its one departure from "not created, not retried, the run goes on". */
const row = <Name extends string>(
	name: Name,
	matches: Row['matches'],
	how?: Exclude<Outcome, 'notCreated'> | Exclude<Retry, 'no'> | 'stops',
) => ({
	name,
	matches,
	outcome: (OUTCOMES.includes(how ?? '') ? how : 'notCreated') as Outcome,
	retry: (RETRIES.includes(how ?? '') ? how : 'no') as Retry,
	stopsRun: how === 'stops',
});

const noAnswer = (f: AnswerFacts) => f.status === 0;
const failedWith = (f: AnswerFacts, codes: Set<string>) => codes.has(f.failure ?? '');
const is =
	(...statuses: number[]) =>
	(f: AnswerFacts) =>
		statuses.includes(f.status);

const API_ROWS = [
	row('unreadableFile', (f) => noAnswer(f) && f.failure === 'unreadableFile'),
	row('tokenExchange', (f) => noAnswer(f) && f.failure === 'tokenExchange', 'stops'),
	row(
		'connectionRefused',
		(f) => noAnswer(f) && failedWith(f, CONNECTION_FAILED_BEFORE_SEND),
		'reconnect',
	),
	row('requestNotBuilt', (f) => noAnswer(f) && failedWith(f, REQUEST_NOT_BUILT)),
	row('connectionLost', (f) => noAnswer(f) && !!f.failure, 'unknown'),
	row('notSent', noAnswer),
	// The evidence is the caller's (showsCreated): without one, every 2xx shows it.
	row('created', (f) => statusIn(f, 200, 300) && f.evidence !== false, 'created'),
	row('unconfirmed', (f) => statusIn(f, 200, 300), 'unknown'),
	row('seeOther', is(303), 'unknown'),
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
	row('tokenRefused', isTokenRefused, 'renewToken'),
	row('forbidden', is(403)),
	// Pre-deliver: the service documents a 404 as "no such listing", not a wrong address.
	row('noSuchListing', (f, context) => isPreDeliverPath(context.path) && f.status === 404),
	row('alreadyListed', isAlreadyListed, 'alreadyListed'),
	row('conflict', is(409)),
	row('notFound', is(404, 405)),
	row('tooManyRequests', is(429), 'rateLimit'),
	row('unavailable', isUnavailable, 'rateLimit'),
	// A failure inside the service (a 500, 502, 504, inventory.listings.systemError): it may have created it.
	row('serverError', (f) => f.status >= 500, 'unknown'),
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

/** Every row, for a look at the table as data (its tests). */
export const ANSWER_ROWS: Readonly<Record<Endpoint, readonly Row[]>> = {
	api: API_ROWS,
	token: TOKEN_ROWS,
};

/** What an answer means, by the first row that matches (each list ends in a catch-all). */
export function meaningOf(facts: AnswerFacts, context: AnswerContext): AnswerMeaning {
	const found = ANSWER_ROWS[context.endpoint].find((one) => one.matches(facts, context))!;
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
