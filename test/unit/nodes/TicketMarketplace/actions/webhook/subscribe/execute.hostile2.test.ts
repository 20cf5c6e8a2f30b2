/**
 * Webhook → Subscribe, a second hostile review of the evidence it shares with Create and Pre-deliver (showsCreated):
 * answers that report an error in shapes the rule did not read, and `success: false` however it is spelt, checked as
 * docs/subscribe.md promises.
 */
import nock from 'nock';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/webhook/subscribe/execute';
import {
	BASE,
	CALLBACK_CREDENTIALS,
	fakeRun,
} from '../../../../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';

const PARAMETERS = {
	callbackUrl: 'https://n8n.example.test/webhook/abc/notifications',
	callbackAuthUrl: 'https://n8n.example.test/webhook/abc/token',
	subscriptionKinds: ['listing_sale'],
	options: {},
};

afterEach(() => nock.cleanAll());

describe('Webhook → Subscribe review 49b: a 2xx JSON that reports an error', () => {
	it.each([
		[
			'an error beside the identifier it reads under data',
			201,
			{ data: { subscriptionId: 'sub-7', error: 'Callback URL unreachable' } },
		],
		[
			'a numeric code beside a message',
			201,
			{ id: 'req-1', code: 400, message: 'Callback not allowed' },
		],
		['success as the text "false"', 200, { id: 'sub-1', success: 'false' }],
		// Capitalised, as .NET and Java serialisers write it.
		['Success: false', 200, { id: 'sub-1', Success: false }],
		[
			'success: false under data, where the identifier is read',
			200,
			{ data: { id: 'sub-1', success: false } },
		],
	])('%s is no submitted subscription', async (_name, status, body) => {
		nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(200, { access_token: 'tok-evidence' });
		nock(BASE)
			.post(PARTNER_API_PATHS.webhooks)
			.reply(status, body, { 'Content-Type': 'application/json' });
		const items = [{ json: {} }];
		const fake = fakeRun({
			parameters: PARAMETERS,
			items,
			continueOnFail: true,
			callbackCredentials: CALLBACK_CREDENTIALS,
		});
		const output = await execute.call(fake.context, items);
		expect(output[0].json).not.toHaveProperty('subscriptionId');
		expect(String(output[0].json.error)).toMatch(/Outcome unknown/);
	});
});
