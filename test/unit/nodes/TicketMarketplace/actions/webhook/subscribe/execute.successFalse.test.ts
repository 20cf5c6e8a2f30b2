/**
 * A 200 JSON that says it failed is no submitted subscription, however it spells `success` (any letter case, a
 * boolean or the text "false"), as the error fields are read.
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
const PARAMETERS = {
	callbackUrl: `https://n8n.example.test/webhook/${ID}/notifications`,
	callbackAuthUrl: `https://n8n.example.test/webhook/${ID}/token`,
	subscriptionKinds: ['listing_sale'],
	options: {},
};

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

describe('a 200 that says it failed is no submitted subscription', () => {
	it.each([
		['success as the text "false"', { id: 'sub-1', success: 'false' }],
		[
			'Success: false (capitalised, as .NET and Java serialisers write it)',
			{ id: 'sub-1', Success: false },
		],
		[
			'success: false under data, where the identifier is read',
			{ data: { id: 'sub-1', success: false } },
		],
	])('%s', async (_name, body) => {
		nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: 'tok-r6' });
		nock(BASE)
			.post(PARTNER_API_PATHS.webhooks)
			.reply(200, body, { 'Content-Type': 'application/json' });
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
