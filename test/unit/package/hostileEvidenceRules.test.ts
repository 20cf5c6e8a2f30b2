/**
 * The rules for evidence, "already listed" and redaction, attacked both ways: answers of a real, working service that
 * a stricter rule could misread, and the defects they guard against reached by a nearby spelling. Each test quotes
 * the promise it checks; the last block keeps attacks that held.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute as subscribe } from '../../../nodes/TicketMarketplace/actions/webhook/subscribe/execute';
import { issueAccessToken } from '../../../nodes/TicketMarketplaceTrigger/accessToken';
import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';
import {
	API_CREDENTIALS,
	BASE,
	CALLBACK_CREDENTIALS,
	fakeRun,
	MemoryDeduplicationStore,
	oneSeatListings,
} from '../../../support/fakeN8n/actionContext';
import { fileItem, pdfBytes } from '../../../support/fakeN8n/binaryItems';
import { runRecorded } from '../../../support/fakeN8n/recordingResponse';
import { TEST_TRIGGER, type TriggerSetup } from '../../../support/fakeN8n/triggerContext';
import {
	answeredThenRunAgain,
	JSON_TYPE,
	runCreate,
	statusOf,
	token,
} from '../../../support/createRuns';
import { answerListings, grantTokens } from '../../../support/partnerApiNock';
import { acceptUploads, run as preDeliver } from '../../../support/preDeliverRuns';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const SUBSCRIBE_PARAMETERS = {
	callbackUrl: 'https://n8n.example.test/webhook/abc/notifications',
	callbackAuthUrl: 'https://n8n.example.test/webhook/abc/token',
	subscriptionKinds: ['listing_sale'],
	options: {},
};

describe('lost: "already listed" read into a label that names another thing', () => {
	// docs/listing-create.md: "A bare number is not an ID: it may be a count, seconds or an event (`2 listings already
	// exist`, `retry in 2 seconds`, `event 7`, ...), and such an answer is a refusal"; "neither is an answer that names
	// another ID or something else (a closed event, say): a refusal, not created, not remembered."
	it.each([
		['event ID 7', 'A listing already exists for event ID 7'],
		['event_id: 7', 'A listing already exists for event_id: 7'],
		['event #7', 'A listing already exists for event #7'],
		['seller ID 7', 'A listing already exists for seller ID 7 at this event'],
	])(
		'"%s" in a 400 names the event or seller, not listing 7: refused, sent again',
		async (_name, description) => {
			const { first, second, sentAgain } = await answeredThenRunAgain(7, [400, { description }]);
			// Remembered as already listed, listing 7 is skipped by every later run: nothing ever created it.
			expect(first.listingStatus).not.toBe('alreadyListed');
			expect(sentAgain).toEqual([7]);
			expect(second.listingStatus).toBe('created');
		},
	);

	// The same promise: "retry in 2 seconds" is fixed; a replay guard that numbers the request is the same answer.
	it.each([['Duplicate request #2, retry later'], ['Duplicate request ID 2 detected']])(
		'a 409 "%s" to listing 2 is about a request, not listing 2',
		async (message) => {
			const { first, sentAgain } = await answeredThenRunAgain(2, [409, { message }]);
			expect(first.listingStatus).not.toBe('alreadyListed');
			expect(sentAgain).toEqual([2]);
		},
	);
});

describe('lost: a seat refusal read as "already listed" when its nested code is spelt otherwise', () => {
	// docs/listing-create.md: "the code's field in any letter case, with or without `_` or `-` (`Code`, `error_code`);
	// a code under `error` or in a list of `errors` counts too"; "A refusal of a seat that exists already
	// (`inventory.listings.duplicateSectionRowSeat`) is never *already listed*, whatever its description names".
	it.each([
		[
			'errors[].Code',
			{
				errors: [
					{
						Code: 'inventory.listings.duplicateSectionRowSeat',
						message: 'Listing 7 already exists',
					},
				],
			},
		],
		[
			'error.error_code',
			{
				error: {
					error_code: 'inventory.listings.duplicateSectionRowSeat',
					message: 'Listing 7 already exists',
				},
			},
		],
	])(
		'a duplicateSectionRowSeat under %s leaves listing 7 to be sent again',
		async (_name, body) => {
			const { first, sentAgain } = await answeredThenRunAgain(7, [400, body]);
			expect(first.listingStatus).toBe('failed');
			expect(sentAgain).toEqual([7]);
		},
	);
});

describe("sent again: the service's systemError read as a refusal", () => {
	// README.md: outcome unknown is "a server error such as `inventory.listings.systemError`, whatever its status";
	// "The next run skips it as *unknown*".
	it.each([[409], [404], [403], [413], [401]])(
		'a %i carrying inventory.listings.systemError is outcome unknown, not sent again',
		async (status) => {
			const { first, sentAgain } = await answeredThenRunAgain(1, [
				status,
				{ code: 'inventory.listings.systemError', description: 'Internal error' },
			]);
			// Forgotten as refused, the next run sends it again: if the failing service saved it, it is listed twice.
			expect(first.listingStatus).toBe('unknown');
			expect(sentAgain).toEqual([]);
		},
	);

	// Same promise; a 429 is paced and sent again within the run.
	it.each([[429]])(
		'a %i carrying inventory.listings.systemError is sent once',
		async (status) => {
			grantTokens(token(), 2);
			const received = answerListings((count) =>
				count === 1
					? [
							status,
							{ code: 'inventory.listings.systemError', description: 'Internal error' },
							JSON_TYPE,
						]
					: [201, { id: 'L-1' }, JSON_TYPE],
			);
			const { items, parameters } = oneSeatListings([1], { output: 'row' });
			const out = await runCreate(items, parameters);
			expect(received).toEqual([1]);
			expect(out[0].json.listingStatus).toBe('unknown');
		},
		30_000,
	);

	// docs/listing-create.md: "the code's field in any letter case, with or without `_` or `-`; a code under `error`
	// or in a list of `errors` counts too, and `duplicate_external_listing_id` reads as `duplicateExternalListingId`";
	// "one carrying the service's `systemError` code (`inventory.listings.systemError`) is *outcome unknown*".
	it.each([
		['system_error', { code: 'inventory.listings.system_error', description: 'Internal error' }],
		[
			'error.Code',
			{ error: { Code: 'inventory.listings.systemError', message: 'Internal error' } },
		],
		[
			'errors[].Code',
			{ errors: [{ Code: 'inventory.listings.systemError', message: 'Internal error' }] },
		],
	])(
		'a 400 whose systemError is given as %s is outcome unknown, not sent again',
		async (_n, body) => {
			const { first, sentAgain } = await answeredThenRunAgain(1, [400, body]);
			expect(first.listingStatus).toBe('unknown');
			expect(sentAgain).toEqual([]);
		},
	);
});

describe('lost: a Pre-deliver answer that says the carried ticket was not delivered, spelt otherwise', () => {
	const seated = (row: string, seat: string) =>
		fileItem(
			{ listing: '9001', row, seat },
			pdfBytes(`${row}${seat}`),
			`${row}${seat}.pdf`,
			'data',
		);
	// docs/listing-pre-deliver.md, `delivered`: "Where the answer lists `products` or `tickets`, none of those this
	// upload carried (by row and seat, or by the name of its part, `file1.pdf`) may have a status that says it failed
	// or was not delivered, or a `delivered` that is `false`"; the answer's fields are read "in any letter case".
	it.each([
		['Row/Seat/Status', { products: [{ Row: 'A', Seat: '1', Status: 'NOT_DELIVERED' }] }],
		['Name/Delivered', { products: [{ Name: 'file1.pdf', Delivered: false }] }],
		[
			'row/seat as null, its part',
			{ products: [{ row: null, seat: null, name: 'file1.pdf', delivered: false }] },
		],
		['deliveryStatus', { products: [{ row: 'A', seat: '1', deliveryStatus: 'NOT_DELIVERED' }] }],
	])(
		'a 200 naming the carried ticket by %s as not delivered is not delivered',
		async (_n, answer) => {
			const store = new MemoryDeduplicationStore();
			grantTokens(token(), 2);
			acceptUploads(200, answer, undefined, 1);
			const first = await preDeliver([seated('A', '1')], {
				continueOnFail: true,
				deduplication: store,
			}).output();
			const again = acceptUploads();
			const rerun = await preDeliver([seated('A', '1')], {
				continueOnFail: true,
				deduplication: store,
			}).output();
			// Called delivered, the listing is skipped by every later run: its ticket never gets its PDF.
			expect(first[0].json.status).not.toBe('delivered');
			expect({ rerun: rerun[0].json.status, sentAgain: again.length }).not.toEqual({
				rerun: 'skipped',
				sentAgain: 0,
			});
		},
	);
});

describe('a secret in an output: the byte and hex echoes, spelt otherwise', () => {
	/** Subscribe over one item, its POST answered 201 with what `echo` makes of the body it was sent. */
	async function subscribeEchoing(echo: (sent: string) => unknown) {
		nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: token() });
		let sentBody = '';
		nock(BASE)
			.post(PARTNER_API_PATHS.webhooks)
			.reply((_path, body) => {
				sentBody = JSON.stringify(body);
				return [201, { id: 'sub-1', received: echo(sentBody) }, JSON_TYPE];
			});
		const items = [{ json: {} }];
		const fake = fakeRun({
			parameters: SUBSCRIBE_PARAMETERS,
			items,
			callbackCredentials: CALLBACK_CREDENTIALS,
		});
		const output = await subscribe.call(fake.context, items);
		expect(sentBody).toContain(CALLBACK_CREDENTIALS.clientSecret);
		return (output[0].json.response as IDataObject).received;
	}

	// docs/listing-create.md (the same promise Subscribe's outputs keep): secrets are replaced "in hex, or as a list of
	// its bytes (a Node Buffer echoed as JSON)". A Uint8Array (TextEncoder's) echoed as JSON is an object of its bytes.
	it('a 201 echoing the body as a JSON Uint8Array shows no client secret', async () => {
		const received = await subscribeEchoing(
			(sent) => JSON.parse(JSON.stringify(new TextEncoder().encode(sent))) as IDataObject,
		);
		const bytes = Object.values(received as Record<string, number>);
		expect(Buffer.from(bytes).toString('utf8')).not.toContain(CALLBACK_CREDENTIALS.clientSecret);
	});

	// `xxd -p` and hexdump tools wrap hex in lines, as MIME wraps base64 (which is redacted wrapped).
	it('a 201 echoing the body as hex wrapped in lines of 60 shows no client secret', async () => {
		const received = await subscribeEchoing((sent) =>
			Buffer.from(sent)
				.toString('hex')
				.replace(/(.{60})/g, '$1\n'),
		);
		const hex = String(received).replace(/\n/g, '');
		expect(Buffer.from(hex, 'hex').toString('utf8')).not.toContain(
			CALLBACK_CREDENTIALS.clientSecret,
		);
	});
});

