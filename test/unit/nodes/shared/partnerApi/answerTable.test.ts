/**
 * The answer table, row by row: every answer the notes on the real service document (StubHub International's
 * Partner API behind Apigee) has its row here, with what it means. A new answer is one row and one line here.
 * Where an answer has a code, the code decides; the cases of answers without one read as the rules written in
 * docs/listing-create.md ("What each refusal means") and docs/pacing.md ("A spike arrest and a daily quota").
 */
import {
	allowedRateOf,
	meaningOf,
	readAnswer,
} from '../../../../../nodes/shared/partnerApi/answerTable';
import type { AnswerMeaning, Endpoint } from '../../../../../nodes/shared/partnerApi/answerTable';
import { apiWords } from '../../../../../nodes/shared/partnerApi/answerWords';
import { tokenWords } from '../../../../../nodes/shared/partnerApi/tokenDiagnosis';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';

const LISTINGS = PARTNER_API_PATHS.listings;

interface Case {
	name: string;
	endpoint: Endpoint;
	status: number;
	body: unknown;
	headers?: Record<string, string>;
	createsId?: number;
	want: Partial<AnswerMeaning>;
}

const QUOTA = {
	fault: {
		faultstring: 'Rate limit quota violation. Quota limit  exceeded. Identifier : _default',
		detail: { errorcode: 'policies.ratelimit.QuotaViolation' },
	},
};
const SPIKE = {
	fault: {
		faultstring: 'Spike arrest violation. Allowed rate : 40ps',
		detail: { errorcode: 'policies.ratelimit.SpikeArrestViolation' },
	},
};

