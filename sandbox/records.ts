/**
 * What the sandbox stores about tokens, listings and subscriptions, and the views of them that leave the sandbox
 * (`state()`, admin answers). Secrets never leave through a view.
 */
import { randomBytes } from 'node:crypto';

import { REDACTED, redactJson } from './redact';
import type { ListingView, SubscriptionView, TokenView } from './types';

export interface TokenRecord {
	id: string;
	consumerKey: string;
	account: string;
	issuedAt: number;
	expiresAt: number;
	revoked: boolean;
	/** The refresh token issued with it (service answers), whose record says whether it was used. */
	refreshToken?: string;
}

export interface RefreshTokenRecord {
	/** The id of the access token it was issued with. */
	tokenId: string;
	consumerKey: string;
	account: string;
	expiresAt: number;
	/** Used once (a new one comes with the new access token), or revoked with its access token. */
	used: boolean;
	revoked: boolean;
}

export interface ListingRecord {
	id: string;
	consumerKey: string;
	status: string;
	createdAt: string;
	eligibleForNotifications: boolean;
	body: Record<string, unknown>;
	products: Array<{
		externalId: string;
		row?: unknown;
		seat?: unknown;
		ga?: unknown;
		sold: boolean;
		saleId?: string;
		/** The ticket's PDF, once uploaded (Pre-deliver Pdf): its part's name, size and SHA-256. */
		pdf?: { part: string; bytes: number; sha256: string };
	}>;
	/** Every ticket has its PDF. */
	preDelivered?: boolean;
}

export interface SubscriptionRecord {
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

export function newId(prefix: string): string {
	return prefix + randomBytes(8).toString('hex');
}

export function tokenView(record: TokenRecord, now: number): TokenView {
	return {
		id: record.id,
		consumerKey: record.consumerKey,
		account: record.account,
		issuedAt: new Date(record.issuedAt).toISOString(),
		expiresAt: new Date(record.expiresAt).toISOString(),
		expired: now >= record.expiresAt,
		revoked: record.revoked,
	};
}

export function listingView(record: ListingRecord): ListingView {
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
		preDelivered: record.preDelivered === true,
		body: redactJson(record.body),
	};
}

export function subscriptionView(record: SubscriptionRecord): SubscriptionView {
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
				oauthRequest: {
					clientId: record.clientId,
					clientSecret: REDACTED,
					grantType: record.grantType,
				},
			},
		},
		subscription: { listing: [...record.kinds] },
	};
}
