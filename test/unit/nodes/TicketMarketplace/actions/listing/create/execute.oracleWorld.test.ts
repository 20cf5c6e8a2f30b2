/**
 * The widened fault oracle (support/faultOracle/world.ts): scenarios generated from what the world sends, through
 * the real execute() of Listing → Create and Forget Sent Listings, n8n-core's request helper and our credential,
 * against a Partner API drawn per request from the whole space of answers and the shared row store model; the
 * invariants (worldInvariants.ts) read the API's state after every send ended, and a probe run shows what the
 * memory holds.
 *
 * By default (`npm test`): FAULT_ORACLE_WORLD_RUNS generated scenarios (seed FAULT_ORACLE_SEED) keep every
 * invariant, and so does each known case's pinned counterexample (support/faultOracle/worldCases.ts), as a regression test.
 * The default count keeps this file near a minute and a half on a busy 2-core machine; a failure prints the shrunk
 * scenario, which `replay` runs again. The defects the property found beyond the known cases (FOUND_DEFECTS) run
 * as regression tests too.
 *
 * FAULT_ORACLE_WORLD selects another mode:
 * - `replay`: runs the scenario of the JSON file FAULT_ORACLE_WORLD_SCENARIO and prints what happened;
 * - `explore`: for each known case (FAULT_ORACLE_WORLD_CASES, comma-separated, or all), a shrunk counterexample of
 *   the code as it is (printed; FAULT_ORACLE_WORLD_LOG also appends each to a file): with a fix reverted, the
 *   scenario its case pins;
 * - `reverted`: each pinned counterexample (FAULT_ORACLE_WORLD_CASES, or all) breaks its case's invariant: run with
 *   that case's fix reverted, to show the oracle still sees it.
 */
import { appendFileSync, readFileSync } from 'node:fs';

import fc from 'fast-check';
import nock from 'nock';
import { sleepWithAbort } from 'n8n-workflow';

import {
	oraclePause,
	oracleWait,
	useVirtualClock,
} from '../../../../../../../support/faultOracle/scenario';
import { runWorld, worldScenarios } from '../../../../../../../support/faultOracle/world';
import type { WorldScenario } from '../../../../../../../support/faultOracle/world';
import {
	brokenInvariants,
	checkWorld,
} from '../../../../../../../support/faultOracle/worldInvariants';
import { FOUND_DEFECTS, KNOWN_CASES } from '../../../../../../../support/faultOracle/worldCases';
import { useAnswerTimers } from '../../../../../../../support/faultOracle/answerTimers';
import { useSleeps } from '../../../../../../setup/sleeps';

useSleeps({ sleep: oraclePause, sleepWithAbort: oracleWait });
const waits = sleepWithAbort as jest.MockedFunction<typeof sleepWithAbort>;

const MODE = process.env.FAULT_ORACLE_WORLD ?? '';
const REGRESSION = !['replay', 'explore', 'reverted'].includes(MODE);
/** The generated scenarios of a default run. */
const DEFAULT_RUNS = 600;
const ONLY_CASES = process.env.FAULT_ORACLE_WORLD_CASES?.split(',');
const SEED = Number(process.env.FAULT_ORACLE_SEED ?? 3011);
const RUNS = Number(process.env.FAULT_ORACLE_WORLD_RUNS ?? DEFAULT_RUNS);

afterEach(() => nock.cleanAll());
useVirtualClock();
useAnswerTimers();

/** The invariants a scenario breaks, one message each (empty when every one holds). */
async function brokenBy(scenario: WorldScenario): Promise<string[]> {
	return brokenInvariants(await runWorld(scenario, waits));
}

