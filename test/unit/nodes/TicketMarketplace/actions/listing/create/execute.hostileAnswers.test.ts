/**
 * Listing → Create against answers built to hurt: bodies nested past any stack, and secrets echoed back as keys,
 * form-encoded or HTML-escaped. Through the real execute() and n8n-core's real request helper; each test failed
 * before its fix.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { sentListingKey } from '../../../../../../../nodes/TicketMarketplace/actions/listing/memory/sentListings';
import * as transport from '../../../../../../../nodes/TicketMarketplace/transport';
import {
	BASE,
	fakeRun,
	idsUpTo,
	MEMORY_ACCOUNT,
	oneSeatListings,
} from '../../../../../../../support/fakeN8n/actionContext';
import { echoedForms, findEchoes } from '../../../../../../../support/errorScan';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';

const TOKEN = 'tok-hostile-0123456789';
const DEPTH = 100_000;

/** N listings, one per item, External Listing IDs 1..N, sent one at a time. */
const listings = (count: number) => oneSeatListings(idsUpTo(count));

function idOf(body: unknown): number {
	return Number((body as IDataObject).externalListingId);
}

/** JSON text of an object nested `depth` levels deep: n8n parses it, a recursive walk overflows the stack. */
function nestedJson(depth: number): string {
	return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** The token, then the listing endpoint: listing `deepId` answered `status` with the deep body, the rest 201. */
function apiAnsweringDeep(status: number, deepId: number, times: number) {
	nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: TOKEN });
	const sent: number[] = [];
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(times)
		.reply((_uri, body) => {
			sent.push(idOf(body));
			return idOf(body) === deepId
				? [status, nestedJson(DEPTH), { 'Content-Type': 'application/json' }]
				: [201, { id: idOf(body) }];
		});
	return sent;
}

function remembered(fake: ReturnType<typeof fakeRun>): number[] {
	const keys = fake.deduplication.entries.get('workflow') ?? new Set<string>();
	return [1, 2, 3, 4, 5].filter((id) => keys.has(sentListingKey(MEMORY_ACCOUNT, id)));
}

/** How deep a value goes (iteratively, so that the test itself cannot overflow). */
function depthOf(value: unknown): number {
	let deepest = 0;
	const stack: Array<[unknown, number]> = [[value, 0]];
	while (stack.length) {
		const [node, depth] = stack.pop()!;
		deepest = Math.max(deepest, depth);
		if (node && typeof node === 'object')
			for (const entry of Object.values(node)) stack.push([entry, depth + 1]);
	}
	return deepest;
}

afterEach(() => nock.cleanAll());

