/**
 * Review reproduction: the plan's quota stops every send of the run (docs/pacing.md: "the node sends nothing more at
 * the first such answer"), the token renewal's own sends included: a listing whose 401 comes after the quota does
 * not log in and is not sent again.
 */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';
import { fakeRun, BASE, oneSeatListings } from '../../../../../support/fakeN8n/actionContext';
import { GATEWAY_FAULT, gatewayFaultBody } from '../../../../../sandbox/answers';
import { useSleeps } from '../../../../setup/sleeps';

const QUOTA = gatewayFaultBody(GATEWAY_FAULT.quota);
const EXPIRED = {
	fault: {
		faultstring: 'Access Token expired',
		detail: { errorcode: 'keymanagement.service.access_token_expired' },
	},
};

/** A few turns of the event loop: what answered first has been read by then. */
async function turns(count: number) {
	for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** Resolves once a listing has answered with the quota; reset per test. */
let quota: Promise<void>;
let quotaAnswered: () => void;
beforeEach(() => {
	nock.disableNetConnect();
	quota = new Promise<void>((resolve) => (quotaAnswered = resolve));
});
// Every wait (a Retry-After, a backoff) ends when its signal aborts: the quota, once read, aborts it. A node that
// does not abort it sees its wait end two seconds after the quota answered (real time, not event-loop turns: nock
// hands an answer over on a timer, which a few idle turns can outrun), and sends again.
useSleeps({
	sleepWithAbort: async (_ms, signal) =>
		await new Promise<void>((resolve, reject) => {
			signal?.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
			void quota.then(() => setTimeout(resolve, 2000));
		}),
});
afterEach(() => nock.cleanAll());

it('a 401 answered after the quota neither logs in nor sends its listing again', async () => {
	const sent: string[] = [];
	nock(BASE)
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.times(5)
		.reply(() => {
			sent.push('login');
			return [200, { access_token: 'tok-new', expires_in: '15551999' }];
		});
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(10)
		.reply((_uri, body, callback) => {
			const id = Number((body as IDataObject).externalListingId);
			sent.push(`listing ${id}`);
			if (id === 1) return callback(null, [201, { id: 'L-1' }]);
			if (id === 3) {
				callback(null, [429, QUOTA]);
				quotaAnswered();
				return;
			}
			// Listing 2 (and any resend of it): the token expired, answered once the quota has been read (a timer set
			// after nock's own fires after it, and the answer's reading takes no timer).
			void quota.then(() => setTimeout(() => callback(null, [401, EXPIRED]), 100));
		});
	const { items, parameters } = oneSeatListings([1, 2, 3], { concurrency: 2 });
	const fake = fakeRun({ items, parameters, continueOnFail: true, accessToken: 'stored-token' });

	const output = (await execute.call(fake.context, items)) as INodeExecutionData[];

	expect(output).toHaveLength(3);
	expect(sent.filter((request) => request === 'login')).toEqual([]);
	expect(sent.filter((request) => request === 'listing 2')).toHaveLength(1);
});

it("a login waiting out the token endpoint's Retry-After when the quota comes is not tried again", async () => {
	const sent: string[] = [];
	let logins = 0;
	nock(BASE)
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.times(5)
		.reply(() => {
			sent.push('login');
			logins++;
			return logins === 1
				? [429, { message: 'busy' }, { 'Retry-After': '30' }]
				: [200, { access_token: 'tok-new', expires_in: '15551999' }];
		});
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(10)
		.reply((_uri, body, callback) => {
			const id = Number((body as IDataObject).externalListingId);
			sent.push(`listing ${id}`);
			if (id === 1) return callback(null, [201, { id: 'L-1' }]);
			if (id === 2 && !sent.includes('login')) return callback(null, [401, EXPIRED]);
			if (id === 3) {
				// Answered once listing 2's renewal is waiting out the token endpoint's 429.
				const answer = () => {
					callback(null, [429, QUOTA]);
					quotaAnswered();
				};
				const waitForLogin = async () => {
					for (let turn = 0; turn < 500 && !sent.includes('login'); turn++) await turns(1);
					await turns(50);
					answer();
				};
				void waitForLogin();
				return;
			}
			return callback(null, [201, { id: `L-${id}` }]);
		});
	const { items, parameters } = oneSeatListings([1, 2, 3], { concurrency: 2 });
	const fake = fakeRun({ items, parameters, continueOnFail: true, accessToken: 'stored-token' });

	const output = (await execute.call(fake.context, items)) as INodeExecutionData[];

	expect(output).toHaveLength(3);
	expect(sent.filter((request) => request === 'login')).toHaveLength(1);
	expect(sent.filter((request) => request === 'listing 2')).toHaveLength(1);
});
