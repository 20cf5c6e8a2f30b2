/** Where the subscription's identifier is found in the API's answer, whatever name it goes by. */
import { findSubscriptionId } from '../../../../../../../nodes/TicketMarketplace/actions/webhook/subscribe/execute';

describe('findSubscriptionId', () => {
	it.each([
		[{ subscriptionId: 'a1' }, { value: 'a1', field: 'subscriptionId' }],
		[
			{ id: 5, subscriptionId: 'preferred' },
			{ value: 'preferred', field: 'subscriptionId' },
		],
		[{ webhook_id: 'w-9' }, { value: 'w-9', field: 'webhook_id' }],
		[{ uuid: '0b5c7a9e-1111' }, { value: '0b5c7a9e-1111', field: 'uuid' }],
		[{ data: { id: 'nested' } }, { value: 'nested', field: 'data.id' }],
		[{ subscription: { uuid: 'u-1' } }, { value: 'u-1', field: 'subscription.uuid' }],
		['c0ffee-1234', { value: 'c0ffee-1234', field: '(whole response)' }],
		[{ id: '' }, undefined],
		[{ id: { deep: 1 } }, undefined],
		[{ status: 'ok' }, undefined],
		[[{ id: 'in-array' }], undefined],
		['Created', undefined],
		[null, undefined],
	])('%j gives %j', (response, expected) => {
		expect(findSubscriptionId(response)).toEqual(expected);
	});
});
