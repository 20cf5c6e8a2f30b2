import {
	NO_SPIKE,
	PACE,
	type Sent,
	spikeAnswered,
	spikeRefused,
} from '../../../../../nodes/TicketMarketplace/transport/limiter';
import { RETRY_POLICY } from '../../../../../nodes/TicketMarketplace/transport/retryAfter';

/** The spike arrest's gap on fake time: pure functions, no clock, no pacer (whole runs: pacing.spikeArrest.test.ts). */

const send = (index: number, at: number): Sent => ({ index, at, level: 1, state: 'refused' });
const logOf = (...records: Array<[number, number, Sent['state']]>): Sent[] =>
	records.map(([index, at, state]) => ({ index, at, level: 1, state }));

describe("a spike arrest's gap", () => {
	it('reads the named rate: the interval and a margin; a refusal of a send that kept the gap widens it, up to a bound; earlier sends change nothing', () => {
		const log = logOf([1, 0, 'answered'], [2, 10, 'refused']);
		let spike = spikeRefused(NO_SPIKE, log, send(2, 10), 12, 40, true);
		expect(spike.intervalMs).toBe(25);
		expect(spike.gapMs).toBeCloseTo(25 * (1 + PACE.spikeMargin));
		// Sent before the gap was set: the same overshoot.
		expect(spikeRefused(spike, log, send(3, 11), 13, 40, true).gapMs).toBe(spike.gapMs);
		const widened = spikeRefused(spike, log, send(4, 50), 52, 40, true);
		expect(widened.gapMs).toBeCloseTo(spike.gapMs + (25 * PACE.spikeMargin) / 2);
		for (let at = 100; at < 2000; at += 100)
			spike = spikeRefused(spike, log, send(5, at), at + 1, 40, true);
		expect(spike.gapMs).toBeCloseTo(25 * (1 + 4 * PACE.spikeMargin));
		expect(spike.refusals).toBe(20);
	});

	it('narrows with accepted answers down to the interval, never below; a searched gap stays', () => {
		let spike = spikeRefused(NO_SPIKE, logOf([1, 0, 'answered']), send(2, 10), 12, 40, true);
		const before = spike.gapMs;
		spike = spikeAnswered(spike);
		expect(spike.gapMs).toBeLessThan(before);
		for (let answers = 0; answers < 1000; answers++) spike = spikeAnswered(spike);
		expect(spike.gapMs).toBe(25);
		const searched = spikeRefused(
			NO_SPIKE,
			logOf([1, 0, 'answered']),
			send(2, 10),
			12,
			undefined,
			true,
		);
		expect(spikeAnswered(searched)).toBe(searched);
	});

	it('without a named rate searches from below, never beyond a gap the gateway admitted; fixed mode does not search', () => {
		// Admitted 25 ms apart, refused 12 ms after an admitted one.
		const log = logOf(
			[1, 0, 'answered'],
			[2, 12, 'refused'],
			[3, 25, 'answered'],
			[4, 37, 'refused'],
		);
		const first = spikeRefused(NO_SPIKE, log, send(4, 37), 40, undefined, true);
		expect(first.gapMs).toBeCloseTo(12 * 1.25);
		const again = spikeRefused(first, log, send(5, 41), 43, undefined, true);
		expect(again.gapMs).toBeGreaterThan(first.gapMs);
		expect(again.gapMs).toBeLessThanOrEqual(25 * (1 + PACE.spikeMargin));
		expect(spikeRefused(NO_SPIKE, log, send(4, 37), 40, undefined, false).gapMs).toBe(0);
	});

	it('is never longer than the longest wait of the transport, whatever rate a fault names', () => {
		const oneADay = spikeRefused(NO_SPIKE, [], send(1, 0), 5, 1 / 86_400, true);
		expect(oneADay.gapMs).toBe(RETRY_POLICY.maxWaitMs);
	});
});
