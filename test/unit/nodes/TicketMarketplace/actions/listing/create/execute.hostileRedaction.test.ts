/**
 * Review (hostile API): "no secret in any output ... as typed, URL- or form-encoded, HTML- or JSON-escaped, or in
 * base64, as a value or as a key, whatever the API echoes". Echoes that real APIs produce and the redaction once
 * did not recognise.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import {
	API_CREDENTIALS,
	BASE,
	fakeRun,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';
import { everyText } from '../../../../../../../support/errorScan';

const TOKEN = 'tok-review-redaction-5f2c9a7e';

/** A token, then listing 1 answered with `answer`; the run's output or thrown error. */
async function runAgainst(
	answer: (token: string) => nock.ReplyFnResult,
	apiCredentials: Partial<typeof API_CREDENTIALS> = {},
	continueOnFail = true,
): Promise<unknown> {
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.reply(200, { access_token: TOKEN });
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.listings)
		.reply(function () {
			return answer(String(this.req.headers.authorization).replace(/^Bearer /, ''));
		});
	const { items, parameters } = oneSeatListings([1]);
	const fake = fakeRun({ items, parameters, apiCredentials, continueOnFail });
	return await execute.call(fake.context, items).catch((error: unknown) => error);
}

const leaks = (result: unknown, secret: string) =>
	everyText(result).filter((text) => text.toLowerCase().includes(secret.toLowerCase()));

afterEach(() => nock.cleanAll());

describe('review: echoes the redaction misses', () => {
	it('the e-mail echoed in the case the API normalised it to (e-mail addresses are case-insensitive)', async () => {
		const result = await runAgainst(
			() => [403, { message: 'account seller@example.test may not list for event 55' }],
			{ email: 'Seller@Example.test' },
		);
		expect(leaks(result, 'seller@example.test')).toEqual([]);
	});

	it('the access token inside an echoed, base64-encoded Authorization header ("Bearer <token>")', async () => {
		const result = await runAgainst((token) => [
			400,
			{
				// Debugging APIs echo the request's headers; base64 of "Bearer <token>" does not contain base64(token).
				message: `rejected request ${Buffer.from(`Authorization: Bearer ${token}`).toString('base64')}`,
			},
		]);
		const decoded = everyText(result)
			.flatMap((text) => text.match(/[A-Za-z0-9+/=]{24,}/g) ?? [])
			.map((text) => Buffer.from(text, 'base64').toString('utf8'));
		expect(decoded.filter((text) => text.includes(TOKEN))).toEqual([]);
	});

	it('the access token in the path of a redirect’s Location (the message names the redirect’s origin and path)', async () => {
		const result = await runAgainst((token) => [
			302,
			'',
			{ Location: `https://login.partner.api.test/session/${token}/renew` },
		]);
		expect(leaks(result, TOKEN)).toEqual([]);
	});

	it('the e-mail in the path of a redirect’s Location, without Continue (the thrown error)', async () => {
		const result = await runAgainst(
			() => [
				307,
				'',
				{ Location: `https://partner.api.test/accounts/${API_CREDENTIALS.email}/listings` },
			],
			{},
			false,
		);
		expect(result).toBeInstanceOf(Error);
		expect(leaks(result, API_CREDENTIALS.email)).toEqual([]);
	});
});

describe('review: echoes the redaction catches (regression)', () => {
	it('the password, form-encoded inside a key of a 400 body, and the token as a JSON value', async () => {
		const password = 'p@ss word/+=';
		const result = await runAgainst(
			(token) => [
				400,
				{
					[`password=${new URLSearchParams({ x: password }).toString().slice(2)}`]: 'rejected',
					echo: { headers: { authorization: `Bearer ${token}` } } as IDataObject,
				},
			],
			{ password },
			false,
		);
		// The body is kept on the thrown error (so the scan below is not vacuous), redacted.
		expect(everyText(result)).toContain('rejected');
		expect(leaks(result, TOKEN)).toEqual([]);
		expect(everyText(result).filter((text) => text.includes('p%40ss+word'))).toEqual([]);
	});
});
