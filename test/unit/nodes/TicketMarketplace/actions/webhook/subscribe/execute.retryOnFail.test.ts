/**
 * n8n's Retry On Fail runs the whole node again after any error: a subscription of unknown outcome, or one an earlier
 * item submitted, would go again. Subscribe refuses the setting before sending anything.
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

describe('Subscribe with Retry On Fail', () => {
	it.each([false, true])(
		'is refused before anything is sent (Continue On Fail %s)',
		async (continueOnFail) => {
			nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: 'tok-r' });
			nock(BASE).post(PARTNER_API_PATHS.webhooks).reply(201, { id: 'sub-1' });
			const items = [{ json: {} }, { json: {} }];
			const fake = fakeRun({
				parameters: PARAMETERS,
				items,
				continueOnFail,
				retryOnFail: true,
				callbackCredentials: CALLBACK_CREDENTIALS,
			});
			const outcome = execute.call(fake.context, items);
			await expect(outcome).rejects.toThrow(
				'Subscribe does not run with Retry On Fail; nothing was sent',
			);
			await expect(outcome).rejects.toMatchObject({
				description: expect.stringContaining('Turn off Settings → Retry On Fail'),
			});
			expect(nock.pendingMocks()).toHaveLength(2);
		},
	);
});
