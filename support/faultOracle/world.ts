/**
 * The widened fault oracle: scenarios generated from what the world sends rather than from a list of faults.
 * A scenario is a workflow's life: Listing → Create steps (two Create nodes, two marketplace accounts, three
 * spellings of one Base URL, grouped sheet rows with Unicode seats, blank rows, IDs such as "007" and expression
 * errors; On Error, Output, concurrency and Retry On Fail), Forget Sent Listings steps interleaved (after the user
 * deleted the listing, or for IDs never sent), two runs that may overlap, a Stop at any await point (store call,
 * token request, listing request), store calls that fail before or after writing, and a Partner API whose every
 * answer (listing endpoint and token endpoint) is drawn from the whole space of statuses, bodies and Retry-Afters.
 * Each step runs the real execute() with n8n-core's request helper and credential (fakeRun), against the shared row
 * store model (SharedRowStore); the invariants (worldInvariants.ts) read the API's state after every send ended,
 * then a probe run per account shows what the memory holds (what a later run would and would not send).
 */
import fc from 'fast-check';
import nock from 'nock';
import type { IExecuteFunctions, INodeExecutionData, NodeExecutionHint } from 'n8n-workflow';
import { ExpressionError } from 'n8n-workflow';

import { execute as createListings } from '../../nodes/TicketMarketplace/actions/listing/create.operation';
import { execute as forgetSent } from '../../nodes/TicketMarketplace/actions/listing/forgetSent.operation';
import { column, fakeRun, GROUPED_SHEET_PARAMETERS, sheetRows } from '../fakeN8n/actionContext';
import type { ParameterValue } from '../fakeN8n/actionContext';
import { SharedRowStore } from '../fakeN8n/sharedRowStore';
import type { OnError } from './oracleRun';
import { setAnswerTurns } from './answerTimers';
import { startScenarioClock } from './virtualClock';
import {
	accountCredentials,
	ACCOUNTS,
	BASE_URL_SPELLINGS,
	BODY_SHAPES,
	STATUSES,
	WorldApi,
} from './worldApi';
import type {
	Account,
	GatewayFault,
	ListingAnswer,
	RetryAfter,
	Status,
	TokenAnswer,
} from './worldApi';

/** One sheet row; `id` undefined is a blank row. */
export interface SheetRow {
	id?: number;
	row: string;
	seat: string;
	/** Reading this row's seat throws n8n's ExpressionError (e.g. `{{ $json.seat.trim() }}` on a number). */
	expressionError: boolean;
}

export interface CreateStep {
	kind: 'create';
	/** Which of the workflow's two Create nodes: each has its own sheet, both share the workflow's memory. */
	node: 0 | 1;
	account: Account;
	spelling: number;
	rows: SheetRow[];
	output: 'listing' | 'row';
	onError: OnError;
	concurrency: number;
	adaptive: boolean;
	/** n8n's Retry On Fail: tries in all (1 = off). */
	maxTries: number;
}

export interface ForgetStep {
	kind: 'forget';
	account: Account;
	spelling: number;
	ids: number[];
	/** The user deleted these listings on the marketplace before forgetting them. */
	deletedFirst: boolean;
}

export type Step = CreateStep | ForgetStep;

export interface WorldScenario {
	steps: Step[];
	/** The first two steps run at once (two executions of the workflow overlapping). */
	overlap: boolean;
	listingAnswers: ListingAnswer[];
	tokenAnswers: TokenAnswer[];
	duplicates: 'conflict' | 'create';
	/** Listing requests a token serves before the API expires it (undefined: it never expires in the run). */
	tokenLifetime?: number;
	/** Listings the account holds already, made elsewhere (by hand, another workflow): not remembered. */
	heldElsewhere: Array<{ account: Account; id: number }>;
	/** Stop (the execution's cancel signal) a step at its n-th await point: store call, token or listing request. */
	stop?: { step: number; atEvent: number };
	/** Store calls (1-based, over the whole scenario) that fail before or after writing. */
	storeFailures: Array<{ call: number; when: 'before' | 'after' }>;
	storeGaps: number[];
	/** Turns each of nock's zero-delay timers waits beyond one, cycled (answerTimers.ts); none given: none. */
	answerTurns?: number[];
}

