import type { Icon } from 'n8n-workflow';

/** The Partner API's endpoints (spec 4), relative to the Base URL. */
export const PARTNER_API_PATHS = {
	grant: '/sellers/oauth/accesstoken',
	refresh: '/sellers/oauth/refresh_accesstoken',
	webhooks: '/partners/webhooks/v3',
	listings: '/sellers/inventory/listings/v3',
	/** Followed by `/{listingId}`: the ticket PDFs of one listing (Pre-deliver Pdf). */
	preDeliver: '/sellers/listings/pdf/v3',
} as const;

export function isPreDeliverPath(path: string | undefined): boolean {
	return path?.startsWith(`${PARTNER_API_PATHS.preDeliver}/`) === true;
}

export const CREDENTIAL_ICON: Icon = {
	light: 'file:../icons/ticketMarketplaceApi.svg',
	dark: 'file:../icons/ticketMarketplaceApi.dark.svg',
};

export function normalizeBaseUrl(baseUrl: unknown): string {
	return String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
}

/** Printable ASCII, spaces only inside: Node refuses control characters, HTTP drops outer spaces. */
export function isUsableAccessToken(token: string): boolean {
	return /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(token);
}

/** A paste often adds spaces around a field. */
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

/** Generous, never forever (an object so tests can shorten them); an API time-out leaves the outcome unknown. */
export const REQUEST_TIMEOUTS = { apiMs: 120_000, tokenMs: 30_000 };
