/** Secrets echoed in another spelling are redacted as they are raw. */
import { redactSecrets } from '../../../../../nodes/shared/partnerApi/redaction';

describe('redactSecrets', () => {
	it.each([
		['hex', (text: string) => Buffer.from(text).toString('hex')],
		['a byte list', (text: string) => [...Buffer.from(text)].join(',')],
	])('redacts all of a secret that another secret starts, in %s', (_form, encode) => {
		const short = 'abcdEFGH1234';
		const long = `${short}-more-of-the-secret`;
		const shown = redactSecrets(`echo ${encode(long)} end`, [short, long]);
		expect(shown).toBe('echo [redacted] end');
	});

	it('redacts a secret with non-ASCII characters percent-encoded as UTF-8', () => {
		const secret = 'pässwörd-1';
		expect(redactSecrets(`sent ${encodeURIComponent(secret)} and ${secret}`, [secret])).toBe(
			'sent [redacted] and [redacted]',
		);
	});

	it('keeps sets of secrets apart when one secret holds what would join two others', () => {
		redactSecrets('x', ['secret\u0000token']);
		redactSecrets('x', ['other']);
		const answer = { secret: 'token', encoded: Buffer.from('secret').toString('base64') };
		expect(redactSecrets(answer, ['secret', 'token'])).toEqual({
			'[redacted]': '[redacted]',
			encoded: '[redacted]',
		});
	});
});
