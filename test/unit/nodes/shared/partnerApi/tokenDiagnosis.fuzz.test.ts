/**
 * The credential's token exchange against token endpoint answers of every odd shape, generated with fast-check:
 * whatever the answer, preAuthentication fails with one clear diagnosis that names what was wrong, and no secret
 * (consumer secret, password, their Basic encoding) is in it, even when the answer echoes them. A redirect is
 * never followed: nothing reaches another host.
 */
import fc from 'fast-check';
import nock from 'nock';
import type { ICredentialDataDecryptedObject, IHttpRequestHelper } from 'n8n-workflow';
import { httpRequest } from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';

import { TicketMarketplaceApi } from '../../../../../credentials/TicketMarketplaceApi.credentials';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';

const BASE = 'https://partner.api.test';
const OTHER_HOST = 'https://elsewhere.example.test';
const credentials: ICredentialDataDecryptedObject = {
	baseUrl: BASE,
	consumerKey: 'ck_fuzz_41d7',
	consumerSecret: 'cs_fuzz_secret_8c2f0e',
	email: 'seller@example.test',
	password: 'fuzz-password:with spaces',
	accessToken: '',
};
const SECRETS = [
	credentials.consumerSecret as string,
	credentials.password as string,
	Buffer.from(
		`${credentials.consumerKey as string}:${credentials.consumerSecret as string}`,
	).toString('base64'),
];
/** Every diagnosis the credential gives for an HTTP answer; a generated answer must get exactly one of them. */
const DIAGNOSES = [
	/^The Base URL does not answer like the Partner API \(HTTP \d{3}, (an empty body|an HTML page|JSON that is not an object|a body that is not JSON)\)\. \S+ returned .* Set the credential's Base URL/,
	/^The Base URL does not answer like the Partner API \(HTTP (404|405)\)\. \S+ does not exist there\. Set the credential's Base URL/,
	/^The token request was redirected \(HTTP 3\d\d\)\. The Base URL answered with a redirect/,
	/^Login refused: the token endpoint refused the consumer key and secret \(HTTP \d{3}\)\. /,
	/^Login refused: the token endpoint refused the marketplace e-mail and password \(HTTP \d{3}\)\. /,
	/^The token endpoint answered without an access token \(HTTP 2\d\d\)\. /,
	/^Login refused by the token endpoint \(HTTP (401|403)\)\. /,
	/^The token endpoint asked to wait \(HTTP 429, too many requests\)\. /,
	/^The token endpoint failed \(HTTP \d{3}\)\. /,
];
/** The title (before the first ". "): one line, short. */
const MAX_TITLE_LENGTH = 100;
const MAX_DIAGNOSIS_LENGTH = 800;
const RUNS = 300;

const credentialType = new TicketMarketplaceApi();
const helper = { helpers: { httpRequest } } as unknown as IHttpRequestHelper;

interface Answer {
	status: number;
	contentType?: string;
	body: string;
	/** How the body was made, for the expectations below and for a readable counterexample. */
	kind:
		| 'html'
		| 'empty'
		| 'text'
		| 'object-without-token'
		| 'bad-token'
		| 'not-object'
		| 'huge'
		| 'echo';
	location?: string;
}

const statuses = fc.oneof(
	fc.constantFrom(
		200,
		201,
		202,
		204,
		400,
		401,
		403,
		404,
		405,
		409,
		415,
		422,
		429,
		500,
		502,
		503,
		504,
	),
	fc.integer({ min: 200, max: 599 }).filter((status) => status < 300 || status >= 400),
);
const contentTypes = fc.option(
	fc.constantFrom(
		'application/json',
		'application/json; charset=utf-8',
		'text/html',
		'text/plain',
		'application/xml',
		'application/octet-stream',
		'application/problem+json',
	),
	{ nil: undefined },
);
const jsonKey = fc
	.string({ maxLength: 12 })
	.filter((key) => key !== 'access_token' && key !== '__proto__');
const echoedSecret = fc.constantFrom(...SECRETS, `${SECRETS[0]}${SECRETS[1]}`);

const bodies: fc.Arbitrary<Pick<Answer, 'body' | 'kind'>> = fc.oneof(
	fc.string({ maxLength: 200 }).map((inner) => ({
		kind: 'html' as const,
		body: `<!doctype html><html><body>${inner}</body></html>`,
	})),
	fc.constantFrom('', ' ', '\n').map((body) => ({ kind: 'empty' as const, body })),
	fc
		.string({ minLength: 1, maxLength: 200 })
		.filter((text) => !isJson(text) && text.trim() !== '' && !text.trimStart().startsWith('<'))
		.map((body) => ({ kind: 'text' as const, body })),
	fc
		.dictionary(jsonKey, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 })
		.map((object) => ({ kind: 'object-without-token' as const, body: JSON.stringify(object) })),
	fc
		.oneof(
			fc.constant(''),
			fc.integer(),
			fc.boolean(),
			fc.constant(null),
			fc.array(fc.string(), { maxLength: 3 }),
			fc.dictionary(jsonKey, fc.string(), { maxKeys: 2 }),
		)
		.map((token) => ({
			kind: 'bad-token' as const,
			body: JSON.stringify({ access_token: token, token_type: 'Bearer' }),
		})),
	fc
		.oneof(
			fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
			fc.string(),
			fc.double({ noNaN: true, noDefaultInfinity: true }),
			fc.boolean(),
			fc.constant(null),
		)
		.map((value) => ({
			kind: 'not-object' as const,
			body: JSON.stringify(value),
		})),
	fc.tuple(fc.integer({ min: 200_000, max: 2_000_000 }), fc.boolean()).map(([size, asJson]) => ({
		kind: 'huge' as const,
		body: asJson ? JSON.stringify({ error: 'x', message: 'm'.repeat(size) }) : 'z'.repeat(size),
	})),
	fc
		.tuple(
			fc.constantFrom('error_description', 'message', 'error'),
			echoedSecret,
			fc.string({ maxLength: 20 }),
		)
		.map(([field, secret, around]) => ({
			kind: 'echo' as const,
			body: JSON.stringify({ [field]: `${around}${secret}${around}` }),
		})),
);

