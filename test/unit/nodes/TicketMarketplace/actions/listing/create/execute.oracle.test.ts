/**
 * The fault oracle, parameterised by how many runs of one workflow overlap (one; two at once on one memory): generated, seeded
 * scenarios through the real execute() and n8n-core's real request helper and credential, against a fake Partner
 * API that answers each request with a randomly chosen behaviour and a model of n8n's deduplication store (one row,
 * read and rewritten whole, no lock; calls that fail); invariants checked after every scenario
 * (support/faultOracle/invariants.ts). A failure names the invariant and prints the scenario; FAULT_ORACLE_SEED
 * replays one seed, FAULT_ORACLE_RUNS sets how many one-run scenarios run (the overlapping runs run a quarter of that,
 * with the next seed: 10,000 scenarios in all).
 */
import fc from 'fast-check';
import nock from 'nock';
import { sleepWithAbort } from 'n8n-workflow';

import type { Window } from '../../../../../../../support/faultOracle/invariants';
import {
	oraclePause,
	oracleWait,
	runScenario,
	scenarios,
	useVirtualClock,
} from '../../../../../../../support/faultOracle/scenario';
import { useAnswerTimers } from '../../../../../../../support/faultOracle/answerTimers';
import { useSleeps } from '../../../../../../setup/sleeps';

const SEED = Number(process.env.FAULT_ORACLE_SEED ?? 1811);
const RUNS = Number(process.env.FAULT_ORACLE_RUNS ?? 8_000);

/** One run at a time, or two overlapping runs of one workflow. */
const SUITES = {
	1: {
		describe: 'Listing → Create: the fault oracle',
		it: `keeps every promise in ${RUNS} generated fault scenarios of one run (seed ${SEED})`,
		numRuns: RUNS,
		seed: SEED,
		scenarios: 'one-run',
	},
	2: {
		describe: 'Listing → Create: the fault oracle, overlapping runs',
		it: `keeps every promise n8n's store allows in ${Math.ceil(RUNS / 4)} scenarios of two overlapping runs, and says how often its window opened`,
		numRuns: Math.ceil(RUNS / 4),
		seed: SEED + 1,
		scenarios: 'overlapping',
	},
};

useSleeps({ sleep: oraclePause, sleepWithAbort: oracleWait });
const waits = sleepWithAbort as jest.MockedFunction<typeof sleepWithAbort>;

afterEach(() => nock.cleanAll());
useVirtualClock();
useAnswerTimers();

// Every invariant after every scenario, and the store's window shut.
describe.each([1, 2] as const)('%i run(s) at once', (runsAtOnce) => {
	const suite = SUITES[runsAtOnce];
	describe(suite.describe, () => {
		it(
			suite.it,
			async () => {
				const started = performance.now();
				const total: Window = { createdTwice: 0, erasedForGood: 0, resurrected: 0 };
				let scenariosRun = 0;
				await fc.assert(
					fc.asyncProperty(scenarios(runsAtOnce), async (scenario) => {
						const window = await runScenario(scenario, waits);
						scenariosRun++;
						for (const name of Object.keys(total) as Array<keyof Window>)
							total[name] += window[name];
						// One run alone: the store's window never opens, so nothing is excused. Two runs: each write is
						// verified after a pause that outlasts any store call, so the window stays shut.
						expect(window).toEqual({ createdTwice: 0, erasedForGood: 0, resurrected: 0 });
					}),
					{ numRuns: suite.numRuns, seed: suite.seed },
				);
				const window =
					runsAtOnce === 1
						? ''
						: `; the store's window: ${total.createdTwice} listings created twice, ${total.erasedForGood} created listings erased from the memory for good, ${total.resurrected} refused listings brought back into it`;
				console.log(
					`fault oracle: ${scenariosRun} ${suite.scenarios} scenarios (seed ${suite.seed}) in ${Math.round(performance.now() - started)} ms${window}`,
				);
			},
			900_000,
		);
	});
});