describe('answer bodies nested past any stack', () => {
	it('a 201 whose body is nested 100,000 deep is created, its body cut with a placeholder (Continue)', async () => {
		const sent = apiAnsweringDeep(201, 2, 3);
		const { items, parameters } = listings(3);
		const fake = fakeRun({ parameters, items, continueOnFail: true });
		const output = await execute.call(fake.context, items);
		expect(sent).toEqual([1, 2, 3]);
		expect(output.map((item) => item.json.error)).toEqual([undefined, undefined, undefined]);
		expect(JSON.stringify(output[1].json)).toContain('[nested too deep]');
		expect(depthOf(output[1].json)).toBeLessThan(100);
		expect(remembered(fake)).toEqual([1, 2, 3]);
	});

	it('a 201 whose body is nested 100,000 deep is created (without Continue)', async () => {
		const sent = apiAnsweringDeep(201, 1, 2);
		const { items, parameters } = listings(2);
		const fake = fakeRun({ parameters, items });
		const output = await execute.call(fake.context, items);
		expect(sent).toEqual([1, 2]);
		expect(JSON.stringify(output[0].json)).toContain('[nested too deep]');
		expect(output[1].json).toEqual({ id: 2 });
		expect(remembered(fake)).toEqual([1, 2]);
	});

	it('a 400 whose body is nested 100,000 deep is refused and forgotten, the others go on (Continue)', async () => {
		const sent = apiAnsweringDeep(400, 2, 3);
		const { items, parameters } = listings(3);
		const fake = fakeRun({ parameters, items, continueOnFail: true });
		const output = await execute.call(fake.context, items);
		expect(sent).toEqual([1, 2, 3]);
		expect(String(output[1].json.error)).toBe('The Partner API refused the listing (HTTP 400)');
		expect(output[1].json.mayHaveBeenCreated).toBe(false);
		expect(remembered(fake)).toEqual([1, 3]);
	});

	it('a 400 whose body is nested 100,000 deep stops the run with its summary, nothing sent after it (without Continue)', async () => {
		const sent = apiAnsweringDeep(400, 2, 2);
		const { items, parameters } = listings(5);
		const fake = fakeRun({ parameters, items });
		const thrown = await execute.call(fake.context, items).then(
			() => undefined,
			(error: Error & { description?: string; errorResponse?: unknown }) => error,
		);
		expect(sent).toEqual([1, 2]);
		expect(thrown?.message).toBe('The Partner API refused the listing (HTTP 400)');
		expect(thrown?.description).toContain('Created in this run: 1 listing (1).');
		expect(thrown?.description).toContain(
			'Not sent, the run stopped first: 3 listings (3, 4 and 5).',
		);
		expect(depthOf(thrown?.errorResponse)).toBeLessThan(100);
		expect(remembered(fake)).toEqual([1]);
	});
});

describe('a failure in handling one listing', () => {
	afterEach(() => jest.restoreAllMocks());

	/**
	 * sendRequest as it is, except that listing `id`'s handling throws once `after` has settled (a stand-in for a
	 * bug anywhere between the answer and the outcome).
	 */
	function sendRequestThrowingFor(id: number, after: Promise<unknown>) {
		const real = transport.sendRequest;
		return jest.spyOn(transport, 'sendRequest').mockImplementation(async function (
			this: unknown,
			options,
		) {
			if (idOf(options.request.body) === id) {
				await after;
				throw new RangeError('Maximum call stack size exceeded');
			}
			return await real.call(this as never, options);
		});
	}

	/** The token, then the listing endpoint (listing 3 refused); resolves `firstAnswered` once listing 1 is answered. */
	function api(times: number) {
		nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: TOKEN });
		const sent: number[] = [];
		let answered: () => void = () => {};
		const firstAnswered = new Promise<void>((resolve) => (answered = resolve));
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.times(times)
			.reply((_uri, body) => {
				sent.push(idOf(body));
				if (idOf(body) === 1) answered();
				return idOf(body) === 3 ? [400, { message: 'no' }] : [201, { id: idOf(body) }];
			});
		return { sent, firstAnswered };
	}

	it("becomes that listing's outcome, unknown and remembered; the others are sent and the memory updated (Continue)", async () => {
		const { sent, firstAnswered } = api(2);
		sendRequestThrowingFor(2, firstAnswered);
		const { items, parameters } = listings(3);
		const fake = fakeRun({ parameters, items, continueOnFail: true });
		const output = await execute.call(fake.context, items);
		expect(sent).toEqual([1, 3]);
		expect(String(output[1].json.error)).toBe(
			'Outcome unknown: handling External Listing ID 2 failed unexpectedly',
		);
		expect(String(output[1].json.description)).toContain('Maximum call stack size exceeded');
		expect(output[1].json.mayHaveBeenCreated).toBe(true);
		// Listing 3 was refused: forgotten, so the memory update ran.
		expect(remembered(fake)).toEqual([1, 2]);
	});

	it('stops the run with the summary, nothing sent after it (without Continue)', async () => {
		const { sent, firstAnswered } = api(5);
		sendRequestThrowingFor(2, firstAnswered);
		const { items, parameters } = listings(5);
		const fake = fakeRun({ parameters, items });
		const thrown = await execute.call(fake.context, items).then(
			() => undefined,
			(error: Error & { description?: string }) => error,
		);
		expect(sent).toEqual([1]);
		expect(thrown?.message).toBe(
			'Outcome unknown: handling External Listing ID 2 failed unexpectedly',
		);
		expect(thrown?.description).toContain('n8n said: Maximum call stack size exceeded.');
		expect(thrown?.description).toContain('Created in this run: 1 listing (1).');
		expect(thrown?.description).toContain('Outcome unknown, may have been created');
		expect(thrown?.description).toContain(
			'Not sent, the run stopped first: 3 listings (3, 4 and 5).',
		);
		expect(remembered(fake)).toEqual([1, 2]);
	});
});

