/**
 * What a failed Partner API request means: for the listing (could the API have created it?), for a retry (is one
 * safe?), and for the person reading the error (in words, never with a secret). The one place that turns any
 * failure, n8n's wrapped errors included, into a NodeApiError.
 */
import { NodeApiError } from 'n8n-workflow';

import type { ICredentialDataDecryptedObject, INode, JsonObject } from 'n8n-workflow';

import { basicAuthorization } from '../../../credentials/common/partnerApi';
import {
	extractApiMessage,
	headerValue,
	networkFailureInWords,
	redactSecrets,
} from '../../../credentials/common/apiAnswers';
import { isTokenExchangeFailure } from '../../../credentials/common/tokenDiagnosis';

export { extractApiMessage, redactSecrets };

/** Shorter values are not redacted: they would blank out ordinary words and numbers. */
const MIN_SECRET_LENGTH = 4;

/**
 * Every value of the API credential an answer could echo, and the Basic header's key:secret. redactSecrets finds
 * each in every form it could be echoed in (URL-, form-, HTML- or JSON-encoded, base64). The access token is read
 * at the moment of asking, so a token renewed during the run is covered too.
 */
export function credentialSecrets(data: ICredentialDataDecryptedObject | undefined): string[] {
	if (!data) return [];
	const values = ['consumerKey', 'consumerSecret', 'email', 'password', 'accessToken']
		.map((key) => data[key])
		.filter((value): value is string => typeof value === 'string');
	values.push(basicAuthorization(data.consumerKey, data.consumerSecret).slice('Basic '.length));
	return [...new Set(values)].filter((value) => value.length >= MIN_SECRET_LENGTH);
}

/** Retry limits. 429 and refused connections never reached the API's business logic, so retrying them is safe. */
export const RETRY_POLICY = {
	maxRateLimitRetries: 6,
	maxConnectionRetries: 3,
	baseBackoffMs: 1000,
	maxWaitMs: 60_000,
	/** The longest Retry-After honoured; an API asking for more is reported, not waited for. */
	maxRetryAfterMs: 300_000,
	/** The shortest wait after a 429 that names one (a Retry-After of 0 or in the past is no reason to hammer). */
	minRetryWaitMs: 1000,
};

/**
 * What a failed request means for the listing: `refused` when the API provably created nothing (an HTTP 4xx
 * answer, a connection that failed before sending, a token that could not be obtained), `unknown` when the request
 * may have reached the API (timeout, reset, 5xx, or a 2xx that does not show it was done), `alreadyExists` when
 * the API answered 409 (conflict) naming the External Listing ID: it holds what the request would create, and
 * created nothing new.
 */
export type FailureOutcome = 'refused' | 'unknown' | 'alreadyExists';

/** A conflict (409), whatever it is about. */
export function isConflict(failure: HttpFailure): boolean {
	return failure.status === 409;
}

/** The text of an answer's body, for a look at what it names (bounded: a huge body is cut). */
function bodyText(body: unknown): string {
	if (typeof body === 'string') return body.slice(0, 100_000);
	try {
		return (JSON.stringify(body) ?? '').slice(0, 100_000);
	} catch {
		return '';
	}
}

/**
 * A conflict about the External Listing ID: a 409 whose answer names it (the spec does not show the API's words, so
 * a conflict that names something else, such as a closed event, is not read as "this ID is taken").
 */
export function isTakenListingId(failure: HttpFailure): boolean {
	return isConflict(failure) && /external[\s_-]?listing[\s_-]?id/i.test(bodyText(failure.body));
}

/** application/json or a JSON-based type (application/problem+json), with or without parameters. */
export function isJsonMediaType(contentType: string): boolean {
	return /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i.test(contentType.trim());
}

/** An error document (RFC 9457, application/problem+json): JSON, but never the thing asked for. */
export function isProblemMediaType(contentType: string): boolean {
	return /^application\/problem\+json\s*(?:;|$)/i.test(contentType.trim());
}

