/**
 * Every token the run's requests carried is redacted: an answer that echoes tokens the run's
 * requests carried before two renewals, in a failed listing, in a created listing's answer and in a Subscribe
 * answer.
 */
import nock from 'nock';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { execute as subscribe } from '../../../../../../../nodes/TicketMarketplace/actions/webhook/subscribe/execute';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import {
	BASE,
	CALLBACK_CREDENTIALS,
	fakeRun,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';
import { everyText } from '../../../../../../../support/errorScan';

const TOKENS = ['tok-first-9c1e77aa', 'tok-second-4b2d88bb', 'tok-third-7f3a99cc'];

const leaks = (result: unknown) =>
	everyText(result).filter((text) => TOKENS.some((token) => text.includes(token)));

afterEach(() => nock.cleanAll());

/** The token endpoint hands out TOKENS in turn from `first`; returns how many it has handed out so far. */
function grantInTurn(first = 0): () => number {
	let issued = first;
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.reply(() => [200, { access_token: TOKENS[issued++] }]);
	return () => issued;
}

/** Each token works for one listing, then expires; a request with a replaced token is refused (401). */
function expiringApi(last: (echo: string) => nock.ReplyFnResult) {
	const issued = grantInTurn();
	const used = new Set<string>();
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.listings)
		.reply(function () {
			const token = String(this.req.headers.authorization).replace(/^Bearer /, '');
			if (token !== TOKENS[issued() - 1] || used.has(token))
				return [401, { message: 'Invalid Access Token' }];
			used.add(token);
			if (token === TOKENS[2]) return last(`earlier tokens ${TOKENS[0]} and ${TOKENS[1]}`);
			return [201, { id: token.length, status: 'ACTIVE' }];
		});
}

async function createThree(continueOnFail = true) {
	const { items, parameters } = oneSeatListings([1, 2, 3]);
	const fake = fakeRun({ items, parameters, continueOnFail });
	return await execute.call(fake.context, items).catch((error: unknown) => error);
}

describe('tokens echoed after two renewals', () => {
	it('in a 400 error body of the third listing (Continue On Fail)', async () => {
		expiringApi((echo) => [400, { code: 'inventory.listings.invalidEvent', description: echo }]);
		const result = await createThree();
		expect(everyText(result).join(' ')).toContain('invalidEvent');
		expect(leaks(result)).toEqual([]);
	});

	it('in a 400 error body of the third listing (the run fails)', async () => {
		expiringApi((echo) => [400, { code: 'inventory.listings.invalidEvent', description: echo }]);
		const result = await createThree(false);
		expect(leaks(result)).toEqual([]);
	});

	it('in a 500 (outcome unknown) of the third listing', async () => {
		expiringApi((echo) => [500, `<html>${echo}</html>`]);
		const result = await createThree();
		expect(leaks(result)).toEqual([]);
	});

	it("in the created listing's answer", async () => {
		expiringApi((echo) => [201, { id: 3, status: 'ACTIVE', note: echo }]);
		const result = await createThree();
		expect(everyText(result).join(' ')).toContain('ACTIVE');
		expect(leaks(result)).toEqual([]);
	});
});

describe('Subscribe: an answer echoing the token its first try carried', () => {
	it('the subscription answer, after a renewal, never shows the replaced token', async () => {
		grantInTurn(1);
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.webhooks)
			.reply(function () {
				const token = String(this.req.headers.authorization).replace(/^Bearer /, '');
				if (token === TOKENS[0]) return [401, { message: 'Invalid Access Token' }];
				return [201, { id: 'sub-1', previous: `Bearer ${TOKENS[0]}`, now: token }];
			});
		const fake = fakeRun({
			parameters: {
				callbackUrl: 'https://n8n.example.test/webhook/abc/notification',
				callbackAuthUrl: 'https://n8n.example.test/webhook/abc/token',
				subscriptionKinds: ['listing_sale'],
				options: {},
			},
			items: [{ json: {} }],
			accessToken: TOKENS[0],
			callbackCredentials: CALLBACK_CREDENTIALS,
		});
		const result = await subscribe.call(fake.context, [{ json: {} }]);
		expect(everyText(result).join(' ')).toContain('sub-1');
		expect(leaks(result)).toEqual([]);
	});
});
