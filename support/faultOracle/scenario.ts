/**
 * The fault oracle's scenarios: what varies (sheet, API behaviours, refused login, Stop, store failures
 * and timing, one run or two overlapping ones, Output and On Error) and how one is run and checked. The two test
 * files (execute.oracle*.test.ts beside the tests of Create) mock n8n-workflow's waits and call runScenario.
 */
import fc from 'fast-check';
import nock from 'nock';

import { sentListingKey } from '../../nodes/TicketMarketplace/actions/listing/memory/sentListings';
import { MEMORY_ACCOUNT } from '../fakeN8n/actionContext';
import { SharedRowStore } from '../fakeN8n/sharedRowStore';
import { setAnswerTurns } from './answerTimers';
import { BEHAVIOURS, FakePartnerApi } from './fakePartnerApi';
import type { ApiScenario } from './fakePartnerApi';
import { checkInvariants, MAX_ATTEMPTS } from './invariants';
import type { Window } from './invariants';
import { runListingCreate } from './oracleRun';
import type { OnError, RunResult, RunSettings } from './oracleRun';
import { elapse, startScenarioClock } from './virtualClock';

export { useVirtualClock } from './virtualClock';

const RUN_NAMES = ['A', 'B'];
/** The memory of the oracle's one account on its one API. */

/** The turns each pause adds to its least, cycled; set per scenario. */
let pauseTurns: number[] = [];

/**
 * The oracle's n8n-workflow sleepWithAbort: instant, but the oracle's clock (Date.now) moves on by what was waited,
 * so a pause the pacer keeps (every send waits for a per-second limit's Retry-After) is over when its wait returns.
 * Without that, the pacer would wake up again and again.
 */
export async function oracleWait(ms: number, signal?: AbortSignal): Promise<void> {
	if (signal?.aborted) throw new Error('aborted');
	elapse(ms);
}

/**
 * The pause before a run looks at its write again (n8n-workflow's sleep, mocked by the tests): it outlasts any store
 * call (whose gap is 0 to 3 turns) and varies as the node's random pause does, 4 to 11 turns.
 */
export async function oraclePause(): Promise<void> {
	const turns = 4 + (pauseTurns.shift() ?? 0);
	pauseTurns.push(turns - 4);
	for (let turn = 0; turn < turns; turn++) await new Promise((resolve) => setImmediate(resolve));
}

type Start =
	| { kind: 'together' }
	| { kind: 'afterStoreCalls'; count: number }
	| { kind: 'afterRequests'; count: number };

export interface Scenario extends ApiScenario {
	rememberedBefore: number[];
	runs: RunSettings[];
	/** When the second run starts, measured on the first. */
	start: Start;
	/** Stop (n8n's cancel signal) a run when it sends its n-th request. */
	cancel?: { run: number; atRequest: number };
	/** Store calls (1-based, over both runs) that fail. */
	failingStoreCalls: number[];
	/** Event-loop turns between each store call's read and its write, cycled. */
	storeGaps: number[];
	/** Turns added to each pause before a run looks at its write again, cycled. */
	pauseTurns: number[];
	/** Turns each of nock's zero-delay timers waits beyond one, cycled (answerTimers.ts). */
	answerTurns: number[];
}

const runSettings = (maxIds: number): fc.Arbitrary<RunSettings> =>
	fc.record({
		ids: fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: maxIds }),
		output: fc.constantFrom<'listing' | 'row'>('listing', 'row'),
		onError: fc.constantFrom<OnError>('stop', 'continueRegularOutput', 'continueErrorOutput'),
		concurrency: fc.integer({ min: 1, max: 4 }),
		adaptive: fc.boolean(),
	});

