/**
 * Generated hostile requests for the Ticket Marketplace Trigger's two endpoints (fast-check arbitraries). Each
 * probe is a request the trigger must refuse, with the statuses that may answer it: the trigger's own documented
 * refusals (docs/trigger.md, RFC 6749 5.2 and RFC 6750 3.1) or, for what never reaches the
 * node, n8n's own answer. Only one thing is wrong in each probe, so its expected answer does not depend on the
 * order in which the trigger checks things. A probe never carries a valid token with a JSON-object body, and
 * never HTTP Basic with a body client_id equal to the Basic one (both are acceptable requests).
 */
import { createHmac, hkdfSync } from 'node:crypto';

import fc from 'fast-check';

export interface TriggerUnderTest {
	webhookId: string;
	clientId: string;
	clientSecret: string;
	/** A token the trigger's own token endpoint issued (valid for the run). */
	validToken: string;
}

export type Endpoint = 'token' | 'notifications';

export interface Probe {
	family: string;
	endpoint: Endpoint;
	method: string;
	/** '' or a query string starting with '?'. */
	query: string;
	headers: Array<[string, string]>;
	body?: string;
	/** Statuses that may answer. */
	statuses: number[];
	/** When the node answers 401: the challenge it must send (RFC 6749 5.2, RFC 6750 3). */
	challenge?: RegExp;
	/** When the node answers with an OAuth error body: the codes it may carry. */
	errors?: string[];
	/** n8n may close the connection before the whole body is written (EPIPE, ECONNRESET): a refusal too. */
	mayCloseEarly?: boolean;
}

const REALM = 'realm="Ticket Marketplace Trigger"';
const BASIC_CHALLENGE = new RegExp(`^Basic ${REALM}$`);
const BEARER_CHALLENGE = new RegExp(
	`^Bearer ${REALM}(, error="invalid_token", error_description="[^"]+")?$`,
);
const INVALID_TOKEN_CHALLENGE = new RegExp(
	`^Bearer ${REALM}, error="invalid_token", error_description="[^"]+"$`,
);
const INVALID_REQUEST_CHALLENGE = new RegExp(`^Bearer ${REALM}, error="invalid_request"`);
const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/**
 * The token signature as an attacker who knows the client secret would make it (accessToken.ts): used only to
 * sign claims the trigger must still refuse (other audience, other client, expired, malformed claims).
 */
function sign(secret: string, signedPart: string): string {
	const key = Buffer.from(
		hkdfSync('sha256', secret, 'ticket-marketplace-trigger', 'access-token/v1', 32),
	);
	return createHmac('sha256', key).update(signedPart, 'utf8').digest('base64url');
}

function b64url(text: string): string {
	return Buffer.from(text, 'utf8').toString('base64url');
}

function tokenWith(
	claims: unknown,
	signer: (signedPart: string) => string,
	version = 'tmt1',
): string {
	const signedPart = `${version}.${b64url(typeof claims === 'string' ? claims : JSON.stringify(claims))}`;
	return `${signedPart}.${signer(signedPart)}`;
}

function basic(id: string, secret: string): string {
	return `Basic ${Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')}`;
}

function formDecode(text: string): string {
	try {
		return decodeURIComponent(text.replace(/\+/g, ' '));
	} catch {
		return text;
	}
}

function formEncode(params: Record<string, unknown>): string {
	const form = new URLSearchParams();
	for (const [name, value] of Object.entries(params)) {
		for (const item of Array.isArray(value) ? value : [value]) form.append(name, String(item));
	}
	return form.toString();
}

/** A short printable string that is not `avoid` (also after form-decoding, as the trigger reads Basic values). */
function other(avoid: string): fc.Arbitrary<string> {
	return fc
		.oneof(
			fc.string({ maxLength: 40 }),
			fc.constantFrom(
				`${avoid}x`,
				avoid.slice(0, -1),
				avoid.toUpperCase(),
				` ${avoid}`,
				`${avoid} `,
				avoid.replace(/-/g, '+'),
				'',
			),
		)
		.filter((candidate) => candidate !== avoid && formDecode(candidate) !== avoid);
}

const notificationBodies = fc.oneof(
	fc.constant({ eventType: 'listing_sale', notificationId: 'fuzz', listing: { id: 'lst_fuzz' } }),
	fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }),
);

