/**
 * The gateway's spike arrest, as pure functions of a `Spike`: a rate spread evenly ("40ps" is one request every 25 ms,
 * not 40 at once) whose refusal (500 or 429, no Retry-After) mostly names the rate. It needs no pause: the gateway
 * counts only what it admitted, so the pacer keeps a gap between sends instead.
 */
import { PACE, type Sent } from './limiter';
import { RETRY_POLICY } from './retryAfter';

export interface Spike {
	/** The interval the fault named (0: none), the gap kept (0: none met), when the gap last changed. */
	readonly intervalMs: number;
	readonly gapMs: number;
	readonly changedAt: number;
	readonly refusals: number;
}

export const NO_SPIKE: Spike = { intervalMs: 0, gapMs: 0, changedAt: -Infinity, refusals: 0 };

/**
 * A spike arrest refused `send` (marked refused in `log`): a named rate sets the gap (its interval and a margin),
 * widened by each refusal of a send that kept it, up to a bound; without one, `search` (adaptive mode) widens it from
 * below, never beyond a gap the gateway admitted. Never longer than the longest wait: a slower rate stops the run.
 */
export function spikeRefused(
	spike: Spike,
	log: readonly Sent[],
	send: Sent,
	now: number,
	allowedPerSecond: number | undefined,
	search: boolean,
): Spike {
	const named =
		allowedPerSecond !== undefined && allowedPerSecond > 0 ? 1000 / allowedPerSecond : 0;
	const interval = named || spike.intervalMs;
	// Sent before the gap last changed: the same overshoot, nothing new about the gap.
	const keptGap = send.at > spike.changedAt;
	let gap = spike.gapMs;
	if (interval > 0 && interval !== spike.intervalMs) gap = interval * (1 + PACE.spikeMargin);
	else if (interval > 0 && keptGap)
		gap = Math.min(interval * (1 + 4 * PACE.spikeMargin), gap + (interval * PACE.spikeMargin) / 2);
	else if (interval === 0 && search && (keptGap || gap === 0)) {
		const refusedGap = Math.max(2, gap, gapBefore(log, send));
		const admitted = smallestAdmittedGap(log, refusedGap) * (1 + PACE.spikeMargin);
		gap = Math.min(refusedGap * 1.25, admitted);
	}
	gap = Math.min(gap, RETRY_POLICY.maxWaitMs);
	const changed = gap !== spike.gapMs || interval !== spike.intervalMs;
	const changedAt = changed ? now : spike.changedAt;
	return { intervalMs: interval, gapMs: gap, changedAt, refusals: spike.refusals + 1 };
}

/** An accepted answer narrows a named gap a little, down to the interval: refusals settle near 2.5 % of sends. */
export function spikeAnswered(spike: Spike): Spike {
	const interval = spike.intervalMs;
	if (interval <= 0 || spike.gapMs <= interval) return spike;
	const narrowMs = (interval * PACE.spikeMargin) / 2 / 39;
	return { ...spike, gapMs: Math.max(interval, spike.gapMs - narrowMs) };
}

/** How long after the last send before it that the gateway did not refuse `send` went (0: none). */
function gapBefore(log: readonly Sent[], send: Sent): number {
	const before = log.filter((s) => s.index < send.index && s.state !== 'refused');
	return before.length > 0 ? send.at - before[before.length - 1].at : 0;
}

/** The smallest gap of at least `atLeast` between two answered sends in a row: one the gateway admitted. */
function smallestAdmittedGap(log: readonly Sent[], atLeast: number): number {
	let smallest = Infinity;
	let previous: number | undefined;
	for (const s of log) {
		if (s.state === 'refused') continue;
		if (s.state === 'answered' && previous !== undefined && s.at - previous >= atLeast)
			smallest = Math.min(smallest, s.at - previous);
		previous = s.state === 'answered' ? s.at : undefined;
	}
	return smallest;
}
