/** Subscribe's items that cannot be read, with Continue On Fail: the error item keeps the thrown words, which n8n's own
 * error would rewrite (a message holding a code such as ENOENT). */
import nock from 'nock';
import type { ICredentialDataDecryptedObject, INodeExecutionData } from 'n8n-workflow';

import { execute as subscribe } from '../../../nodes/TicketMarketplace/actions/webhook/subscribe/execute';
import { CALLBACK_CREDENTIALS, fakeRun } from '../../../support/fakeN8n/actionContext';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const PARAMETERS = {
	callbackUrl: 'https://n8n.example.test/webhook/abc/notifications',
	callbackAuthUrl: 'https://n8n.example.test/webhook/abc/token',
	subscriptionKinds: ['listing_sale'],
	options: {},
};

/** Subscribe with Continue On Fail, where n8n's credential store throws `thrown` for the callback credential. */
async function subscribeWhenStoreThrows(thrown: unknown, onError?: 'continueErrorOutput') {
	const items: INodeExecutionData[] = [{ json: {} }];
	const fake = fakeRun({
		parameters: PARAMETERS,
		items,
		continueOnFail: true,
		onError,
		callbackCredentials: CALLBACK_CREDENTIALS,
	});
	const read = fake.context.getCredentials.bind(fake.context);
	fake.context.getCredentials = (async (type: string, itemIndex?: number) => {
		if (type === 'ticketMarketplaceCallbackApi') throw thrown;
		return await read(type, itemIndex);
	}) as <T extends object = ICredentialDataDecryptedObject>(type: string) => Promise<T>;
	return await subscribe.call(fake.context, items);
}

describe('Subscribe: an item that cannot be read, with Continue On Fail', () => {
	it("keeps the store's own words in the error item (no stock sentence for a code such as ECONNREFUSED)", async () => {
		// An external secrets vault that is down: the words name the vault, not the marketplace.
		const output = await subscribeWhenStoreThrows(new Error('connect ECONNREFUSED 127.0.0.1:8200'));

		expect(output).toEqual([
			{
				json: { error: 'connect ECONNREFUSED 127.0.0.1:8200', description: null },
				pairedItem: { item: 0 },
			},
		]);
	});

	it('keeps the same words on the error output', async () => {
		const thrown = new Error("ENOENT: no such file or directory, open '/run/secrets/callback'");
		const output = await subscribeWhenStoreThrows(thrown, 'continueErrorOutput');

		expect(output[0].json).toEqual({
			error: "ENOENT: no such file or directory, open '/run/secrets/callback'",
		});
	});

	it('keeps a description that repeats the message', async () => {
		const thrown = Object.assign(new Error('Credential is not shared'), {
			description: 'Credential is not shared',
		});
		const output = await subscribeWhenStoreThrows(thrown);

		expect(output[0].json).toEqual({
			error: 'Credential is not shared',
			description: 'Credential is not shared',
		});
	});

	it("keeps the message and description of something thrown that is not an Error (not '[object Object]')", async () => {
		const output = await subscribeWhenStoreThrows({
			message: 'Vault answered 403',
			description: 'Check the vault policy',
		});

		expect(output[0].json).toEqual({
			error: 'Vault answered 403',
			description: 'Check the vault policy',
		});
	});
});
