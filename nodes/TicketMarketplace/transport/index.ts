import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import {
	isTokenExchangeFailure,
	networkFailureInWords,
	normalizeBaseUrl,
} from '../../../credentials/TicketMarketplaceApi.credentials';
import { NotSentError } from '../helpers/pacing';
import type { AttemptOutcome, RequestPacer } from '../helpers/pacing';

export const CREDENTIAL_NAME = 'ticketMarketplaceApi';

/** Retry limits. 429 and refused connections never reached the API's business logic, so retrying them is safe. */
export const RETRY_POLICY = {
	maxRateLimitRetries: 6,
	maxConnectionRetries: 3,
	baseBackoffMs: 1000,
	maxWaitMs: 60_000,
	/** The longest Retry-After honoured; an API asking for more is reported, not waited for. */
	maxRetryAfterMs: 300_000,
};

/**
 * What a failed request means for the listing: `refused` when the API provably created nothing (an HTTP 4xx
 * answer, a connection that failed before sending, a token that could not be obtained), `unknown` when the request
 * may have reached the API (timeout, reset, 5xx).
 */
export type FailureOutcome = 'refused' | 'unknown';

export function failureOutcome(error: unknown): FailureOutcome {
	if (error instanceof NotSentError) return 'refused';
	const outcome = (error as { context?: { outcome?: unknown } } | undefined)?.context?.outcome;
	return outcome === 'refused' ? 'refused' : 'unknown';
}

/** Failures where the request never left this machine: nothing can have been created, so a retry is safe. */
const CONNECTION_FAILED_BEFORE_SEND = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'EADDRNOTAVAIL',
]);

export interface ApiRequestOptions {
	method: IHttpRequestMethods;
	path: string;
	body?: IDataObject;
	headers?: Record<string, string>;
	itemIndex: number;
	/** Values that must never reach an error (e.g. a client secret the API might echo back). */
	secrets?: string[];
	/** Shares the requests in flight with the rest of the run; without one, requests are not paced. */
	pacer?: RequestPacer;
	/** The credential read once for the run (see readRunCredential); without one, each request reads it. */
	credential?: RunCredential;
}

/**
 * The credential as read once for a run: its Base URL, and the decrypted credential handed to n8n with each
 * request. Without it, n8n reads and decrypts the credential from its database on every request, which costs the
 * event loop about as much as the rest of a request; a shared object also carries a renewed token to every later
 * request of the run (n8n's preAuthentication writes it there and into the database).
 */
export interface RunCredential {
	baseUrl: string;
	decrypted: ICredentialsDecrypted;
}

export async function readRunCredential(this: IExecuteFunctions): Promise<RunCredential> {
	const data = await this.getCredentials(CREDENTIAL_NAME);
	const reference = this.getNode().credentials?.[CREDENTIAL_NAME];
	return {
		baseUrl: normalizeBaseUrl(data.baseUrl),
		decrypted: {
			id: reference?.id ?? '',
			name: reference?.name ?? '',
			type: CREDENTIAL_NAME,
			data,
		},
	};
}

interface HttpFailure {
	status?: number;
	headers: Record<string, unknown>;
	body?: unknown;
	code?: string;
	message: string;
	/** The credential could not obtain an access token: the request itself was never sent. */
	tokenExchange?: boolean;
	/** A Retry-After longer than the policy honours. */
	retryAfterMs?: number;
}

/** The base URL is the only thing read from the credential here; auth itself is left to n8n. */
export async function getBaseUrl(this: IExecuteFunctions): Promise<string> {
	const credentials = await this.getCredentials(CREDENTIAL_NAME);
	return normalizeBaseUrl(credentials.baseUrl);
}

/**
 * What an exception from httpRequestWithAuthentication still tells. n8n wraps every failure in a NodeApiError
 * that keeps the status (or, without a response, the network code such as ECONNREFUSED) in `httpCode` and a JSON
 * body in `context.data`, but drops the axios error and its headers. An axios error itself is read too.
 */