/** What one attempt of one step showed: the items, or what it threw, and its notices. */
export interface Attempt {
	attempt: number;
	output?: INodeExecutionData[];
	thrown?: Error;
	hints: NodeExecutionHint[];
	cancelled: boolean;
}

export interface StepResult {
	step: Step;
	name: string;
	attempts: Attempt[];
	/** When Stop came: whether no token had reached the run yet (so no listing request of it could have left). */
	stoppedBeforeAnyToken?: boolean;
}

export interface WorldRecord {
	scenario: WorldScenario;
	api: WorldApi;
	store: SharedRowStore;
	results: StepResult[];
	/** Per account: the IDs the probe run sent (those the memory does not hold for that account's origin). */
	probeSent: Map<Account, Set<number>>;
	probeIds: Map<Account, number[]>;
	/** Every wait asked of sleepWithAbort. */
	waits: Array<{ ms: number; abortable: boolean }>;
}

// ---------------------------------------------------------------------------------------------------------------
// The generator

const ID_POOL = [1, 2, 3, 7];
/** IDs only ever forgotten, never sent: a Forget must not make them remembered. */
const NEVER_SENT = [40, 41];
/** Seats that a person reads as two or three seats only: NFC/NFD, full-width digits, a zero-width space. */
const SEATS = ['1', '2', '\uff11', '1\u200b', '\u00c5', 'A\u030a'];

const retryAfter: fc.Arbitrary<RetryAfter> = fc.oneof(
	fc.constant<RetryAfter>({ kind: 'absent' }),
	fc
		.constantFrom('0', '1', '2', '0.5', '1.5', '86400')
		.map<RetryAfter>((value) => ({ kind: 'seconds', value })),
	fc.constant<RetryAfter>({ kind: 'datePast' }),
	fc.integer({ min: 1, max: 5 }).map<RetryAfter>((seconds) => ({ kind: 'dateFuture', seconds })),
);

const status: fc.Arbitrary<Status> = fc.oneof(
	{ weight: 6, arbitrary: fc.constant<Status>(201) },
	{ weight: 12, arbitrary: fc.constantFrom<Status>(...STATUSES) },
	{ weight: 2, arbitrary: fc.constantFrom<Status>(401, 429, 503) },
	{ weight: 2, arbitrary: fc.constantFrom<Status>('resetBefore', 'resetAfter') },
);

/** The gateway's rate refusals (500 by default, 429 where configured) and the 500s that merely mention them. */
const gatewayFault: fc.Arbitrary<GatewayFault> = fc.oneof(
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant<'spikeArrest'>('spikeArrest'),
			status: fc.constantFrom<500 | 429>(500, 429),
			rate: fc.constantFrom<'none' | 'perSecond' | 'messageRate'>(
				'none',
				'perSecond',
				'messageRate',
			),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant<'quota'>('quota'),
			status: fc.constantFrom<500 | 429>(500, 429),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant<'nearMiss'>('nearMiss'),
			body: fc.constantFrom<'systemErrorSpike' | 'systemErrorQuota' | 'htmlSpike'>(
				'systemErrorSpike',
				'systemErrorQuota',
				'htmlSpike',
			),
		}),
	},
);

export const listingAnswer: fc.Arbitrary<ListingAnswer> = fc
	.tuple(
		fc.record({
			status,
			body: fc.oneof(
				{ weight: 4, arbitrary: fc.constant<ListingAnswer['body']>('listingId') },
				{ weight: 6, arbitrary: fc.constantFrom(...BODY_SHAPES) },
			),
			retryAfter,
			creates: fc.boolean(),
			delayTurns: fc.integer({ min: 0, max: 3 }),
			persistent401: fc.integer({ min: 0, max: 3 }).map((value) => value === 3),
		}),
		fc.oneof(
			{ weight: 11, arbitrary: fc.constant(undefined) },
			{ weight: 1, arbitrary: gatewayFault },
		),
	)
	.map(([answer, gateway]) => (gateway ? { ...answer, gateway } : answer));

