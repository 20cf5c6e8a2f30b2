/**
 * Webhook → Subscribe sends the URLs as its checks read them (WHATWG), so that a marketplace whose parser reads the
 * text another way (a backslash, a pasted tab or line break, a fullwidth host) cannot reach another server.
 */
import nock from 'nock';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/webhook/subscribe/execute';
import {
	BASE,
	CALLBACK_CREDENTIALS,
	fakeRun,
} from '../../../../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';

const ID = '0f3c2f8e-5b7a-4f6e-9a43-1d2c3b4a5e6f';
const CALLBACK = `https://n8n.example.test/webhook/${ID}/notifications`;
const TOKEN = `https://n8n.example.test/webhook/${ID}/token`;

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

/** Runs Subscribe; returns the subscription body the marketplace received, or undefined when nothing was sent. */
async function sentBody(callbackUrl: string, callbackAuthUrl: string) {
	let received: { callback: { url: string; auth: { tokenEndPoint: string } } } | undefined;
	nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: 'tok-r6' });
	nock(BASE)
		.post(PARTNER_API_PATHS.webhooks, (body) => {
			received = body;
			return true;
		})
		.reply(201, { id: 'sub-r6-1' }, { 'Content-Type': 'application/json' });
	const items = [{ json: {} }];
	const fake = fakeRun({
		parameters: { callbackUrl, callbackAuthUrl, subscriptionKinds: ['listing_sale'], options: {} },
		items,
		continueOnFail: true,
		callbackCredentials: CALLBACK_CREDENTIALS,
	});
	await execute.call(fake.context, items);
	return received;
}

describe('what the marketplace receives is what was checked', () => {
	it.each([
		[
			'a backslash: WHATWG reads host n8n.example.test, java.net.URL and Python read evil.test',
			CALLBACK,
			`https://n8n.example.test\\@evil.test/webhook/${ID}/token`,
		],
		[
			'a fullwidth host (WHATWG maps it to n8n.example.test; java.net.URL resolves it as typed)',
			CALLBACK,
			`https://\uff4e8\uff4e.example.test/webhook/${ID}/token`,
		],
		[
			'a line break pasted inside the Token URL',
			CALLBACK,
			`https://n8n.example.test/webhook/${ID}/to\nken`,
		],
		[
			'a tab pasted inside the Callback URL',
			`https://n8n.example.test/webhook/${ID}/notifi\tcations`,
			TOKEN,
		],
	])('%s: refused, or sent as the URL that was checked', async (_name, callbackUrl, tokenUrl) => {
		const body = await sentBody(callbackUrl, tokenUrl);
		if (body === undefined) return; // refused: nothing sent, which is right
		for (const sent of [body.callback.url, body.callback.auth.tokenEndPoint])
			expect(sent).toBe(new URL(sent).href);
	});

	it('a clean pair is still sent as typed', async () => {
		const body = await sentBody(CALLBACK, TOKEN);
		expect(body?.callback.auth.tokenEndPoint).toBe(TOKEN);
	});
});
