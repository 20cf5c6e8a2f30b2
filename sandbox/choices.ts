/**
 * Every decision the sandbox makes where the Partner API specification says "not shown".
 *
 * These are the sandbox's own choices, not facts about the real marketplace. Code outside the sandbox must not
 * depend on them (read response fields defensively, pass responses through). They live here, in one place, so a
 * reader can see at a glance what is invented; sandbox/README.md lists the same choices.
 */

/** Defaults for options; the CLI documents the same values in --help. */
export const DEFAULT_LIMITS = {
	/** Spec 5.5 and 8: "a token must be refreshed every 6 months" (180 days). */
	tokenLifetimeSeconds: 15_552_000,
	/** Spec 8: size limits not shown. 1 MiB comfortably holds a listing with thousands of products. */
	maxBodyBytes: 1024 * 1024,
	/** Retries of notifications: not shown. Five attempts, doubling from one second, at most 30 s apart. */
	deliveryAttempts: 5,
	deliveryBaseDelayMs: 1000,
	deliveryMaxDelayMs: 30_000,
	/** Each outbound call (token exchange, callback) gets its own timeout so a silent receiver cannot hang a sale. */
	deliveryTimeoutMs: 5000,
	/** How long the admin HTTP `sell` waits for delivery outcomes before answering what it has. */
	sellWaitMs: 60_000,
	/** The request log keeps this many most recent entries. */
	requestLogLimit: 1000,
	/** Seed of the fault injector's random generator, so rate-based faults repeat run after run. */
	faultSeed: 1,
} as const;

/** Success statuses: not shown (4.4). Token 200 (RFC 6749 5.1); creations 201 (a resource was created). */
export const SUCCESS_STATUS = { token: 200, webhook: 201, listing: 201 } as const;

/** The subscription starts PENDING (spec 6: activation is a separate, manual step) and becomes ACTIVE by admin call. */
export const SUBSCRIPTION_STATUS = { pending: 'PENDING', active: 'ACTIVE' } as const;

/** Listing states: not shown (3). A created listing is ACTIVE; the sandbox has no other listing state. */
export const LISTING_STATUS_ON_CREATE = 'ACTIVE';

/** Event kind of sale notifications (spec 6). Only this kind is delivered by the sandbox. */
export const LISTING_SALE_EVENT = 'listing_sale';

/** The one callback authentication kind given by the spec (2.3); other kinds are stored but never delivered. */
export const DELIVERABLE_AUTH_TYPE = 'oauth';

/** Id formats: not shown. Opaque prefixed random strings, unique within and across sandbox runs. */
export const ID_PREFIX = {
	subscription: 'sub_',
	listing: 'lst_',
	sale: 'sale_',
	sample: 'sample_',
	delivery: 'dlv_',
	notification: 'ntf_',
	token: 'tok_',
	request: 'req_',
	fault: 'flt_',
} as const;

/** Error codes of the Partner API's error bodies: not shown (7). Token errors use OAuth's vocabulary (RFC 6749 5.2). */
export const ERROR_CODE = {
	invalidClient: 'invalid_client',
	invalidRequest: 'invalid_request',
	unsupportedGrantType: 'unsupported_grant_type',
	invalidGrant: 'invalid_grant',
	invalidToken: 'invalid_token',
	malformedJson: 'malformed_json',
	unsupportedMediaType: 'unsupported_media_type',
	notAcceptable: 'not_acceptable',
	invalidAcceptLanguage: 'invalid_accept_language',
	validationFailed: 'validation_failed',
	duplicateExternalListingId: 'duplicate_external_listing_id',
	payloadTooLarge: 'payload_too_large',
	notFound: 'not_found',
	methodNotAllowed: 'method_not_allowed',
	rateLimited: 'rate_limited',
	serverError: 'server_error',
	unknownListing: 'unknown_listing',
	unknownSubscription: 'unknown_subscription',
	unknownProduct: 'unknown_product',
	productNotAvailable: 'product_not_available',
	soldOut: 'sold_out',
} as const;

/** Fixed wording that other components (the credential's diagnosis) read; keep it exactly. */
export const TOKEN_ERROR_TEXT = {
	wrongAccount: 'The marketplace account e-mail or password is not recognised',
	developerAccount:
		'This is a developer-portal account. Use the e-mail and password of your consumer marketplace account.',
} as const;

/** RFC 6749 5.2 / RFC 6750 3 challenge headers. */
export const BASIC_CHALLENGE = 'Basic realm="partner-api"';
export const BEARER_CHALLENGE = 'Bearer error="invalid_token"';

