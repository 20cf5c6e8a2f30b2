import type { ICredentialTestFunctions } from 'n8n-workflow';

import {
	readCallbackClient,
	readStoredCallbackClient,
	testCallbackCredential,
} from '../../../../nodes/shared/callbackCredential';
import { runRecorded } from '../../../../support/fakeN8n/recordingResponse';
import { TEST_TRIGGER } from '../../../../support/fakeN8n/triggerContext';

const SECRET = 'correct horse battery staple 42';

async function credentialTest(data: Record<string, unknown>) {
	return await testCallbackCredential.call(
		{} as ICredentialTestFunctions,
		{
			id: '1',
			name: 'Callback',
			type: 'ticketMarketplaceCallbackApi',
			data,
		} as never,
	);
}

function basic(id: string, secret: string): string {
	return `Basic ${Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')}`;
}

describe('callback credential: values the marketplace could send in a way the trigger cannot read', () => {
	it('refuses a client ID with a colon in the credential test, without repeating the secret', async () => {
		const result = await credentialTest({ clientId: 'market:place', clientSecret: SECRET });
		expect(result.status).toBe('Error');
		expect(result.message).toContain('client ID contains a colon');
		expect(result.message).not.toContain(SECRET);
		expect(readCallbackClient({ clientId: 'market:place', clientSecret: SECRET })).toEqual(
			expect.stringContaining('colon'),
		);
	});

	it.each([
		[
			'a control character in the client ID',
			{ clientId: 'market\tplace', clientSecret: SECRET },
			'client ID',
		],
		[
			'a line break in the client ID',
			{ clientId: 'market\nplace', clientSecret: SECRET },
			'client ID',
		],
		[
			'a letter outside ASCII in the client ID',
			{ clientId: 'marché', clientSecret: SECRET },
			'client ID',
		],
		[
			'DEL in the secret',
			{ clientId: 'marketplace', clientSecret: `${SECRET}\u007f` },
			'client secret',
		],
		[
			'a letter outside ASCII in the secret',
			{ clientId: 'marketplace', clientSecret: `${SECRET}é` },
			'client secret',
		],
		[
			'an emoji in the secret',
			{ clientId: 'marketplace', clientSecret: `${SECRET}🎫` },
			'client secret',
		],
	])('refuses %s', async (_name, data, field) => {
		const result = await credentialTest(data);
		expect(result.status).toBe('Error');
		expect(result.message).toContain(`${field} has a character other than`);
		expect(result.message).not.toContain(data.clientSecret);
	});

	it('accepts every printable ASCII character, a colon in the secret and spaces inside either value', async () => {
		const printable = Array.from({ length: 0x7f - 0x20 }, (_, index) =>
			String.fromCharCode(0x20 + index),
		).join('');
		const data = {
			clientId: printable.replace(/[: ]/g, '') + ' x',
			clientSecret: `${printable.trim()} with:colons`,
		};
		expect(await credentialTest(data)).toEqual({ status: 'OK', message: expect.any(String) });
		expect(readCallbackClient(data)).toEqual(data);
	});

	it('keeps serving a client ID with a colon already subscribed, to a marketplace that form-encodes it (RFC 6749 2.3.1)', async () => {
		const stored = { clientId: 'market:place', clientSecret: SECRET };
		expect(readStoredCallbackClient(stored)).toEqual(stored);
		const setup = { ...TEST_TRIGGER.setup, credentials: stored };
		const encoded = await runRecorded(setup, 'setup', {
			headers: {
				authorization: basic(encodeURIComponent('market:place'), encodeURIComponent(SECRET)),
				'content-type': 'application/x-www-form-urlencoded',
			},
			body: { grant_type: 'client_credentials' },
		});
		expect(encoded.response.status).toBe(200);
		// Why it is refused where it is typed: plain RFC 7617 Basic reads it as the ID "market".
		const plain = await runRecorded(setup, 'setup', {
			headers: {
				authorization: basic('market:place', SECRET),
				'content-type': 'application/x-www-form-urlencoded',
			},
			body: { grant_type: 'client_credentials' },
		});
		expect(plain.response.status).toBe(401);
	});

	it('keeps serving a stored secret outside ASCII to a client that sends it in the body', async () => {
		const stored = { clientId: 'marketplace', clientSecret: `${SECRET} é` };
		expect(readStoredCallbackClient(stored)).toEqual(stored);
		const { response } = await runRecorded(
			// A credential of its own: the trigger reuses a read of the same credential for a few seconds.
			{ ...TEST_TRIGGER.setup, credentials: stored, credentialId: 'non-ascii-secret' },
			'setup',
			{
				headers: { 'content-type': 'application/json' },
				body: {
					grant_type: 'client_credentials',
					client_id: 'marketplace',
					client_secret: stored.clientSecret,
				},
			},
		);
		expect(response.status).toBe(200);
	});
});
