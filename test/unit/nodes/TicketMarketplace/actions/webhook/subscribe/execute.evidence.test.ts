/**
 * Webhook → Subscribe takes a 2xx for a submitted subscription only on the evidence Listing → Create asks of a
 * created listing (a 200 or 201 JSON object that reports no error): an HTML page, an error document or a 202 is
 * "outcome unknown", never a green item telling the user to e-mail an identifier that may not exist.
 */
import nock from 'nock';
import type { NodeApiError } from 'n8n-workflow';

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

type Answer = [status: number, body: string | Record<string, unknown>, contentType: string];

/** The API answers each subscription with the next answer; a token first. */
function api(...answers: Answer[]) {
	nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: 'tok-evidence' });
	const scope = nock(BASE);
	for (const [status, body, contentType] of answers)
		scope.post(PARTNER_API_PATHS.webhooks).reply(status, body, { 'Content-Type': contentType });
	return scope;
}

async function run(count: number, continueOnFail: boolean) {
	const items = Array.from({ length: count }, () => ({ json: {} }));
	// One trigger per item: the same subscription twice would be sent once.
	const perItem = (path: string) => (itemIndex: number) =>
		`https://n8n.example.test/webhook/abc${itemIndex}/${path}`;
	const fake = fakeRun({
		parameters: {
			...PARAMETERS,
			callbackUrl: perItem('notifications'),
			callbackAuthUrl: perItem('token'),
		},
		items,
		continueOnFail,
		callbackCredentials: CALLBACK_CREDENTIALS,
	});
	return await execute.call(fake.context, items).then(
		(output) => ({ output, error: undefined }),
		(error: unknown) => ({ output: undefined, error: error as NodeApiError }),
	);
}

afterEach(() => nock.cleanAll());

describe('Webhook → Subscribe: what counts as a submitted subscription', () => {
	it.each<[string, Answer, string]>([
		[
			'a 200 HTML page',
			[200, '<html><body>Maintenance</body></html>', 'text/html'],
			'Outcome unknown: the Partner API answered 200 with',
		],
		[
			'a 201 JSON that reports an error',
			[201, { error: 'callback not allowed', id: 'req-1' }, 'application/json'],
			'Outcome unknown: the Partner API answered 201 with',
		],
		[
			'a 200 problem document',
			[200, { title: 'Bad callback', status: 400 }, 'application/problem+json'],
			'Outcome unknown: the Partner API answered 200 with',
		],
		[
			'a 202 with an id (accepted, not shown done)',
			[202, { id: 'sub-9' }, 'application/json'],
			'Outcome unknown: the Partner API answered 202 with',
		],
		[
			'a 201 with a bare text identifier',
			[201, 'sub-123456', 'text/plain'],
			'Outcome unknown: the Partner API answered 201 with',
		],
	])(
		'%s: with Continue On Fail an error item, never an identifier to e-mail',
		async (_name, answer, title) => {
			const scope = api(answer);
			const { output } = await run(1, true);
			expect(scope.isDone()).toBe(true);
			expect(output).toHaveLength(1);
			expect(output![0].json.error).toEqual(expect.stringContaining(title));
			expect(output![0].json.description).toEqual(
				expect.stringContaining('That answer does not show that the subscription was created.'),
			);
			expect(output![0].json).not.toHaveProperty('subscriptionId');
			expect(output![0].json).not.toHaveProperty('nextStep');
			expect(output![0].pairedItem).toEqual({ item: 0 });
		},
	);

	it('without Continue On Fail, an HTML page stops the run, keeping the identifiers obtained before it', async () => {
		api([201, { id: 'sub-1' }, 'application/json'], [200, '<html>Sign in</html>', 'text/html']);
		const { error } = await run(2, false);
		expect(error?.message).toContain('Outcome unknown: the Partner API answered 200 with');
		expect(error?.description).toContain('item 1: sub-1');
		expect(error?.context.subscriptionIds).toEqual(['sub-1']);
	});

	it.each<[string, Answer, string, string]>([
		['{id} in a 201', [201, { id: 'sub-42' }, 'application/json'], 'sub-42', 'id'],
		[
			'data.subscriptionId in a 200',
			[200, { data: { subscriptionId: 'sub-7' } }, 'application/json; charset=utf-8'],
			'sub-7',
			'data.subscriptionId',
		],
		[
			'webhookId beside an empty error list',
			[201, { webhookId: 'wh-3', errors: [] }, 'application/json'],
			'wh-3',
			'webhookId',
		],
	])('still reads %s as submitted', async (_name, answer, id, field) => {
		api(answer);
		const { output } = await run(1, false);
		expect(output![0].json).toMatchObject({ subscriptionId: id, subscriptionIdField: field });
	});
});