/** Status of the `5xx` fault when the rule names none. */
export const DEFAULT_FAULT_STATUS = 503;
/** Retry-After of the `429` fault when the rule names none. */
export const DEFAULT_RETRY_AFTER_SECONDS = 1;

/**
 * Selling: when neither external ids nor a count are given, one product (the first unsold) is sold, like a single
 * buyer's purchase.
 */
export const DEFAULT_SELL_COUNT = 1;

/**
 * The listing response and stored record: not shown (2.4, 4.3). The sandbox answers the listing as sent, plus its
 * id, status, creation time and whether it is eligible for notifications (spec 3 and 6).
 */
export function listingResponse(listing: {
	id: string;
	status: string;
	createdAt: string;
	eligibleForNotifications: boolean;
	body: Record<string, unknown>;
}): Record<string, unknown> {
	return {
		...listing.body,
		id: listing.id,
		status: listing.status,
		createdAt: listing.createdAt,
		eligibleForNotifications: listing.eligibleForNotifications,
	};
}

/**
 * The subscription response: only "a unique identifier" is given (4.2), its field name is not. The sandbox answers
 * `id` and `status`, and echoes the subscription without the client secret (secrets are never echoed).
 */
export function subscriptionResponse(subscription: {
	id: string;
	status: string;
	createdAt: string;
	callback: {
		url: string;
		auth: { authType: string; tokenEndPoint: string; clientId: string; grantType: string };
	};
	kinds: string[];
}): Record<string, unknown> {
	return {
		id: subscription.id,
		status: subscription.status,
		createdAt: subscription.createdAt,
		callback: {
			url: subscription.callback.url,
			auth: {
				authType: subscription.callback.auth.authType,
				tokenEndPoint: subscription.callback.auth.tokenEndPoint,
				oauthRequest: {
					clientId: subscription.callback.auth.clientId,
					grantType: subscription.callback.auth.grantType,
				},
			},
		},
		subscription: { listing: [...subscription.kinds] },
	};
}

/**
 * The notification payload: not shown (6). One notification per sale and subscription; `notificationId` stays the
 * same across retries so a receiver can drop duplicates.
 */
export function saleNotificationPayload(input: {
	notificationId: string;
	subscriptionId: string;
	occurredAt: string;
	listing: { id: string; externalListingId: unknown; eventId: unknown; pricePerProduct: unknown };
	products: Array<{ externalId: string; row?: unknown; seat?: unknown }>;
}): Record<string, unknown> {
	return {
		notificationId: input.notificationId,
		eventType: LISTING_SALE_EVENT,
		subscriptionId: input.subscriptionId,
		occurredAt: input.occurredAt,
		listing: {
			id: input.listing.id,
			externalListingId: input.listing.externalListingId,
			eventId: input.listing.eventId,
			pricePerProduct: input.listing.pricePerProduct,
		},
		products: input.products.map((product) => ({
			externalId: product.externalId,
			row: product.row,
			seat: product.seat,
		})),
	};
}

/**
 * The sample sale (`POST /__sandbox/sample-sale`, `npm run sandbox -- sample-sale`): a notification with the same
 * shape as a real sale's (saleNotificationPayload) about a listing that does not exist, so a workflow in the editor
 * gets a realistic item without creating a listing or a subscription. Its values are invented and recognisable.
 * One attempt by default: a trigger that is not listening (n8n answers 404 on /webhook-test/) is reported at once.
 */
export const SAMPLE_SALE = {
	subscriptionId: 'sub_sample',
	listing: {
		id: 'lst_sample',
		externalListingId: 900001,
		eventId: 1000001,
		pricePerProduct: { amount: 49.5, currency: 'EUR' },
	},
	products: [{ externalId: 'SAMPLE-A-12', row: 'A', seat: '12' }],
	attempts: 1,
} as const;

/**
 * Notification delivery: retries, ordering and signing are not shown (6). The sandbox:
 * - does a fresh client-credentials exchange for every attempt (no token cache), HTTP Basic by default;
 * - retries on connection errors, timeouts, non-2xx answers and token answers without `access_token`, with backoff
 *   base * 2^(attempt-1) capped at the maximum; it does not read Retry-After from receivers;
 * - sends no signature header; the Bearer token is the receiver's only proof.
 */
export const DELIVERY_USER_AGENT = 'ticket-marketplace-sandbox/1';

/**
 * Listing validation beyond the field types of 2.4 (which fields are required is not shown): every field of 2.4 is
 * required except row and seat of a general-admission product; products' external ids must be unique within a
 * listing (a sale names them); a duplicate externalListingId for the same app is refused with 409.
 */
export const REQUIRE_UNIQUE_PRODUCT_EXTERNAL_IDS = true;
