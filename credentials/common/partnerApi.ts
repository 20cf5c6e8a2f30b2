/** Where the Partner API's endpoints live (spec 4), relative to the credential's Base URL: written once here. */
export const PARTNER_API_PATHS = {
	grant: '/sellers/oauth/accesstoken',
	webhooks: '/partners/webhooks/v3',
	listings: '/sellers/inventory/listings/v3',
} as const;

/** The base URL as typed, without trailing slashes, so that paths can be appended. */
export function normalizeBaseUrl(baseUrl: unknown): string {
	return String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
}

export function basicAuthorization(consumerKey: unknown, consumerSecret: unknown): string {
	return `Basic ${Buffer.from(`${String(consumerKey ?? '')}:${String(consumerSecret ?? '')}`, 'utf8').toString('base64')}`;
}
