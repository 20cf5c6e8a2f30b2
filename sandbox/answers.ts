/**
 * How the sandbox answers: like the real service (StubHub International's Partner API behind an Apigee gateway, the
 * default) or in the sandbox's own older shapes (`spec`). The service's answers are written here, in one place, with
 * how sure we are of each: "documented" (the service's or Apigee's public docs) or "guess" (not public; plausible).
 */
import type http from 'node:http';

import { ERROR_CODE } from './choices';
import { SandboxError } from './errors';
import { FAULT_ENDPOINTS } from './faults';
import type { FaultEndpoint, PartnerEndpoint } from './faults';
import { sendJson } from './http';

/** `service`: the real service's shapes (default). `spec`: the sandbox's own shapes of before, for tests that use them. */
export const ANSWER_SHAPES = ['service', 'spec'] as const;
export type AnswerShapes = (typeof ANSWER_SHAPES)[number];

/** Status of a created listing. Every one means "created"; the others wait for tickets or a check. */
export const LISTING_STATUSES = [
	'ACTIVE',
	'INCOMPLETE',
	'PENDING_LOCK',
	'PENDING_PDF_REVIEW',
] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];

export interface AnswerSettings {
	shapes: AnswerShapes;
	/** The status a created listing gets (and is answered with). */
	listingStatus: ListingStatus;
	/**
	 * The app lacks the API product of these endpoints: a valid token gets the gateway's 403
	 * `InvalidAPICallAsNoApiProductMatchFound` there. null: the app has every product.
	 */
	withoutApiProduct: FaultEndpoint | null;
	/** Events that are not on sale: a listing for one gets 400 `inventory.listings.invalidEvent`. */
	inactiveEventIds: number[];
	/**
	 * The service's seat check (service shapes only): a listing that reuses a row and seat (and section) of an earlier
	 * listing of the same event by the same app gets 400 `inventory.listings.duplicateSectionRowSeat`. Off for tests
	 * that list the same seats again and are about something else.
	 */
	seatCheck: boolean;
}

export type AnswerSettingsInput = Partial<AnswerSettings>;

export const DEFAULT_ANSWERS: AnswerSettings = {
	shapes: 'service',
	listingStatus: 'ACTIVE',
	withoutApiProduct: null,
	inactiveEventIds: [],
	seatCheck: true,
};

function invalid(message: string): never {
	throw new SandboxError(400, ERROR_CODE.invalidRequest, message);
}

/** Checks untrusted answer settings (they may come over HTTP) and returns them merged over `base`. */
export function parseAnswerSettings(input: unknown, base: AnswerSettings): AnswerSettings {
	if (typeof input !== 'object' || input === null || Array.isArray(input))
		invalid('The answer settings must be a JSON object');
	const raw = input as Record<string, unknown>;
	const next: AnswerSettings = { ...base, inactiveEventIds: [...base.inactiveEventIds] };
	for (const [key, value] of Object.entries(raw)) {
		if (value === undefined) continue;
		switch (key) {
			case 'shapes':
				if (!ANSWER_SHAPES.includes(value as AnswerShapes))
					invalid(`shapes must be one of ${ANSWER_SHAPES.join(', ')}`);
				next.shapes = value as AnswerShapes;
				break;
			case 'listingStatus':
				if (!LISTING_STATUSES.includes(value as ListingStatus))
					invalid(`listingStatus must be one of ${LISTING_STATUSES.join(', ')}`);
				next.listingStatus = value as ListingStatus;
				break;
			case 'withoutApiProduct':
				if (value !== null && !FAULT_ENDPOINTS.includes(value as FaultEndpoint))
					invalid(`withoutApiProduct must be null or one of ${FAULT_ENDPOINTS.join(', ')}`);
				next.withoutApiProduct = value as FaultEndpoint | null;
				break;
			case 'inactiveEventIds':
				if (!Array.isArray(value) || value.some((id) => !Number.isInteger(id)))
					invalid('inactiveEventIds must be an array of integers');
				next.inactiveEventIds = [...(value as number[])];
				break;
			case 'seatCheck':
				if (typeof value !== 'boolean') invalid('seatCheck must be true or false');
				next.seatCheck = value;
				break;
			default:
				invalid(`Unknown answer setting: ${key}`);
		}
	}
	return next;
}