describe('created without evidence: the error shapes the fixes read, spelt otherwise', () => {
	// docs/listing-create.md, "An answer that reports an error": "a `code` (text or number) beside a `description` or
	// `message`: the service's error shape", read in "any letter case" as the table reads the code (`Code`).
	it.each([
		['Code/Description', { Code: 'inventory.listings.systemError', Description: 'Internal error' }],
		[
			'data.Code',
			{ data: { Code: 'inventory.listings.invalidEvent', Description: 'Event is not active' } },
		],
	])('a 200 with the service\'s error as %s is not "created"', async (_n, body) => {
		expect(await statusOf(200, body)).toBe('unknown');
	});

	// "a `created`, `subscribed`, `accepted`, `delivered` or `uploaded` that is `false`", as `success` is read as
	// `isSuccess` too; "a `status` or `state` that says it failed ... or an HTTP error number from 400 to 599"; "a
	// `status`, `state`, `result`, `outcome` or `message` with a word starting fail".
	it.each([
		['isCreated: false', { id: 'L-1', isCreated: false }],
		['wasCreated: false', { id: 'L-1', wasCreated: false }],
		['statusCode: 500', { id: 'L-1', statusCode: 500 }],
		['statusText: FAILED', { statusText: 'FAILED' }],
		['listingStatus: FAILED', { id: 'L-1', listingStatus: 'FAILED' }],
		['detail: ... failed', { detail: 'Listing creation failed: event is not on sale' }],
		['result: false', { result: false, reason: 'event is not on sale' }],
	])('a 201 with %s is not "created"', async (_n, body) => {
		expect(await statusOf(201, body)).toBe('unknown');
	});
});

