/**
 * The marketplace's side of a sale: an OAuth 2.0 client-credentials exchange with the partner's token endpoint
 * (RFC 6749 4.4), then a POST of the notification to the callback with the Bearer token; retried with backoff.
 */
import { DELIVERY_USER_AGENT } from './choices';
import type { TimerRegistry } from './timers';

/**
 * How the token request is spelled. How the real marketplace calls the partner's token endpoint is not public;
 * `basic` (RFC 6749 2.3.1's HTTP Basic, `grant_type` form-encoded) is a guess, as the likeliest.
 * - `client_secret_post`: RFC 6749's `client_id`, `client_secret`, `grant_type`, form-encoded;
 * - `client_secret_json`: the same names as a JSON body;
 * - `subscription_json`: the names the subscription registered (`oauthRequest: {clientId, clientSecret, grantType}`)
 *   as a JSON body.
 */
export type ClientAuthMethod =
	| 'basic'
	| 'client_secret_post'
	| 'client_secret_json'
	| 'subscription_json';
export const CLIENT_AUTH_METHODS: readonly ClientAuthMethod[] = [
	'basic',
	'client_secret_post',
	'client_secret_json',
	'subscription_json',
];

export interface DeliverySettings {
	clientAuth: ClientAuthMethod;
	attempts: number;
	baseDelayMs: number;
	maxDelayMs: number;
	timeoutMs: number;
}

export interface DeliveryAttempt {
	attempt: number;
	step: 'token' | 'callback';
	at: string;
	durationMs: number;
	/** HTTP status of the answer, when there was one. */
	status?: number;
	/** What went wrong, in words; never contains the secret or the token. */
	error?: string;
	ok: boolean;
}

export interface Delivery {
	id: string;
	saleId: string;
	subscriptionId: string;
	/** A sample sale delivered on request to any trigger URLs (sampleSale.ts), not a sale of a listing. */
	sample?: true;
	notificationId: string;
	callbackUrl: string;
	tokenEndPoint: string;
	clientAuth: ClientAuthMethod;
	status: 'pending' | 'delivered' | 'failed' | 'cancelled';
	attempts: DeliveryAttempt[];
	createdAt: string;
	finishedAt?: string;
	nextAttemptAt?: string;
}

export interface DeliveryTarget {
	callbackUrl: string;
	tokenEndPoint: string;
	clientId: string;
	clientSecret: string;
	authType: string;
}