/** Whether an app without the API product of `scope` may call `endpoint` (the token URL needs no product). */
export function lacksApiProduct(settings: AnswerSettings, endpoint: PartnerEndpoint): boolean {
	const scope = settings.withoutApiProduct;
	if (scope === null || endpoint === 'token') return false;
	return scope === '*' || scope === endpoint;
}

/**
 * The token URL's errors, Apigee OAuthV2's shape `{"ErrorCode", "Error"}` (note the capitals). Documented by Apigee:
 * invalid_client "ClientId is Invalid" (401), a missing key (400), "Required param : grant_type" (400),
 * "Unsupported grant type : <x>" (400). Guesses: the texts about the body, and everything about the login.
 */
export const SERVICE_TOKEN_ERROR = {
	missingClient: {
		status: 400,
		ErrorCode: 'invalid_request',
		Error: 'The request is missing a required parameter : client_id',
	},
	invalidClient: { status: 401, ErrorCode: 'invalid_client', Error: 'ClientId is Invalid' },
	missingGrantType: {
		status: 400,
		ErrorCode: 'invalid_request',
		Error: 'Required param : grant_type',
	},
	/** Guess: what the service answers for a wrong marketplace login (or a developer-portal login) is not public. */
	wrongLogin: { status: 401, ErrorCode: 'invalid_grant', Error: 'Invalid username or password' },
	/** Guess: Apigee's refresh errors; RFC 6749's invalid_grant, with Apigee's wording. */
	invalidRefreshToken: { status: 400, ErrorCode: 'invalid_grant', Error: 'Invalid Refresh Token' },
	expiredRefreshToken: { status: 400, ErrorCode: 'invalid_grant', Error: 'Refresh Token expired' },
} as const;

/** Apigee's token type in its token answer (documented by Apigee). */
export const SERVICE_TOKEN_TYPE = 'BearerToken';

export function unsupportedGrantType(grantType: string): {
	status: 400;
	ErrorCode: string;
	Error: string;
} {
	return {
		status: 400,
		ErrorCode: 'unsupported_grant_type',
		Error: `Unsupported grant type : ${grantType}`,
	};
}

/** Guess (the texts): a required parameter of the token request's body missing or malformed. */
export function requiredParam(name: string): { status: 400; ErrorCode: string; Error: string } {
	return { status: 400, ErrorCode: 'invalid_request', Error: `Required param : ${name}` };
}

export function sendApigeeOAuthError(
	res: http.ServerResponse,
	error: { status: number; ErrorCode: string; Error: string },
): void {
	sendJson(res, error.status, { ErrorCode: error.ErrorCode, Error: error.Error });
}

/**
 * Errors the gateway answers itself (documented by Apigee): `{"fault": {"faultstring", "detail": {"errorcode"}}}`.
 * Apigee's default status for the rate policies is 500; 429 only where the API's owner configured it.
 */
export const GATEWAY_FAULT = {
	accessTokenExpired: {
		status: 401,
		faultstring: 'Access Token expired',
		errorcode: 'keymanagement.service.access_token_expired',
	},
	invalidAccessToken: {
		status: 401,
		faultstring: 'Invalid Access Token',
		errorcode: 'keymanagement.service.invalid_access_token',
	},
	noApiProduct: {
		status: 403,
		faultstring: 'Invalid API call as no apiproduct match found',
		errorcode: 'keymanagement.service.InvalidAPICallAsNoApiProductMatchFound',
	},
	/** The gateway's own answer while the service behind it is unavailable (down, under maintenance). */
	serviceUnavailable: {
		status: 503,
		faultstring: 'The Service is temporarily unavailable',
		errorcode: 'messaging.adaptors.http.flow.ServiceUnavailable',
	},
	quota: {
		status: 500,
		faultstring: 'Rate limit quota violation. Quota limit  exceeded. Identifier : _default',
		errorcode: 'policies.ratelimit.QuotaViolation',
	},
} as const;