const CASES: Case[] = [
	// The listing service (its v2 lineage): business rules answered 400 with a code and a description.
	{
		name: 'a duplicate External Listing ID (400, naming this ID)',
		endpoint: 'api',
		status: 400,
		body: {
			code: 'inventory.listings.duplicateExternalListingId',
			description: 'Listing with external listing id 7001 already exists',
		},
		createsId: 7001,
		want: { row: 'alreadyListed', outcome: 'alreadyListed', retry: 'no', stopsRun: false },
	},
	{
		name: 'a duplicate listing named by another ID (400)',
		endpoint: 'api',
		status: 400,
		body: {
			code: 'inventory.listings.duplicateExternalListingId',
			description: 'Listing with external listing id 70011 already exists',
		},
		createsId: 7001,
		want: { row: 'refused', outcome: 'notCreated' },
	},
	{
		name: 'a duplicate seat (400 duplicateSectionRowSeat) that happens to hold the ID',
		endpoint: 'api',
		status: 400,
		body: {
			code: 'inventory.listings.duplicateSectionRowSeat',
			description: 'Row/Seat combination already exists: row 7001',
		},
		createsId: 7001,
		want: {
			row: 'refused',
			outcome: 'notCreated',
			code: 'inventory.listings.duplicateSectionRowSeat',
		},
	},
	{
		name: "a duplicate seat (400 duplicateSectionRowSeat) whose description names this listing's External Listing ID: the code decides",
		endpoint: 'api',
		status: 400,
		body: {
			code: 'inventory.listings.duplicateSectionRowSeat',
			description:
				'Row/Seat combination already exists for this event (externalListingId 7001 duplicate)',
		},
		createsId: 7001,
		want: { row: 'refused', outcome: 'notCreated' },
	},
	{
		name: 'a duplicate seat whose code is spelled in snake case, naming the External Listing ID',
		endpoint: 'api',
		status: 400,
		body: {
			code: 'inventory.listings.duplicate_section_row_seat',
			description: 'External Listing ID 7001: Row/Seat combination already exists',
		},
		createsId: 7001,
		want: { row: 'refused', outcome: 'notCreated' },
	},
	{
		name: 'a code in snake case that says the External Listing ID exists, its words naming this ID',
		endpoint: 'api',
		status: 409,
		body: {
			code: 'duplicate_external_listing_id',
			description: 'A listing with externalListingId 7001 already exists',
		},
		createsId: 7001,
		want: { row: 'alreadyListed', outcome: 'alreadyListed' },
	},
	{
		name: 'a duplicate seat answered 409 with its code, naming the External Listing ID',
		endpoint: 'api',
		status: 409,
		body: {
			code: 'inventory.listings.duplicateSectionRowSeat',
			description: 'External Listing ID 7001: seat already exists',
		},
		createsId: 7001,
		want: { row: 'conflict', outcome: 'notCreated' },
	},
	{
		name: 'a code that says the listing exists, its words naming this ID',
		endpoint: 'api',
		status: 400,
		body: {
			code: 'inventory.listings.listingAlreadyExists',
			description: 'Listing 7001 exists',
		},
		createsId: 7001,
		want: { row: 'alreadyListed', outcome: 'alreadyListed' },
	},
	{
		name: 'an inactive event (400 invalidEvent): its code kept beside its words',
		endpoint: 'api',
		status: 400,
		body: { code: 'inventory.listings.invalidEvent', description: 'Event is not active' },
		createsId: 7001,
		want: {
			row: 'refused',
			outcome: 'notCreated',
			code: 'inventory.listings.invalidEvent',
			words: 'Event is not active',
		},
	},
	{
		name: 'a failure inside the listing service (500 systemError)',
		endpoint: 'api',
		status: 500,
		body: { code: 'inventory.listings.systemError', description: 'System error' },
		want: {
			row: 'serverError',
			outcome: 'unknown',
			retry: 'no',
			code: 'inventory.listings.systemError',
		},
	},
	{
		name: 'a 409 naming the External Listing ID (as before)',
		endpoint: 'api',
		status: 409,
		body: { message: 'externalListingId 7001 already exists' },
		createsId: 7001,
		want: { row: 'alreadyListed', outcome: 'alreadyListed' },
	},
	{
		name: 'a 409 about something else',
		endpoint: 'api',
		status: 409,
		body: { message: 'event closed' },
		createsId: 7001,
		want: { row: 'conflict', outcome: 'notCreated' },
	},
	// The service's documented statuses.
	{
		name: '401 "Invalid Access Token"',
		endpoint: 'api',
		status: 401,
		body: { message: 'Invalid Access Token' },
		want: { row: 'tokenRefused', outcome: 'notCreated', retry: 'renewToken' },
	},
	{
		name: '403 "resource forbidden" (the app lacks the API product)',
		endpoint: 'api',
		status: 403,
		body: { message: 'resource forbidden' },
		want: { row: 'noApiProduct', outcome: 'notCreated', retry: 'no' },
	},
	{
		name: '429 "too many requests" without a body naming a policy',
		endpoint: 'api',
		status: 429,
		body: { message: 'too many requests' },
		want: { row: 'tooManyRequests', outcome: 'notCreated', retry: 'rateLimit', stopsRun: false },
	},
	// A 429 is the plan's quota only by Apigee's code, or by its own fault opening with the policy's sentence.
	{
		name: 'a 429 of the service with a code of its own (a per-event limit) that mentions a quota',
		endpoint: 'api',
		status: 429,
		body: {
			code: 'inventory.listings.eventListingQuotaExceeded',
			description: 'Listing quota for this event exceeded, try again later',
		},
		want: { row: 'tooManyRequests', outcome: 'notCreated', retry: 'rateLimit', stopsRun: false },
	},
	{
		name: 'a 429 HTML page that mentions quotas',
		endpoint: 'api',
		status: 429,
		headers: { 'content-type': 'text/html' },
		body: '<html><body>Too many requests. See our quota policy.</body></html>',
		want: { row: 'tooManyRequests', retry: 'rateLimit', stopsRun: false },
	},
	{
		name: 'a 429 whose words name the daily quota, without a code or the gateway fault',
		endpoint: 'api',
		status: 429,
		body: { message: 'Too many requests: daily quota exceeded' },
		want: { row: 'tooManyRequests', retry: 'rateLimit', stopsRun: false },
	},
	{
		name: "the gateway's quota fault without an errorcode, answered 429",
		endpoint: 'api',
		status: 429,
		body: { fault: { faultstring: 'Rate limit quota violation. Quota limit exceeded.' } },
		want: { row: 'quota', stopsRun: true },
	},
	{
		name: "a 429 naming a spike arrest in words only, with another code: a 429, not the gateway's spike arrest",
		endpoint: 'api',
		status: 429,
		body: { code: 'rate', description: 'spike arrest: Allowed rate : 40ps' },
		want: { row: 'tooManyRequests', retry: 'rateLimit' },
	},
	// A 503 was not handled (RFC 9110): nothing created, paced and retried like a 429. 500, 502, 504 stay unknown.
	{
		name: 'a 503 maintenance page',
		endpoint: 'api',
		status: 503,
		headers: { 'content-type': 'text/html' },
		body: '<html><body>Down for maintenance</body></html>',
		want: { row: 'unavailable', outcome: 'notCreated', retry: 'rateLimit', stopsRun: false },
	},
	{
		name: "Apigee's ServiceUnavailable (503)",
		endpoint: 'api',
		status: 503,
		body: {
			fault: {
				faultstring: 'The Service is temporarily unavailable',
				detail: { errorcode: 'messaging.adaptors.http.flow.ServiceUnavailable' },
			},
		},
		want: { row: 'unavailable', outcome: 'notCreated', retry: 'rateLimit' },
	},
	...[500, 502, 504].map(
		(status): Case => ({
			name: `a ${status} page stays outcome unknown`,
			endpoint: 'api',
			status,
			headers: { 'content-type': 'text/html' },
			body: '<html>Gateway error</html>',
			want: { row: 'serverError', outcome: 'unknown', retry: 'no' },
		}),
	),
	// Apigee's own answers.
	{
		name: 'the plan quota, answered 429',
		endpoint: 'api',
		status: 429,
		body: QUOTA,
		want: { row: 'quota', outcome: 'notCreated', retry: 'no', stopsRun: true },
	},
	{
		name: "the plan quota, answered with Apigee's default 500",
		endpoint: 'api',
		status: 500,
		body: QUOTA,
		want: { row: 'quota', outcome: 'notCreated', retry: 'no', stopsRun: true },
	},
	{
		name: "a spike arrest, answered with Apigee's default 500",
		endpoint: 'api',
		status: 500,
		body: SPIKE,
		want: {
			row: 'spikeArrest',
			outcome: 'notCreated',
			retry: 'rateLimit',
			stopsRun: false,
			allowedPerSecond: 40,
			code: 'policies.ratelimit.SpikeArrestViolation',
			words: 'Spike arrest violation. Allowed rate : 40ps',
		},
	},
	{
		name: 'a spike arrest, answered 429',
		endpoint: 'api',
		status: 429,
		body: SPIKE,
		want: { row: 'spikeArrest', outcome: 'notCreated', retry: 'rateLimit', allowedPerSecond: 40 },
	},
	{
		name: 'an access token expired (gateway fault)',
		endpoint: 'api',
		status: 401,
		body: {
			fault: {
				faultstring: 'Access Token expired',
				detail: { errorcode: 'keymanagement.service.access_token_expired' },
			},
		},
		want: {
			row: 'tokenRefused',
			retry: 'renewToken',
			code: 'keymanagement.service.access_token_expired',
			words: 'Access Token expired',
		},
	},
	{
		name: 'an invalid access token (gateway fault)',
		endpoint: 'api',
		status: 401,
		body: {
			fault: {
				faultstring: 'Invalid access token',
				detail: { errorcode: 'keymanagement.service.invalid_access_token' },
			},
		},
		want: { row: 'tokenRefused', retry: 'renewToken' },
	},
	{
		// A 500 is never sent again, whatever code it carries: it may come from past the gateway.
		name: 'a 500 carrying the expired-token code',
		endpoint: 'api',
		status: 500,
		body: {
			fault: {
				faultstring: 'Access Token expired',
				detail: { errorcode: 'keymanagement.service.access_token_expired' },
			},
		},
		want: { row: 'serverError', outcome: 'unknown', retry: 'no' },
	},
	{
		name: 'no API product match (gateway fault)',
		endpoint: 'api',
		status: 403,
		body: {
			fault: {
				faultstring: 'Invalid API call as no apiproduct match found',
				detail: { errorcode: 'keymanagement.service.InvalidAPICallAsNoApiProductMatchFound' },
			},
		},
		want: {
			row: 'noApiProduct',
			outcome: 'notCreated',
			code: 'keymanagement.service.InvalidAPICallAsNoApiProductMatchFound',
			words: 'Invalid API call as no apiproduct match found',
		},
	},
	// Apigee's OAuthV2 errors at the token URL.
	{
		name: 'invalid_client "ClientId is Invalid" (401)',
		endpoint: 'token',
		status: 401,
		body: { ErrorCode: 'invalid_client', Error: 'ClientId is Invalid' },
		want: { row: 'invalidClient', code: 'invalid_client', words: 'ClientId is Invalid' },
	},
	{
		name: 'invalid_request "Invalid client id : … ClientId is Invalid" (400)',
		endpoint: 'token',
		status: 400,
		body: {
			ErrorCode: 'invalid_request',
			Error: 'Invalid client id : AbC. ClientId is Invalid',
		},
		want: { row: 'invalidClient' },
	},
	{
		name: 'unsupported_grant_type (400)',
		endpoint: 'token',
		status: 400,
		body: { ErrorCode: 'unsupported_grant_type', Error: 'Unsupported grant type : password' },
		want: { row: 'unsupportedGrantType', code: 'unsupported_grant_type' },
	},
	{
		name: "OAuth's invalid_grant (the marketplace login)",
		endpoint: 'token',
		status: 400,
		body: { error: 'invalid_grant', error_description: 'bad login' },
		want: { row: 'invalidGrant', code: 'invalid_grant', words: 'bad login' },
	},
	{
		name: 'the plan quota at the token URL (500)',
		endpoint: 'token',
		status: 500,
		body: QUOTA,
		want: { row: 'quota', stopsRun: true, retry: 'no' },
	},
	{
		name: 'a spike arrest at the token URL (500)',
		endpoint: 'token',
		status: 500,
		body: SPIKE,
		want: { row: 'spikeArrest', retry: 'rateLimit', stopsRun: false },
	},
	{
		name: 'a 401 with WWW-Authenticate: Basic and no body words',
		endpoint: 'token',
		status: 401,
		body: {},
		headers: { 'WWW-Authenticate': 'Basic realm="x"' },
		want: { row: 'invalidClient' },
	},
	{
		name: 'a 401 that names nothing',
		endpoint: 'token',
		status: 401,
		body: { message: 'Unauthorized' },
		want: { row: 'loginRefused' },
	},
];