describe('Listing → Create: the fault oracle, widened to what the world sends', () => {
	(REGRESSION ? it : it.skip)(
		`keeps every promise in ${RUNS} generated scenarios (seed ${SEED})`,
		async () => {
			const started = performance.now();
			await fc.assert(
				fc.asyncProperty(worldScenarios(), async (scenario) => {
					checkWorld(await runWorld(scenario, waits));
				}),
				{ numRuns: RUNS, seed: SEED },
			);
			console.log(
				`world oracle: ${RUNS} scenarios (seed ${SEED}) in ${Math.round(performance.now() - started)} ms`,
			);
		},
		1_800_000,
	);

	for (const { case: number, title, invariant, scenario } of KNOWN_CASES) {
		if (!scenario) continue;
		if (REGRESSION) {
			it(`known case ${number} (${title}): its pinned scenario holds every invariant`, async () => {
				expect(await brokenBy(scenario)).toEqual([]);
			});
		} else if (MODE === 'reverted' && (!ONLY_CASES || ONLY_CASES.includes(number))) {
			it(`known case ${number} (${title}) breaks "${invariant}" with its fix reverted`, async () => {
				expect((await brokenBy(scenario)).join('\n')).toContain(invariant);
			});
		}
	}

	for (const { title, invariant, scenario } of FOUND_DEFECTS) {
		// Generous: a loaded 2-core machine runs these several times slower.
		(REGRESSION ? it : it.skip)(
			`found defect (${invariant}): ${title}`,
			async () => {
				expect(await brokenBy(scenario)).toEqual([]);
			},
			30_000,
		);
	}

	(MODE === 'replay' ? it : it.skip)(
		'replays the scenario of FAULT_ORACLE_WORLD_SCENARIO (a JSON file) and prints what happened',
		async () => {
			const scenario = JSON.parse(
				readFileSync(String(process.env.FAULT_ORACLE_WORLD_SCENARIO), 'utf8'),
			) as WorldScenario;
			const record = await runWorld(scenario, waits);
			const broken = brokenInvariants(record).join('\n') || 'every invariant holds';
			console.log(
				[
					broken,
					`token requests: ${JSON.stringify(record.api.tokenRequests)}`,
					`listing arrivals: ${JSON.stringify(record.api.arrivals)}`,
					`probe sent: ${JSON.stringify([...record.probeSent].map(([account, ids]) => [account, [...ids]]))}`,
					`memory: ${JSON.stringify([...(record.store.entries.get('workflow') ?? [])])}`,
					...(process.env.FAULT_ORACLE_WORLD_STORE_LOG
						? record.store.log.map(
								(call) =>
									`store ${call.caller} ${call.method} read@${call.readAt} write@${call.writeAt}${call.failed ? ' FAILED' : ''}: ${call.values.map((value) => value.replace(/^ticket-marketplace /, '').replace(/ at https:\/\/partner\.api\.test/, '')).join(' | ')} new=[${call.answeredNew.length}]`,
							)
						: []),
					...record.store.lostUpdates.map(
						(lost) =>
							`lost update by ${lost.caller} @${lost.at}: erased ${JSON.stringify(lost.erased)} resurrected ${JSON.stringify(lost.resurrected)}`,
					),
					...record.results.flatMap((result) =>
						result.attempts.map(
							(attempt) =>
								`${result.name} try ${attempt.attempt}${attempt.cancelled ? ' (stopped)' : ''}: ${JSON.stringify(attempt.output?.map((item) => item.json))?.slice(0, 3000)} ${attempt.thrown ? `THREW ${attempt.thrown.name}: ${attempt.thrown.message} | ${(attempt.thrown as { description?: string }).description}` : ''}`,
						),
					),
				].join('\n'),
			);
		},
	);

	(MODE === 'explore' ? it : it.skip)(
		'finds a shrunk counterexample for each known case today',
		async () => {
			// Each case's finding is also written as it comes (a long exploration shows its progress).
			const LOG = process.env.FAULT_ORACLE_WORLD_LOG;
			const lines: string[] = [];
			for (const known of KNOWN_CASES) {
				if (ONLY_CASES && !ONLY_CASES.includes(known.case)) continue;
				const started = performance.now();
				let scenarios = 0;
				const result = await fc.check(
					fc.asyncProperty(worldScenarios(), async (scenario) => {
						scenarios++;
						const messages = await brokenBy(scenario);
						return !messages.some((message) => known.matches(message, scenario));
					}),
					{ numRuns: RUNS, seed: SEED },
				);
				const elapsed = Math.round(performance.now() - started);
				if (!result.counterexample) {
					lines.push(`case ${known.case}: not reached in ${scenarios} scenarios (${elapsed} ms)`);
					if (LOG) appendFileSync(LOG, `${lines.at(-1)}\n\n`);
					continue;
				}
				const [scenario] = result.counterexample;
				lines.push(
					`case ${known.case}: found after ${result.numRuns} scenarios, shrunk ${result.numShrinks} times (${elapsed} ms, ${scenarios} runs in all)\n` +
						`${(await brokenBy(scenario)).join('\n')}\n${JSON.stringify(scenario)}`,
				);
				if (LOG) appendFileSync(LOG, `${lines.at(-1)}\n\n`);
			}
			console.log(lines.join('\n\n'));
		},
		3_600_000,
	);
});
