/** Shared helpers of the sandbox integration tests: Partner API calls over loopback and a small webhook receiver. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { PARTNER_API_PATHS } from '../nodes/shared/partnerApi/paths';
import { SANDBOX_DEFAULTS } from '../sandbox/index';
import type { Sandbox } from '../sandbox/index';

export const TOKEN_PATH = PARTNER_API_PATHS.grant;
export const WEBHOOKS_PATH = PARTNER_API_PATHS.webhooks;
export const LISTINGS_PATH = PARTNER_API_PATHS.listings;

export function basic(key: string, secret: string): string {
	return 'Basic ' + Buffer.from(`${key}:${secret}`).toString('base64');
}

export const DEMO_BASIC = basic(SANDBOX_DEFAULTS.consumerKey, SANDBOX_DEFAULTS.consumerSecret);

export interface Answer {
	status: number;
	headers: Headers;
	body: Record<string, unknown>;
	text: string;
}

async function answer(response: Response): Promise<Answer> {
	const text = await response.text();
	let body: Record<string, unknown> = {};
	try {
		body = JSON.parse(text) as Record<string, unknown>;
	} catch {
		// Some tests look at non-JSON answers through `text`.
	}
	return { status: response.status, headers: response.headers, body, text };
}

export async function post(
	url: string,
	init: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Answer> {
	return answer(await fetch(url, { method: 'POST', headers: init.headers, body: init.body }));
}

/**
 * A request through node:http, which (unlike fetch) sends only the headers given: for tests about absent headers,
 * bodies sent without a content type, and methods other than POST.
 */
export function rawRequest(
	url: string,
	init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Omit<Answer, 'headers'> & { headers: http.IncomingHttpHeaders }> {
	return new Promise((resolve, reject) => {
		const request = http.request(
			url,
			{ method: init.method ?? 'POST', headers: init.headers },
			(response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					let body: Record<string, unknown> = {};
					try {
						body = JSON.parse(text) as Record<string, unknown>;
					} catch {
						// left empty: the caller looks at `text`
					}
					resolve({ status: response.statusCode ?? 0, headers: response.headers, body, text });
				});
				response.on('error', reject);
			},
		);
		request.on('error', reject);
		request.end(init.body);
	});
}

export async function requestToken(
	sandbox: Pick<Sandbox, 'url'>,
	options: {
		authorization?: string | null;
		query?: string;
		body?: unknown;
		rawBody?: string;
		contentType?: string;
	} = {},
): Promise<Answer> {
	const headers: Record<string, string> = {
		'Content-Type': options.contentType ?? 'application/json',
	};
	if (options.authorization !== null) headers.Authorization = options.authorization ?? DEMO_BASIC;
	const { email, password } = SANDBOX_DEFAULTS.marketplaceAccount;
	const body = options.rawBody ?? JSON.stringify(options.body ?? { username: email, password });
	return post(`${sandbox.url}${TOKEN_PATH}${options.query ?? '?grant_type=client_credentials'}`, {
		headers,
		body,
	});
}

export async function getToken(sandbox: Pick<Sandbox, 'url'>): Promise<string> {
	const result = await requestToken(sandbox);
	if (result.status !== 200)
		throw new Error(`token request failed: ${result.status} ${result.text}`);
	return result.body.access_token as string;
}

export function listingHeaders(
	token: string,
	overrides: Record<string, string | undefined> = {},
): Record<string, string> {
	const headers: Record<string, string | undefined> = {
		Authorization: `Bearer ${token}`,
		Accept: 'application/json',
		'Content-Type': 'application/json',
		'Accept-Language': 'en-US',
		...overrides,
	};
	return Object.fromEntries(
		Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
	);
}

let nextExternalListingId = 1000;

export function validListing(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		eventId: 4242,
		pricePerProduct: { amount: 55.5, currency: 'EUR' },
		externalListingId: nextExternalListingId++,
		products: [
			{ externalId: 'p-1', row: 'A', seat: '1', productType: 'TICKET', ga: false },
			{ externalId: 'p-2', row: 'A', seat: '2', productType: 'TICKET', ga: false },
			{ externalId: 'p-3', productType: 'TICKET', ga: true },
		],
		stockType: ['PDF'],
		paymentType: 1,
		...overrides,
	};
}

export async function createListing(
	sandbox: Pick<Sandbox, 'url'>,
	token: string,
	body: unknown = validListing(),
	headerOverrides: Record<string, string | undefined> = {},
): Promise<Answer> {
	return post(`${sandbox.url}${LISTINGS_PATH}`, {
		headers: listingHeaders(token, headerOverrides),
		body: JSON.stringify(body),
	});
}

export function validSubscription(
	receiver: { callbackUrl: string; tokenUrl: string } = {
		callbackUrl: 'http://127.0.0.1:9/callback',
		tokenUrl: 'http://127.0.0.1:9/token',
	},
	credentials: { clientId: string; clientSecret: string } = {
		clientId: 'marketplace-client',
		clientSecret: 'callback-client-secret',
	},
): Record<string, unknown> {
	return {
		callback: {
			url: receiver.callbackUrl,
			auth: {
				authType: 'oauth',
				tokenEndPoint: receiver.tokenUrl,
				oauthRequest: {
					clientId: credentials.clientId,
					clientSecret: credentials.clientSecret,
					grantType: 'client_credentials',
				},
			},
		},
		subscription: { listing: ['listing_sale'] },
	};
}