describe('the answer table: every documented answer has its row', () => {
	it.each(CASES)('$name', ({ endpoint, status, body, headers, createsId, want }) => {
		const facts = readAnswer(status, headers ?? { 'content-type': 'application/json' }, body);
		const meaning = meaningOf(facts, { endpoint, path: LISTINGS, createsId });
		expect(meaning).toMatchObject(want);
	});

	it('reads a body that came as JSON text (a gateway answering text/plain)', () => {
		const facts = readAnswer(500, { 'content-type': 'text/plain' }, JSON.stringify(QUOTA));
		expect(meaningOf(facts, { endpoint: 'api', path: LISTINGS })?.row).toBe('quota');
	});

	it('reads a 2xx by its evidence, and a 3xx as a redirect', () => {
		const at = (status: number, evidence?: boolean) =>
			meaningOf({ ...readAnswer(status, {}, ''), evidence }, { endpoint: 'api', path: LISTINGS });
		expect(at(201)).toMatchObject({ row: 'created', outcome: 'created' });
		expect(at(202, false)).toMatchObject({ row: 'unconfirmed', outcome: 'unknown', retry: 'no' });
		expect(at(303)).toMatchObject({ row: 'seeOther', outcome: 'unknown' });
		expect(at(302)).toMatchObject({ row: 'seeOther', outcome: 'unknown', retry: 'no' });
		expect(at(307)).toMatchObject({ row: 'redirected', outcome: 'notCreated', retry: 'no' });
	});

	it('never keeps a secret in the words or the code', () => {
		const facts = readAnswer(
			400,
			{},
			{ code: 'bad s3cr3t-pw', description: 'password s3cr3t-pw refused' },
			['s3cr3t-pw'],
		);
		expect(JSON.stringify([facts.code, facts.words])).not.toContain('s3cr3t-pw');
	});
});

