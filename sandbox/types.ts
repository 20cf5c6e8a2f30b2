/** The sandbox's public types: its options, the views `state()` hands out (secrets redacted) and the `Sandbox` itself. */
import type { ClientAuthMethod, Delivery, DeliverySettings } from './delivery';
import type { AnswerSettings, AnswerSettingsInput } from './answers';
import type { FaultRule, FaultRuleInput, PartnerEndpoint } from './faults';
import type {
	QuotaLimitInput,
	QuotaView,
	SpikeArrestLimitInput,
	SpikeArrestView,
} from './gatewayLimits';
import type { InFlightLimitInput, InFlightView } from './inFlight';
import type { PerSecondLimitInput, PerSecondView } from './perSecond';

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
	/** Refuse (429 with Retry-After) a Partner API request that arrives while this many are being answered. */
	inFlightLimit?: InFlightLimitInput;
	/** Refuse (429 with Retry-After) a Partner API request when this many were admitted in the last second. */
	perSecondLimit?: PerSecondLimitInput;
	/**
	 * The plan's quota as the gateway enforces it: beyond `limit` requests in a window (a day by default), its
	 * QuotaViolation fault, status 500 (or 429), no Retry-After.
	 */
	quota?: QuotaLimitInput;
	/** The gateway's spike arrest (`{rate: "40ps"}`), smoothed as Apigee enforces it; SpikeArrestViolation when over. */
	spikeArrest?: SpikeArrestLimitInput;
	/** How the sandbox answers: the real service's shapes (default) or its own older ones, and what it answers. */
	answers?: AnswerSettingsInput;
	/** Seed of the fault injector's random generator (repeatable rate-based faults). */
	seed?: number;
	requestLogLimit?: number;
	/** Bound on how long the admin HTTP `sell` waits for delivery outcomes. */
	sellWaitMs?: number;
	/** Clock for token lifetimes, the per-second window, the quota and the spike arrest, in ms; tests may inject one. */
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
	/** Expire: the refresh tokens issued with them too (a revoke always revokes them). */
	refreshTokens?: boolean;
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
	products: Array<{
		externalId: string;
		row?: unknown;
		seat?: unknown;
		ga?: unknown;
		sold: boolean;
		saleId?: string;
		pdf?: { part: string; bytes: number; sha256: string };
	}>;
	/** Every ticket of the listing has its PDF (Pre-deliver Pdf). */
	preDelivered: boolean;
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
	inFlight: InFlightView;
	perSecond: PerSecondView;
	quota: QuotaView;
	spikeArrest: SpikeArrestView;
	answers: AnswerSettings;
}

/** What to deliver a sample sale to (sampleSale.ts). */
export interface SampleSaleInput {
	/** The trigger's notification URL (the subscription's callback.url). */
	callbackUrl: string;
	/** The trigger's token URL (the subscription's callback.auth.tokenEndPoint). */
	tokenEndPoint: string;
	/** The callback client the trigger's credential holds. */
	clientId: string;
	clientSecret: string;
	/** How to authenticate to the token URL; the sandbox's delivery setting by default. */
	clientAuth?: ClientAuthMethod;
	/** Attempts (with the sandbox's backoff between them); one by default. */
	attempts?: number;
}

export interface SampleSaleResult {
	/** The sample's id (the delivery's saleId). */
	sampleId: string;
	/** Settles when the sample is delivered, failed after its attempts, or cancelled by stop/reset. */
	delivery: Promise<Delivery>;
	deliveryId: string;
}

export interface Sandbox {
	url: string;
	port: number;
	stop(): Promise<void>;
	state(): SandboxState;
	activateSubscription(id: string): SubscriptionView;
	sell(listingId: string, options?: SellOptions): SellResult;
	/** Delivers a sample listing_sale to any token URL + callback URL with the given callback client (sampleSale.ts). */
	deliverSampleSale(input: SampleSaleInput): SampleSaleResult;
	expireTokens(selector?: TokenSelector): number;
	revokeTokens(selector?: TokenSelector): number;
	addFault(rule: FaultRuleInput): FaultRule;
	clearFaults(): void;
	/** Restarts the fault generator (with a new seed when given) so rate-based faults repeat. */
	reseedFaults(seed?: number): void;
	configureDelivery(settings: Partial<DeliverySettings>): DeliverySettings;
	/** Sets (or with null removes) the limit on requests in flight until the next reset. */
	limitInFlight(limit: InFlightLimitInput | null): InFlightView;
	/** Sets (or with null removes) the limit on requests per second until the next reset. */
	limitPerSecond(limit: PerSecondLimitInput | null): PerSecondView;
	/** Sets (or with null removes) the gateway's quota until the next reset. */
	limitQuota(limit: QuotaLimitInput | null): QuotaView;
	/** Sets (or with null removes) the gateway's spike arrest until the next reset. */
	limitSpikeArrest(limit: SpikeArrestLimitInput | null): SpikeArrestView;
	/** Changes how the sandbox answers (shapes, listing status, API product, inactive events, seat check) until the next reset. */
	configureAnswers(settings: AnswerSettingsInput): AnswerSettings;
	/** Forgets tokens, listings, subscriptions, sales, deliveries, requests and faults; keeps apps and accounts. */
	reset(): void;
	registerApp(app: SandboxApp): void;
	registerAccount(account: SandboxAccount): void;
}
