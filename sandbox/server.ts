/**
 * The marketplace sandbox: a local simulator of the Partner API (spec sections 2, 4, 5) that can also play the
 * marketplace's side of a sale (section 6). Node's own `http` only; binds 127.0.0.1 only.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import {
	BASIC_CHALLENGE,
	BEARER_CHALLENGE,
	DEFAULT_FAULT_STATUS,
	DEFAULT_LIMITS,
	DEFAULT_RETRY_AFTER_SECONDS,
	DEFAULT_SELL_COUNT,
	DELIVERABLE_AUTH_TYPE,
	ERROR_CODE,
	ID_PREFIX,
	LISTING_SALE_EVENT,
	LISTING_STATUS_ON_CREATE,
	REQUIRE_UNIQUE_PRODUCT_EXTERNAL_IDS,
	SUBSCRIPTION_STATUS,
	SUCCESS_STATUS,
	TOKEN_ERROR_TEXT,
	listingResponse,
	saleNotificationPayload,
	subscriptionResponse,
} from './choices';
import { SANDBOX_DEFAULTS } from './defaults';
import { CLIENT_AUTH_METHODS, runDelivery } from './delivery';
import type { ClientAuthMethod, Delivery, DeliverySettings } from './delivery';
import { FaultInjector, FaultInputError, parseFaultRule } from './faults';
import type { FaultRule, FaultRuleInput, PartnerEndpoint } from './faults';
import { REDACTED, redactHeaders, redactJson, redactQuery } from './redact';
import { TimerRegistry } from './timers';
import { validateListing, validateSubscription } from './validation';
import type { Problem } from './validation';

export interface SandboxApp {
	consumerKey: string;
	consumerSecret: string;
	name?: string;
}

export interface SandboxAccount {
	email: string;
	password: string;
	/** `marketplace` accounts get tokens; `developer` (developer-portal) accounts are refused, as spec 5.2 says. */
	kind: 'marketplace' | 'developer';
}

export interface SandboxOptions {
	/** 0 (default) picks a free port. The host is always 127.0.0.1. */
	port?: number;
	tokenLifetimeSeconds?: number;
	/** Registered in addition to the demo app and accounts of SANDBOX_DEFAULTS (unless `includeDefaults: false`). */
	apps?: SandboxApp[];
	accounts?: SandboxAccount[];
	includeDefaults?: boolean;
	/** How the sandbox authenticates to a subscriber's token endpoint: HTTP Basic (default) or client_secret_post. */
	deliveryAuth?: ClientAuthMethod;
	deliveryAttempts?: number;
	deliveryBaseDelayMs?: number;
	deliveryMaxDelayMs?: number;
	deliveryTimeoutMs?: number;
	maxBodyBytes?: number;
	/** Seed of the fault injector's random generator (repeatable rate-based faults). */
	seed?: number;
	requestLogLimit?: number;
	/** Bound on how long the admin HTTP `sell` waits for delivery outcomes. */
	sellWaitMs?: number;
	/** Clock for token lifetimes, in milliseconds; tests may inject one. */
	now?: () => number;
}

export interface SellOptions {
	/** Sell exactly these products (by their externalId). */
	externalIds?: string[];
	/** Or sell this many of the unsold products, first first. Default 1. */
	count?: number;
}

export interface TokenSelector {
	all?: boolean;
	/** Token ids as shown by `state().tokens.items[].id` (never the token values). */
	ids?: string[];
}

export interface RequestLogEntry {
	id: string;
	at: string;
	endpoint: PartnerEndpoint | null;
	method: string;
	path: string;
	query: Record<string, string>;
	headers: Record<string, string>;
	body?: unknown;
	/** null when the connection was dropped (fault) or closed before an answer. */
	status: number | null;
	faults: string[];
	durationMs: number;
}

export interface ListingView {
	id: string;
	consumerKey: string;
	status: string;
	createdAt: string;
	eligibleForNotifications: boolean;
	externalListingId: unknown;
	eventId: unknown;
	pricePerProduct: unknown;
	products: Array<{ externalId: string; row?: unknown; seat?: unknown; ga?: unknown; sold: boolean; saleId?: string }>;
	body: unknown;
}

export interface SubscriptionView {
	id: string;
	consumerKey: string;
	status: string;
	createdAt: string;
	activatedAt?: string;
	callback: {
		url: string;
		auth: {
			authType: string;
			tokenEndPoint: string;
			oauthRequest: { clientId: string; clientSecret: string; grantType: string };
		};
	};
	subscription: { listing: string[] };
}

export interface Sale {
	id: string;
	listingId: string;
	externalListingId: unknown;
	externalIds: string[];
	occurredAt: string;
	eligibleForNotifications: boolean;
	/** Why no notification was sent, when none was. */
	notNotifiedReason?: string;
	deliveryIds: string[];
}

export interface SellResult {
	sale: Sale;
	/** Settles when every delivery of this sale is delivered, failed after all attempts, or cancelled by stop/reset. */
	deliveries: Promise<Delivery[]>;
}

export interface TokenView {
	id: string;
	consumerKey: string;
	account: string;
	issuedAt: string;
	expiresAt: string;
	expired: boolean;
	revoked: boolean;
}

export interface SandboxState {
	url: string;
	settings: DeliverySettings & { tokenLifetimeSeconds: number; maxBodyBytes: number };
	requests: RequestLogEntry[];
	tokens: { count: number; valid: number; items: TokenView[] };
	listings: ListingView[];
	subscriptions: SubscriptionView[];
	sales: Sale[];
	deliveries: Delivery[];
	faults: FaultRule[];
}

