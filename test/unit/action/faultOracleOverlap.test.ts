/**
 * The fault oracle, two overlapping runs of one workflow (issue 18, case 9): generated, seeded scenarios through the real execute() and n8n-core's real
 * request helper and credential, against a fake Partner API that answers each request with a randomly chosen
 * behaviour and a model of n8n's deduplication store (one row, read and rewritten whole, no lock; calls that fail);
 * invariants checked after every scenario (support/faultOracle/invariants.ts). A failure names the invariant and
 * prints the scenario; FAULT_ORACLE_SEED replays one seed, FAULT_ORACLE_RUNS sets how many scenarios run (this
 * file runs a quarter of that, with the next seed: 10,000 scenarios in all with the one-run file).
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
import type { Window } from '../../../support/faultOracle/invariants';

useSleeps({ sleep: oraclePause, sleepWithAbort: oracleWait });
const waits = sleepWithAbort as jest.MockedFunction<typeof sleepWithAbort>;

const SEED = Number(process.env.FAULT_ORACLE_SEED ?? 1811);
const RUNS = Number(process.env.FAULT_ORACLE_RUNS ?? 8_000);

afterEach(() => nock.cleanAll());
useVirtualClock();

describe('Listing → Create: the fault oracle, overlapping runs', () => {
	it(`keeps every promise n8n's store allows in ${Math.ceil(RUNS / 4)} scenarios of two overlapping runs, and says how often its window opened`, async () => {
		const started = performance.now();
		const total: Window = { createdTwice: 0, erasedForGood: 0, resurrected: 0 };
		let scenariosRun = 0;
		await fc.assert(
			fc.asyncProperty(scenarios(2), async (scenario) => {
				const window = await runScenario(scenario, waits);
				scenariosRun++;
				for (const name of Object.keys(total) as Array<keyof Window>) total[name] += window[name];
				// Each write is verified after a pause that outlasts any store call: the window stays shut.
				expect(window).toEqual({ createdTwice: 0, erasedForGood: 0, resurrected: 0 });
			}),
			{ numRuns: Math.ceil(RUNS / 4), seed: SEED + 1 },
		);
		console.log(
			`fault oracle: ${scenariosRun} overlapping scenarios (seed ${SEED + 1}) in ${Math.round(performance.now() - started)} ms; ` +
				`the store's window: ${total.createdTwice} listings created twice, ${total.erasedForGood} created listings erased from the memory for good, ${total.resurrected} refused listings brought back into it`,
		);
	}, 900_000);
});