export const tokenAnswer: fc.Arbitrary<TokenAnswer> = fc.oneof(
	{
		weight: 6,
		arbitrary: fc.record({
			kind: fc.constant<'ok'>('ok'),
			delayTurns: fc.integer({ min: 0, max: 6 }),
			revokesPrevious: fc.boolean(),
		}),
	},
	{
		weight: 2,
		arbitrary: retryAfter
			.filter((value) => !(value.kind === 'seconds' && value.value === '86400'))
			.map<TokenAnswer>((value) => ({ kind: 'rateLimited', retryAfter: value })),
	},
	{
		weight: 1,
		arbitrary: fc
			.constantFrom<500 | 502 | 503>(500, 502, 503)
			.map<TokenAnswer>((value) => ({ kind: 'serverError', status: value })),
	},
	{ weight: 1, arbitrary: fc.constant<TokenAnswer>({ kind: 'noAccessToken' }) },
	{ weight: 1, arbitrary: fc.constant<TokenAnswer>({ kind: 'refused' }) },
);

const sheetRow: fc.Arbitrary<Omit<SheetRow, 'id'>> = fc.record({
	row: fc.constantFrom('A', 'B'),
	seat: fc.constantFrom(...SEATS),
	expressionError: fc.integer({ min: 0, max: 24 }).map((value) => value === 24),
});

/** Listings of 1 to 3 grouped rows, blank rows between them. */
const sheet: fc.Arbitrary<SheetRow[]> = fc
	.array(
		fc.record({
			id: fc.constantFrom(...ID_POOL),
			rows: fc.array(sheetRow, { minLength: 1, maxLength: 3 }),
			blankAfter: fc.integer({ min: 0, max: 7 }).map((value) => value === 7),
		}),
		{ minLength: 1, maxLength: 4 },
	)
	.map((listings) => {
		const seen = new Set<number>();
		return listings
			.filter(({ id }) => !seen.has(id) && seen.add(id))
			.flatMap(({ id, rows, blankAfter }) => [
				...rows.map((row) => ({ ...row, id })),
				...(blankAfter ? [{ row: '', seat: '', expressionError: false }] : []),
			]);
	});

const createStep: fc.Arbitrary<CreateStep> = fc.record({
	kind: fc.constant<'create'>('create'),
	node: fc.constantFrom<0 | 1>(0, 1),
	account: fc.constantFrom<Account>(...ACCOUNTS),
	spelling: fc.oneof(
		{ weight: 3, arbitrary: fc.constant(0) },
		{ weight: 1, arbitrary: fc.integer({ min: 1, max: BASE_URL_SPELLINGS.length - 1 }) },
	),
	rows: sheet,
	output: fc.constantFrom<'listing' | 'row'>('listing', 'row'),
	onError: fc.constantFrom<OnError>('stop', 'continueRegularOutput', 'continueErrorOutput'),
	concurrency: fc.integer({ min: 1, max: 4 }),
	adaptive: fc.boolean(),
	maxTries: fc.oneof(
		{ weight: 2, arbitrary: fc.constant(1) },
		{ weight: 1, arbitrary: fc.integer({ min: 2, max: 3 }) },
	),
});

const forgetStep: fc.Arbitrary<ForgetStep> = fc.record({
	kind: fc.constant<'forget'>('forget'),
	account: fc.constantFrom<Account>(...ACCOUNTS),
	spelling: fc.constant(0),
	ids: fc.uniqueArray(fc.constantFrom(...ID_POOL, ...NEVER_SENT), { minLength: 1, maxLength: 3 }),
	deletedFirst: fc.boolean(),
});

