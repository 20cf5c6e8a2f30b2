/**
 * What a failed Partner API request means: for the listing (could the API have created it?) and for the person
 * reading the error (in words, never with a secret). The one place that turns any failure, n8n's wrapped errors
 * included, into a NodeApiError. The API's answers are read by the answer table (answerTable.ts); this module adds
 * what is no answer of the API's (no connection, the token exchange, a redirect, a success that shows nothing).
 */
import { NodeApiError } from 'n8n-workflow';

import type { INode, JsonObject } from 'n8n-workflow';

import { oneLine } from '../helpers/errors';

import {
	apiWords,
	extractApiMessage,
	headerValue,
	networkFailureInWords,
	redactSecrets,
	subjectOf,
} from './fromCredential';
import {
	bodyInWords,
	bodyShown,
	CONNECTION_FAILED_BEFORE_SEND,
	meaningOfFailure,
	REQUEST_NOT_BUILT,
} from './httpFailure';
import type { AnswerMeaning, TokenDiagnosis } from './fromCredential';
import type { Effect, HttpFailure } from './httpFailure';
import { RETRY_POLICY } from './retryAfter';

/**
 * Where a redirect points, as origin and path only (its query is the server's, and may carry anything), with every
 * secret redacted: a path or host may carry one too. Redacted before parsing as well, since parsing changes the
 * spelling (a host in lower case, a path percent-encoded), and again after; cut only then.
 */
function redirectTarget(location: string, baseUrl: string, secrets: string[] | undefined): string {
	try {
		const target = new URL(redactSecrets(location, secrets), baseUrl || undefined);
		return redactSecrets(`${target.origin}${target.pathname}`, secrets).slice(0, 200);
	} catch {
		return '(an address that is not a URL)';
	}
}

export interface FailureContext {
	method: string;
	path: string;
	baseUrl: string;
	itemIndex: number;
	secrets?: string[];
	/** How many rate refusals (429, spike arrest) this request was answered with. */
	rateLimitAnswers: number;
	/** The identifier of what the request creates (see SendOptions.createsId). */
	createsId?: string | number;
	connectionRetries: number;
	/** The wait the API asked for in its last 429, if it said. */
	lastRetryAfterMs?: number;
}

export interface ClassifiedFailure {
	error: NodeApiError;
	effect: Effect;
	/** The API's own error code, where its answer named one. */
	apiCode?: string;
}

/** A wait in words: "45 s", "10 min", "24 h". */
function waitInWords(ms: number): string {
	const seconds = Math.ceil(ms / 1000);
	if (seconds < 120) return `${seconds} s`;
	const minutes = Math.ceil(seconds / 60);
	return minutes < 120 ? `${minutes} min` : `${Math.ceil(minutes / 60)} h`;
}

/** A failure in words, as n8n shows an error: the title says what happened, in one line; the details what to do. */
interface FailureWords {
	message: string;
	details: string[];
}

/**
 * Whether the request may have reached the API, so that what it asks for may have been done. Without a status,
 * only a network code tells that the request itself failed; with neither, the failure came before sending (e.g.
 * the token exchange in the credential).
 */
function mayHaveReachedServer(
	failure: HttpFailure,
	method: string,
	meaning: AnswerMeaning | undefined,
): boolean {
	if (failure.tokenExchange || method === 'GET') return false;
	if (failure.status === undefined)
		return (
			failure.code !== undefined &&
			!CONNECTION_FAILED_BEFORE_SEND.has(failure.code) &&
			!REQUEST_NOT_BUILT.has(failure.code)
		);
	if (meaning !== undefined) return meaning.outcome === 'unknown';
	return failure.status === 303 || (failure.status >= 200 && failure.status < 300);
}

/** The credential could not log in: what it diagnosed, secrets redacted. */
function tokenExchangeWords(
	failure: HttpFailure,
	diagnosis: TokenDiagnosis,
	secrets: string[] | undefined,
): FailureWords {
	const title = redactSecrets(diagnosis.title, secrets);
	const description = redactSecrets(diagnosis.description, secrets);
	const { message, details } =
		description && title.length <= 100 && !/\n/.test(title)
			? { message: title, details: [description] }
			: {
					message: 'The Ticket Marketplace API credential could not log in',
					details: [
						`It said: ${oneLine(redactSecrets(failure.message, secrets), 500)}`,
						'Check the Base URL, the consumer key and secret, and the marketplace e-mail and password of the credential.',
					],
				};
	details.push('This listing was not created: it needs a login that works.');
	return { message, details };
}

