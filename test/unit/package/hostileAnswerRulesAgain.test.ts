/**
 * The newest answer rules (evidence of success, "already listed" by label or by an `externalListingId` field, the
 * systemError row, Pre-Deliver's reading of the tickets an answer lists, the redaction matchers) attacked again:
 * answers of a working service that the stricter rules now misread, and the defects they guard against reached by a
 * nearby spelling. Each test quotes the promise it checks; the last block keeps attacks that held.
 */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { execute as subscribe } from '../../../nodes/TicketMarketplace/actions/webhook/subscribe/execute';
import { PARTNER_API_PATHS } from '../../../nodes/shared/partnerApi/paths';
import {
	BASE,
	CALLBACK_CREDENTIALS,
	fakeRun,
	MemoryDeduplicationStore,
} from '../../../support/fakeN8n/actionContext';
import { fileItem, pdfBytes } from '../../../support/fakeN8n/binaryItems';
import { answeredThenRunAgain, JSON_TYPE, statusOf, token } from '../../../support/createRuns';
import { grantTokens } from '../../../support/partnerApiNock';
import { acceptUploads, run as preDeliver } from '../../../support/preDeliverRuns';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const statuses = (out: INodeExecutionData[]) => out.map((item) => item.json.status);
const gaTicket = (listing = '9001') =>
	fileItem({ listing, ga: true, row: '', seat: '' }, pdfBytes(`ga-${listing}`), 'ga.pdf');
const seated = (row: string, seat: string, listing = '9001') =>
	fileItem({ listing, row, seat }, pdfBytes(`${row}${seat}`), `${row}${seat}.pdf`);

describe('lost: "already listed" read from an echoed externalListingId beside words about something else', () => {
	// docs/listing-create.md: "*Already listed*: a 400 or 409 that says the listing already exists and gives this
	// listing's External Listing ID by a label ... or in a field of its own (`"externalListingId": 12`)"; "neither is an
	// answer that names another ID or something else ...: a refusal, not created, not remembered". A service that
	// echoes the request's externalListingId in every error gives the ID; the words must still say the listing exists.
	it.each([
		[
			'a replay guard',
			409,
			{ description: 'Duplicate request, retry later', externalListingId: 7 },
		],
		[
			"MySQL's duplicate seat key",
			400,
			{
				message: "Duplicate entry '55-A-1' for key 'event_row_seat_unique'",
				externalListingId: 7,
			},
		],
	])(
		'%s echoing externalListingId 7 is not "already listed": listing 7 is sent again',
		async (_n, status, body) => {
			const { first, second, sentAgain } = await answeredThenRunAgain(7, [status, body]);
			// Remembered as already listed, listing 7 is skipped by every later run: nothing ever created it.
			expect(first.listingStatus).not.toBe('alreadyListed');
			expect(sentAgain).toEqual([7]);
			expect(second.listingStatus).toBe('created');
		},
	);
});

describe('refused although the marketplace holds the listing (regressions of the ID labels)', () => {
	// docs/listing-create.md: "*Already listed*: a 400 or 409 that says the listing already exists and gives this
	// listing's External Listing ID by a label (`Listing 12`, `External Listing ID: 12`, ..., `external_listing_id)=(12)`,
	// ..., `ID 12`, `#12`) and as a whole". Each of these was already listed before the labels were narrowed: a unique
	// key, and the label put before its verb.
	it.each([
		[
			'External listing ID already exists: 7',
			400,
			{ description: 'External listing ID already exists: 7' },
		],
		['Listing already exists: 7', 400, { description: 'Listing already exists: 7' }],
		['Duplicate ID 7', 409, { message: 'Duplicate ID 7' }],
		[
			'Listing already exists under ID 7',
			400,
			{ description: 'Listing already exists under ID 7' },
		],
	])('"%s" is already listed, not a refusal', async (_n, status, body) => {
		const { first } = await answeredThenRunAgain(7, [status, body]);
		// Called refused, the user is told nothing was created and to fix and resend: a new ID lists the seats twice.
		expect(first.listingStatus).toBe('alreadyListed');
	});
});

