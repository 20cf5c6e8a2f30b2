/**
 * The fault oracle, one run (issue 18): generated, seeded scenarios through the real execute() and n8n-core's real
 * request helper and credential, against a fake Partner API that answers each request with a randomly chosen
 * behaviour and a model of n8n's deduplication store (one row, read and rewritten whole, no lock; calls that fail);
 * invariants checked after every scenario (support/faultOracle/invariants.ts). A failure names the invariant and
 * prints the scenario; FAULT_ORACLE_SEED replays one seed, FAULT_ORACLE_RUNS sets how many scenarios run (the
 * overlapping-runs file runs a quarter of that: 10,000 scenarios in all).
 */
import fc from 'fast-check';
import nock from 'nock';
import { sleepWithAbort } from 'n8n-workflow';

import {
	oraclePause,
	oracleWait,
	runScenario,
	scenarios,
	useVirtualClock,
} from '../../../support/faultOracle/scenario';
import { useSleeps } from '../../setup/sleeps';

useSleeps({ sleep: oraclePause, sleepWithAbort: oracleWait });
const waits = sleepWithAbort as jest.MockedFunction<typeof sleepWithAbort>;

const SEED = Number(process.env.FAULT_ORACLE_SEED ?? 1811);
const RUNS = Number(process.env.FAULT_ORACLE_RUNS ?? 8_000);

afterEach(() => nock.cleanAll());
useVirtualClock();

describe('Listing → Create: the fault oracle', () => {
	it(`keeps every promise in ${RUNS} generated fault scenarios of one run (seed ${SEED})`, async () => {
		const started = performance.now();
		await fc.assert(
			fc.asyncProperty(scenarios(1), async (scenario) => {
				const window = await runScenario(scenario, waits);
				// One run alone: the store's window never opens, so nothing is excused.
				expect(window).toEqual({ createdTwice: 0, erasedForGood: 0, resurrected: 0 });
			}),
			{ numRuns: RUNS, seed: SEED },
		);
		console.log(
			`fault oracle: ${RUNS} one-run scenarios (seed ${SEED}) in ${Math.round(performance.now() - started)} ms`,
		);
	}, 900_000);
});