/** A success whose answer does not show what was done, or a redirect: answers the answer table leaves to us. */
function successOrRedirectWords(
	failure: HttpFailure & { status: number },
	context: FailureContext,
): FailureWords {
	if (failure.status >= 200 && failure.status < 300) {
		// A success status whose answer does not show what was done (the caller's rule, see confirmedBy).
		const contentType = headerValue(failure.headers, 'content-type');
		const details = [`That answer does not show that ${subjectOf(context.path).what} was created.`];
		const shown = bodyShown(failure.body, context.secrets);
		if (shown) details.push(`It answered: ${shown}`);
		return {
			message: `Outcome unknown: the Partner API answered ${failure.status} with ${bodyInWords(failure.body, contentType)}`,
			details,
		};
	}
	const location = headerValue(failure.headers, 'location');
	return {
		message: `The Partner API answered with a redirect (HTTP ${failure.status}), which is not followed`,
		details: [
			`${context.method} ${context.path} was redirected${location ? ` to ${redirectTarget(location, context.baseUrl, context.secrets)}` : ''}. Requests to the API follow no redirect, so the access token goes nowhere else.`,
			failure.status === 303
				? 'A 303 may follow a request the API processed.'
				: 'Nothing was created. Set the Base URL of the Ticket Marketplace API credential to the exact address the API answers on (often https:// instead of http://).',
		],
	};
}

/** A 401 that no renewal of the token can mend: a token refused as soon as issued, or renewals run out. */
function tokenRefusedWords(failure: HttpFailure, apiSaid: string): FailureWords | undefined {
	if (failure.refusedAfterRenewal) {
		return {
			message: `The Partner API refused an access token it had just issued (HTTP ${failure.status})`,
			details: [
				apiSaid,
				'The login works (consumer key and secret, e-mail and password), so your app may not make this request: on the developer portal, add the API product it needs to your app (for listings, the seller listing API). Another workflow or n8n renewing the same credential at the same moment can cause it too: run them apart. Nothing more was sent.',
			],
		};
	}
	if (failure.renewalsExhausted !== undefined) {
		const renewals = failure.renewalsExhausted;
		return {
			message: `The access token kept expiring (renewed ${renewals} time${renewals === 1 ? '' : 's'} in this run)`,
			details: [
				'Each renewal is a login, and this node renews at most that often in one run; the API refused the token again. The login works. Likely cause: another workflow or n8n using the same credential at the same time, if the API revokes a token when it issues a new one; or tokens that expire within moments. Run the workflow again for the listings not created, or give this workflow a credential of its own. Nothing more was sent.',
			],
		};
	}
	return undefined;
}

/** No answer came: the connection failed before sending, the request could not be built, or it ended midway. */
function noAnswerWords(failure: HttpFailure, context: FailureContext): FailureWords {
	// n8n swaps any message that carries a raw network code (ECONNREFUSED, ENOTFOUND, ...) for a generic text of
	// its own, so messages name failures in words and keep the code for the description.
	if (failure.unreadableFile)
		return {
			message: 'A ticket file could not be read, so its upload was not sent',
			details: [
				`n8n said: ${oneLine(redactSecrets(failure.message, context.secrets))}.`,
				"Nothing was sent for this listing. Check that the previous node's file is still in n8n's binary data (the filesystem or S3 folder n8n keeps it in), then run the workflow again.",
			],
		};
	const inWords = networkFailureInWords(failure.code);
	if (CONNECTION_FAILED_BEFORE_SEND.has(failure.code ?? ''))
		return {
			message: `Could not connect to the Partner API (${inWords})`,
			details: [
				`Tried ${context.baseUrl || '(an empty Base URL)'} ${context.connectionRetries + 1} times. Nothing was sent. Check the Base URL of the Ticket Marketplace API credential, and that this n8n can reach it.`,
			],
		};
	if (REQUEST_NOT_BUILT.has(failure.code ?? ''))
		return {
			message: `The request to the Partner API could not be built (${inWords})`,
			details: [
				'Nothing was sent. A value in it (often the access token the token endpoint gave) holds characters a request cannot carry.',
			],
		};
	if (failure.code !== undefined)
		return {
			message: `Outcome unknown: no answer from the Partner API (${inWords})`,
			details: ['The connection ended before an answer arrived.'],
		};
	return {
		message: 'The request to the Partner API could not be sent',
		details: [
			`n8n said: ${oneLine(redactSecrets(failure.message, context.secrets))}.`,
			'Nothing was sent. Run the workflow again; if it fails the same way, check the Base URL of the Ticket Marketplace API credential.',
		],
	};
}