export async function subscribe(
	sandbox: Pick<Sandbox, 'url'>,
	token: string,
	body: unknown = validSubscription(),
): Promise<Answer> {
	return post(`${sandbox.url}${WEBHOOKS_PATH}`, {
		headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
		body: JSON.stringify(body),
	});
}

/** Creates and activates a subscription to `receiver`; returns its id. */
export async function activeSubscription(
	sandbox: Sandbox,
	token: string,
	receiver: { callbackUrl: string; tokenUrl: string },
	credentials?: { clientId: string; clientSecret: string },
): Promise<string> {
	const created = await subscribe(sandbox, token, validSubscription(receiver, credentials));
	if (created.status !== 201)
		throw new Error(`subscribe failed: ${created.status} ${created.text}`);
	sandbox.activateSubscription(created.body.id as string);
	return created.body.id as string;
}

export interface ReceiverOptions {
	clientId: string;
	clientSecret: string;
	/** Which client authentication the token endpoint accepts (the other is refused). */
	clientAuth: 'basic' | 'client_secret_post';
	/** The first N token requests are answered 503. */
	failTokenRequests?: number;
	/** The first N callbacks are answered 500. */
	failCallbacks?: number;
}

export interface Receiver {
	tokenUrl: string;
	callbackUrl: string;
	tokenRequests: Array<{ status: number; grantType: string | null; reason?: string }>;
	callbacks: Array<{ status: number; authorization?: string; contentType?: string; body: unknown }>;
	stop(): Promise<void>;
}

function formDecode(value: string): string {
	return decodeURIComponent(value.replace(/\+/g, ' '));
}

/**
 * The partner's side in miniature: an OAuth token endpoint (client credentials) that checks the client
 * authentication strictly, and a callback that accepts only a Bearer token it issued.
 */
export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
	const issued = new Set<string>();
	let tokenFailuresLeft = options.failTokenRequests ?? 0;
	let callbackFailuresLeft = options.failCallbacks ?? 0;
	const receiver = { tokenRequests: [], callbacks: [] } as unknown as Receiver;

	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			const reply = (status: number, body: unknown) => {
				res.writeHead(status, { 'Content-Type': 'application/json' });
				res.end(JSON.stringify(body));
			};
			if (req.url === '/token') {
				const form = new URLSearchParams(text);
				const record = (status: number, reason?: string) =>
					receiver.tokenRequests.push({ status, grantType: form.get('grant_type'), reason });
				if (tokenFailuresLeft > 0) {
					tokenFailuresLeft--;
					record(503, 'scripted failure');
					return reply(503, { error: 'temporarily_unavailable' });
				}
				if (
					!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded') ||
					form.get('grant_type') !== 'client_credentials'
				) {
					record(400, 'not a client_credentials form');
					return reply(400, { error: 'invalid_request' });
				}
				let clientId: string | undefined;
				let clientSecret: string | undefined;
				if (options.clientAuth === 'basic') {
					const match = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
					if (match && !form.has('client_secret')) {
						const decoded = Buffer.from(match[1], 'base64').toString('utf8');
						const colon = decoded.indexOf(':');
						clientId = formDecode(decoded.slice(0, colon));
						clientSecret = formDecode(decoded.slice(colon + 1));
					}
				} else if (!req.headers.authorization) {
					clientId = form.get('client_id') ?? undefined;
					clientSecret = form.get('client_secret') ?? undefined;
				}
				if (clientId !== options.clientId || clientSecret !== options.clientSecret) {
					record(401, 'client authentication failed');
					return reply(401, { error: 'invalid_client' });
				}
				const token = `receiver-token-${issued.size + 1}`;
				issued.add(token);
				record(200);
				return reply(200, { access_token: token, token_type: 'Bearer', expires_in: 300 });
			}
			if (req.url === '/callback') {
				const authorization = req.headers.authorization;
				const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
				let body: unknown;
				try {
					body = JSON.parse(text);
				} catch {
					body = text;
				}
				const entry = { status: 0, authorization, contentType: req.headers['content-type'], body };
				receiver.callbacks.push(entry);
				if (!token || !issued.has(token)) {
					entry.status = 401;
					return reply(401, { error: 'invalid_token' });
				}
				if (callbackFailuresLeft > 0) {
					callbackFailuresLeft--;
					entry.status = 500;
					return reply(500, { error: 'scripted failure' });
				}
				entry.status = 200;
				return reply(200, { received: true });
			}
			reply(404, { error: 'not_found' });
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	receiver.tokenUrl = `${base}/token`;
	receiver.callbackUrl = `${base}/callback`;
	receiver.stop = () =>
		new Promise<void>((resolve) => {
			server.close(() => resolve());
			server.closeAllConnections();
		});
	return receiver;
}
