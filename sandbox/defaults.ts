/** Ready-to-use demo identities of the sandbox. These are public demo values, not secrets of any real service. */
export const SANDBOX_DEFAULTS = {
	consumerKey: 'sandbox-consumer-key',
	consumerSecret: 'sandbox-consumer-secret',
	marketplaceAccount: { email: 'seller@example.test', password: 'sandbox-password' },
	/** Exists so the sandbox can refuse it the way the spec describes (5.2). */
	developerAccount: { email: 'developer@example.test', password: 'portal-password' },
} as const;