export function spikeArrestFault(rate: string): {
	status: number;
	faultstring: string;
	errorcode: string;
} {
	return {
		status: 500,
		faultstring: `Spike arrest violation. Allowed rate : ${rate}`,
		errorcode: 'policies.ratelimit.SpikeArrestViolation',
	};
}

/** The body Apigee answers a fault with: `{"fault": {"faultstring", "detail": {"errorcode"}}}`. */
export function gatewayFaultBody(fault: { faultstring: string; errorcode: string }): {
	fault: { faultstring: string; detail: { errorcode: string } };
} {
	return { fault: { faultstring: fault.faultstring, detail: { errorcode: fault.errorcode } } };
}

export function sendGatewayFault(
	res: http.ServerResponse,
	fault: { status: number; faultstring: string; errorcode: string },
	status = fault.status,
): void {
	sendJson(res, status, gatewayFaultBody(fault));
}

/**
 * A gateway's 503 while the service is under maintenance: an HTML page, or Apigee's own `ServiceUnavailable` fault
 * (`fault: true`); a Retry-After only when the rule gives one. The request never reached the service.
 */
export function sendMaintenance(
	res: http.ServerResponse,
	rule: { fault?: boolean; retryAfterSeconds?: number },
): void {
	const retryAfter: Record<string, string> =
		rule.retryAfterSeconds === undefined
			? {}
			: { 'Retry-After': String(Math.ceil(rule.retryAfterSeconds)) };
	if (rule.fault)
		return sendJson(res, 503, gatewayFaultBody(GATEWAY_FAULT.serviceUnavailable), retryAfter);
	if (res.headersSent || res.destroyed) return;
	const page =
		'<!DOCTYPE html><html><head><title>Maintenance</title></head><body><h1>We are down for maintenance</h1><p>Please try again shortly.</p></body></html>';
	res.writeHead(503, {
		'Content-Type': 'text/html; charset=utf-8',
		'Content-Length': Buffer.byteLength(page).toString(),
		...retryAfter,
	});
	res.end(page);
}

/**
 * The listing service's errors (inferred from the service's v2 inventory API): HTTP 400 (500 for a system error)
 * with `{"code": "inventory.listings.<name>", "description": "<sentence>"}`. Inferred: duplicateSectionRowSeat,
 * invalidEvent, systemError. Guesses: every other code name, and duplicateExternalListingId (the service's code
 * for an External Listing ID already used is not public).
 */
export const INVENTORY_CODE_PREFIX = 'inventory.listings.';

export function sendInventoryError(
	res: http.ServerResponse,
	status: number,
	name: string,
	description: string,
): void {
	sendJson(res, status, { code: `${INVENTORY_CODE_PREFIX}${name}`, description });
}

/** A created listing (inferred: the v3 success status and body are not public; 200 or 201 with an object is likely). */
export const SERVICE_LISTING_STATUS = 200;

export const INVENTORY_ERROR = {
	invalidEvent: 'Event is not active',
	duplicateSectionRowSeat: 'Row/Seat combination already exists',
	systemError: 'System error',
} as const;

export function duplicateExternalListingIdText(externalListingId: unknown): string {
	return `A listing with External Listing ID ${String(externalListingId)} already exists`;
}

/** The code name (after `inventory.listings.`) of a listing that fails validation, by the field it fails on (guess). */
export function invalidListingCodeName(path: string): string {
	const field = /^[A-Za-z]+/.exec(path)?.[0] ?? '';
	const names: Record<string, string> = {
		eventId: 'invalidEvent',
		pricePerProduct: 'invalidPricePerProduct',
		externalListingId: 'invalidExternalListingId',
		products: 'invalidProducts',
		stockType: 'invalidStockType',
		paymentType: 'invalidPaymentType',
	};
	return names[field] ?? 'invalidRequest';
}

/** The sandbox's own codes (spec shapes) as inventory code names, for the listing errors that have no service code. */
export function inventoryNameOf(code: string): string {
	return code.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}