describe('refused although the marketplace holds the listing (regressions)', () => {
	// docs/listing-create.md: "*Already listed*: a 400 or 409 that says the listing already exists and gives this
	// listing's External Listing ID by a label (`Listing 12`, `External Listing ID: 12`, `externalListingId="12"`, ...)
	// and as a whole". README.md: "Where the API gives a code, the code decides". These did so before the fix: a Java
	// service's `[7]`, a database's unique violation passed through, plain English "an ID of 7".
	it.each([
		[
			'externalListingId [7] (with its code)',
			400,
			{
				code: 'inventory.listings.duplicateExternalListingId',
				description: 'Listing with externalListingId [7] already exists',
			},
		],
		['External listing ID (7)', 400, { description: 'External listing ID (7) already exists' }],
		[
			'an external listing ID of 7',
			400,
			{ description: 'A listing with an external listing ID of 7 already exists' },
		],
		[
			'Key (external_listing_id)=(7)',
			409,
			{
				message:
					'duplicate key value violates unique constraint "listings_external_listing_id_key": Key (external_listing_id)=(7) already exists.',
			},
		],
		[
			'Code/Description (capitalised)',
			400,
			{
				Code: 'inventory.listings.duplicateExternalListingId',
				Description: 'Listing 7 already exists',
			},
		],
		[
			'its ID in a field beside the code',
			400,
			{
				code: 'inventory.listings.duplicateExternalListingId',
				description: 'A listing with this external listing ID already exists',
				externalListingId: 7,
			},
		],
	])('"%s" is already listed, not a refusal', async (_n, status, body) => {
		const { first } = await answeredThenRunAgain(7, [status, body]);
		// Called refused, the user is told nothing was created and to fix and resend: a new ID lists the seats twice.
		expect(first.listingStatus).toBe('alreadyListed');
	});
});

