/**
 * n8n 2.41's n8n-workflow no longer exports sleepWithAbort (the e2e suite on 2.41.1 found it: every 429 wait threw
 * a TypeError and ended the run). Without it, waitOrStop sleeps with n8n's sleep in steps and ends when stopped.
 */
import { getEventListeners } from 'node:events';
import { sleep } from 'n8n-workflow';

import {
	stoppedWhileWaiting,
	waitOrStop,
} from '../../../../../nodes/TicketMarketplace/transport/waitOrStop';
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

describe('stoppedWhileWaiting, with many requests waiting at once', () => {
	// Node warns of a leak past 10 listeners on one signal, and the pacer's is shared by every wait.
	it('ends every wait when the pacer closes, holding one listener on each signal', async () => {
		steps.mockImplementation(async () => await new Promise((resolve) => setTimeout(resolve, 5)));
		try {
			const [stop, closing] = [new AbortController(), new AbortController()];
			const waits = Array.from({ length: 48 }, () =>
				stoppedWhileWaiting(10_000, stop.signal, closing.signal),
			);
			const held = [stop, closing].map(({ signal }) => getEventListeners(signal, 'abort').length);
			expect(held).toEqual([1, 1]);
			closing.abort();
			expect(await Promise.all(waits)).toEqual(Array(48).fill(true));
		} finally {
			steps.mockReset();
		}
	});
});
