/**
 * A defect the fault oracle found in overlapping runs, pinned as one deterministic scenario (every turn and answer
 * seeded: support/faultOracle/answerTimers.ts, virtualClock.ts). Runs A and B both record listing 3 from one read
 * of the store, both told it is new; B's stale write erases A's marker, so B's record stands and B sends listing 3,
 * which the API creates. A's second write fails (the store is locked, twice), and A, undoing what its first write
 * "added", removes listing 3 from the memory: B's record of a created listing. A later run would send it again.
 */
import nock from 'nock';
import { sleepWithAbort } from 'n8n-workflow';

import { useAnswerTimers } from '../../../../../../../support/faultOracle/answerTimers';
import {
	oraclePause,
	oracleWait,
	runScenario,
	useVirtualClock,
} from '../../../../../../../support/faultOracle/scenario';
import type { Scenario } from '../../../../../../../support/faultOracle/scenario';
import { useSleeps } from '../../../../../../setup/sleeps';

useSleeps({ sleep: oraclePause, sleepWithAbort: oracleWait });
const waits = sleepWithAbort as jest.MockedFunction<typeof sleepWithAbort>;

afterEach(() => nock.cleanAll());
useVirtualClock();
useAnswerTimers();

const run = {
	ids: [3],
	output: 'listing' as const,
	onError: 'continueRegularOutput' as const,
	concurrency: 1,
	adaptive: false,
};

const LOCKED_AFTER_SHARED_RECORD: Scenario = {
	behaviours: ['created'],
	loginRefused: false,
	duplicates: 'refuse',
	rememberedBefore: [],
	runs: [run, run],
	start: { kind: 'together' },
	// The 8th and 9th store calls are A's second write and its retry.
	failingStoreCalls: [8, 9],
	storeGaps: [2],
	pauseTurns: [0],
	answerMs: [0],
	slowTurns: [0],
	answerTurns: [0],
};

describe('Listing → Create: overlapping runs, a run that fails before sending', () => {
	it('keeps the other run’s record of a listing it created (I3)', async () => {
		await expect(runScenario(LOCKED_AFTER_SHARED_RECORD, waits)).resolves.toEqual({
			createdTwice: 0,
			erasedForGood: 0,
			resurrected: 0,
		});
	});
});