describe('secrets echoed back in any form', () => {
	const SECRETS = {
		password: `pa ss&<w"o+r'd>9`,
		'consumer secret': `cs sec&<"+r'et>`,
		'access token': `tok en&<"+'42>`,
	};
	const apiCredentials = {
		password: SECRETS.password,
		consumerSecret: SECRETS['consumer secret'],
	};

	/** A body that echoes every form of every secret, as values and as keys. */
	function echoingBody(): IDataObject {
		const values: IDataObject = {};
		const keys: IDataObject = {};
		for (const [name, secret] of Object.entries(SECRETS)) {
			for (const [form, text] of Object.entries(echoedForms(secret))) {
				values[`${name}, ${form}`] = `you sent ${text}.`;
				keys[text] = `${name}, ${form}`;
				keys[`prefix ${text}`] = true;
			}
		}
		const password = echoedForms(SECRETS.password);
		const consumerSecret = echoedForms(SECRETS['consumer secret']);
		// Quoted in the error's message: forms that fit in the part quoted.
		const message = `you sent: ${password['form-encoded']} ${consumerSecret['HTML named entities']}`;
		return { message, values, keys };
	}

	function api(status: number) {
		nock(BASE)
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(200, { access_token: SECRETS['access token'] });
		const sent: number[] = [];
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.reply((_uri, body) => {
				sent.push(idOf(body));
				return [status, echoingBody()];
			});
		return sent;
	}

	it.each(['listing', 'row'])(
		'a 201 echoing them: no form of any secret in the %s output, as value or as key',
		async (output) => {
			const sent = api(201);
			const { items, parameters } = listings(1);
			parameters.options = { ...(parameters.options as IDataObject), output };
			const fake = fakeRun({ parameters, items, apiCredentials });
			const result = await execute.call(fake.context, items);
			expect(sent).toEqual([1]);
			expect(findEchoes(result, SECRETS)).toEqual([]);
			expect(JSON.stringify(result)).toContain('[redacted]');
		},
	);

	it('a 400 echoing them (Continue): no form of any secret in the error item', async () => {
		const sent = api(400);
		const { items, parameters } = listings(1);
		const fake = fakeRun({ parameters, items, apiCredentials, continueOnFail: true });
		const result = await execute.call(fake.context, items);
		expect(sent).toEqual([1]);
		expect(String(result[0].json.error)).toBe('The Partner API refused the listing (HTTP 400)');
		expect(findEchoes(result, SECRETS)).toEqual([]);
	});

	it('a 400 echoing them (without Continue): no form of any secret on any field of the thrown error', async () => {
		const sent = api(400);
		const { items, parameters } = listings(1);
		const fake = fakeRun({ parameters, items, apiCredentials });
		const thrown = await execute.call(fake.context, items).then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(sent).toEqual([1]);
		expect(thrown).toBeInstanceOf(Error);
		expect(findEchoes(thrown, SECRETS)).toEqual([]);
		// The body is kept, redacted, where n8n shows it.
		expect(JSON.stringify((thrown as { errorResponse?: unknown }).errorResponse)).toContain(
			'[redacted]',
		);
	});
});