export interface Sandbox {
	url: string;
	port: number;
	stop(): Promise<void>;
	state(): SandboxState;
	activateSubscription(id: string): SubscriptionView;
	sell(listingId: string, options?: SellOptions): SellResult;
	expireTokens(selector?: TokenSelector): number;
	revokeTokens(selector?: TokenSelector): number;
	addFault(rule: FaultRuleInput): FaultRule;
	clearFaults(): void;
	/** Restarts the fault generator (with a new seed when given) so rate-based faults repeat. */
	reseedFaults(seed?: number): void;
	configureDelivery(settings: Partial<DeliverySettings>): DeliverySettings;
	/** Forgets tokens, listings, subscriptions, sales, deliveries, requests and faults; keeps apps and accounts. */
	reset(): void;
	registerApp(app: SandboxApp): void;
	registerAccount(account: SandboxAccount): void;
}

/** An admin-operation failure with the HTTP status and error code it maps to. */
export class SandboxError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly details?: Problem[],
	) {
		super(message);
	}
}

interface TokenRecord {
	id: string;
	consumerKey: string;
	account: string;
	issuedAt: number;
	expiresAt: number;
	revoked: boolean;
}

interface ListingRecord {
	id: string;
	consumerKey: string;
	status: string;
	createdAt: string;
	eligibleForNotifications: boolean;
	body: Record<string, unknown>;
	products: Array<{ externalId: string; row?: unknown; seat?: unknown; ga?: unknown; sold: boolean; saleId?: string }>;
}

interface SubscriptionRecord {
	id: string;
	consumerKey: string;
	status: string;
	createdAt: string;
	activatedAt?: string;
	callbackUrl: string;
	authType: string;
	tokenEndPoint: string;
	clientId: string;
	clientSecret: string;
	grantType: string;
	kinds: string[];
}

interface BodyRead {
	buffer: Buffer;
	tooLarge: boolean;
	/** The client went away or sent far more than the limit; nothing more to do with this request. */
	abandoned: boolean;
}

const PARTNER_ROUTES: Record<string, PartnerEndpoint> = {
	'/sellers/oauth/accesstoken': 'token',
	'/partners/webhooks/v3': 'webhooks',
	'/sellers/inventory/listings/v3': 'listings',
};

const ADMIN_PREFIX = '/__sandbox';

/** A body this many times over the limit is cut off instead of drained, so a flood cannot tie the server up. */
const DRAIN_FACTOR = 16;

function newId(prefix: string): string {
	return prefix + randomBytes(8).toString('hex');
}

function digest(value: string): Buffer {
	return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time equality of two secrets (equal-length digests, so lengths leak nothing either). */
function secretsEqual(a: string, b: string): boolean {
	return timingSafeEqual(digest(a), digest(b));
}

function mediaType(header: string | undefined): string {
	return (header ?? '').split(';')[0].trim().toLowerCase();
}

/** True when Accept names application/json with a non-zero quality (the spec asks for exactly that header, 4.3). */
function acceptsJson(header: string | undefined): boolean {
	if (!header) return false;
	return header.split(',').some((range) => {
		const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
		if (type !== 'application/json') return false;
		const q = params.find((param) => param.startsWith('q='));
		return q === undefined || Number(q.slice(2)) > 0;
	});
}

const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;

/**
 * Accept-Language: one tag (e.g. en-US) or a list of tags with optional q values, each well formed, naming at least
 * one real language. A lone `*` (what Node's fetch sends by default) is not the language tag 4.3 asks for.
 */
function wellFormedAcceptLanguage(header: string | undefined): boolean {
	if (!header || !header.trim()) return false;
	const tags = header.split(',').map((entry) => {
		const [tag, ...params] = entry.split(';').map((part) => part.trim());
		const qualityOk = params.every((param) => /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(param));
		return { tag, ok: qualityOk && (tag === '*' || LANGUAGE_TAG.test(tag)) };
	});
	return tags.every((t) => t.ok) && tags.some((t) => t.tag !== '*');
}

function parseJson(buffer: Buffer): { ok: true; value: unknown } | { ok: false; message: string } {
	const text = buffer.toString('utf8');
	if (text.trim() === '') return { ok: false, message: 'The body is empty; a JSON object is expected' };
	try {
		return { ok: true, value: JSON.parse(text) };
	} catch (error) {
		return { ok: false, message: `The body is not valid JSON: ${(error as Error).message}` };
	}
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function positiveInteger(value: unknown, name: string): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
		throw new SandboxError(400, ERROR_CODE.invalidRequest, `${name} must be a positive integer`);
	}
	return value;
}

