/** Secrets echoed in another spelling are redacted as they are raw. */
import { redactSecrets } from '../../../../../nodes/shared/partnerApi/redaction';

describe('redactSecrets', () => {
	it('redacts a secret with non-ASCII characters percent-encoded as UTF-8', () => {
		const secret = 'pässwörd-1';
		expect(redactSecrets(`sent ${encodeURIComponent(secret)} and ${secret}`, [secret])).toBe(
			'sent [redacted] and [redacted]',
		);
	});
});
