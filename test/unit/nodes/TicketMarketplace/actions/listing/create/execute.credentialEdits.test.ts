/**
 * Stop during a refresh-token exchange, two runs sharing one credential (a refresh token spent by the
 * other), and a credential edited between runs (nothing of the old login goes to the new origin).
 */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import { refreshTokenFieldAfter } from '../../../../../../../nodes/shared/partnerApi/pastN8n';
import {
	API_CREDENTIALS,
	BASE,
	fakeRun,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';

afterEach(() => nock.cleanAll());

const withRefresh = (refreshToken: string, credentials = API_CREDENTIALS) =>
	refreshTokenFieldAfter(credentials, { refresh_token: refreshToken }, undefined, Date.now());

describe('Stop during the refresh-token exchange', () => {
	it('sends no login (no password) after the Stop', async () => {
		const controller = new AbortController();
		const logins: string[] = [];
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply(401, {
				fault: {
					faultstring: 'Access Token expired',
					detail: { errorcode: 'keymanagement.service.access_token_expired' },
				},
			});
		nock(BASE)
			.post(PARTNER_API_PATHS.refresh)
			.delay(200)
			.reply(200, { access_token: 'tok-refreshed' });
		nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.times(5)
			.reply(() => {
				logins.push('login');
				return [200, { access_token: 'tok-login' }];
			});
		nock(BASE).post(PARTNER_API_PATHS.listings).times(5).reply(201, { id: 'L-1' });
		const { items, parameters } = oneSeatListings([1]);
		const fake = fakeRun({
			items,
			parameters,
			continueOnFail: true,
			accessToken: 'stored-token',
			apiCredentials: { refreshToken: withRefresh('rt-1') } as never,
			cancelSignal: controller.signal,
		});
		setTimeout(() => controller.abort(), 40);
		const output = (await execute.call(fake.context, items)) as INodeExecutionData[];
		expect(logins).toEqual([]);
		expect(output[0].json.id).toBeUndefined();
	});
});

describe('two runs share one credential; the first spends the refresh token', () => {
	it('the second falls back to the login and creates its listing', async () => {
		const spent = new Set<string>();
		let issued = 0;
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.refresh)
			.reply((_uri, body) => {
				const token = new URLSearchParams(String(body)).get('refresh_token') ?? '';
				if (spent.has(token))
					return [400, { ErrorCode: 'invalid_grant', Error: 'Invalid Refresh Token' }];
				spent.add(token);
				issued++;
				return [
					200,
					{ access_token: `tok-r${issued}`, refresh_token: `rt-${issued + 1}`, expires_in: '3600' },
				];
			});
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(200, { access_token: 'tok-login', refresh_token: 'rt-login', expires_in: 3600 });
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.listings)
			.reply(function (_uri, body) {
				const auth = String(this.req.headers.authorization);
				if (auth === 'Bearer old-token')
					return [
						401,
						{
							fault: {
								faultstring: 'Access Token expired',
								detail: { errorcode: 'keymanagement.service.access_token_expired' },
							},
						},
					];
				return [201, { id: `L-${(body as IDataObject).externalListingId}` }];
			});
		const runOf = (id: number) => {
			const { items, parameters } = oneSeatListings([id]);
			const fake = fakeRun({
				items,
				parameters,
				continueOnFail: true,
				accessToken: 'old-token',
				apiCredentials: { refreshToken: withRefresh('rt-1') } as never,
			});
			return execute.call(fake.context, items) as Promise<INodeExecutionData[]>;
		};
		const [a, b] = await Promise.all([runOf(1), runOf(2)]);
		expect(a[0].json.id).toBe('L-1');
		expect(b[0].json.id).toBe('L-2');
	});
});

describe.each([
	['the Base URL', { baseUrl: 'https://other.api.test/' }, 'https://other.api.test'],
	['the e-mail', { email: 'other@example.test' }, BASE],
	['the consumer secret', { consumerSecret: 'cs-other' }, BASE],
])('the credential edited between runs: %s', (_what, edit, origin) => {
	it('sends neither the old access token nor the old refresh token, and logs in once', async () => {
		const seen: string[] = [];
		nock(origin)
			.persist()
			.post(PARTNER_API_PATHS.refresh)
			.reply((_uri, body) => {
				seen.push(`refresh ${String(body)}`);
				return [400, { ErrorCode: 'invalid_grant' }];
			});
		nock(origin)
			.persist()
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(() => {
				seen.push('login');
				return [200, { access_token: 'tok-new', refresh_token: 'rt-new', expires_in: 3600 }];
			});
		nock(origin)
			.persist()
			.post(PARTNER_API_PATHS.listings)
			.reply(function () {
				seen.push(`listing ${String(this.req.headers.authorization)}`);
				return String(this.req.headers.authorization) === 'Bearer tok-new'
					? [201, { id: 'L-1' }]
					: [
							401,
							{
								fault: {
									faultstring: 'Invalid access token',
									detail: { errorcode: 'keymanagement.service.invalid_access_token' },
								},
							},
						];
			});
		const { items, parameters } = oneSeatListings([1]);
		// Hidden fields kept from the old login, as n8n keeps them when the editor saves the credential.
		const fake = fakeRun({
			items,
			parameters,
			continueOnFail: true,
			accessToken: 'old-token',
			apiCredentials: { ...edit, refreshToken: withRefresh('rt-old') } as never,
		});
		const output = (await execute.call(fake.context, items)) as INodeExecutionData[];
		expect(output[0].json.id).toBe('L-1');
		expect(seen.join('\n')).not.toContain('old-token');
		expect(seen.join('\n')).not.toContain('rt-old');
		expect(seen.filter((entry) => entry === 'login')).toHaveLength(1);
	});
});