function isJson(text: string): boolean {
	try {
		JSON.parse(text);
		return true;
	} catch {
		return false;
	}
}

const answers: fc.Arbitrary<Answer> = fc
	.record({ status: statuses, contentType: contentTypes, body: bodies })
	.map(({ status, contentType, body }) => ({ status, contentType, ...body }))
	// 204 and 205 cannot carry a body over HTTP.
	.filter((answer) => (answer.status !== 204 && answer.status !== 205) || answer.kind === 'empty');

async function diagnosisFor(answer: Answer): Promise<string> {
	const scope = nock(BASE)
		.post(PARTNER_API_PATHS.grant)
		.query({ grant_type: 'client_credentials' })
		.reply(answer.status, answer.body, {
			...(answer.contentType === undefined ? {} : { 'Content-Type': answer.contentType }),
			...(answer.location === undefined ? {} : { Location: answer.location }),
		});
	try {
		// A freshly decrypted copy, as n8n hands it over for each request.
		await credentialType.preAuthentication.call(helper, { ...credentials });
	} catch (error) {
		expect(scope.isDone()).toBe(true);
		expect(error).toBeInstanceOf(Error);
		for (const secret of SECRETS)
			expect(JSON.stringify({ error, message: (error as Error).message })).not.toContain(secret);
		return (error as Error).message;
	} finally {
		nock.cleanAll();
	}
	throw new Error(`preAuthentication accepted ${JSON.stringify(answer).slice(0, 300)}`);
}

describe('Ticket Marketplace API credential: generated token endpoint answers', () => {
	it(`gives one clear diagnosis without a secret for ${RUNS} odd answers`, async () => {
		const seen = new Map<string, number>();
		await fc.assert(
			fc.asyncProperty(answers, async (answer) => {
				const message = await diagnosisFor(answer);
				seen.set(answer.kind, (seen.get(answer.kind) ?? 0) + 1);
				expect(DIAGNOSES.filter((pattern) => pattern.test(message))).toHaveLength(1);
				expect(message.length).toBeLessThanOrEqual(MAX_DIAGNOSIS_LENGTH);
				const title = message.slice(0, message.indexOf('. '));
				expect(title.length).toBeLessThanOrEqual(MAX_TITLE_LENGTH);
				expect(title).not.toMatch(/\n/);
				if (answer.kind === 'html' && answer.status !== 404 && answer.status !== 405)
					expect(message).toContain('an HTML page');
				if (answer.kind === 'empty') expect(message).toContain('an empty body');
				if (answer.kind === 'not-object') expect(message).toContain('JSON that is not an object');
				// The API's own words are quoted (with the secret redacted) except where the status alone says it all.
				if (answer.kind === 'echo' && answer.status !== 404 && answer.status !== 405)
					expect(message).toContain('[redacted]');
				if (
					answer.status >= 200 &&
					answer.status < 300 &&
					(answer.kind === 'object-without-token' || answer.kind === 'bad-token')
				) {
					expect(message).toMatch(/without an access token|refused/);
				}
			}),
			{ numRuns: RUNS, seed: 11 },
		);
		process.stdout.write(
			`credential fuzz: ${RUNS} answers, by kind ${JSON.stringify(Object.fromEntries(seen))}\n`,
		);
		expect(seen.size).toBe(8);
	}, 300_000); // generous: a 2-core CI machine installing n8n beside it runs it several times slower

	it('never follows a redirect: another host receives nothing, and the diagnosis names the redirect', async () => {
		let runs = 0;
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom(301, 302, 303, 307, 308),
				fc.constantFrom(
					`${OTHER_HOST}${PARTNER_API_PATHS.grant}`,
					`${OTHER_HOST}/steal?x=1`,
					`http://partner.api.test${PARTNER_API_PATHS.grant}`,
					'/elsewhere',
				),
				async (status, location) => {
					runs += 1;
					const elsewhere: Array<{ headers: Record<string, unknown>; body: unknown }> = [];
					const record = function (this: nock.ReplyFnContext, _uri: string, body: nock.Body) {
						elsewhere.push({ headers: this.req.headers, body });
						return [200, { access_token: 'stolen' }] as const;
					};
					nock(OTHER_HOST)
						.persist()
						.post(/.*/)
						.query(true)
						.reply(record)
						.get(/.*/)
						.query(true)
						.reply(record);
					nock('http://partner.api.test')
						.persist()
						.post(/.*/)
						.query(true)
						.reply(record)
						.get(/.*/)
						.query(true)
						.reply(record);
					nock(BASE)
						.persist()
						.get(/.*/)
						.query(true)
						.reply(record)
						.post('/elsewhere')
						.query(true)
						.reply(record);
					const message = await diagnosisFor({
						status,
						contentType: 'text/html',
						body: '<a>moved</a>',
						kind: 'html',
						location,
					});
					expect(elsewhere).toEqual([]);
					expect(message).toMatch(
						new RegExp(
							`^The token request was redirected \\(HTTP ${status}\\)\\. The Base URL answered with a redirect to (${OTHER_HOST}|http://partner\\.api\\.test|${BASE})/`,
						),
					);
					expect(message).not.toContain('?x=1');
				},
			),
			{ numRuns: 40, seed: 11 },
		);
		process.stdout.write(`credential fuzz: ${runs} redirects, none followed\n`);
	});
});