describe('created listings read as outcome unknown (regressions of the evidence rules)', () => {
	// docs/listing-create.md, "An answer that reports an error": at any depth, only "a `status` or `state` that says it
	// failed"; `result` and `outcome` only "At the answer's own level"; and there only "a `status`, `state`, `result`,
	// `outcome` or `message`" with those words (no `detail`). Each of these was created before the rules widened.
	it.each([
		[
			"a duplicate check's result: false (no duplicate)",
			{ id: 'L-1', status: 'ACTIVE', duplicateCheck: { result: false } },
		],
		[
			"a price check's result: 0 (no warnings)",
			{ id: 'L-1', status: 'ACTIVE', priceCheck: { result: 0, warnings: [] } },
		],
		[
			'450 standing tickets counted by status',
			{ id: 'L-1', status: 'ACTIVE', ticketStatusCounts: { AVAILABLE: 450, SOLD: 0 } },
		],
		[
			'a detail saying the PDFs are not uploaded yet',
			{ id: 'L-1', status: 'INCOMPLETE', detail: 'Listing saved; tickets not uploaded yet' },
		],
		[
			"the market's price trend",
			{ id: 'L-1', status: 'ACTIVE', market: { priceState: 'DECLINING' } },
		],
	])('a 201 with %s is created', async (_n, body) => {
		// Called unknown, the run stops (without Continue) and the listing goes to the error output as maybe created.
		expect(await statusOf(201, body)).toBe('created');
	});
});

describe('lost: a refusal wrapped in a 200 under another status name, called created', () => {
	// docs/listing-create.md: a listing is *created* only when the answer "reports no error"; at the answer's own level a
	// status "saying ... bad request" reports one. The rules read other status names (`listingStatus`, `statusCode`) too,
	// but only with the narrow words: a proxy answering 200 with the upstream's `httpStatus` (Spring's HttpStatus names)
	// is read as created, remembered, and skipped by every later run although nothing was listed.
	it.each([
		['BAD_REQUEST', { httpStatus: 'BAD_REQUEST', reason: 'Event 55 is not on sale' }],
		['SERVICE_UNAVAILABLE', { httpStatus: 'SERVICE_UNAVAILABLE', reason: 'Try again later' }],
	])('a 200 whose httpStatus is %s is not "created"', async (_n, body) => {
		expect(await statusOf(200, body)).not.toBe('created');
	});
});

describe('lost: Pre-Deliver reads a ticket it did not carry as the one it carried', () => {
	// docs/listing-pre-deliver.md, `delivered`: "none of those this upload carried (by row and seat, or by the name of
	// its part, `file1.pdf`) may have a status that says it failed or was not delivered ...; the listing's other tickets
	// may." All General Admission tickets are row GA, seat GA: the listing's other GA ticket, still waiting for its PDF,
	// is read as the one this upload carried (named by its part too). "While one of its tickets has an upload of unknown
	// outcome, no later run uploads the listing": the other ticket's PDF is never sent.
	it('a GA listing: one GA ticket delivered, the other still waiting, is delivered', async () => {
		grantTokens(token());
		acceptUploads(200, {
			listingId: 9001,
			products: [
				{ row: 'GA', seat: 'GA', name: 'file1.pdf', status: 'DELIVERED' },
				{ row: 'GA', seat: 'GA', status: 'NOT_DELIVERED' },
			],
		});
		const out = await preDeliver([gaTicket()], { continueOnFail: true }).output();
		expect(statuses(out)).toEqual(['delivered']);
	});

	// The same promise ("the listing's other tickets may" wait), against the page's other line that an own-level
	// `delivered: false` reports an error: the marketplace marks a listing pre-delivered "once *every* ticket of it has
	// its PDF", so a listing half uploaded says `delivered: false` of itself while its carried ticket is DELIVERED.
	it('the first half of a listing, the listing itself not yet delivered: the next run uploads the second half', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens(token(), 2);
		acceptUploads(
			200,
			{
				listingId: 9001,
				delivered: false,
				products: [
					{ row: 'A', seat: '1', status: 'DELIVERED' },
					{ row: 'A', seat: '2', status: 'NOT_DELIVERED' },
				],
			},
			undefined,
			1,
		);
		const first = await preDeliver([seated('A', '1')], {
			continueOnFail: true,
			deduplication: store,
		}).output();
		const again = acceptUploads();
		const rerun = await preDeliver([seated('A', '2')], {
			continueOnFail: true,
			deduplication: store,
		}).output();
		expect({ first: statuses(first), rerun: statuses(rerun), uploads: again.length }).toEqual({
			first: ['delivered'],
			rerun: ['delivered'],
			uploads: 1,
		});
	});
});

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
		parameters: {
			callbackUrl: 'https://n8n.example.test/webhook/abc/notifications',
			callbackAuthUrl: 'https://n8n.example.test/webhook/abc/token',
			subscriptionKinds: ['listing_sale'],
			options: {},
		},
		items,
		callbackCredentials: CALLBACK_CREDENTIALS,
	});
	const output = await subscribe.call(fake.context, items);
	expect(sentBody).toContain(CALLBACK_CREDENTIALS.clientSecret);
	return (output[0].json.response as IDataObject).received;
}