export function triggerProbes(trigger: TriggerUnderTest): {
	token: fc.Arbitrary<Probe>;
	notifications: fc.Arbitrary<Probe>;
} {
	const { clientId, clientSecret, validToken, webhookId } = trigger;
	const rightBasic = basic(clientId, clientSecret);
	const now = () => Math.floor(Date.now() / 1000);
	const goodClaims = () => ({ aud: webhookId, cid: clientId, iat: now(), exp: now() + 3600 });
	const [, validClaims, validSignature] = validToken.split('.');

	// ---- token endpoint -------------------------------------------------------------------------------------
	const encoding = fc.constantFrom<'form' | 'json'>('form', 'json');
	const tokenProbe = (
		family: string,
		parts: {
			authorization?: string[];
			params: Record<string, unknown>;
			encoding: 'form' | 'json';
			query?: string;
		},
		statuses: number[],
		errors: string[],
	): Probe => ({
		family,
		endpoint: 'token',
		method: 'POST',
		query: parts.query ?? '',
		headers: [
			['content-type', parts.encoding === 'form' ? FORM : JSON_TYPE],
			...(parts.authorization ?? []).map((value): [string, string] => ['authorization', value]),
		],
		body: parts.encoding === 'form' ? formEncode(parts.params) : JSON.stringify(parts.params),
		statuses,
		challenge: BASIC_CHALLENGE,
		errors,
	});
	const grant = { grant_type: 'client_credentials' };

	const wrongBasic = fc
		.tuple(
			fc.oneof(
				fc
					.tuple(fc.constant(clientId), other(clientSecret))
					.map(([id, secret]) => basic(id, secret)),
				fc
					.tuple(other(clientId), fc.constant(clientSecret))
					.map(([id, secret]) => basic(id, secret)),
				fc.constant(basic(clientSecret, clientId)),
				fc.constant(basic('', '')),
				fc
					.string({ maxLength: 30 })
					.map((text) => `Basic ${Buffer.from(text.replace(/:/g, '')).toString('base64')}`),
				fc.string({ minLength: 1, maxLength: 30 }).map((text) => `Basic ${text}!`),
				fc.constantFrom(
					`Bearer ${validToken}`,
					'Digest username="x"',
					'Basic',
					`basic${rightBasic.slice(5).replace(' ', '')}`,
					`Token ${clientSecret}`,
				),
				fc.integer({ min: 1_000, max: 12_000 }).map((size) => `Basic ${'QUFB'.repeat(size / 4)}`),
			),
			encoding,
		)
		.map(([authorization, how]) =>
			tokenProbe(
				'token: wrong or malformed Basic',
				{ authorization: [authorization], params: grant, encoding: how },
				[401],
				['invalid_client'],
			),
		);

	const wrongBodyClient = fc
		.tuple(
			fc.oneof(
				other(clientSecret).map((secret) => ({ client_id: clientId, client_secret: secret })),
				other(clientId).map((id) => ({ client_id: id, client_secret: clientSecret })),
				fc.constant({ client_id: clientId }),
				fc.constant({ client_secret: clientSecret }),
				fc.constant({}),
			),
			encoding,
		)
		.map(([client, how]) =>
			tokenProbe(
				'token: wrong, partial or missing client',
				{ params: { ...grant, ...client }, encoding: how },
				[401],
				['invalid_client'],
			),
		);

	const conflictingClient = fc
		.tuple(
			fc.oneof(
				fc
					.constantFrom(clientSecret, 'another-secret')
					.map((secret) => ({ params: { ...grant, client_secret: secret }, query: '' })),
				other(clientId).map((id) => ({ params: { ...grant, client_id: id }, query: '' })),
				fc
					.constantFrom(
						'?client_id=x',
						`?client_secret=${encodeURIComponent(clientSecret)}`,
						`?client_id=${encodeURIComponent(clientId)}&client_secret=y`,
					)
					.map((query) => ({ params: grant, query })),
			),
			encoding,
		)
		.map(([variant, how]) =>
			tokenProbe(
				'token: conflicting client authentication',
				{
					authorization: [rightBasic],
					params: variant.params,
					query: variant.query,
					encoding: how,
				},
				[400],
				['invalid_request'],
			),
		);

	const badGrant = fc.oneof(
		fc
			.tuple(fc.constantFrom({}, { grant_type: '' }, { scope: 'x' }), encoding)
			.map(([params, how]) =>
				tokenProbe(
					'token: missing grant_type',
					{ authorization: [rightBasic], params, encoding: how },
					[400],
					['invalid_request'],
				),
			),
		fc
			.tuple(
				fc
					.oneof(
						fc.constantFrom(
							'password',
							'authorization_code',
							'refresh_token',
							'implicit',
							'Client_Credentials',
							'client_credentials ',
							'urn:ietf:params:oauth:grant-type:jwt-bearer',
						),
						fc.string({ minLength: 1, maxLength: 30 }),
					)
					.filter((value) => value !== 'client_credentials'),
				encoding,
			)
			.map(([value, how]) =>
				tokenProbe(
					'token: unsupported grant_type',
					{ authorization: [rightBasic], params: { grant_type: value }, encoding: how },
					[400],
					['unsupported_grant_type'],
				),
			),
		fc.constant(
			tokenProbe(
				'token: grant_type differs in URL and body',
				{
					authorization: [rightBasic],
					params: grant,
					query: '?grant_type=password',
					encoding: 'form',
				},
				[400],
				['invalid_request'],
			),
		),
		fc.constant(
			tokenProbe(
				'token: repeated grant_type',
				{
					authorization: [rightBasic],
					params: { grant_type: ['client_credentials', 'client_credentials'] },
					encoding: 'form',
				},
				[400],
				['invalid_request'],
			),
		),
		fc
			.oneof(
				fc.integer(),
				fc.boolean(),
				fc.constant(null),
				fc.array(fc.constant('client_credentials'), { maxLength: 2 }),
				fc.constant({ value: 'client_credentials' }),
			)
			.map((value) =>
				tokenProbe(
					'token: grant_type not a string',
					{ authorization: [rightBasic], params: { grant_type: value }, encoding: 'json' },
					[400],
					['invalid_request'],
				),
			),
	);

	const badTokenBody = fc.oneof(
		fc
			.oneof(
				fc.array(fc.jsonValue(), { maxLength: 3 }),
				fc.string(),
				fc.integer(),
				fc.boolean(),
				fc.constant(null),
			)
			.map(
				(value): Probe => ({
					family: 'token: JSON body that is not an object',
					endpoint: 'token',
					method: 'POST',
					query: '',
					headers: [
						['content-type', JSON_TYPE],
						['authorization', rightBasic],
					],
					body: JSON.stringify(value),
					statuses: [400],
					errors: ['invalid_request'],
				}),
			),
		fc
			.constantFrom<
				[string, string]
			>(['text/plain', 'grant_type=client_credentials'], ['application/xml', '<grant_type>client_credentials</grant_type>'], ['multipart/form-data; boundary=B', '--B\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclient_credentials\r\n--B--\r\n'], ['application/octet-stream', 'grant_type=client_credentials'])
			.map(
				([contentType, body]): Probe => ({
					family: 'token: body not form-encoded or JSON',
					endpoint: 'token',
					method: 'POST',
					query: '',
					headers: [
						['content-type', contentType],
						['authorization', rightBasic],
					],
					body,
					statuses: [400],
					errors: ['invalid_request'],
				}),
			),
		fc.string({ maxLength: 40 }).map(
			(text): Probe => ({
				family: 'token: JSON that does not parse (n8n answers 422)',
				endpoint: 'token',
				method: 'POST',
				query: '',
				headers: [
					['content-type', JSON_TYPE],
					['authorization', rightBasic],
				],
				body: `{"grant_type":${JSON.stringify(text)}`,
				statuses: [422],
			}),
		),
		fc
			.integer({ min: 200_000, max: 2_000_000 })
			.map((size) =>
				tokenProbe(
					'token: large body without client authentication',
					{ params: { ...grant, padding: 'p'.repeat(size) }, encoding: 'form' },
					[401],
					['invalid_client'],
				),
			),
	);

	const repeatedBasic = fc
		.constantFrom<
			[string, string]
		>([rightBasic, basic(clientId, 'wrong-secret-0000')], [basic(clientId, 'wrong-secret-0000'), rightBasic], [rightBasic, rightBasic])
		.chain(([first, second]) =>
			encoding.map((how) =>
				tokenProbe(
					'token: two Authorization headers',
					{ authorization: [first, second], params: grant, encoding: how },
					[400],
					['invalid_request'],
				),
			),
		);

	// ---- notification endpoint ------------------------------------------------------------------------------
	const notificationProbe = (
		family: string,
		authorization: string[],
		body: unknown,
		statuses: number[],
		challenge: RegExp,
		errors?: string[],
	): Probe => ({
		family,
		endpoint: 'notifications',
		method: 'POST',
		query: '',
		headers: [
			['content-type', JSON_TYPE],
			...authorization.map((value): [string, string] => ['authorization', value]),
		],
		body: JSON.stringify(body),
		statuses,
		challenge,
		errors,
	});

	const noBearer = fc
		.tuple(
			fc.oneof(
				fc.constant<string[]>([]),
				fc.constantFrom<string[]>(
					[rightBasic],
					[`Basic ${validToken}`],
					[`Token ${validToken}`],
					[`${validToken}`],
					[`Bearer-${validToken}`],
					[''],
				),
			),
			notificationBodies,
		)
		.map(([authorization, body]) =>
			notificationProbe(
				'notification: no Bearer credentials',
				authorization,
				body,
				[401],
				BEARER_CHALLENGE,
			),
		);

	const tokenInQueryOrBody = notificationBodies.chain((body) =>
		fc.constantFrom<Probe>(
			{
				...notificationProbe(
					'notification: token outside the Authorization header',
					[],
					body,
					[401],
					BEARER_CHALLENGE,
				),
				query: `?access_token=${validToken}`,
			},
			notificationProbe(
				'notification: token outside the Authorization header',
				[],
				{ ...body, access_token: validToken },
				[401],
				BEARER_CHALLENGE,
			),
		),
	);

	const forgedTokens: fc.Arbitrary<string> = fc.oneof(
		// Random material in the right shape.
		fc
			.tuple(fc.base64String({ maxLength: 80 }), fc.base64String({ maxLength: 60 }))
			.map(
				([claims, signature]) => `tmt1.${claims.replace(/=/g, '')}.${signature.replace(/=/g, '')}`,
			),
		fc.string({ maxLength: 200 }).filter((text) => !/[\r\n\0]/.test(text)),
		// The valid token, truncated, extended or with one character changed.
		fc.integer({ min: 0, max: validToken.length - 1 }).map((length) => validToken.slice(0, length)),
		fc
			.constantFrom('=', '==', 'A', '.', '.x', ' x', '%00')
			.map((suffix) => `${validToken}${suffix}`),
		fc
			.integer({ min: 0, max: validToken.length - 1 })
			.map((index) => {
				const replacement = validToken[index] === 'A' ? 'B' : 'A';
				return `${validToken.slice(0, index)}${replacement}${validToken.slice(index + 1)}`;
				// Any other spelling is refused, even one that decodes to the same bytes: the signature covers the text.
			})
			.filter((token) => token !== validToken),
		// Claims changed, original signature kept.
		fc
			.record({
				aud: fc.constantFrom(webhookId, 'other-trigger'),
				cid: fc.constantFrom(clientId, 'other-client'),
				exp: fc.integer({ min: 0, max: 4_000_000_000 }),
			})
			.map(
				(claims) => `tmt1.${b64url(JSON.stringify({ ...claims, iat: now() }))}.${validSignature}`,
			)
			.filter((token) => token.split('.')[1] !== validClaims),
		// Re-signed with another secret, or with the client secret itself instead of the derived key.
		fc
			.tuple(other(clientSecret), fc.constant(0))
			.map(([secret]) => tokenWith(goodClaims(), (part) => sign(secret, part))),
		fc
			.constant(0)
			.map(() =>
				tokenWith(goodClaims(), (part) =>
					createHmac('sha256', clientSecret).update(part).digest('base64url'),
				),
			),
		// Right key, but claims the trigger must refuse: another trigger, another client, expired, malformed.
		fc
			.oneof(
				fc.constant(0).map(() => ({ ...goodClaims(), aud: 'another-trigger-webhook-id' })),
				fc.constant(0).map(() => ({ ...goodClaims(), aud: `${webhookId} ` })),
				fc.constant(0).map(() => ({ ...goodClaims(), cid: 'another-client' })),
				fc.integer({ min: 0, max: 100_000 }).map((ago) => ({ ...goodClaims(), exp: now() - ago })),
				fc.constant(0).map(() => ({ ...goodClaims(), exp: String(now() + 3600) })),
				fc.constant(0).map(() => ({ aud: webhookId, cid: clientId })),
				fc.constant([webhookId, clientId]),
				fc.constant('not json'),
			)
			.map((claims) => tokenWith(claims, (part) => sign(clientSecret, part))),
		// Another version prefix, correctly signed.
		fc
			.constantFrom('TMT1', 'tmt2', 'tmt0', '')
			.map((version) => tokenWith(goodClaims(), (part) => sign(clientSecret, part), version)),
		// none-style and JWT-shaped tokens.
		fc
			.constantFrom(
				() => `tmt1.${b64url(JSON.stringify(goodClaims()))}.`,
				() => `tmt1.${b64url(JSON.stringify(goodClaims()))}`,
				() => `${b64url('{"alg":"none","typ":"JWT"}')}.${b64url(JSON.stringify(goodClaims()))}.`,
				() => `${b64url('{"alg":"none"}')}.${b64url(JSON.stringify(goodClaims()))}`,
				() =>
					tokenWith(
						goodClaims(),
						(part) => createHmac('sha256', clientSecret).update(part).digest('base64url'),
						b64url('{"alg":"HS256","typ":"JWT"}'),
					),
				() => `${validToken}.${validSignature}`,
				() => `tmt1.${validClaims}.${Buffer.from(validSignature, 'base64url').toString('base64')}`,
				() => `tmt1.${validClaims}.${Buffer.from(validSignature, 'base64url').toString('hex')}`,
			)
			.map((make) => make()),
		// Oversized, but under Node's header limit.
		fc
			.integer({ min: 1_000, max: 12_000 })
			.map((size) => `tmt1.${'A'.repeat(size)}.${validSignature}`),
	);

	const badToken = fc
		.tuple(forgedTokens, fc.constantFrom('Bearer', 'bearer', 'BEARER'), notificationBodies)
		.filter(([token]) => token.trim() !== validToken)
		.map(([token, scheme, body]) =>
			notificationProbe(
				'notification: forged, altered or expired token',
				[`${scheme} ${token}`],
				body,
				[401],
				token.trim() === '' ? BEARER_CHALLENGE : INVALID_TOKEN_CHALLENGE,
				token.trim() === '' ? undefined : ['invalid_token'],
			),
		);

	const badNotificationBody = fc.oneof(
		fc
			.oneof(
				fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
				fc.string(),
				fc.double({ noNaN: true, noDefaultInfinity: true }),
				fc.boolean(),
				fc.constant(null),
			)
			.map(
				(value): Probe => ({
					family: 'notification: valid token, JSON that is not an object',
					endpoint: 'notifications',
					method: 'POST',
					query: '',
					headers: [
						['content-type', JSON_TYPE],
						['authorization', `Bearer ${validToken}`],
					],
					body: JSON.stringify(value),
					statuses: [400],
				}),
			),
		fc
			.tuple(
				fc.constantFrom(
					'text/plain',
					'application/xml',
					FORM,
					'multipart/form-data; boundary=B',
					'application/octet-stream',
					'text/html',
					'',
				),
				notificationBodies,
			)
			.map(([contentType, body]): Probe => {
				const text = contentType.startsWith('multipart/')
					? `--B\r\nContent-Disposition: form-data; name="body"\r\n\r\n${JSON.stringify(body)}\r\n--B--\r\n`
					: contentType === FORM
						? formEncode({ body: JSON.stringify(body) })
						: contentType === 'application/xml'
							? '<notification><eventType>listing_sale</eventType></notification>'
							: JSON.stringify(body);
				return {
					family: 'notification: valid token, not a JSON body',
					endpoint: 'notifications',
					method: 'POST',
					query: '',
					headers: [
						...(contentType === '' ? [] : [['content-type', contentType] as [string, string]]),
						['authorization', `Bearer ${validToken}`],
					],
					body: text,
					statuses: [400],
				};
			}),
		fc.string({ maxLength: 40 }).map(
			(text): Probe => ({
				family: 'notification: JSON that does not parse (n8n answers 422)',
				endpoint: 'notifications',
				method: 'POST',
				query: '',
				headers: [
					['content-type', JSON_TYPE],
					['authorization', `Bearer ${validToken}`],
				],
				body: `{"eventType":${JSON.stringify(text)}`,
				statuses: [422],
			}),
		),
		fc
			.integer({ min: 200_000, max: 2_000_000 })
			.map((size) =>
				notificationProbe(
					'notification: large body without a token',
					[],
					{ eventType: 'listing_sale', padding: 'p'.repeat(size) },
					[401],
					BEARER_CHALLENGE,
				),
			),
	);

	const repeatedBearer = fc
		.tuple(
			fc.constantFrom<[string, string]>(
				[`Bearer ${validToken}`, 'Bearer junk'],
				['Bearer junk', `Bearer ${validToken}`],
				[`Bearer ${validToken}`, `Bearer ${validToken}`],
				[`Bearer ${validToken}`, rightBasic],
			),
			notificationBodies,
		)
		.map(([[first, second], body]) =>
			notificationProbe(
				'notification: two Authorization headers',
				[first, second],
				body,
				[400],
				INVALID_REQUEST_CHALLENGE,
				['invalid_request'],
			),
		);

	// ---- both endpoints -------------------------------------------------------------------------------------
	const wrongMethod = (endpoint: Endpoint) =>
		fc
			.constantFrom<
				[string, number]
			>(['GET', 404], ['PUT', 404], ['PATCH', 404], ['DELETE', 404], ['HEAD', 404], ['OPTIONS', 204])
			.map(
				([method, status]): Probe => ({
					family: `${endpoint}: wrong method (n8n answers)`,
					endpoint,
					method,
					query: endpoint === 'token' ? '?grant_type=client_credentials' : '',
					headers: [['authorization', endpoint === 'token' ? rightBasic : `Bearer ${validToken}`]],
					statuses: [status],
				}),
			);
	const oversizedHeader = (endpoint: Endpoint) =>
		fc.integer({ min: 17_000, max: 40_000 }).map(
			(size): Probe => ({
				family: `${endpoint}: Authorization over Node's header limit (431)`,
				endpoint,
				method: 'POST',
				query: '',
				headers: [
					['content-type', JSON_TYPE],
					['authorization', `${endpoint === 'token' ? 'Basic' : 'Bearer'} ${'A'.repeat(size)}`],
				],
				body: '{}',
				statuses: [431],
			}),
		);

	return {
		token: fc.oneof(
			{ arbitrary: wrongBasic, weight: 12 },
			{ arbitrary: wrongBodyClient, weight: 9 },
			{ arbitrary: conflictingClient, weight: 6 },
			{ arbitrary: badGrant, weight: 9 },
			{ arbitrary: badTokenBody, weight: 6 },
			{ arbitrary: repeatedBasic, weight: 3 },
			{ arbitrary: wrongMethod('token'), weight: 3 },
			{ arbitrary: oversizedHeader('token'), weight: 1 },
		),
		notifications: fc.oneof(
			{ arbitrary: noBearer, weight: 6 },
			{ arbitrary: tokenInQueryOrBody, weight: 3 },
			{ arbitrary: badToken, weight: 24 },
			{ arbitrary: badNotificationBody, weight: 9 },
			{ arbitrary: repeatedBearer, weight: 3 },
			{ arbitrary: wrongMethod('notifications'), weight: 3 },
			{ arbitrary: oversizedHeader('notifications'), weight: 1 },
		),
	};
}