function describeThrown(error: unknown): HttpFailure {
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

/** The API's error body shape is not documented: look in the usual places, and never fail while looking. */
export function extractApiMessage(body: unknown): string | undefined {
	if (typeof body === 'string') return body.trim() ? body.trim().slice(0, 500) : undefined;
	if (!body || typeof body !== 'object') return undefined;
	if (Array.isArray(body)) {
		const parts = body
			.map((entry) => extractApiMessage(entry))
			.filter((part): part is string => !!part);
		return parts.length ? parts.join('; ') : undefined;
	}
	const record = body as Record<string, unknown>;
	for (const key of [
		'message',
		'error_description',
		'errorMessage',
		'detail',
		'title',
		'description',
	]) {
		const value = record[key];
		if (typeof value === 'string' && value.trim()) return value.trim();
	}
	for (const key of ['error', 'errors', 'fault']) {
		const nested = extractApiMessage(record[key]);
		if (nested) return nested;
	}
	return undefined;
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

function headerValue(headers: Record<string, unknown>, name: string): unknown {
	const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
	return key === undefined ? undefined : headers[key];
}

export function redactSecrets<T>(value: T, secrets: string[] | undefined): T {
	const active = (secrets ?? []).filter((secret) => secret.length > 0);
	if (!active.length) return value;
	const walk = (node: unknown): unknown => {
		if (typeof node === 'string') {
			return active.reduce((text, secret) => text.split(secret).join('[redacted]'), node);
		}
		if (Array.isArray(node)) return node.map(walk);
		if (node && typeof node === 'object') {
			return Object.fromEntries(Object.entries(node).map(([key, entry]) => [key, walk(entry)]));
		}
		return node;
	};
	return walk(value) as T;
}

function backoffMs(retryNumber: number): number {
	return Math.min(RETRY_POLICY.baseBackoffMs * 2 ** retryNumber, RETRY_POLICY.maxWaitMs);
}

/**
 * The one request path to the Partner API. Auth (token exchange, Bearer header, one renewal after a 401) is n8n's
 * job through httpRequestWithAuthentication. Only failures that provably created nothing are retried.
 *
 * Requests ask for the full response without throwing on HTTP errors, because n8n's error wrapper drops the
 * response headers and Retry-After is needed. A 401 is then re-sent the ordinary way so that n8n renews the token
 * and retries once; the API refused the first one, so nothing can be created twice.
 */
export async function apiRequest(
	this: IExecuteFunctions,
	options: ApiRequestOptions,
): Promise<unknown> {
	const { method, path, body, headers, itemIndex, secrets, pacer } = options;
	const baseUrl = options.credential?.baseUrl ?? (await getBaseUrl.call(this));
	const credentialOptions = options.credential
		? { credentialsDecrypted: options.credential.decrypted }
		: undefined;
	const request: IHttpRequestOptions = {
		method,
		url: `${baseUrl}${path}`,
		headers: { Accept: 'application/json', 'Content-Type': 'application/json', ...headers },
		body,
		json: true,
	};
	let rateLimitRetries = 0;
	let connectionRetries = 0;
	let retryFirst = false;

	for (;;) {
		const slot = pacer ? await pacer.acquire(retryFirst) : undefined;
		const startedAt = Date.now();
		let failure: HttpFailure | undefined;
		let answer: unknown;
		let attempt: AttemptOutcome = { kind: 'failed' };
		try {
			const response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_NAME,
				{ ...request, returnFullResponse: true, ignoreHttpStatusErrors: true },
				credentialOptions,
			)) as IN8nHttpFullResponse;
			if (response.statusCode >= 200 && response.statusCode < 300) {
				answer = response.body;
			} else if (response.statusCode === 401) {
				try {
					answer = await this.helpers.httpRequestWithAuthentication.call(
						this,
						CREDENTIAL_NAME,
						{ ...request },
						credentialOptions,
					);
				} catch (error) {
					failure = describeThrown(error);
				}
			} else {
				failure = {
					status: response.statusCode,
					headers: (response.headers ?? {}) as Record<string, unknown>,
					body: response.body,
					message: `HTTP ${response.statusCode}`,
				};
			}
		} catch (error) {
			failure = describeThrown(error);
		}

		const retryAfterMs =
			failure?.status === 429
				? parseRetryAfter(headerValue(failure.headers, 'retry-after'), Date.now())
				: undefined;
		if (failure === undefined || (failure.status !== undefined && failure.status !== 429)) {
			attempt = { kind: 'answered', roundTripMs: Date.now() - startedAt };
		} else if (failure.status === 429) {
			attempt = { kind: 'rateLimited', retryAfterMs };
		}
		let waitMs: number | undefined;
		if (failure?.status === 429) {
			if (retryAfterMs !== undefined && retryAfterMs > RETRY_POLICY.maxRetryAfterMs)
				failure.retryAfterMs = retryAfterMs;
			else if (rateLimitRetries < RETRY_POLICY.maxRateLimitRetries)
				waitMs = retryAfterMs ?? backoffMs(rateLimitRetries++);
		} else if (
			failure !== undefined &&
			failure.status === undefined &&
			CONNECTION_FAILED_BEFORE_SEND.has(failure.code ?? '') &&
			connectionRetries < RETRY_POLICY.maxConnectionRetries
		) {
			waitMs = backoffMs(connectionRetries++);
		}
		// A request that ends in an error says so as it frees its slot, so a stopping run starts nothing new.
		slot?.release({ ...attempt, final: failure !== undefined && waitMs === undefined });
		if (failure === undefined) return answer;
		if (waitMs !== undefined) {
			// The wait happens outside any slot: requests that are doing well keep going meanwhile.
			await sleep(waitMs);
			retryFirst = true;
			continue;
		}
		throw toNodeApiError.call(this, failure, {
			method,
			path,
			baseUrl,
			itemIndex,
			secrets,
			rateLimitRetries,
			connectionRetries,
		});
	}
}