export function scenarios(runCount: 1 | 2): fc.Arbitrary<Scenario> {
	return fc.record({
		behaviours: fc.array(fc.constantFrom(...BEHAVIOURS), { minLength: 1, maxLength: 12 }),
		// One scenario in ten: the marketplace login is refused.
		loginRefused: fc.integer({ min: 0, max: 9 }).map((value) => value === 0),
		duplicates: fc.constantFrom<ApiScenario['duplicates']>('refuse', 'create'),
		rememberedBefore: fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { maxLength: 2 }),
		runs: fc.array(runSettings(6), { minLength: runCount, maxLength: runCount }),
		start: fc.oneof(
			fc.constant<Start>({ kind: 'together' }),
			fc.integer({ min: 1, max: 4 }).map<Start>((count) => ({ kind: 'afterStoreCalls', count })),
			fc.integer({ min: 1, max: 4 }).map<Start>((count) => ({ kind: 'afterRequests', count })),
		),
		cancel: fc.option(
			fc.record({
				run: fc.integer({ min: 0, max: runCount - 1 }),
				atRequest: fc.integer({ min: 1, max: 8 }),
			}),
			{ freq: 4, nil: undefined },
		),
		// One scenario in eight has store calls that fail: one (tried again, it works), or two or three in a row.
		failingStoreCalls: fc.oneof(
			{ weight: 7, arbitrary: fc.constant<number[]>([]) },
			{
				weight: 1,
				arbitrary: fc
					.tuple(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 3 }))
					.map(([first, count]) => Array.from({ length: count }, (_, index) => first + index)),
			},
		),
		storeGaps: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 6 }),
		pauseTurns: fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 6 }),
		// Generated last: the fields above stay what each seed gave them.
		answerMs: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 6 }),
		// A slow answer overtakes the other run's store calls and pauses, lands amid them, or after them all.
		slowTurns: fc.array(
			fc.oneof(fc.integer({ min: 0, max: 11 }), fc.integer({ min: 12, max: 200 })),
			{ minLength: 1, maxLength: 4 },
		),
		// nock's two timers an answer (its headers, its body): a loaded machine's few turns, or an idle one's many.
		answerTurns: fc.array(
			fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 4, max: 40 })),
			{ minLength: 1, maxLength: 6 },
		),
	});
}

const tick = async () => await new Promise<void>((resolve) => setImmediate(resolve));

export async function runScenario(
	scenario: Scenario,
	/** The test's mock of n8n-workflow's sleepWithAbort: what the run waited. */
	waits: jest.MockedFunction<(ms: number, signal?: AbortSignal) => Promise<void>>,
): Promise<Window> {
	nock.cleanAll();
	waits.mockClear();
	startScenarioClock();
	setAnswerTurns(scenario.answerTurns);
	pauseTurns = [...scenario.pauseTurns];
	const names = RUN_NAMES.slice(0, scenario.runs.length);
	const cancels = names.map(() => new AbortController());
	let startSecond = () => {};
	const secondMayStart = new Promise<void>((resolve) => (startSecond = resolve));
	const api = new FakePartnerApi(
		scenario,
		names,
		(run, requestNumber) => {
			const { cancel, start } = scenario;
			if (cancel && names[cancel.run] === run && requestNumber === cancel.atRequest)
				cancels[cancel.run].abort();
			if (start.kind === 'afterRequests' && run === 'A' && requestNumber >= start.count)
				startSecond();
		},
		// A retry loop without end is stopped (waits are instant here), and I5 then names it.
		(run) => cancels[names.indexOf(run)].abort(),
		MAX_ATTEMPTS,
	);
	api.intercept();
	let gap = 0;
	const store = new SharedRowStore(async () => {
		for (let turn = 0; turn < scenario.storeGaps[gap++ % scenario.storeGaps.length]; turn++)
			await tick();
	});
	scenario.failingStoreCalls.forEach((call) => store.failingCalls.add(call));
	store.onCall = (caller, callNumber) => {
		if (
			scenario.start.kind === 'afterStoreCalls' &&
			caller === 'A' &&
			callNumber >= scenario.start.count
		)
			startSecond();
	};
	store.entries.set(
		'workflow',
		new Set(scenario.rememberedBefore.map((id) => sentListingKey(MEMORY_ACCOUNT, id))),
	);

	const first = runListingCreate('A', scenario.runs[0], store, cancels[0]).finally(startSecond);
	const runs: Array<Promise<RunResult>> = [first];
	if (scenario.runs.length > 1) {
		runs.push(
			(async () => {
				if (scenario.start.kind !== 'together') await secondMayStart;
				return await runListingCreate('B', scenario.runs[1], store, cancels[1]);
			})(),
		);
	}
	const results = await Promise.all(runs);
	return checkInvariants({
		api,
		store,
		results,
		rememberedBefore: scenario.rememberedBefore,
		waits: waits.mock.calls.map(([ms, signal]) => ({ ms, abortable: signal !== undefined })),
	});
}