/** The longest part of an unexpected answer's body shown in its error. */
const MAX_BODY_SHOWN = 300;

/** What kind of body a 2xx came with, in words. */
function bodyInWords(body: unknown, contentType: string): string {
	if (body === undefined || body === null || (typeof body === 'string' && body.trim() === ''))
		return 'an empty body';
	if (/html/i.test(contentType)) return 'an HTML page';
	if (typeof body === 'string') return 'a text body';
	if (Array.isArray(body)) return 'a JSON array';
	if (typeof body === 'object')
		return isJsonMediaType(contentType) ? 'a JSON object' : 'a JSON object not marked as JSON';
	return 'a bare JSON value';
}

/** The body as text, secrets redacted before it is cut (a cut must not leave part of one), bounded. */
function bodyShown(body: unknown, secrets: string[] | undefined): string {
	let text: string;
	try {
		text = typeof body === 'string' ? body : (JSON.stringify(body) ?? '');
	} catch {
		return '(a body too deeply nested to show)';
	}
	text = redactSecrets(text, secrets).replace(/\s+/g, ' ').trim();
	return text.length > MAX_BODY_SHOWN ? `${text.slice(0, MAX_BODY_SHOWN)}…` : text;
}

/** Failures where the request never left this machine: nothing can have been created, so a retry is safe. */
export const CONNECTION_FAILED_BEFORE_SEND = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'EADDRNOTAVAIL',
]);

/**
 * Failures Node.js throws while it builds the request, before anything is written to the connection (a header
 * value with a line break, say): nothing was sent. Never retried: the same request would fail the same way.
 */
export const REQUEST_NOT_BUILT = new Set([
	'ERR_INVALID_CHAR',
	'ERR_HTTP_INVALID_HEADER_VALUE',
	'ERR_INVALID_HTTP_TOKEN',
	'ERR_UNESCAPED_CHARACTERS',
]);

export interface HttpFailure {
	status?: number;
	headers: Record<string, unknown>;
	body?: unknown;
	code?: string;
	message: string;
	/** The credential could not obtain an access token: the request itself was never sent. */
	tokenExchange?: boolean;
	/** A Retry-After longer than the policy honours. */
	retryAfterMs?: number;
	/** A 401 to an access token issued a moment ago: the login works, the app may not make this request. */
	refusedAfterRenewal?: boolean;
	/** A 401 to a token that had worked, after the run's last renewal: how many renewals the run made. */
	renewalsExhausted?: number;
}

/**
 * What an exception from httpRequestWithAuthentication still tells. n8n wraps every failure in a NodeApiError
 * that keeps the status (or, without a response, the network code such as ECONNREFUSED) in `httpCode` and a JSON
 * body in `context.data`, but drops the axios error and its headers. An axios error itself is read too.
 */
export function describeThrown(error: unknown): HttpFailure {
	const thrown = (error ?? {}) as {
		httpCode?: unknown;
		code?: unknown;
		context?: { data?: unknown };
		response?: { status?: number; headers?: Record<string, unknown>; data?: unknown };
		message?: unknown;
		messages?: unknown;
	};
	// NodeApiError may swap the original words (e.g. the credential's diagnosis) for a generic text; it keeps them
	// in `messages`.
	const original = Array.isArray(thrown.messages)
		? thrown.messages.find((entry) => typeof entry === 'string')
		: undefined;
	const message = original ?? (typeof thrown.message === 'string' ? thrown.message : String(error));
	if (isTokenExchangeFailure(error)) return { headers: {}, message, tokenExchange: true };
	if (thrown.response) {
		return {
			status: thrown.response.status,
			headers: thrown.response.headers ?? {},
			body: thrown.response.data,
			code: typeof thrown.code === 'string' ? thrown.code : undefined,
			message,
		};
	}
	const rawCode = thrown.httpCode ?? thrown.code;
	const code =
		typeof rawCode === 'string' || typeof rawCode === 'number' ? String(rawCode) : undefined;
	const isStatus = code !== undefined && /^\d{3}$/.test(code);
	return {
		status: isStatus ? Number(code) : undefined,
		headers: {},
		body: thrown.context?.data,
		code: isStatus ? undefined : code,
		message,
	};
}

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 10.2.3). Unknown forms count as absent. */
export function parseRetryAfter(value: unknown, nowMs: number): number | undefined {
	const text = Array.isArray(value)
		? String(value[0])
		: typeof value === 'string'
			? value.trim()
			: undefined;
	if (text === undefined || text === '') return undefined;
	if (/^\d+$/.test(text)) return Number(text) * 1000;
	if (/^[-+]?\d/.test(text)) return undefined;
	const dateMs = Date.parse(text);
	if (Number.isNaN(dateMs)) return undefined;
	return Math.max(0, dateMs - nowMs);
}