export function worldScenarios(): fc.Arbitrary<WorldScenario> {
	return fc.record({
		steps: fc
			.tuple(
				createStep,
				fc.array(
					fc.oneof({ weight: 3, arbitrary: createStep }, { weight: 1, arbitrary: forgetStep }),
					{ maxLength: 2 },
				),
			)
			.map(([first, rest]) => [first, ...rest]),
		overlap: fc.integer({ min: 0, max: 4 }).map((value) => value === 4),
		listingAnswers: fc.array(listingAnswer, { minLength: 1, maxLength: 10 }),
		tokenAnswers: fc.array(tokenAnswer, { maxLength: 3 }),
		duplicates: fc.constantFrom<'conflict' | 'create'>('conflict', 'create'),
		tokenLifetime: fc.option(fc.integer({ min: 1, max: 4 }), { freq: 3, nil: undefined }),
		heldElsewhere: fc.array(
			fc.record({
				account: fc.constantFrom<Account>(...ACCOUNTS),
				id: fc.constantFrom(...ID_POOL),
			}),
			{ maxLength: 1 },
		),
		stop: fc.option(
			fc.record({ step: fc.integer({ min: 0, max: 2 }), atEvent: fc.integer({ min: 1, max: 12 }) }),
			{ freq: 4, nil: undefined },
		),
		storeFailures: fc.oneof(
			{ weight: 4, arbitrary: fc.constant<WorldScenario['storeFailures']>([]) },
			{
				weight: 1,
				arbitrary: fc.array(
					fc.record({
						call: fc.integer({ min: 1, max: 30 }),
						when: fc.constantFrom<'before' | 'after'>('before', 'after'),
					}),
					{ minLength: 1, maxLength: 3 },
				),
			},
		),
		storeGaps: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 6 }),
		// Generated last: the fields above stay what each seed gave them.
		answerTurns: fc.array(
			fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 4, max: 40 })),
			{ minLength: 1, maxLength: 6 },
		),
	});
}

// ---------------------------------------------------------------------------------------------------------------
// The runner

const tick = async () => await new Promise<void>((resolve) => setImmediate(resolve));

/** The shared row store whose calls may also fail after their write went through (the answer lost on the way). */
class WorldStore extends SharedRowStore {
	readonly failAfterWrite = new Set<number>();

	override helpers(caller = 'run') {
		const helpers = super.helpers(caller);
		const failingAfter =
			<A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
			async (...args: A): Promise<R> => {
				const number = this.log.length + 1;
				const answer = await call(...args);
				if (this.failAfterWrite.has(number))
					throw new Error('Connection terminated unexpectedly (after the write)');
				return answer;
			};
		return {
			...helpers,
			checkProcessedAndRecord: failingAfter(helpers.checkProcessedAndRecord),
			removeProcessed: failingAfter(helpers.removeProcessed),
		};
	}
}

/** The listing's rows as a sheet node hands them over (every cell text; "007" for 7). */
function sheetItems(rows: SheetRow[], run: string): INodeExecutionData[] {
	return sheetRows(
		rows.map((row, index) =>
			row.id === undefined
				? { event: '', listing: '', price: '', currency: '', ticket: '', row: '', seat: '' }
				: {
						event: '55',
						listing: row.id === 7 ? '007' : String(row.id),
						price: '10',
						currency: 'EUR',
						ticket: `${run}~${row.id}~${index}`,
						row: row.row,
						seat: row.seat,
					},
		),
	);
}

function createParameters(step: CreateStep): Record<string, ParameterValue> {
	const readsSeat = Object.assign(
		(itemIndex: number, json: Record<string, unknown>) => {
			if (step.rows[itemIndex]?.expressionError)
				throw new ExpressionError("Cannot read properties of undefined (reading 'trim')", {
					itemIndex,
				});
			return json.seat;
		},
		{ expression: '={{ String($json.seat).trim() }}' },
	);
	return {
		...GROUPED_SHEET_PARAMETERS,
		productGa: false,
		productSeat: step.rows.some((row) => row.expressionError) ? readsSeat : column('seat'),
		options: {
			output: step.output,
			concurrencyMode: step.adaptive ? 'adaptive' : 'fixed',
			concurrency: step.concurrency,
		},
	};
}

