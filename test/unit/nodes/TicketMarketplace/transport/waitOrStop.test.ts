/**
 * n8n 2.41's n8n-workflow no longer exports sleepWithAbort (the e2e suite on 2.41.1 found it: every 429 wait threw
 * a TypeError and ended the run). Without it, waitOrStop sleeps with n8n's sleep in steps and ends when stopped.
 */
import { sleep } from 'n8n-workflow';

import { waitOrStop } from '../../../../../nodes/TicketMarketplace/transport/waitOrStop';
import { withoutSleepWithAbort } from '../../../../setup/sleeps';

withoutSleepWithAbort();
const steps = jest.mocked(sleep);

beforeEach(() => steps.mockClear());

describe('waitOrStop on an n8n-workflow without sleepWithAbort', () => {
	it("waits the whole time in steps of n8n's sleep", async () => {
		await waitOrStop(250);
		expect(steps.mock.calls.map(([ms]) => ms)).toEqual([100, 100, 50]);
	});

	it('ends (rejects) between steps once the run is stopped, and at once when it already was', async () => {
		const stop = new AbortController();
		steps.mockImplementationOnce(async () => stop.abort());
		await expect(waitOrStop(1000, stop.signal)).rejects.toThrow('stopped');
		expect(steps).toHaveBeenCalledTimes(1);
		await expect(waitOrStop(1000, stop.signal)).rejects.toThrow('stopped');
		expect(steps).toHaveBeenCalledTimes(1);
	});
});
