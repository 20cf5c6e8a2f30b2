import type { Icon } from 'n8n-workflow';

/** Where the Partner API's endpoints live (spec 4), relative to the credential's Base URL: written once here. */
export const PARTNER_API_PATHS = {
	grant: '/sellers/oauth/accesstoken',
	refresh: '/sellers/oauth/refresh_accesstoken',
	webhooks: '/partners/webhooks/v3',
	listings: '/sellers/inventory/listings/v3',
	/** Followed by `/{listingId}`: the ticket PDFs of one listing (Pre-deliver Pdf). */
	preDeliver: '/sellers/listings/pdf/v3',
} as const;

/** Whether a request's path is a Pre-deliver upload, `/sellers/listings/pdf/v3/{listingId}`. */
export function isPreDeliverPath(path: string | undefined): boolean {
	return path?.startsWith(`${PARTNER_API_PATHS.preDeliver}/`) === true;
}

/** Both credentials' icon, in light and dark (n8n shows the dark one on its dark canvas). */
export const CREDENTIAL_ICON: Icon = {
	light: 'file:../icons/ticketMarketplaceApi.svg',
	dark: 'file:../icons/ticketMarketplaceApi.dark.svg',
};

/** The base URL as typed, without trailing slashes, so that paths can be appended. */
export function normalizeBaseUrl(baseUrl: unknown): string {
	return String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
}

/**
 * Whether a token can go unchanged in "Authorization: Bearer <token>": printable ASCII, spaces only inside (Node
 * refuses control characters, and HTTP drops spaces at either end).
 */
export function isUsableAccessToken(token: string): boolean {
	return /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(token);
}

/** A login field as sent: spaces and line breaks around it removed (a paste often adds them). */
function trimmedField(value: unknown): string {
	return String(value ?? '').trim();
}

/** The login as the token request sends it: trimmed, but the password exactly as typed (spaces may belong to it). */
export function loginValues(credentials: Record<string, unknown>) {
	return {
		consumerKey: trimmedField(credentials.consumerKey),
		consumerSecret: trimmedField(credentials.consumerSecret),
		email: trimmedField(credentials.email),
		password: String(credentials.password ?? ''),
	};
}

export function basicAuthorization(consumerKey: unknown, consumerSecret: unknown): string {
	return `Basic ${Buffer.from(`${trimmedField(consumerKey)}:${trimmedField(consumerSecret)}`, 'utf8').toString('base64')}`;
}

/** How long a request may go unanswered: generous, but never forever. An object, so that tests can shorten them. */
export const REQUEST_TIMEOUTS = {
	/** A listing or webhook request: a time-out there leaves the outcome unknown (the API may have processed it). */
	apiMs: 120_000,
	/** The token exchange: nothing is sent before it ends, so it may be shorter. */
	tokenMs: 30_000,
};