interface Live {
	api: WorldApi;
	store: WorldStore;
	/** The access token n8n keeps in each account's credential (shared by nodes and executions). */
	storedTokens: Map<Account, string>;
}

async function runCreate(
	live: Live,
	step: CreateStep,
	name: string,
	cancel: AbortController,
): Promise<Attempt[]> {
	const attempts: Attempt[] = [];
	for (let attempt = 1; attempt <= step.maxTries; attempt++) {
		live.api.currentAttempt.set(name, attempt);
		const items = sheetItems(step.rows, name);
		const fake = fakeRun({
			parameters: createParameters(step),
			items,
			apiCredentials: {
				...accountCredentials(step.account, name),
				baseUrl: BASE_URL_SPELLINGS[step.spelling],
			},
			accessToken: live.storedTokens.get(step.account) ?? '',
			deduplication: live.store,
			deduplicationCaller: name,
			continueOnFail: step.onError !== 'stop',
			onError: step.onError === 'stop' ? undefined : step.onError,
			cancelSignal: cancel.signal,
		});
		const result: Attempt = { attempt, hints: fake.hints, cancelled: false };
		try {
			result.output = await createListings.call(fake.context, items);
		} catch (error) {
			result.thrown = error as Error;
		}
		result.cancelled = cancel.signal.aborted;
		live.storedTokens.set(step.account, String(fake.stored.accessToken ?? ''));
		attempts.push(result);
		// n8n tries again (Retry On Fail) only after a throw, and not after Stop.
		if (!result.thrown || result.cancelled) break;
	}
	return attempts;
}

async function runForget(
	live: Live,
	step: ForgetStep,
	name: string,
	cancel: AbortController,
): Promise<Attempt[]> {
	if (step.deletedFirst) for (const id of step.ids) live.api.delete(step.account, id);
	const items = step.ids.map((id) => ({ json: { id } }));
	const fake = fakeRun({
		parameters: {
			forgetScope: 'ids',
			forgetExternalListingId: (itemIndex: number) => step.ids[itemIndex],
		},
		items,
		apiCredentials: {
			...accountCredentials(step.account, name),
			baseUrl: BASE_URL_SPELLINGS[step.spelling],
		},
		deduplication: live.store,
		deduplicationCaller: name,
		cancelSignal: cancel.signal,
	});
	const result: Attempt = { attempt: 1, hints: fake.hints, cancelled: false };
	try {
		result.output = await forgetSent.call(fake.context as IExecuteFunctions, items);
	} catch (error) {
		result.thrown = error as Error;
	}
	return [result];
}

/** Every ID a probe of the account asks about. */
function idsOf(scenario: WorldScenario, account: Account): number[] {
	const ids = new Set<number>();
	for (const step of scenario.steps) {
		if (step.account !== account) continue;
		if (step.kind === 'forget') step.ids.forEach((id) => ids.add(id));
		else step.rows.forEach((row) => row.id !== undefined && ids.add(row.id));
	}
	return [...ids].sort((a, b) => a - b);
}

/**
 * What the memory holds, asked the only way that matters: a later run of the workflow with every ID, against an
 * API that records and creates nothing. What it sends, the memory did not hold.
 */
async function probe(live: Live, account: Account, ids: number[]): Promise<Set<number>> {
	live.api.probe = { seen: [] };
	const step: CreateStep = {
		kind: 'create',
		node: 0,
		account,
		spelling: 0,
		rows: ids.map((id, index) => ({
			id,
			row: 'P',
			seat: String(index + 1),
			expressionError: false,
		})),
		output: 'listing',
		onError: 'continueRegularOutput',
		concurrency: 4,
		adaptive: false,
		maxTries: 1,
	};
	await runCreate(live, step, `probe-${account}`, new AbortController());
	const sent = new Set(
		live.api.probe.seen.filter((seen) => seen.account === account).map((seen) => seen.id),
	);
	live.api.probe = undefined;
	return sent;
}