describe('a secret in an output: hex spelt in byte pairs', () => {
	// docs/listing-create.md (Subscribe's outputs keep the same promise): secrets are replaced "in hex, or as a list of
	// its bytes". A hex dump (`xxd -g1`, `hexdump -C`, Wireshark, Node's `<Buffer 63 61 …>`) puts a space or a colon
	// between the bytes.
	it.each([
		['spaces', ' '],
		['colons', ':'],
	])(
		'a 201 echoing the body as hex bytes separated by %s shows no client secret',
		async (_n, gap) => {
			const received = await subscribeEchoing((sent) =>
				Buffer.from(sent).toString('hex').match(/../g)!.join(gap),
			);
			const hex = String(received).split(gap).join('');
			expect(Buffer.from(hex, 'hex').toString('utf8')).not.toContain(
				CALLBACK_CREDENTIALS.clientSecret,
			);
		},
	);
});

describe('held: attacks that the rules withstood', () => {
	// The brief's ordinary fields of a created listing (real-service.md: "A created listing comes back with an `id` and
	// a `status`"), none of them an error.
	it.each([
		[
			'ordinary listing fields',
			{
				id: 'L-1',
				status: 'INCOMPLETE',
				splitOption: 'NONE',
				deliveryOption: 'PDF',
				ticketTraits: [{ id: 101, name: 'Restricted view', type: 'Disclosure' }],
				internalNotes: 'failed to print last time, refused at the door; errors fixed',
				inhandDate: '2026-12-01',
				statusReason: null,
				deliveryStatus: 'PENDING',
				lastUpdatedStatus: '2026-11-29T17:06:40.450Z',
			},
		],
		[
			'nested seller and event objects with words',
			{
				id: 'L-1',
				status: 'ACTIVE',
				seller: { id: 42, status: 'ACTIVE', message: 'Payout details invalid, update them' },
				event: {
					id: 55,
					name: 'Rage Against The Machine',
					status: 'ON_SALE',
					venue: { name: 'Declan Hall', state: 'NY' },
				},
			},
		],
		[
			'zero counts and empty error lists',
			{ id: 'L-1', failedAttempts: 0, rejectedAt: null, errors: [], hasErrors: false },
		],
	])('held: a 201 with %s is created', async (_n, body) => {
		expect(await statusOf(201, body)).toBe('created');
	});

	// docs/listing-create.md: "*Refused*: any other 4xx is *not created* and forgotten"; only "one carrying the
	// service's `systemError` code" is *outcome unknown*. The gateway's own 403 carries none: the serverError row, moved
	// before the 4xx rows, leaves it a refusal.
	it("held: the gateway's 403 (no API product) is refused and forgotten, so the next run sends it", async () => {
		const { first, sentAgain } = await answeredThenRunAgain(1, [
			403,
			{
				fault: {
					faultstring: 'Invalid API call as no apiproduct match found',
					detail: { errorcode: 'keymanagement.service.InvalidAPICallAsNoApiProductMatchFound' },
				},
			},
		]);
		expect(first.listingStatus).toBe('failed');
		expect(sentAgain).toEqual([1]);
	});

	it('held: a 201 echoing the body as hex bytes in one line shows no client secret', async () => {
		const received = await subscribeEchoing((sent) => Buffer.from(sent).toString('hex'));
		expect(Buffer.from(String(received), 'hex').toString('utf8')).not.toContain(
			CALLBACK_CREDENTIALS.clientSecret,
		);
	});
});
