/**
 * What a 429 shows, as one pure function: a per-second limit (every send pauses, a pace is set), the API's
 * concurrency (the level is lowered), or nothing yet (maybe random: only the refused request waits). An in-flight
 * limit refuses nothing below a refused level again; a per-second limit does, never lets more through in a second
 * than just before it refused, and refuses again at the same count, where random refusals come at any count.
 */
import type { Level } from './concurrencyLevel';
import { recentRefusal } from './concurrencyLevel';
import type { Overshoot } from './overshootHold';
import { isProbe } from './overshootHold';
import { CLASSIFY, fuzzOf } from './pacingConfig';
import type { Send } from './pacingTypes';
import type { Rate } from './perSecondRate';
import {
	acceptedBefore,
	busiestSecond,
	highestAnsweredLevel,
	refusedOf,
	type SendLog,
} from './sendLog';

export type RefusalKind = 'rate' | 'concurrency' | 'random';

/** A 429 that looked like a rate, unconfirmed: accepted in the second before, which send, sent when it was read. */
export interface Suspect {
	readonly accepted: number;
	readonly index: number;
	readonly sentBeforeRead: number;
}

/** The send log, the controllers' states, and the suspect left last time. */
export interface RefusalFacts {
	readonly log: SendLog;
	readonly level: Level;
	readonly rate: Rate;
	readonly overshoot: Overshoot;
	readonly suspect?: Suspect;
}

export interface Classified {
	readonly kind: RefusalKind;
	readonly suspect?: Suspect;
}

/** The kind of the 429 that refused `send`, read at `now` (the log already shows it refused). */
export function classifyRefusal(facts: RefusalFacts, send: Send, now: number): Classified {
	const { suspect } = facts;
	// The probe after a hold, refused too: the limit is per second.
	if (isProbe(facts.overshoot, send)) return { kind: 'rate', suspect };
	if (!belowConcurrency(facts, send, now) || !windowsAgree(facts, send))
		return { kind: 'concurrency', suspect };
	return confirm(facts, send);
}

/**
 * Refused where an in-flight limit would not refuse: alone; at a level the API has answered (no recent concurrency
 * refusal); or, sent after one came back, clearly below its level (the pacer counts a request a little longer).
 */
function belowConcurrency({ level, log }: RefusalFacts, send: Send, now: number): boolean {
	if (send.level <= 1) return true;
	const concurrency = recentRefusal(level, now);
	if (concurrency === undefined) return send.level <= highestAnsweredLevel(log);
	// Sent before that refusal came back: the same overshoot.
	if (send.at <= concurrency.at) return false;
	if (send.level >= concurrency.level) return false;
	return send.level < concurrency.level - fuzzOf(concurrency.level);
}

/** Not a per-second limit when a recent second had clearly more answered than the one before this refusal. */
function windowsAgree({ log, rate }: RefusalFacts, send: Send): boolean {
	const accepted = acceptedBefore(log, send);
	const since = Math.max(send.at - CLASSIFY.rateCheckMs, rate.lastRefusalAt);
	return busiestSecond(log, since) <= accepted + Math.max(2, CLASSIFY.windowTolerance * accepted);
}

/**
 * One refusal alone is random. A limit refuses again at the same count: a second refusal at no more than the first's
 * count, of a send soon after the first 429 was read, confirms it; at random, the count has climbed by then.
 */
function confirm({ log, rate, suspect }: RefusalFacts, send: Send): Classified {
	const accepted = acceptedBefore(log, send);
	// Refused beyond the pace before it last grew: the growth went too far.
	if (rate.grownFrom !== undefined && accepted + 1 > rate.grownFrom) return { kind: 'rate' };
	// Sent after the suspect's 429 was read, and soon after: a limit refuses the next sends too.
	if (
		suspect !== undefined &&
		send.index > suspect.sentBeforeRead &&
		send.index - suspect.sentBeforeRead <= CLASSIFY.confirmWithinSends &&
		accepted <= suspect.accepted + CLASSIFY.confirmTolerance
	)
		return { kind: 'rate' };
	// Of the suspect's burst: confirms only when nearly every send since was refused (random 429s leave gaps).
	if (suspect !== undefined && send.index <= suspect.sentBeforeRead)
		return refusedInARow(log, suspect.index, send.index)
			? { kind: 'rate' }
			: { kind: 'random', suspect };
	return {
		kind: 'random',
		suspect: { accepted, index: send.index, sentBeforeRead: log.count },
	};
}

/** Enough of these sends refused, few not (answered, or still in flight: a refusal comes back first). */
function refusedInARow(log: SendLog, fromIndex: number, toIndex: number): boolean {
	const { sends, refused } = refusedOf(log, fromIndex, toIndex);
	return refused >= CLASSIFY.burstRefusals && sends - refused <= CLASSIFY.burstGapShare * sends;
}
