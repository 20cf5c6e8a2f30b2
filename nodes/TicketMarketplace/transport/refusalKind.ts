/**
 * What a 429 shows, as one pure function: a per-second limit (every send pauses until its Retry-After, and a pace is
 * set), the API's concurrency (the level is lowered; only the refused request waits), or nothing yet (a refusal that
 * looks like a rate but is not confirmed: an API may refuse now and then at random; only the refused request waits).
 *
 * An API that limits requests in flight refuses a request only when at least that many others are in flight, so once
 * the limit was lowered below a refused level it refuses nothing below that level again (give or take the pacer's
 * count running ahead of the API's). A per-second limit does; and it never lets more through in a second than it did
 * just before it refused; and it refuses again at the same count, where random refusals come at any count.
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

/**
 * A 429 that looked like a rate and was not confirmed: how many the API had accepted in the second before the
 * refused send, which send it was, and how many had been sent when its 429 was read.
 */
export interface Suspect {
	readonly accepted: number;
	readonly index: number;
	readonly sentBeforeRead: number;
}

/** What the classifier reads: the send log, the controllers' states, and the suspect it left last time. */
export interface RefusalFacts {
	readonly log: SendLog;
	readonly level: Level;
	readonly rate: Rate;
	readonly overshoot: Overshoot;
	readonly suspect?: Suspect;
}

export interface Classified {
	readonly kind: RefusalKind;
	/** The suspect to keep for the next 429. */
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
 * Whether the send was refused where an in-flight limit would not refuse: alone; or, with no refusal read as the
 * concurrency lately, at a level the API has answered; or sent after such a refusal came back and refused clearly
 * below its level (one level below may still be the concurrency: the pacer counts a request from its send to the end
 * of its answer, the API a little less). The first refusals of a climb, at levels never answered, are not.
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

/**
 * A per-second limit never lets more through in a second than it did just before it refused: when a recent second
 * (since the last rate refusal, within CLASSIFY.rateCheckMs) had clearly more answered than the second before this
 * refusal, it is not a per-second limit.
 */
function windowsAgree({ log, rate }: RefusalFacts, send: Send): boolean {
	const accepted = acceptedBefore(log, send);
	const since = Math.max(send.at - CLASSIFY.rateCheckMs, rate.lastRefusalAt);
	return busiestSecond(log, since) <= accepted + Math.max(2, CLASSIFY.windowTolerance * accepted);
}

/**
 * One refusal alone is not read as a limit (random), only the refused request waits. A limit refuses again at the
 * same count: a second refusal at no more than the first one's count (CLASSIFY.confirmTolerance), of a send that went
 * after the first 429 was read (CLASSIFY.confirmWithinSends), confirms it; at random, the count has climbed by then.
 */
function confirm({ log, rate, suspect }: RefusalFacts, send: Send): Classified {
	const accepted = acceptedBefore(log, send);
	// Refused beyond the pace before it last grew: the growth went too far. (Not only the request that filled the new
	// pace: one sent while the count climbed to it is refused at a lower count.)
	if (rate.grownFrom !== undefined && accepted + 1 > rate.grownFrom) return { kind: 'rate' };
	// Sent after the suspect's 429 was read, and soon after: a limit refuses the next sends too.
	if (
		suspect !== undefined &&
		send.index > suspect.sentBeforeRead &&
		send.index - suspect.sentBeforeRead <= CLASSIFY.confirmWithinSends &&
		accepted <= suspect.accepted + CLASSIFY.confirmTolerance
	)
		return { kind: 'rate' };
	// A refusal of the same burst as the suspect does not replace it; it confirms only when nearly every send since the
	// suspect was refused too: a limit refuses a run of them, random 429s leave gaps.
	if (suspect !== undefined && send.index <= suspect.sentBeforeRead)
		return refusedInARow(log, suspect.index, send.index)
			? { kind: 'rate' }
			: { kind: 'random', suspect };
	return {
		kind: 'random',
		suspect: { accepted, index: send.index, sentBeforeRead: log.count },
	};
}

/**
 * Whether the sends from `fromIndex` to `toIndex` were refused in a run: at least CLASSIFY.burstRefusals of them,
 * at most a share CLASSIFY.burstGapShare not refused (answered, or still in flight: a refusal comes back first).
 */
function refusedInARow(log: SendLog, fromIndex: number, toIndex: number): boolean {
	const { sends, refused } = refusedOf(log, fromIndex, toIndex);
	return refused >= CLASSIFY.burstRefusals && sends - refused <= CLASSIFY.burstGapShare * sends;
}