/** The Retry-After of a 429 failure, in milliseconds from now. */
export function retryAfterOf(failure: HttpFailure, nowMs: number): number | undefined {
	if (failure.status !== 429) return undefined;
	const header = headerValue(failure.headers, 'retry-after');
	return parseRetryAfter(header === '' ? undefined : header, nowMs);
}

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
	/** How many 429s this request was answered with. */
	rateLimitAnswers: number;
	connectionRetries: number;
	/** The wait the API asked for in its last 429, if it said. */
	lastRetryAfterMs?: number;
}

export interface ClassifiedFailure {
	error: NodeApiError;
	outcome: FailureOutcome;
}

/** The failure in words, as n8n's own error type, with what it means for the request's item. */
export function classifyFailure(
	node: INode,
	failure: HttpFailure,
	context: FailureContext,
): ClassifiedFailure {
	const apiMessage = extractApiMessage(failure.body, context.secrets);
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
			: failure.status >= 500 ||
				failure.status === 303 ||
				(failure.status >= 200 && failure.status < 300));
	const target = `${context.method} ${context.path}`;
	// n8n swaps any message that carries a raw network code (ECONNREFUSED, ENOTFOUND, ...) for a generic text of
	// its own, so messages name failures in words and keep the code for the description.
	const inWords = networkFailureInWords(failure.code);

	let message: string;
	const details: string[] = [];
	if (failure.tokenExchange) {
		message = `The Ticket Marketplace API credential could not get an access token: ${redactSecrets(failure.message, context.secrets)}`;
		details.push('Nothing was sent.');
	} else if (failure.status === 429 && failure.retryAfterMs !== undefined) {
		const seconds = Math.ceil(failure.retryAfterMs / 1000);
		message = `The Partner API asked to wait ${seconds} s before retrying (429 too many requests), longer than the ${RETRY_POLICY.maxRetryAfterMs / 1000} s this node waits`;
		details.push(`Run the workflow again after ${seconds} s. Nothing was created by this attempt.`);
	} else if (failure.status === 429) {
		const asked =
			context.lastRetryAfterMs === undefined
				? ''
				: `; it last asked to wait ${Math.ceil(context.lastRetryAfterMs / 1000)} s`;
		message = `Refused by the Partner API (rate limit): it answered 429 (too many requests) ${context.rateLimitAnswers} time${context.rateLimitAnswers === 1 ? '' : 's'}${asked}`;
		details.push(
			'Lower the Max Concurrency option or run the workflow later. Nothing was created by these attempts.',
		);
	} else if (failure.status !== undefined && failure.status >= 200 && failure.status < 300) {
		// A success status whose answer does not show what was done (the caller's rule, see confirmedBy).
		const contentType = headerValue(failure.headers, 'content-type');
		message = `The Partner API answered ${failure.status} to ${target} with ${bodyInWords(failure.body, contentType)}, which does not show that it was done: outcome unknown`;
		const shown = bodyShown(failure.body, context.secrets);
		if (shown) details.push(`It answered: ${shown}`);
	} else if (failure.status !== undefined && failure.status >= 300 && failure.status < 400) {
		const location = headerValue(failure.headers, 'location');
		message = `The Partner API answered ${failure.status} to ${target}, a redirect${location ? ` to ${redirectTarget(location, context.baseUrl, context.secrets)}` : ''}; requests to the API do not follow redirects, so the access token goes nowhere else`;
		details.push(
			failure.status === 303
				? 'A 303 may follow a request the API processed.'
				: 'The request was not processed there, so nothing was created. Check the Base URL of the credential (for example https:// instead of http://).',
		);
	} else if (failure.status !== undefined) {
		message = `The Partner API answered ${failure.status} to ${target}${apiMessage ? `: ${apiMessage}` : ''}`;
		if (isTakenListingId(failure)) {
			details.push(
				'A conflict: the API already holds what this request would create, so nothing new was created.',
			);
		} else if (isConflict(failure)) {
			details.push(
				'A conflict that does not name the External Listing ID, so it is not read as "already listed": nothing was created. Check on the marketplace before listing these seats under another ID.',
			);
		}
		if (failure.refusedAfterRenewal) {
			details.push(
				'The API refused an access token it had just issued, so the login (consumer key and secret, e-mail and password) works. Likely cause: your app is not subscribed to the API product this request needs (for listings, the seller listing API) or lacks permission for it: check the app on the developer portal. Another workflow or n8n renewing the same credential at the same time can cause it too. Nothing more was sent.',
			);
		} else if (failure.renewalsExhausted !== undefined) {
			details.push(
				`The access token kept expiring: it was renewed ${failure.renewalsExhausted} time${failure.renewalsExhausted === 1 ? '' : 's'} in this run, the most this node does in one run (each renewal is a login), and the API refused it again. The login works. Likely cause: another workflow or n8n using the same credential at the same time, if the API revokes a token when it issues a new one; or tokens that expire within moments. Run the workflow again for the listings not created, or give this workflow a credential of its own. Nothing more was sent.`,
			);
		} else if (failure.status === 401 || failure.status === 403) {
			details.push(
				'Check the credential: consumer key and secret of the app, and the e-mail and password of the marketplace user account (not the developer account).',
			);
		}
	} else if (CONNECTION_FAILED_BEFORE_SEND.has(failure.code ?? '')) {
		message = `Could not connect to the Partner API at ${context.baseUrl || '(empty Base URL)'} (${inWords}) after ${context.connectionRetries} retries`;
		details.push(
			'Check the Base URL of the Ticket Marketplace API credential and that this n8n can reach it. Nothing was sent.',
		);
	} else if (REQUEST_NOT_BUILT.has(failure.code ?? '')) {
		message = `${target} could not be sent: it holds ${inWords}`;
		details.push('Nothing was sent.');
	} else if (failure.code !== undefined) {
		message = `The connection to the Partner API failed during ${target} before an answer arrived (${inWords})`;
	} else {
		message = `${target} could not be sent: ${redactSecrets(failure.message, context.secrets)}`;
	}
	if (mayHaveReachedServer) {
		details.push(
			'The request may have reached the server: the item may or may not have been created; check before re-running. It was not retried, so nothing was created twice.',
		);
	}
	if (failure.code) details.push(`Network error code: ${failure.code}.`);

	const error = new NodeApiError(
		node,
		{ httpCode: failure.status ?? null, body: (safeBody ?? null) as JsonObject } as JsonObject,
		{
			message,
			description: details.join(' ') || apiMessage,
			httpCode: failure.status !== undefined ? String(failure.status) : undefined,
			itemIndex: context.itemIndex,
		},
	);
	const outcome: FailureOutcome = isTakenListingId(failure)
		? 'alreadyExists'
		: mayHaveReachedServer
			? 'unknown'
			: 'refused';
	return { error, outcome };
}