export async function runWorld(
	scenario: WorldScenario,
	/** The test's mock of n8n-workflow's sleepWithAbort: what the runs waited. */
	waits: jest.MockedFunction<(ms: number, signal?: AbortSignal) => Promise<void>>,
): Promise<WorldRecord> {
	nock.cleanAll();
	waits.mockClear();
	startScenarioClock();
	setAnswerTurns(scenario.answerTurns ?? [0]);
	const names = scenario.steps.map((_, index) => `S${index}`);
	const cancels = names.map(() => new AbortController());
	const results: StepResult[] = scenario.steps.map((step, index) => ({
		step,
		name: names[index],
		attempts: [],
	}));
	const runAccounts = new Map<string, Account>([
		...scenario.steps.map((step, index): [string, Account] => [names[index], step.account]),
		...ACCOUNTS.map((account): [string, Account] => [`probe-${account}`, account]),
	]);
	const events = new Map<string, number>();
	const startedWithToken = new Map<string, boolean>();
	let api: WorldApi | undefined = undefined;
	const onEvent = (run: string) => {
		const count = (events.get(run) ?? 0) + 1;
		events.set(run, count);
		const { stop } = scenario;
		if (!stop || names[stop.step] !== run || count !== stop.atEvent) return;
		const issued = [...api!.tokens.values()].some((token) => token.run === run);
		results[stop.step].stoppedBeforeAnyToken = !issued && !startedWithToken.get(run);
		cancels[stop.step].abort();
	};
	api = new WorldApi(
		scenario.listingAnswers,
		scenario.tokenAnswers,
		runAccounts,
		(run) => onEvent(run),
		scenario.duplicates,
		scenario.tokenLifetime,
	);
	api.intercept();
	for (const { account, id } of scenario.heldElsewhere) api.heldBy(account).set(id, 1);
	let gap = 0;
	const store = new WorldStore(async () => {
		for (let turn = 0; turn < scenario.storeGaps[gap++ % scenario.storeGaps.length]; turn++)
			await tick();
	});
	for (const { call, when } of scenario.storeFailures)
		(when === 'before' ? store.failingCalls : store.failAfterWrite).add(call);
	store.onCall = (caller) => onEvent(caller);
	const live: Live = { api, store, storedTokens: new Map() };

	const runStep = async (index: number) => {
		const step = scenario.steps[index];
		const name = names[index];
		startedWithToken.set(name, (live.storedTokens.get(step.account) ?? '') !== '');
		try {
			results[index].attempts =
				step.kind === 'create'
					? await runCreate(live, step, name, cancels[index])
					: await runForget(live, step, name, cancels[index]);
		} finally {
			api!.ended.set(name, api!.clock);
		}
	};
	let next = 0;
	if (scenario.overlap && scenario.steps.length > 1) {
		await Promise.all([runStep(0), runStep(1)]);
		next = 2;
	}
	for (; next < scenario.steps.length; next++) await runStep(next);
	// Whatever a run left in flight arrives now (and is seen as arriving after its run ended).
	for (let turn = 0; turn < 40; turn++) await tick();

	store.failingCalls.clear();
	store.failAfterWrite.clear();
	const probeSent = new Map<Account, Set<number>>();
	const probeIds = new Map<Account, number[]>();
	// Each probe asks the memory as the steps left it (a probe's own records are undone before the next).
	const memory = new Map([...store.entries].map(([scope, values]) => [scope, new Set(values)]));
	for (const account of ACCOUNTS) {
		store.entries.clear();
		for (const [scope, values] of memory) store.entries.set(scope, new Set(values));
		const ids = idsOf(scenario, account);
		probeIds.set(account, ids);
		if (ids.length) probeSent.set(account, await probe(live, account, ids));
	}
	return {
		scenario,
		api,
		store,
		results,
		probeSent,
		probeIds,
		waits: waits.mock.calls.map(([ms, signal]) => ({ ms, abortable: signal !== undefined })),
	};
}