/** What happened, in words: the first rule that fits the failure says it. */
function failureWords(
	failure: HttpFailure,
	context: FailureContext,
	meaning: AnswerMeaning | undefined,
	apiSaid: string,
): FailureWords {
	if (failure.tokenExchange)
		return tokenExchangeWords(failure, failure.tokenExchange, context.secrets);
	if (meaning?.retry === 'rateLimit' && failure.retryAfterMs !== undefined) {
		const wait = waitInWords(failure.retryAfterMs);
		return {
			message: `The Partner API asked to wait ${wait} (${meaning.row === 'unavailable' ? 'service unavailable' : 'rate limit'}), longer than this node waits`,
			details: [
				`Nothing was created by this request. Run the workflow again in ${wait} or later; this node waits at most ${waitInWords(RETRY_POLICY.maxRetryAfterMs)}.`,
			],
		};
	}
	if (failure.spikeIntervalMs !== undefined) {
		const interval = waitInWords(failure.spikeIntervalMs);
		return {
			message: `The Partner API's spike arrest admits one request every ${interval} (rate limit), longer than this node waits`,
			details: [
				apiSaid,
				`Nothing was created by this request, and nothing more is sent in this run: at that rate a sheet would take hours. Ask the marketplace to raise your app's rate, or send fewer listings per run and run the workflow again later; this node waits at most ${waitInWords(RETRY_POLICY.maxWaitMs)} between requests.`,
			].filter(Boolean),
		};
	}
	const status = failure.status;
	if (status !== undefined && status >= 200 && status < 400)
		return successOrRedirectWords({ ...failure, status }, context);
	const refused = tokenRefusedWords(failure, apiSaid);
	if (refused) return refused;
	if (status === undefined) return noAnswerWords(failure, context);
	if (meaning === undefined)
		return { message: `The Partner API answered HTTP ${status}`, details: [apiSaid] };
	// Every other answer of the API: the answer table's row says it.
	const words = apiWords(meaning, {
		path: context.path,
		status,
		rateRefusals: context.rateLimitAnswers,
		lastWait:
			context.lastRetryAfterMs === undefined ? undefined : waitInWords(context.lastRetryAfterMs),
	});
	return { message: words.title, details: [words.advice] };
}

/** The failure in words, as n8n's own error type, with what it means for the request's item. */
export function classifyFailure(
	node: INode,
	failure: HttpFailure,
	context: FailureContext,
): ClassifiedFailure {
	const apiMessage = extractApiMessage(failure.body, context.secrets);
	const meaning =
		failure.meaning ??
		meaningOfFailure(failure, {
			path: context.path,
			createsId: context.createsId,
			secrets: context.secrets,
		});
	const reached = mayHaveReachedServer(failure, context.method, meaning);
	const apiSaid = apiMessage ? `The API said: "${oneLine(apiMessage)}".` : '';
	const { message, details } = failureWords(failure, context, meaning, apiSaid);
	if (reached) {
		const subject = subjectOf(context.path);
		details.push(
			`The request may have reached the API: ${subject.what} may or may not have been created. It was not sent again, so nothing was created twice. ${subject.howToCheck}`,
		);
	}
	if (failure.code) details.push(`Network error code: ${failure.code}.`);

	const safeBody = redactSecrets(failure.body, context.secrets);
	const error = new NodeApiError(
		node,
		{ httpCode: failure.status ?? null, body: (safeBody ?? null) as JsonObject } as JsonObject,
		{
			message,
			description: details.filter(Boolean).join(' ') || apiMessage,
			httpCode: failure.status !== undefined ? String(failure.status) : undefined,
			itemIndex: context.itemIndex,
		},
	);
	const effect: Effect =
		meaning?.outcome === 'alreadyListed' || meaning?.outcome === 'created'
			? 'created'
			: reached
				? 'unknown'
				: 'notCreated';
	return { error, effect, ...(meaning?.code !== undefined && { apiCode: meaning.code }) };
}