function nonNegativeInteger(value: unknown, name: string): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
		throw new SandboxError(400, ERROR_CODE.invalidRequest, `${name} must be a non-negative integer`);
	}
	return value;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const now = options.now ?? Date.now;
	const tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? DEFAULT_LIMITS.tokenLifetimeSeconds;
	const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_LIMITS.maxBodyBytes;
	const requestLogLimit = options.requestLogLimit ?? DEFAULT_LIMITS.requestLogLimit;
	const sellWaitMs = options.sellWaitMs ?? DEFAULT_LIMITS.sellWaitMs;
	const seed = options.seed ?? DEFAULT_LIMITS.faultSeed;
	positiveInteger(tokenLifetimeSeconds, 'tokenLifetimeSeconds');
	positiveInteger(maxBodyBytes, 'maxBodyBytes');

	const deliverySettings: DeliverySettings = {
		clientAuth: 'basic',
		attempts: DEFAULT_LIMITS.deliveryAttempts,
		baseDelayMs: DEFAULT_LIMITS.deliveryBaseDelayMs,
		maxDelayMs: DEFAULT_LIMITS.deliveryMaxDelayMs,
		timeoutMs: DEFAULT_LIMITS.deliveryTimeoutMs,
	};

	const apps = new Map<string, SandboxApp>();
	const accounts: SandboxAccount[] = [];
	const tokens = new Map<string, TokenRecord>();
	const listings = new Map<string, ListingRecord>();
	const subscriptions = new Map<string, SubscriptionRecord>();
	const sales: Sale[] = [];
	const deliveries = new Map<string, Delivery>();
	let requests: RequestLogEntry[] = [];
	const faults = new FaultInjector(seed);
	// Replaced on reset and cancelled on stop, so pending retries and latency waits never outlive their sandbox.
	let timers = new TimerRegistry();
	let outbound = new AbortController();
	const sockets = new Set<Socket>();
	let stopped = false;

	function registerApp(app: SandboxApp): void {
		if (!app.consumerKey || !app.consumerSecret) throw new SandboxError(400, ERROR_CODE.invalidRequest, 'An app needs a consumerKey and a consumerSecret');
		apps.set(app.consumerKey, { ...app });
	}

	function registerAccount(account: SandboxAccount): void {
		if (!account.email || !account.password || !['marketplace', 'developer'].includes(account.kind)) {
			throw new SandboxError(400, ERROR_CODE.invalidRequest, 'An account needs an email, a password and a kind (marketplace or developer)');
		}
		accounts.push({ ...account });
	}

	function configureDelivery(settings: Partial<DeliverySettings>): DeliverySettings {
		const next = { ...deliverySettings };
		if (settings.clientAuth !== undefined) {
			if (!CLIENT_AUTH_METHODS.includes(settings.clientAuth)) {
				throw new SandboxError(400, ERROR_CODE.invalidRequest, `clientAuth must be one of ${CLIENT_AUTH_METHODS.join(', ')}`);
			}
			next.clientAuth = settings.clientAuth;
		}
		if (settings.attempts !== undefined) next.attempts = positiveInteger(settings.attempts, 'attempts');
		if (settings.baseDelayMs !== undefined) next.baseDelayMs = nonNegativeInteger(settings.baseDelayMs, 'baseDelayMs');
		if (settings.maxDelayMs !== undefined) next.maxDelayMs = nonNegativeInteger(settings.maxDelayMs, 'maxDelayMs');
		if (settings.timeoutMs !== undefined) next.timeoutMs = positiveInteger(settings.timeoutMs, 'timeoutMs');
		Object.assign(deliverySettings, next);
		return { ...deliverySettings };
	}

	if (options.includeDefaults !== false) {
		registerApp({ consumerKey: SANDBOX_DEFAULTS.consumerKey, consumerSecret: SANDBOX_DEFAULTS.consumerSecret, name: 'Sandbox demo app' });
		registerAccount({ ...SANDBOX_DEFAULTS.marketplaceAccount, kind: 'marketplace' });
		registerAccount({ ...SANDBOX_DEFAULTS.developerAccount, kind: 'developer' });
	}
	for (const app of options.apps ?? []) registerApp(app);
	for (const account of options.accounts ?? []) registerAccount(account);
	configureDelivery({
		clientAuth: options.deliveryAuth,
		attempts: options.deliveryAttempts,
		baseDelayMs: options.deliveryBaseDelayMs,
		maxDelayMs: options.deliveryMaxDelayMs,
		timeoutMs: options.deliveryTimeoutMs,
	});

	// ---------------------------------------------------------------- views (secrets never leave through these)

	function tokenView(record: TokenRecord): TokenView {
		return {
			id: record.id,
			consumerKey: record.consumerKey,
			account: record.account,
			issuedAt: new Date(record.issuedAt).toISOString(),
			expiresAt: new Date(record.expiresAt).toISOString(),
			expired: now() >= record.expiresAt,
			revoked: record.revoked,
		};
	}

	function listingView(record: ListingRecord): ListingView {
		return {
			id: record.id,
			consumerKey: record.consumerKey,
			status: record.status,
			createdAt: record.createdAt,
			eligibleForNotifications: record.eligibleForNotifications,
			externalListingId: record.body.externalListingId,
			eventId: record.body.eventId,
			pricePerProduct: structuredClone(record.body.pricePerProduct),
			products: record.products.map((product) => ({ ...product })),
			body: redactJson(record.body),
		};
	}

	function subscriptionView(record: SubscriptionRecord): SubscriptionView {
		return {
			id: record.id,
			consumerKey: record.consumerKey,
			status: record.status,
			createdAt: record.createdAt,
			activatedAt: record.activatedAt,
			callback: {
				url: record.callbackUrl,
				auth: {
					authType: record.authType,
					tokenEndPoint: record.tokenEndPoint,
					oauthRequest: { clientId: record.clientId, clientSecret: REDACTED, grantType: record.grantType },
				},
			},
			subscription: { listing: [...record.kinds] },
		};
	}

	function state(): SandboxState {
		const tokenItems = [...tokens.values()].map(tokenView);
		return {
			url: sandbox.url,
			settings: { ...deliverySettings, tokenLifetimeSeconds, maxBodyBytes },
			requests: structuredClone(requests),
			tokens: { count: tokenItems.length, valid: tokenItems.filter((t) => !t.expired && !t.revoked).length, items: tokenItems },
			listings: [...listings.values()].map(listingView),
			subscriptions: [...subscriptions.values()].map(subscriptionView),
			sales: structuredClone(sales),
			deliveries: structuredClone([...deliveries.values()]),
			faults: faults.list(),
		};
	}

	// ---------------------------------------------------------------- admin operations

	function selectTokens(selector: TokenSelector = {}): TokenRecord[] {
		if (selector.ids !== undefined) {
			if (!Array.isArray(selector.ids) || selector.ids.some((id) => typeof id !== 'string')) {
				throw new SandboxError(400, ERROR_CODE.invalidRequest, 'ids must be an array of token ids');
			}
			const wanted = new Set(selector.ids);
			return [...tokens.values()].filter((record) => wanted.has(record.id));
		}
		// No ids means every token: the common case is "make the client fetch a new one".
		return [...tokens.values()];
	}

	function expireTokens(selector?: TokenSelector): number {
		const chosen = selectTokens(selector);
		const at = now();
		for (const record of chosen) record.expiresAt = Math.min(record.expiresAt, at);
		return chosen.length;
	}

	function revokeTokens(selector?: TokenSelector): number {
		const chosen = selectTokens(selector);
		for (const record of chosen) record.revoked = true;
		return chosen.length;
	}

	function activateSubscription(id: string): SubscriptionView {
		const record = subscriptions.get(id);
		if (!record) throw new SandboxError(404, ERROR_CODE.unknownSubscription, `No subscription with id ${id}`);
		if (record.status !== SUBSCRIPTION_STATUS.active) {
			record.status = SUBSCRIPTION_STATUS.active;
			record.activatedAt = new Date(now()).toISOString();
		}
		return subscriptionView(record);
	}

	function hasActiveSaleSubscription(consumerKey: string): boolean {
		return [...subscriptions.values()].some(
			(s) => s.consumerKey === consumerKey && s.status === SUBSCRIPTION_STATUS.active && s.kinds.includes(LISTING_SALE_EVENT),
		);
	}

	function chooseProducts(listing: ListingRecord, sellOptions: SellOptions): ListingRecord['products'] {
		if (sellOptions.externalIds !== undefined) {
			const ids = sellOptions.externalIds;
			if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => typeof id !== 'string')) {
				throw new SandboxError(400, ERROR_CODE.invalidRequest, 'externalIds must be a non-empty array of strings');
			}
			return [...new Set(ids)].map((externalId) => {
				const product = listing.products.find((p) => p.externalId === externalId);
				if (!product) throw new SandboxError(404, ERROR_CODE.unknownProduct, `Listing ${listing.id} has no product with externalId ${externalId}`);
				if (product.sold) throw new SandboxError(409, ERROR_CODE.productNotAvailable, `Product ${externalId} of listing ${listing.id} is already sold`);
				return product;
			});
		}
		const count = sellOptions.count === undefined ? DEFAULT_SELL_COUNT : positiveInteger(sellOptions.count, 'count');
		const unsold = listing.products.filter((p) => !p.sold);
		if (unsold.length === 0) throw new SandboxError(409, ERROR_CODE.soldOut, `Listing ${listing.id} has no unsold products`);
		if (unsold.length < count) {
			throw new SandboxError(409, ERROR_CODE.productNotAvailable, `Listing ${listing.id} has only ${unsold.length} unsold products`);
		}
		return unsold.slice(0, count);
	}

	function sell(listingId: string, sellOptions: SellOptions = {}): SellResult {
		if (stopped) throw new SandboxError(503, ERROR_CODE.serverError, 'The sandbox is stopped');
		const listing = listings.get(listingId);
		if (!listing) throw new SandboxError(404, ERROR_CODE.unknownListing, `No listing with id ${listingId}`);
		const products = chooseProducts(listing, sellOptions);
		const sale: Sale = {
			id: newId(ID_PREFIX.sale),
			listingId: listing.id,
			externalListingId: listing.body.externalListingId,
			externalIds: products.map((p) => p.externalId),
			occurredAt: new Date(now()).toISOString(),
			eligibleForNotifications: listing.eligibleForNotifications,
			deliveryIds: [],
		};
		for (const product of products) {
			product.sold = true;
			product.saleId = sale.id;
		}
		sales.push(sale);

		const targets = [...subscriptions.values()].filter(
			(s) => s.consumerKey === listing.consumerKey && s.status === SUBSCRIPTION_STATUS.active && s.kinds.includes(LISTING_SALE_EVENT),
		);
		if (!listing.eligibleForNotifications) {
			sale.notNotifiedReason = 'The listing was created before a listing_sale subscription was active, so it is not eligible';
			return { sale: structuredClone(sale), deliveries: Promise.resolve([]) };
		}
		if (targets.length === 0) {
			sale.notNotifiedReason = 'No active listing_sale subscription for this app';
			return { sale: structuredClone(sale), deliveries: Promise.resolve([]) };
		}

		const runTimers = timers;
		const runSignal = outbound.signal;
		const running = targets.map((subscription) => {
			const delivery: Delivery = {
				id: newId(ID_PREFIX.delivery),
				saleId: sale.id,
				subscriptionId: subscription.id,
				notificationId: newId(ID_PREFIX.notification),
				callbackUrl: subscription.callbackUrl,
				tokenEndPoint: subscription.tokenEndPoint,
				clientAuth: deliverySettings.clientAuth,
				status: 'pending',
				attempts: [],
				createdAt: new Date().toISOString(),
			};
			deliveries.set(delivery.id, delivery);
			sale.deliveryIds.push(delivery.id);
			if (subscription.authType !== DELIVERABLE_AUTH_TYPE) {
				delivery.status = 'failed';
				delivery.finishedAt = delivery.createdAt;
				delivery.attempts.push({
					attempt: 1,
					step: 'token',
					at: delivery.createdAt,
					durationMs: 0,
					ok: false,
					error: `authType "${subscription.authType}" is not deliverable by the sandbox (only "${DELIVERABLE_AUTH_TYPE}")`,
				});
				return Promise.resolve(delivery);
			}
			const payload = saleNotificationPayload({
				notificationId: delivery.notificationId,
				subscriptionId: subscription.id,
				occurredAt: sale.occurredAt,
				listing: {
					id: listing.id,
					externalListingId: listing.body.externalListingId,
					eventId: listing.body.eventId,
					pricePerProduct: listing.body.pricePerProduct,
				},
				products,
			});
			return runDelivery(
				delivery,
				{
					callbackUrl: subscription.callbackUrl,
					tokenEndPoint: subscription.tokenEndPoint,
					clientId: subscription.clientId,
					clientSecret: subscription.clientSecret,
					authType: subscription.authType,
				},
				payload,
				{ ...deliverySettings },
				runTimers,
				runSignal,
			);
		});
		const settled = Promise.all(running).then((done) => structuredClone(done));
		return { sale: structuredClone(sale), deliveries: settled };
	}

	function cancelBackgroundWork(): void {
		timers.cancelAll();
		outbound.abort();
	}

	function reset(): void {
		cancelBackgroundWork();
		timers = new TimerRegistry();
		outbound = new AbortController();
		tokens.clear();
		listings.clear();
		subscriptions.clear();
		sales.length = 0;
		deliveries.clear();
		requests = [];
		faults.clear();
		faults.reseed();
	}

	// ---------------------------------------------------------------- HTTP plumbing

	function readBody(req: http.IncomingMessage): Promise<BodyRead> {
		return new Promise((resolve) => {
			const chunks: Buffer[] = [];
			let bytes = 0;
			let done = false;
			const finish = (result: BodyRead) => {
				if (!done) {
					done = true;
					resolve(result);
				}
			};
			req.on('data', (chunk: Buffer) => {
				bytes += chunk.length;
				if (bytes <= maxBodyBytes) chunks.push(chunk);
				else if (bytes > maxBodyBytes * DRAIN_FACTOR) finish({ buffer: Buffer.alloc(0), tooLarge: true, abandoned: true });
			});
			req.on('end', () => finish({ buffer: Buffer.concat(chunks), tooLarge: bytes > maxBodyBytes, abandoned: false }));
			req.on('error', () => finish({ buffer: Buffer.alloc(0), tooLarge: false, abandoned: true }));
			req.on('close', () => finish({ buffer: Buffer.concat(chunks), tooLarge: bytes > maxBodyBytes, abandoned: !req.complete }));
		});
	}

	function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
		if (res.headersSent || res.destroyed) return;
		const text = JSON.stringify(body);
		res.writeHead(status, {
			'Content-Type': 'application/json; charset=utf-8',
			'Content-Length': Buffer.byteLength(text).toString(),
			...headers,
		});
		res.end(text);
	}

	/** The error body shape of every non-token 4xx/5xx (a sandbox choice). */
	function sendError(
		res: http.ServerResponse,
		status: number,
		error: string,
		message: string,
		details?: Problem[],
		headers: Record<string, string> = {},
	): void {
		sendJson(res, status, details && details.length > 0 ? { error, message, details } : { error, message }, headers);
	}

	/** OAuth's error body (RFC 6749 5.2) for the token endpoint. */
	function sendOAuthError(res: http.ServerResponse, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
		sendJson(res, status, { error, error_description: description }, { 'Cache-Control': 'no-store', Pragma: 'no-cache', ...headers });
	}

	function bearerRecord(req: http.IncomingMessage): { record?: TokenRecord; problem?: string } {
		const header = req.headers.authorization;
		const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
		if (!match) return { problem: 'An Authorization: Bearer <access token> header is required' };
		const record = tokens.get(match[1]);
		if (!record) return { problem: 'The access token is not recognised' };
		if (record.revoked) return { record, problem: 'The access token has been revoked' };
		if (now() >= record.expiresAt) return { record, problem: 'The access token has expired' };
		return { record };
	}

	function requireBearer(req: http.IncomingMessage, res: http.ServerResponse): TokenRecord | undefined {
		const { record, problem } = bearerRecord(req);
		if (problem || !record) {
			sendJson(res, 401, { error: ERROR_CODE.invalidToken, message: problem }, { 'WWW-Authenticate': BEARER_CHALLENGE });
			return undefined;
		}
		return record;
	}

	/** Answers 415 unless the body is declared JSON; returns whether it is. */
	function requireJsonContentType(req: http.IncomingMessage, res: http.ServerResponse): boolean {
		if (mediaType(req.headers['content-type']) === 'application/json') return true;
		sendError(
			res,
			415,
			ERROR_CODE.unsupportedMediaType,
			`Content-Type must be application/json, got ${req.headers['content-type'] ? `"${req.headers['content-type']}"` : 'none'}`,
		);
		return false;
	}

	/** Content-Type and JSON checks shared by the Bearer endpoints; answers the error itself and returns undefined. */
	function jsonBody(req: http.IncomingMessage, res: http.ServerResponse, buffer: Buffer): { value: unknown } | undefined {
		if (!requireJsonContentType(req, res)) return undefined;
		const parsed = parseJson(buffer);
		if (!parsed.ok) {
			sendError(res, 400, ERROR_CODE.malformedJson, parsed.message);
			return undefined;
		}
		return { value: parsed.value };
	}

	// ---------------------------------------------------------------- Partner API endpoints

	function handleToken(req: http.IncomingMessage, res: http.ServerResponse, url: URL, buffer: Buffer, issueExpired: boolean): void {
		const challenge = { 'WWW-Authenticate': BASIC_CHALLENGE };
		const header = req.headers.authorization;
		const basic = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
		if (!basic) {
			sendOAuthError(res, 401, ERROR_CODE.invalidClient, 'HTTP Basic authentication with the consumer key and secret is required', challenge);
			return;
		}
		const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
		const colon = decoded.indexOf(':');
		const app = colon > 0 ? apps.get(decoded.slice(0, colon)) : undefined;
		// The secret is compared even for an unknown key, so both failures take the same path.
		const secretMatches = secretsEqual(colon > 0 ? decoded.slice(colon + 1) : '', app?.consumerSecret ?? '\u0000no-app');
		if (!app || !secretMatches) {
			sendOAuthError(res, 401, ERROR_CODE.invalidClient, 'The consumer key or consumer secret is not recognised', challenge);
			return;
		}
		const grantType = url.searchParams.get('grant_type');
		if (grantType === null || grantType === '') {
			sendOAuthError(res, 400, ERROR_CODE.invalidRequest, 'The grant_type query parameter is required (grant_type=client_credentials)');
			return;
		}
		if (grantType !== 'client_credentials') {
			sendOAuthError(res, 400, ERROR_CODE.unsupportedGrantType, `grant_type "${grantType}" is not supported; use client_credentials`);
			return;
		}
		if (mediaType(req.headers['content-type']) !== 'application/json') {
			sendOAuthError(res, 400, ERROR_CODE.invalidRequest, 'Content-Type must be application/json');
			return;
		}
		const parsed = parseJson(buffer);
		if (!parsed.ok) {
			sendOAuthError(res, 400, ERROR_CODE.invalidRequest, parsed.message);
			return;
		}
		const body = parsed.value;
		if (!isPlainObject(body)) {
			sendOAuthError(res, 400, ERROR_CODE.invalidRequest, 'The body must be a JSON object with username and password');
			return;
		}
		const missing = ['username', 'password'].filter((key) => typeof body[key] !== 'string' || (body[key] as string).length === 0);
		if (missing.length > 0) {
			sendOAuthError(res, 400, ERROR_CODE.invalidRequest, `The body needs ${missing.join(' and ')} (${missing.length > 1 ? 'non-empty strings' : 'a non-empty string'})`);
			return;
		}
		const username = (body.username as string).trim().toLowerCase();
		const password = body.password as string;
		const matching = (kind: SandboxAccount['kind']) =>
			accounts.find((a) => a.kind === kind && a.email.toLowerCase() === username && secretsEqual(password, a.password));
		const account = matching('marketplace');
		if (!account) {
			const description = matching('developer') ? TOKEN_ERROR_TEXT.developerAccount : TOKEN_ERROR_TEXT.wrongAccount;
			sendOAuthError(res, 401, ERROR_CODE.invalidGrant, description);
			return;
		}
		const issuedAt = now();
		const value = randomBytes(32).toString('base64url');
		tokens.set(value, {
			id: `${ID_PREFIX.token}${tokens.size + 1}_${randomBytes(3).toString('hex')}`,
			consumerKey: app.consumerKey,
			account: account.email,
			issuedAt,
			// The `expireToken` fault hands out a token that is already expired, as if it lapsed on the way.
			expiresAt: issueExpired ? issuedAt : issuedAt + tokenLifetimeSeconds * 1000,
			revoked: false,
		});
		sendJson(
			res,
			SUCCESS_STATUS.token,
			{ access_token: value, token_type: 'Bearer', expires_in: tokenLifetimeSeconds },
			{ 'Cache-Control': 'no-store', Pragma: 'no-cache' },
		);
	}

	function handleWebhook(req: http.IncomingMessage, res: http.ServerResponse, buffer: Buffer): void {
		const token = requireBearer(req, res);
		if (!token) return;
		const parsed = jsonBody(req, res, buffer);
		if (!parsed) return;
		const problems = validateSubscription(parsed.value);
		if (problems.length > 0) {
			sendError(res, 400, ERROR_CODE.validationFailed, `The webhook subscription is invalid: ${problems[0].message}`, problems);
			return;
		}
		const body = parsed.value as {
			callback: { url: string; auth: { authType: string; tokenEndPoint: string; oauthRequest: Record<string, string> } };
			subscription: { listing: string[] };
		};
		const record: SubscriptionRecord = {
			id: newId(ID_PREFIX.subscription),
			consumerKey: token.consumerKey,
			status: SUBSCRIPTION_STATUS.pending,
			createdAt: new Date(now()).toISOString(),
			callbackUrl: body.callback.url,
			authType: body.callback.auth.authType,
			tokenEndPoint: body.callback.auth.tokenEndPoint,
			clientId: body.callback.auth.oauthRequest.clientId,
			clientSecret: body.callback.auth.oauthRequest.clientSecret,
			grantType: body.callback.auth.oauthRequest.grantType,
			kinds: [...body.subscription.listing],
		};
		subscriptions.set(record.id, record);
		sendJson(
			res,
			SUCCESS_STATUS.webhook,
			subscriptionResponse({
				id: record.id,
				status: record.status,
				createdAt: record.createdAt,
				callback: {
					url: record.callbackUrl,
					auth: { authType: record.authType, tokenEndPoint: record.tokenEndPoint, clientId: record.clientId, grantType: record.grantType },
				},
				kinds: record.kinds,
			}),
		);
	}

	function handleListing(req: http.IncomingMessage, res: http.ServerResponse, buffer: Buffer): void {
		const token = requireBearer(req, res);
		if (!token) return;
		if (!acceptsJson(req.headers.accept)) {
			sendError(
				res,
				406,
				ERROR_CODE.notAcceptable,
				`The Accept header must include application/json, got ${req.headers.accept ? `"${req.headers.accept}"` : 'none'}`,
			);
			return;
		}
		if (!requireJsonContentType(req, res)) return;
		if (!wellFormedAcceptLanguage(req.headers['accept-language'])) {
			sendError(
				res,
				400,
				ERROR_CODE.invalidAcceptLanguage,
				req.headers['accept-language']
					? `The Accept-Language header "${req.headers['accept-language']}" is not a well-formed language tag (e.g. en-US)`
					: 'The Accept-Language header is required (a language tag such as en-US)',
			);
			return;
		}
		const parsed = jsonBody(req, res, buffer);
		if (!parsed) return;
		const problems = validateListing(parsed.value, REQUIRE_UNIQUE_PRODUCT_EXTERNAL_IDS);
		if (problems.length > 0) {
			sendError(res, 400, ERROR_CODE.validationFailed, `The listing is invalid: ${problems[0].message}`, problems);
			return;
		}
		const body = parsed.value as Record<string, unknown> & { externalListingId: number; products: Array<Record<string, unknown>> };
		const duplicate = [...listings.values()].find(
			(l) => l.consumerKey === token.consumerKey && l.body.externalListingId === body.externalListingId,
		);
		if (duplicate) {
			sendError(
				res,
				409,
				ERROR_CODE.duplicateExternalListingId,
				`A listing with externalListingId ${body.externalListingId} already exists (id ${duplicate.id})`,
				[{ path: 'externalListingId', message: `externalListingId ${body.externalListingId} is already used by listing ${duplicate.id}` }],
			);
			return;
		}
		const record: ListingRecord = {
			id: newId(ID_PREFIX.listing),
			consumerKey: token.consumerKey,
			status: LISTING_STATUS_ON_CREATE,
			createdAt: new Date(now()).toISOString(),
			// Spec 3 and 6: only listings created while a webhook is active can ever be notified.
			eligibleForNotifications: hasActiveSaleSubscription(token.consumerKey),
			body: structuredClone(body),
			products: body.products.map((product) => ({
				externalId: product.externalId as string,
				row: product.row,
				seat: product.seat,
				ga: product.ga,
				sold: false,
			})),
		};
		listings.set(record.id, record);
		sendJson(res, SUCCESS_STATUS.listing, listingResponse(record));
	}

	// ---------------------------------------------------------------- admin HTTP API

	const ADMIN_ROUTES = [
		'GET  /__sandbox/state',
		'POST /__sandbox/subscriptions/:id/activate',
		'POST /__sandbox/listings/:id/sell  {externalIds?: string[], count?: number, wait?: boolean}',
		'POST /__sandbox/tokens/expire  {all?: true, ids?: string[]}',
		'POST /__sandbox/tokens/revoke  {all?: true, ids?: string[]}',
		'GET  /__sandbox/faults',
		'POST /__sandbox/faults  {endpoint, kind?, sequence?, latencyMs?, jitterMs?, retryAfterSeconds?, status?, rate?, seed?}',
		'DELETE /__sandbox/faults',
		'POST /__sandbox/delivery  {clientAuth?, attempts?, baseDelayMs?, maxDelayMs?, timeoutMs?}',
		'POST /__sandbox/reset',
	];

	async function waitBounded<T>(promise: Promise<T>, ms: number): Promise<{ value?: T; timedOut: boolean }> {
		const settled = new AbortController();
		const timeout = timers.sleep(ms, settled.signal).then(() => ({ timedOut: true as const }));
		try {
			return await Promise.race([promise.then((value) => ({ value, timedOut: false })), timeout]);
		} finally {
			settled.abort();
		}
	}

	async function handleAdmin(req: http.IncomingMessage, res: http.ServerResponse, url: URL, buffer: Buffer): Promise<void> {
		const method = req.method ?? 'GET';
		const path = url.pathname.replace(/\/+$/, '');
		let body: Record<string, unknown> = {};
		if (buffer.length > 0) {
			const parsed = parseJson(buffer);
			if (!parsed.ok) return sendError(res, 400, ERROR_CODE.malformedJson, parsed.message);
			if (!isPlainObject(parsed.value)) return sendError(res, 400, ERROR_CODE.invalidRequest, 'The body must be a JSON object');
			body = parsed.value;
		}
		const allow = (methods: string[]) => {
			if (methods.includes(method)) return true;
			sendError(res, 405, ERROR_CODE.methodNotAllowed, `${method} is not allowed on ${path}; use ${methods.join(' or ')}`, undefined, {
				Allow: methods.join(', '),
			});
			return false;
		};
		try {
			let match: RegExpExecArray | null;
			if (path === ADMIN_PREFIX) {
				if (allow(['GET'])) sendJson(res, 200, { routes: ADMIN_ROUTES });
			} else if (path === `${ADMIN_PREFIX}/state`) {
				if (allow(['GET'])) sendJson(res, 200, state());
			} else if ((match = /^\/__sandbox\/subscriptions\/([^/]+)\/activate$/.exec(path))) {
				if (allow(['POST'])) sendJson(res, 200, activateSubscription(decodeURIComponent(match[1])));
			} else if ((match = /^\/__sandbox\/listings\/([^/]+)\/sell$/.exec(path))) {
				if (!allow(['POST'])) return;
				const result = sell(decodeURIComponent(match[1]), {
					externalIds: body.externalIds as string[] | undefined,
					count: body.count as number | undefined,
				});
				if (body.wait === false) {
					sendJson(res, 202, { sale: result.sale, deliveries: [], complete: false });
					return;
				}
				const outcome = await waitBounded(result.deliveries, sellWaitMs);
				const current = result.sale.deliveryIds.map((id) => deliveries.get(id)).filter((d): d is Delivery => d !== undefined);
				sendJson(res, 200, { sale: result.sale, deliveries: outcome.value ?? structuredClone(current), complete: !outcome.timedOut });
			} else if ((match = /^\/__sandbox\/tokens\/(expire|revoke)$/.exec(path))) {
				if (!allow(['POST'])) return;
				const selector = { all: body.all === true, ids: body.ids as string[] | undefined };
				if (match[1] === 'expire') sendJson(res, 200, { expired: expireTokens(selector) });
				else sendJson(res, 200, { revoked: revokeTokens(selector) });
			} else if (path === `${ADMIN_PREFIX}/faults`) {
				if (!allow(['GET', 'POST', 'DELETE'])) return;
				if (method === 'GET') sendJson(res, 200, { faults: faults.list() });
				else if (method === 'DELETE') {
					faults.clear();
					sendJson(res, 200, { faults: [] });
				} else {
					const { seed: newSeed, ...rest } = body;
					if (newSeed !== undefined) {
						if (typeof newSeed !== 'number' || !Number.isInteger(newSeed)) throw new FaultInputError('seed must be an integer');
						faults.reseed(newSeed);
					}
					sendJson(res, 201, faults.add(parseFaultRule(rest)));
				}
			} else if (path === `${ADMIN_PREFIX}/delivery`) {
				if (allow(['POST'])) sendJson(res, 200, configureDelivery(body as Partial<DeliverySettings>));
			} else if (path === `${ADMIN_PREFIX}/reset`) {
				if (allow(['POST'])) {
					reset();
					sendJson(res, 200, { reset: true });
				}
			} else {
				sendError(res, 404, ERROR_CODE.notFound, `No sandbox admin route ${method} ${path}; see GET ${ADMIN_PREFIX}`);
			}
		} catch (error) {
			if (error instanceof SandboxError) sendError(res, error.status, error.code, error.message, error.details);
			else if (error instanceof FaultInputError) sendError(res, 400, ERROR_CODE.invalidRequest, error.message);
			else throw error;
		}
	}

	// ---------------------------------------------------------------- request dispatch

	function logRequest(entry: RequestLogEntry): void {
		requests.push(entry);
		if (requests.length > requestLogLimit) requests.splice(0, requests.length - requestLogLimit);
	}

	function loggableBody(req: http.IncomingMessage, buffer: Buffer, tooLarge: boolean): unknown {
		if (tooLarge) return { unparsed: true, reason: 'too large' };
		if (buffer.length === 0) return undefined;
		const parsed = mediaType(req.headers['content-type']).endsWith('json') ? parseJson(buffer) : undefined;
		// Bodies that are not JSON are not shown at all: they might carry a password the sandbox cannot find.
		return parsed?.ok ? redactJson(parsed.value) : { unparsed: true, bytes: buffer.length };
	}

	async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
		const started = Date.now();
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		const read = await readBody(req);
		if (read.abandoned) {
			if (read.tooLarge) {
				sendError(res, 413, ERROR_CODE.payloadTooLarge, `The body exceeds the limit of ${maxBodyBytes} bytes`, undefined, { Connection: 'close' });
				res.on('finish', () => req.destroy());
			} else req.destroy();
			return;
		}
		const isAdmin = url.pathname === ADMIN_PREFIX || url.pathname.startsWith(`${ADMIN_PREFIX}/`);
		const endpoint = PARTNER_ROUTES[url.pathname] ?? null;
		const appliedFaults: string[] = [];
		if (!isAdmin) {
			const entry: RequestLogEntry = {
				id: newId(ID_PREFIX.request),
				at: new Date(started).toISOString(),
				endpoint,
				method: req.method ?? '',
				path: url.pathname,
				query: redactQuery(url.searchParams),
				headers: redactHeaders(req.headers),
				body: loggableBody(req, read.buffer, read.tooLarge),
				status: null,
				faults: appliedFaults,
				durationMs: 0,
			};
			// Logged when the answer is handed over ('finish'), so a client that reads the state right after its
			// answer finds the request there; 'close' alone covers dropped connections.
			let logged = false;
			const log = () => {
				if (logged) return;
				logged = true;
				entry.status = res.writableFinished ? res.statusCode : null;
				entry.durationMs = Date.now() - started;
				logRequest(entry);
			};
			res.on('finish', log);
			res.on('close', log);
		}
		if (read.tooLarge) {
			sendError(res, 413, ERROR_CODE.payloadTooLarge, `The body exceeds the limit of ${maxBodyBytes} bytes`);
			return;
		}
		if (isAdmin) return handleAdmin(req, res, url, read.buffer);
		if (!endpoint) {
			sendError(res, 404, ERROR_CODE.notFound, `No Partner API endpoint at ${url.pathname}`);
			return;
		}
		if (req.method !== 'POST') {
			sendError(res, 405, ERROR_CODE.methodNotAllowed, `${req.method} is not allowed on ${url.pathname}; use POST`, undefined, { Allow: 'POST' });
			return;
		}

		const decision = faults.decide(endpoint);
		appliedFaults.push(...decision.applied);
		if (decision.delayMs > 0 && !(await timers.sleep(decision.delayMs))) {
			req.destroy();
			return;
		}
		let issueExpired = false;
		const terminal = decision.terminal;
		if (terminal) {
			switch (terminal.kind) {
				case '429': {
					const retryAfter = terminal.rule.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
					sendError(res, 429, ERROR_CODE.rateLimited, `Too many requests; retry after ${retryAfter} s (sandbox fault)`, undefined, {
						'Retry-After': String(Math.ceil(retryAfter)),
					});
					return;
				}
				case '5xx': {
					const status = terminal.rule.status ?? DEFAULT_FAULT_STATUS;
					sendError(res, status, ERROR_CODE.serverError, `The service failed with ${status} (sandbox fault)`);
					return;
				}
				case 'drop':
					req.socket.destroy();
					return;
				case 'expireToken':
					if (endpoint === 'token') issueExpired = true;
					else {
						const { record } = bearerRecord(req);
						if (record) record.expiresAt = Math.min(record.expiresAt, now());
					}
					break;
			}
		}
		if (endpoint === 'token') handleToken(req, res, url, read.buffer, issueExpired);
		else if (endpoint === 'webhooks') handleWebhook(req, res, read.buffer);
		else handleListing(req, res, read.buffer);
	}

	const server = http.createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, (req, res) => {
		handle(req, res).catch((error: unknown) => {
			// A bug in the sandbox must answer 500, not crash the process or hang the client.
			sendError(res, 500, ERROR_CODE.serverError, `Sandbox internal error: ${error instanceof Error ? error.message : String(error)}`);
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	server.on('clientError', (_error, socket) => {
		if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
		else socket.destroy();
	});

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	const port = (server.address() as AddressInfo).port;

	const sandbox: Sandbox = {
		url: `http://127.0.0.1:${port}`,
		port,
		state,
		activateSubscription,
		sell,
		expireTokens,
		revokeTokens,
		addFault: (rule) => faults.add(parseFaultRule(rule)),
		clearFaults: () => faults.clear(),
		reseedFaults: (newSeed) => faults.reseed(newSeed),
		configureDelivery,
		reset,
		registerApp,
		registerAccount,
		async stop() {
			if (stopped) return;
			stopped = true;
			cancelBackgroundWork();
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			for (const socket of sockets) socket.destroy();
			await closed;
		},
	};
	return sandbox;
}