describe('the allowed rate of a spike arrest', () => {
	it.each([
		['Spike arrest violation. Allowed rate : 40ps', 40],
		['Spike arrest violation. Allowed rate : 10ps', 10],
		['Spike arrest violation. Allowed rate : 600pm', 10],
		['Spike arrest violation.', undefined],
		['Allowed rate : 0ps', undefined],
		[
			'Spike arrest violation. Allowed rate : MessageRate{messagesPerPeriod=300, periodInMicroseconds=60000000, maxBurstMessageCount=30.0}',
			5,
		],
		[
			'Spike arrest violation. Allowed rate : MessageRate{messagesPerPeriod=25, periodInMicroseconds=5000000, maxBurstMessageCount=1.0}',
			5,
		],
		['Allowed rate : MessageRate{messagesPerPeriod=25, periodInMicroseconds=0}', undefined],
	])('%s → %s per second', (words, rate) => {
		expect(allowedRateOf(words)).toBe(rate);
	});
});

describe('the words of the rows for users', () => {
	const meaningFor = (status: number, body: unknown, endpoint: Endpoint = 'api') =>
		meaningOf(readAnswer(status, {}, body), { endpoint, path: LISTINGS, createsId: 7001 })!;

	it('a quota names the plan, quotes the API and its code, and says to wait for the reset or upgrade', () => {
		const words = apiWords(meaningFor(429, QUOTA), {
			path: LISTINGS,
			status: 429,
			rateRefusals: 1,
		});
		expect(words.title).toBe(
			"Quota used up: the Partner API refused the request because your plan's quota is used up (HTTP 429)",
		);
		expect(words.advice).toContain(
			'The API said: "Rate limit quota violation. Quota limit exceeded. Identifier : _default" (code policies.ratelimit.QuotaViolation).',
		);
		expect(words.advice).toContain("upgrading your app's plan");
		expect(words.advice).toContain('once it has reset');
		expect(words.advice).toContain('Lowering Max Listings at Once does not help');
	});

	it('a missing API product says so, with the gateway words', () => {
		const words = apiWords(
			meaningFor(403, {
				fault: {
					faultstring: 'Invalid API call as no apiproduct match found',
					detail: { errorcode: 'keymanagement.service.InvalidAPICallAsNoApiProductMatchFound' },
				},
			}),
			{ path: LISTINGS, status: 403, rateRefusals: 0 },
		);
		expect(words.title).toBe(
			'Your app on the developer portal lacks the API product for this request (HTTP 403)',
		);
		expect(words.advice).toContain('"Invalid API call as no apiproduct match found"');
		expect(words.advice).toContain('add that API product to your app');
	});

	it('invalid_client at the token URL names the consumer key and secret and quotes Apigee', () => {
		const meaning = meaningFor(
			401,
			{ ErrorCode: 'invalid_client', Error: 'ClientId is Invalid' },
			'token',
		);
		const words = tokenWords(meaning, 401, 'https://x/sellers/oauth/accesstoken');
		expect(words.title).toBe(
			'Login refused: the token endpoint refused the consumer key and secret (HTTP 401)',
		);
		expect(words.advice).toContain('The API said: "ClientId is Invalid" (code invalid_client).');
		expect(words.advice).toContain('consumer key');
	});
});