/** RFC 6749 2.3.1 / Appendix B: id and secret are form-urlencoded before they are joined and base64-encoded. */
export function basicClientAuthorization(clientId: string, clientSecret: string): string {
	const formEncode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
	return (
		'Basic ' + Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`).toString('base64')
	);
}

export function backoffDelayMs(settings: DeliverySettings, failedAttempt: number): number {
	return Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (failedAttempt - 1));
}

function describeError(error: unknown): string {
	if (error instanceof Error) {
		if (error.name === 'TimeoutError') return 'timed out';
		if (error.name === 'AbortError') return 'aborted';
		const cause = (error as { cause?: { code?: string; message?: string } }).cause;
		if (cause?.code) return `${error.message} (${cause.code})`;
		if (cause?.message) return `${error.message} (${cause.message})`;
		return error.message;
	}
	return String(error);
}

interface StepResult {
	ok: boolean;
	status?: number;
	error?: string;
	accessToken?: string;
}

/** The client-credentials token request, spelled as `method` says (the subscription only allows this grant). */
export function tokenRequest(
	target: Pick<DeliveryTarget, 'clientId' | 'clientSecret'>,
	method: ClientAuthMethod,
): { headers: Record<string, string>; body: string } {
	const grantType = 'client_credentials';
	const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
	const json = { 'Content-Type': 'application/json' };
	switch (method) {
		case 'basic':
			return {
				headers: {
					...form,
					Authorization: basicClientAuthorization(target.clientId, target.clientSecret),
				},
				body: new URLSearchParams({ grant_type: grantType }).toString(),
			};
		case 'client_secret_post':
			return {
				headers: form,
				body: new URLSearchParams({
					grant_type: grantType,
					client_id: target.clientId,
					client_secret: target.clientSecret,
				}).toString(),
			};
		case 'client_secret_json':
			return {
				headers: json,
				body: JSON.stringify({
					grant_type: grantType,
					client_id: target.clientId,
					client_secret: target.clientSecret,
				}),
			};
		case 'subscription_json':
			return {
				headers: json,
				body: JSON.stringify({
					clientId: target.clientId,
					clientSecret: target.clientSecret,
					grantType,
				}),
			};
	}
}

async function requestCallbackToken(
	target: DeliveryTarget,
	settings: DeliverySettings,
	signal: AbortSignal,
): Promise<StepResult> {
	const request = tokenRequest(target, settings.clientAuth);
	const response = await fetch(target.tokenEndPoint, {
		method: 'POST',
		headers: {
			...request.headers,
			Accept: 'application/json',
			'User-Agent': DELIVERY_USER_AGENT,
		},
		body: request.body,
		signal,
		redirect: 'manual',
	});
	const text = await response.text();
	if (!response.ok)
		return {
			ok: false,
			status: response.status,
			error: `token endpoint answered ${response.status}`,
		};
	let accessToken: unknown;
	try {
		accessToken = (JSON.parse(text) as { access_token?: unknown }).access_token;
	} catch {
		return { ok: false, status: response.status, error: 'token endpoint answer is not JSON' };
	}
	if (typeof accessToken !== 'string' || accessToken.length === 0) {
		return {
			ok: false,
			status: response.status,
			error: 'token endpoint answer has no access_token',
		};
	}
	return { ok: true, status: response.status, accessToken };
}

async function postNotification(
	target: DeliveryTarget,
	accessToken: string,
	payload: unknown,
	signal: AbortSignal,
): Promise<StepResult> {
	const response = await fetch(target.callbackUrl, {
		method: 'POST',
		headers: {
			Authorization: `Bearer ${accessToken}`,
			'Content-Type': 'application/json',
			Accept: 'application/json',
			'User-Agent': DELIVERY_USER_AGENT,
		},
		body: JSON.stringify(payload),
		signal,
		redirect: 'manual',
	});
	await response.arrayBuffer();
	if (!response.ok)
		return { ok: false, status: response.status, error: `callback answered ${response.status}` };
	return { ok: true, status: response.status };
}

async function timedStep(
	delivery: Delivery,
	attempt: number,
	step: DeliveryAttempt['step'],
	run: () => Promise<StepResult>,
): Promise<StepResult> {
	const started = Date.now();
	let result: StepResult;
	try {
		result = await run();
	} catch (error) {
		result = { ok: false, error: describeError(error) };
	}
	delivery.attempts.push({
		attempt,
		step,
		at: new Date(started).toISOString(),
		durationMs: Date.now() - started,
		status: result.status,
		error: result.error,
		ok: result.ok,
	});
	return result;
}

/** Runs one delivery to the end (delivered, failed after all attempts, or cancelled by stop), updating `delivery`. */
export async function runDelivery(
	delivery: Delivery,
	target: DeliveryTarget,
	payload: unknown,
	settings: DeliverySettings,
	timers: TimerRegistry,
	stopSignal: AbortSignal,
): Promise<Delivery> {
	for (let attempt = 1; attempt <= settings.attempts; attempt++) {
		if (timers.isCancelled) break;
		const signal = () => AbortSignal.any([stopSignal, AbortSignal.timeout(settings.timeoutMs)]);
		const token = await timedStep(delivery, attempt, 'token', () =>
			requestCallbackToken(target, settings, signal()),
		);
		if (token.ok && token.accessToken) {
			const accessToken = token.accessToken;
			const callback = await timedStep(delivery, attempt, 'callback', () =>
				postNotification(target, accessToken, payload, signal()),
			);
			if (callback.ok) {
				delivery.status = 'delivered';
				delivery.finishedAt = new Date().toISOString();
				return delivery;
			}
		}
		if (attempt < settings.attempts) {
			const wait = backoffDelayMs(settings, attempt);
			delivery.nextAttemptAt = new Date(Date.now() + wait).toISOString();
			const waited = await timers.sleep(wait);
			delivery.nextAttemptAt = undefined;
			if (!waited) break;
		}
	}
	delivery.status = timers.isCancelled ? 'cancelled' : 'failed';
	delivery.finishedAt = new Date().toISOString();
	return delivery;
}
