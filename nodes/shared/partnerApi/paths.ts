/**
 * The Partner API's endpoints (spec 4), relative to the Base URL: the one table both the nodes and the sandbox
 * package read. No imports, so the sandbox's build can compile this file alone.
 */
export const PARTNER_API_PATHS = {
	grant: '/sellers/oauth/accesstoken',
	refresh: '/sellers/oauth/refresh_accesstoken',
	webhooks: '/partners/webhooks/v3',
	listings: '/sellers/inventory/listings/v3',
	/** Followed by `/{listingId}`: the ticket PDFs of one listing (Pre-deliver Pdf). */
	preDeliver: '/sellers/listings/pdf/v3',
} as const;