describe('created listings read as outcome unknown (regressions)', () => {
	// docs/listing-create.md: created is a 200 or 201 JSON object that reports no error; a message reports one with "a
	// word starting fail, error, ... unavailable, or saying could not, cannot, bad request, or not found, ..." (no
	// "cant"); a status with "an HTTP error number from 400 to 599, alone or in words (`"400 BAD_REQUEST"`)": a clock's
	// milliseconds or a price is no HTTP error number.
	it.each([
		[
			'a message naming Bach Cantatas',
			{ id: 'L-1', message: 'Listing created for Bach Cantatas, row E' },
		],
		[
			'a message naming Canterbury',
			{ id: 'L-1', message: 'Listing created: Canterbury Cathedral' },
		],
		[
			'a status object with its time',
			{ id: 'L-1', status: { code: 'ACTIVE', updatedAt: '2026-11-29T17:06:40.450Z' } },
		],
		['a state with its time', { id: 'L-1', state: 'ACTIVE since 2026-11-29 17:06:40.512' }],
		[
			'a ticket status with its price',
			{
				id: 'L-1',
				status: 'ACTIVE',
				tickets: [{ row: 'A', seat: '1', status: 'LISTED at 450.00 EUR' }],
			},
		],
	])('a 201 with %s is created', async (_n, body) => {
		expect(await statusOf(201, body)).toBe('created');
	});
});

describe('a Pre-deliver upload delivered, read as not (regression)', () => {
	// docs/listing-pre-deliver.md: `delivered` when none of the carried tickets "may have a status that says it failed
	// or was not delivered"; the service's own "DELIVERED", stamped with the time it was, says it was.
	it('a 200 whose carried ticket is DELIVERED with its time is delivered', async () => {
		grantTokens(token());
		acceptUploads(200, {
			products: [
				{ row: 'A', seat: '1', status: { code: 'DELIVERED', at: '2026-11-29T17:06:40.450Z' } },
			],
		});
		const item = fileItem(
			{ listing: '9001', row: 'A', seat: '1' },
			pdfBytes('A1'),
			'A1.pdf',
			'data',
		);
		const out = await preDeliver([item], { continueOnFail: true }).output();
		expect(out[0].json.status).toBe('delivered');
	});
});

describe('Subscribe kinds (regression)', () => {
	// docs/subscribe.md: kinds come from Subscription Kinds; a list mapped by an expression that nests the kinds one
	// level deeper (`{{ [$json.kinds] }}`) was sent as its text before the fix and is refused now.
	it('a kind list nested once more ([["listing_sale"]]) still subscribes listing_sale', async () => {
		nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: token() });
		const posted: IDataObject[] = [];
		nock(BASE)
			.post(PARTNER_API_PATHS.webhooks)
			.optionally()
			.reply((_path, body) => {
				posted.push(body as IDataObject);
				return [201, { id: 'sub-1' }, JSON_TYPE];
			});
		const items = [{ json: {} }];
		const fake = fakeRun({
			parameters: { ...SUBSCRIBE_PARAMETERS, subscriptionKinds: () => [['listing_sale']] },
			items,
			callbackCredentials: CALLBACK_CREDENTIALS,
		});
		await subscribe.call(fake.context, items).catch(() => undefined);
		expect(posted.map((body) => (body.subscription as IDataObject).listing)).toEqual([
			['listing_sale'],
		]);
	});
});

