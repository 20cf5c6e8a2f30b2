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
	const safeBody = redactSecrets(failure.body, context.secrets);
	// Without a status, only a network code tells that the request itself failed; with neither, the failure came
	// before sending (e.g. the token exchange in the credential).
	const mayHaveReachedServer =
		!failure.tokenExchange &&
		context.method !== 'GET' &&
		(failure.status === undefined
			? failure.code !== undefined &&
				!CONNECTION_FAILED_BEFORE_SEND.has(failure.code) &&
				!REQUEST_NOT_BUILT.has(failure.code)
			: meaning !== undefined
				? meaning.outcome === 'unknown'
				: failure.status === 303 || (failure.status >= 200 && failure.status < 300));
	const target = `${context.method} ${context.path}`;
	const subject = subjectOf(context.path);
	const apiSaid = apiMessage ? `The API said: "${oneLine(apiMessage)}".` : '';
	// n8n swaps any message that carries a raw network code (ECONNREFUSED, ENOTFOUND, ...) for a generic text of
	// its own, so messages name failures in words and keep the code for the description.
	const inWords = networkFailureInWords(failure.code);

	// The title says what happened, in one line; the details what to do.
	let message: string;
	const details: string[] = [];
	if (failure.tokenExchange) {
		const said = redactSecrets(failure.message, context.secrets);
		const title = redactSecrets(failure.tokenExchange.title, context.secrets);
		const description = redactSecrets(failure.tokenExchange.description, context.secrets);
		if (description && title.length <= 100 && !/\n/.test(title)) {
			message = title;
			details.push(description);
		} else {
			message = 'The Ticket Marketplace API credential could not log in';
			details.push(
				`It said: ${oneLine(said, 500)}`,
				'Check the Base URL, the consumer key and secret, and the marketplace e-mail and password of the credential.',
			);
		}
		details.push('This listing was not created: it needs a login that works.');
	} else if (meaning?.retry === 'rateLimit' && failure.retryAfterMs !== undefined) {
		message = `The Partner API asked to wait ${waitInWords(failure.retryAfterMs)} (rate limit), longer than this node waits`;
		details.push(
			`Nothing was created by this request. Run the workflow again in ${waitInWords(failure.retryAfterMs)} or later; this node waits at most ${waitInWords(RETRY_POLICY.maxRetryAfterMs)}.`,
		);
	} else if (failure.status !== undefined && failure.status >= 200 && failure.status < 300) {
		// A success status whose answer does not show what was done (the caller's rule, see confirmedBy).
		const contentType = headerValue(failure.headers, 'content-type');
		message = `Outcome unknown: the Partner API answered ${failure.status} with ${bodyInWords(failure.body, contentType)}`;
		details.push(`That answer does not show that ${subject.what} was created.`);
		const shown = bodyShown(failure.body, context.secrets);
		if (shown) details.push(`It answered: ${shown}`);
	} else if (failure.status !== undefined && failure.status >= 300 && failure.status < 400) {
		const location = headerValue(failure.headers, 'location');
		message = `The Partner API answered with a redirect (HTTP ${failure.status}), which is not followed`;
		details.push(
			`${target} was redirected${location ? ` to ${redirectTarget(location, context.baseUrl, context.secrets)}` : ''}. Requests to the API follow no redirect, so the access token goes nowhere else.`,
		);
		details.push(
			failure.status === 303
				? 'A 303 may follow a request the API processed.'
				: 'Nothing was created. Set the Base URL of the Ticket Marketplace API credential to the exact address the API answers on (often https:// instead of http://).',
		);
	} else if (failure.refusedAfterRenewal) {
		message = `The Partner API refused an access token it had just issued (HTTP ${failure.status})`;
		details.push(
			apiSaid,
			'The login works (consumer key and secret, e-mail and password), so your app may not make this request: on the developer portal, add the API product it needs to your app (for listings, the seller listing API). Another workflow or n8n renewing the same credential at the same moment can cause it too: run them apart. Nothing more was sent.',
		);
	} else if (failure.renewalsExhausted !== undefined) {
		const renewals = failure.renewalsExhausted;
		message = `The access token kept expiring (renewed ${renewals} time${renewals === 1 ? '' : 's'} in this run)`;
		details.push(
			'Each renewal is a login, and this node renews at most that often in one run; the API refused the token again. The login works. Likely cause: another workflow or n8n using the same credential at the same time, if the API revokes a token when it issues a new one; or tokens that expire within moments. Run the workflow again for the listings not created, or give this workflow a credential of its own. Nothing more was sent.',
		);
	} else if (meaning !== undefined && failure.status !== undefined) {
		// Every other answer of the API: the answer table's row says it.
		const words = apiWords(meaning, {
			path: context.path,
			status: failure.status,
			rateRefusals: context.rateLimitAnswers,
			lastWait:
				context.lastRetryAfterMs === undefined ? undefined : waitInWords(context.lastRetryAfterMs),
		});
		message = words.title;
		details.push(words.advice);
	} else if (failure.status !== undefined) {
		message = `The Partner API answered HTTP ${failure.status}`;
		details.push(apiSaid);
	} else if (CONNECTION_FAILED_BEFORE_SEND.has(failure.code ?? '')) {
		message = `Could not connect to the Partner API (${inWords})`;
		details.push(
			`Tried ${context.baseUrl || '(an empty Base URL)'} ${context.connectionRetries + 1} times. Nothing was sent. Check the Base URL of the Ticket Marketplace API credential, and that this n8n can reach it.`,
		);
	} else if (REQUEST_NOT_BUILT.has(failure.code ?? '')) {
		message = `The request to the Partner API could not be built (${inWords})`;
		details.push(
			'Nothing was sent. A value in it (often the access token the token endpoint gave) holds characters a request cannot carry.',
		);
	} else if (failure.code !== undefined) {
		message = `Outcome unknown: no answer from the Partner API (${inWords})`;
		details.push('The connection ended before an answer arrived.');
	} else {
		message = 'The request to the Partner API could not be sent';
		details.push(
			`n8n said: ${oneLine(redactSecrets(failure.message, context.secrets))}.`,
			'Nothing was sent. Run the workflow again; if it fails the same way, check the Base URL of the Ticket Marketplace API credential.',
		);
	}
	if (mayHaveReachedServer) {
		details.push(
			`The request may have reached the API: ${subject.what} may or may not have been created. It was not sent again, so nothing was created twice. ${subject.howToCheck}`,
		);
	}
	if (failure.code) details.push(`Network error code: ${failure.code}.`);

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
			: mayHaveReachedServer
				? 'unknown'
				: 'notCreated';
	return { error, effect, ...(meaning?.code !== undefined && { apiCode: meaning.code }) };
}