/**
 * What n8n itself answers before the node runs, outside what generation covers well: a body over n8n's payload
 * limit (16 MB by default) and a Content-Encoding that does not decode. n8n answers 500 to both.
 */
export function n8nLimitProbes(trigger: TriggerUnderTest): Probe[] {
	const oversized = 'x'.repeat(17 * 1024 * 1024);
	const probes: Probe[] = [];
	for (const endpoint of ['token', 'notifications'] as const) {
		// Each probe is authorised as its endpoint wants, so that only the limit it tries can refuse it.
		const authorization: [string, string] = [
			'authorization',
			endpoint === 'token'
				? basic(trigger.clientId, trigger.clientSecret)
				: `Bearer ${trigger.validToken}`,
		];
		probes.push({
			family: `${endpoint}: body over n8n's payload limit (n8n answers 500)`,
			endpoint,
			method: 'POST',
			query: '',
			headers: [['content-type', JSON_TYPE], authorization],
			body: JSON.stringify({ padding: oversized }),
			statuses: [500],
			mayCloseEarly: true,
		});
		probes.push({
			family: `${endpoint}: Content-Encoding that does not decode (n8n answers 500)`,
			endpoint,
			method: 'POST',
			query: '',
			headers: [['content-type', JSON_TYPE], ['content-encoding', 'gzip'], authorization],
			body: '{"not":"gzip"}',
			statuses: [500],
		});
		probes.push({
			family: `${endpoint}: unknown charset (n8n answers 422)`,
			endpoint,
			method: 'POST',
			query: '',
			headers: [['content-type', 'application/json; charset=utf-7'], authorization],
			body: '{"grant_type":"client_credentials"}',
			statuses: [422],
		});
	}
	return probes;
}
