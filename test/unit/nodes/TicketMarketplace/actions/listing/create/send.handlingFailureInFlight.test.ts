/**
 * "An unexpected failure while handling one listing becomes that listing's outcome (unknown), and the others, the
 * memory and the summary still get their turn" (docs/listing-create.md), also when it is thrown between the pacer's
 * slot and its release (here: a 201 whose externalListingId cannot be turned into text, which the created evidence
 * reads): a slot left taken, or a token renewal left under way, would keep the other listings waiting forever.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import * as evidence from '../../../../../../../nodes/shared/partnerApi/evidence';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import {
	BASE,
	fakeRun,
	idsUpTo,
	MemoryDeduplicationStore,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';

/** JSON whose externalListingId is an object with no usable toString: String() of it throws a TypeError. */
const UNPRINTABLE_ID = '{"id": "L-1", "externalListingId": {"toString": null}}';
const JSON_TYPE = { 'Content-Type': 'application/json' };
const HANG_MS = 3000;

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
	nock.cleanAll();
	jest.restoreAllMocks();
});

const idOf = (body: unknown) => Number((body as IDataObject).externalListingId);

type Answer = (id: number, token: string) => nock.ReplyFnResult;

/**
 * Grants a token, answers each listing request by `answer`, and runs Create over `count` one-seat listings at `pace`:
 * the run's outputs (or what it threw, or 'never ended') and each request's [External Listing ID, token].
 */
async function runAgainst(
	answer: Answer,
	count: number,
	pace: IDataObject,
	run: { accessToken?: string; continueOnFail?: boolean } = {},
) {
	nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: 'tok-r4-0001' });
	const sent: Array<[number, string]> = [];
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(10)
		.delay(0)
		.reply(function (_uri, body) {
			const token = String(this.req.headers.authorization).replace('Bearer ', '');
			sent.push([idOf(body), token]);
			return answer(idOf(body), token);
		});
	const { items, parameters } = oneSeatListings(idsUpTo(count), pace);
	const deduplication = new MemoryDeduplicationStore();
	const fake = fakeRun({ parameters, items, deduplication, ...run });
	return { outcome: await settled(execute.call(fake.context, items)), sent };
}

/** The run's outputs, or 'never ended' when it has not settled after HANG_MS. */
async function settled(run: Promise<unknown>): Promise<unknown> {
	let timer: NodeJS.Timeout | undefined;
	const hang = new Promise(
		(resolve) => (timer = setTimeout(() => resolve('never ended'), HANG_MS)),
	);
	try {
		return await Promise.race([
			run.then(
				(items) => (items as Array<{ json: IDataObject }>).map((item) => item.json),
				(error: Error) => ({ thrown: error.message }),
			),
			hang,
		]);
	} finally {
		clearTimeout(timer);
	}
}

describe('a failure in handling a listing after its request has its slot', () => {
	const adaptive = { concurrencyMode: 'adaptive', concurrency: 48 };

	it('ends the run: that listing unknown, the others created (Continue, no token held, Adaptive)', async () => {
		const { outcome, sent } = await runAgainst(
			(id) => (id === 1 ? [201, UNPRINTABLE_ID, JSON_TYPE] : [201, { id: `L-${id}` }]),
			3,
			adaptive,
			{ continueOnFail: true },
		);
		expect(outcome).not.toBe('never ended');
		expect(sent.map(([id]) => id).sort()).toEqual([1, 2, 3]);
		const outputs = outcome as IDataObject[];
		expect(String(outputs[0].error)).toMatch(/^Outcome unknown/);
		expect(outputs[0].mayHaveBeenCreated).toBe(true);
		expect(outputs[1]).toEqual({ id: 'L-2' });
		expect(outputs[2]).toEqual({ id: 'L-3' });
	});

	it('ends the run whatever throws there (a bug in the evidence rule, say), Continue', async () => {
		const real = evidence.showsCreated;
		jest.spyOn(evidence, 'showsCreated').mockImplementation((answer) => {
			if ((answer.body as IDataObject).externalListingId === 1)
				throw new RangeError('Maximum call stack size exceeded');
			return real(answer);
		});
		const { outcome } = await runAgainst(
			(id) => [201, { id: `L-${id}`, externalListingId: id }],
			3,
			adaptive,
			{ continueOnFail: true },
		);
		expect(outcome).not.toBe('never ended');
		const outputs = outcome as IDataObject[];
		expect(outputs[0].error).toBe(
			'Outcome unknown: handling External Listing ID 1 failed unexpectedly',
		);
		expect(outputs[1]).toMatchObject({ id: 'L-2' });
		expect(outputs[2]).toMatchObject({ id: 'L-3' });
	});

	it('ends the run without Continue too, when it happens to the request carrying a renewal', async () => {
		// Listing 2's 401 comes back while listing 1 renews the token: it waits for that renewal to end.
		const { outcome } = await runAgainst(
			(id, token) => {
				if (token === 'tok-stale-0001') return [401, { message: 'Invalid Access Token' }];
				return id === 1 ? [201, UNPRINTABLE_ID, JSON_TYPE] : [201, { id: `L-${id}` }];
			},
			2,
			{ concurrencyMode: 'fixed', concurrency: 2 },
			{ accessToken: 'tok-stale-0001' },
		);
		expect(outcome).not.toBe('never ended');
		expect(String((outcome as { thrown?: string }).thrown)).toMatch(/^Outcome unknown/);
	});
});
