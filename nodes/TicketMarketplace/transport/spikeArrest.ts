/**
 * The gateway's spike arrest, as pure functions of a `Spike`: a smoothed rate ("40ps" is one request every 25 ms,
 * not 40 at once) whose refusal (500 or 429, no Retry-After) names the policy and, mostly, the allowed rate. It
 * needs no pause: the gateway counts only what it admitted, so the next request fits one interval later. The pacer
 * keeps a gap between sends instead:
 * - the rate named in the fault sets the interval; the gap is that interval and a margin for the jitter between our
 *   sends and their arrival, widened a little by each refusal of a send that kept the gap, up to a bound, and
 *   narrowed a little by each accepted answer, down to the interval: the share refused settles near a small target;
 * - without a named rate the interval is searched from below: each refusal of a send that kept the gap widens it by
 *   a step, but never beyond a gap the gateway already admitted (with the margin).
 */
import { SPIKE } from './pacingConfig';
import { RETRY_POLICY } from './retryAfter';
import type { Send } from './pacingTypes';
import type { SendLog } from './sendLog';

export interface Spike {
	/** The gap the gateway asks for between two requests (ms): 1000 / the named rate; 0 while unknown. */
	readonly intervalMs: number;
	/** The gap kept between two sends (ms); 0: no spike arrest met. */
	readonly spacingMs: number;
	readonly refusals: number;
	/** When the gap last changed: refusals of sends that went before it say nothing about it. */
	readonly changedAt: number;
}

export const NO_SPIKE: Spike = {
	intervalMs: 0,
	spacingMs: 0,
	refusals: 0,
	changedAt: Number.NEGATIVE_INFINITY,
};

/** The earliest time the next request may go: one gap after the last send (0 before any spike arrest). */
export function spikeReadyAt(spike: Spike, log: SendLog): number {
	return spike.spacingMs > 0 ? log.lastSendAt + spike.spacingMs : Number.NEGATIVE_INFINITY;
}

/**
 * A spike arrest refused `send` (already marked refused in `log`), at `now`; `allowedPerSecond` when the fault named
 * the rate. `learns`: whether an unnamed rate may be searched (adaptive mode); a named one is read in either mode.
 */
export function spikeRefused(
	spike: Spike,
	log: SendLog,
	send: Send,
	now: number,
	allowedPerSecond: number | undefined,
	learns: boolean,
): Spike {
	const kept = gapAfterRefusal(spike, log, send, now, allowedPerSecond, learns);
	// Never a gap longer than the longest wait the transport takes: a slower rate stops the run instead.
	return kept.spacingMs > RETRY_POLICY.maxWaitMs
		? { ...kept, spacingMs: RETRY_POLICY.maxWaitMs }
		: kept;
}

/** spikeRefused before its bound on the gap. */
function gapAfterRefusal(
	spike: Spike,
	log: SendLog,
	send: Send,
	now: number,
	allowedPerSecond: number | undefined,
	learns: boolean,
): Spike {
	const counted: Spike = { ...spike, refusals: spike.refusals + 1 };
	const named = allowedPerSecond !== undefined && allowedPerSecond > 0;
	// Sent before the gap last changed: the same overshoot, nothing new about the gap.
	const keptGap = send.at > spike.changedAt;
	if (named) {
		const intervalMs = 1000 / allowedPerSecond;
		const first = intervalMs * (1 + SPIKE.margin);
		const widest = intervalMs * (1 + SPIKE.maxMargin);
		let spacingMs = spike.intervalMs === intervalMs ? spike.spacingMs : first;
		if (spike.intervalMs === intervalMs && keptGap)
			spacingMs = Math.min(widest, spacingMs + intervalMs * SPIKE.widen);
		if (spacingMs === spike.spacingMs && intervalMs === spike.intervalMs) return counted;
		return { ...counted, intervalMs, spacingMs, changedAt: now };
	}
	if (spike.intervalMs > 0) {
		// Named before (by an earlier fault of the run): the same policy, widened as above.
		if (!keptGap) return counted;
		const widest = spike.intervalMs * (1 + SPIKE.maxMargin);
		const spacingMs = Math.min(widest, spike.spacingMs + spike.intervalMs * SPIKE.widen);
		return { ...counted, spacingMs, changedAt: now };
	}
	if (!learns || (!keptGap && spike.spacingMs > 0)) return counted;
	// The gateway wants more than the gap this send kept; it admitted the gaps of the sends it answered.
	const gap = gapBefore(log, send);
	const refusedGap = Math.max(spike.spacingMs, Number.isFinite(gap) ? gap : 0, SPIKE.minGapMs);
	const admitted = smallestAdmittedGap(log, refusedGap);
	const spacingMs = Math.min(
		refusedGap * (1 + SPIKE.learnStep),
		Number.isFinite(admitted) ? admitted * (1 + SPIKE.margin) : Number.POSITIVE_INFINITY,
	);
	return { ...counted, spacingMs: Math.max(spacingMs, spike.spacingMs), changedAt: now };
}

/** An accepted answer: a gap read from a fault narrows by a fraction of one widening, down to the interval. */
export function spikeAnswered(spike: Spike): Spike {
	if (spike.intervalMs <= 0 || spike.spacingMs <= spike.intervalMs) return spike;
	const share = SPIKE.targetRefusedShare;
	const narrowMs = (SPIKE.widen * spike.intervalMs * share) / (1 - share);
	return { ...spike, spacingMs: Math.max(spike.intervalMs, spike.spacingMs - narrowMs) };
}

/** How long after the last send before it that the gateway did not refuse `send` went (Infinity: none). */
function gapBefore(log: SendLog, send: Send): number {
	let previous: number | undefined;
	for (const record of log.records) {
		if (record.index >= send.index) break;
		if (record.state !== 'refused') previous = record.at;
	}
	return previous === undefined ? Number.POSITIVE_INFINITY : send.at - previous;
}

/**
 * The smallest gap between two answered sends in a row (no send between them but refused ones), at least
 * `atLeast`: a gap the gateway admitted, so its interval is no longer (Infinity: none).
 */
function smallestAdmittedGap(log: SendLog, atLeast: number): number {
	let smallest = Number.POSITIVE_INFINITY;
	let previous: number | undefined;
	for (const record of log.records) {
		if (record.state === 'refused') continue;
		if (record.state === 'answered' && previous !== undefined) {
			const gap = record.at - previous;
			if (gap >= atLeast) smallest = Math.min(smallest, gap);
		}
		previous = record.state === 'answered' ? record.at : undefined;
	}
	return smallest;
}