const subject = {
	audience: TEST_TRIGGER.webhookId,
	clientId: TEST_TRIGGER.clientId,
	clientSecret: TEST_TRIGGER.clientSecret,
};
let setups = 0;
const freshSetup = (over: Partial<TriggerSetup> = {}): TriggerSetup => ({
	...TEST_TRIGGER.setup,
	credentialId: `r4fix-${++setups}`,
	...over,
});

describe('held: attacks that the fixes withstood', () => {
	// The service's created listing (real-service.md: "`ACTIVE`, but also `INCOMPLETE`, `PENDING_LOCK` or
	// `PENDING_PDF_REVIEW` ... It is still created").
	it.each([
		['ACTIVE', { id: 'L-1', status: 'ACTIVE' }],
		[
			'INCOMPLETE with tickets NOT_DELIVERED',
			{
				id: 'L-1',
				status: 'INCOMPLETE',
				tickets: [{ row: 'A', seat: '1', status: 'NOT_DELIVERED', delivered: false }],
			},
		],
		['PENDING_PDF_REVIEW', { id: 'L-1', status: 'PENDING_PDF_REVIEW', message: 'Listing created' }],
		[
			'PENDING_LOCK with a description',
			{
				listing: { id: 'L-1', status: 'PENDING_LOCK', description: 'Two seats, row A' },
			},
		],
		['a deliveryMethod and a 2xx status number', { id: 'L-1', deliveryMethod: 'PDF', status: 201 }],
	])('held: a 201 %s is created', async (_n, body) => {
		expect(await statusOf(201, body)).toBe('created');
	});

	it.each([
		[
			'Listing 7 already exists (with its code)',
			{
				code: 'inventory.listings.duplicateExternalListingId',
				description: 'Listing 7 already exists',
			},
		],
		['External Listing ID: 7', { description: 'External Listing ID: 7 already exists' }],
		[
			'externalListingId="7"',
			{ description: 'A listing with externalListingId="7" already exists' },
		],
	])('held: a 400 "%s" is already listed', async (_n, body) => {
		const { first, sentAgain } = await answeredThenRunAgain(7, [400, body]);
		expect(first.listingStatus).toBe('alreadyListed');
		expect(sentAgain).toEqual([]);
	});

	it('held: a 1 MB created answer echoing three secrets shows none and keeps its data', async () => {
		grantTokens('tok-r4fix-secret-0001');
		const filler = 'Row A seat 49, 50, 51, 52; price 49.90 EUR. '.repeat(24_000);
		answerListings(() => [
			201,
			{
				id: 'L-1',
				note: `${API_CREDENTIALS.consumerSecret} ${filler} ${API_CREDENTIALS.password}`,
				hex: Buffer.from(API_CREDENTIALS.consumerSecret).toString('hex'),
				token: Buffer.from('tok-r4fix-secret-0001')
					.toString('base64')
					.replace(/(.{8})/g, '$1\n'),
				seats: [49, 50, 51, 52],
			},
			JSON_TYPE,
		]);
		const { items, parameters } = oneSeatListings([1], { output: 'row' });
		const out = await runCreate(items, parameters);
		const text = JSON.stringify(out);
		expect(out[0].json.listingStatus).toBe('created');
		for (const secret of [API_CREDENTIALS.consumerSecret, API_CREDENTIALS.password])
			expect(text).not.toContain(secret);
		expect(text).not.toContain(Buffer.from(API_CREDENTIALS.consumerSecret).toString('hex'));
		expect(text).toContain('price 49.90 EUR');
		expect(text).toContain('[49,50,51,52]');
	});

	it('held: Include Request Headers keeps ordinary headers and drops one holding the token', async () => {
		const accessToken = issueAccessToken(subject, 600);
		const setup = freshSetup({ parameters: { options: { includeHeaders: true } } });
		const { result } = await runRecorded(setup, 'default', {
			headers: {
				authorization: `Bearer ${accessToken}`,
				'content-type': 'application/json',
				cookie: `session=1; access_token=${accessToken}`,
				'x-request-id': 'req-42',
				'x-marketplace-signature': 'sig-abc',
				'user-agent': 'Marketplace-Webhooks/3',
			},
			body: { eventType: 'listing_sale', listingId: 1 },
		});
		const text = JSON.stringify(result.workflowData);
		expect(text).not.toContain(accessToken);
		for (const kept of ['req-42', 'sig-abc', 'Marketplace-Webhooks/3'])
			expect(text).toContain(kept);
	});
});