function toNodeApiError(
	this: IExecuteFunctions,
	failure: HttpFailure,
	context: {
		method: string;
		path: string;
		baseUrl: string;
		itemIndex: number;
		secrets?: string[];
		rateLimitRetries: number;
		connectionRetries: number;
	},
): NodeApiError {
	const apiMessage = redactSecrets(extractApiMessage(failure.body), context.secrets);
	const safeBody = redactSecrets(failure.body, context.secrets);
	// Without a status, only a network code tells that the request itself failed; with neither, the failure came
	// before sending (e.g. the token exchange in the credential).
	const mayHaveReachedServer =
		!failure.tokenExchange &&
		context.method !== 'GET' &&
		(failure.status === undefined
			? failure.code !== undefined && !CONNECTION_FAILED_BEFORE_SEND.has(failure.code)
			: failure.status >= 500);
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
		message = `The Partner API kept answering 429 (too many requests) after ${context.rateLimitRetries} retries`;
		details.push(
			'Lower the Max Concurrency option or run the workflow later. Nothing was created by these attempts.',
		);
	} else if (failure.status !== undefined) {
		message = `The Partner API answered ${failure.status} to ${target}${apiMessage ? `: ${apiMessage}` : ''}`;
		if (failure.status === 401 || failure.status === 403) {
			details.push(
				'Check the credential: consumer key and secret of the app, and the e-mail and password of the marketplace user account (not the developer account).',
			);
		}
	} else if (CONNECTION_FAILED_BEFORE_SEND.has(failure.code ?? '')) {
		message = `Could not connect to the Partner API at ${context.baseUrl || '(empty Base URL)'} (${inWords}) after ${context.connectionRetries} retries`;
		details.push(
			'Check the Base URL of the Ticket Marketplace API credential and that this n8n can reach it. Nothing was sent.',
		);
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
		this.getNode(),
		{ httpCode: failure.status ?? null, body: (safeBody ?? null) as JsonObject } as JsonObject,
		{
			message,
			description: details.join(' ') || apiMessage,
			httpCode: failure.status !== undefined ? String(failure.status) : undefined,
			itemIndex: context.itemIndex,
		},
	);
	const outcome: FailureOutcome = mayHaveReachedServer ? 'unknown' : 'refused';
	error.context.outcome = outcome;
	return error;
}
