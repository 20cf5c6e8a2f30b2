/**
 * The per-second side of the pacer: a log of recent sends, the pace in requests per second, and the
 * pause a rate-type 429 imposes on every send.
 * - without a rate refusal there is no pace: only the concurrency paces;
 * - a rate refusal pauses every send until its Retry-After, and the pace becomes a little below what the API
 *   accepted in the second before the refused request;
 * - a limit that falls is followed at the next refusal; one that rises is found by probing: after a second without
 *   refusal the pace grows by 10 %, then 20, 40, 80 %, 100 % a second, but above the rate last refused only while
 *   enough work is left for the gain to pay for a refusal, and the more often the same rate is refused, the longer
 *   the pacer holds before it probes again and the more work must be left (each probe refused in a row at the same
 *   rate adds one more Retry-After that the next must pay for).
 */
import { PACING, type SendRecord } from './pacingConfig';

export class PerSecondRate {
	/** Requests per second; Infinity until a 429 shows a per-second limit. */
	rate = Number.POSITIVE_INFINITY;
	lowestRate = Number.POSITIVE_INFINITY;
	refusals = 0;
	pausedUntilMs = Number.NEGATIVE_INFINITY;
	/** Sends of the last PACING.sendLogMs, oldest first. */
	private sends: SendRecord[] = [];
	/** What the API accepted in the second before its last rate refusal; probing above it is rationed. */
	private ceiling = Number.POSITIVE_INFINITY;
	private steps = 0;
	private grownSinceRefusal = false;
	private sendCount = 0;
	private paceBeforeRefusal = Number.POSITIVE_INFINITY;
	private paceBeforeGrowth = Number.POSITIVE_INFINITY;
	/** The highest pace that held a whole hold without refusal. */
	private bestHeld = 0;
	private holdMs = PACING.rateWindowMs;
	/** Probes refused in a row at the same limit. */
	private refusedProbes = 0;
	private lastChangeAt = Number.NEGATIVE_INFINITY;
	private lastRefusalAt = Number.NEGATIVE_INFINITY;
	private lastSendAt = Number.NEGATIVE_INFINITY;
	/**
	 * A 429 not yet read as a per-second limit: how many the API had accepted in the second before the refused send,
	 * which send it was, and how many had been sent when its 429 was read. A second refusal at no more, of a send
	 * that went after that, confirms it.
	 */
	private suspect?: { accepted: number; index: number; sentBeforeRead: number };

	/** Logs a send at `level` requests in flight (this one included). */
	logSend(now: number, level: number): SendRecord {
		this.lastSendAt = now;
		this.sendCount++;
		const record: SendRecord = { at: now, level, state: 'inFlight', index: this.sendCount };
		this.sends.push(record);
		while (this.sends.length > 0 && now - this.sends[0].at > PACING.sendLogMs) this.sends.shift();
		return record;
	}

	/**
	 * The earliest time the next request may go: after any pause; while the sends of the last window that the API
	 * did not refuse stay below the pace (the API's own count); and spread, at most twice the pace.
	 */
	readyAt(now: number): number {
		if (!Number.isFinite(this.rate)) return this.pausedUntilMs;
		const windowMs = PACING.rateWindowMs + PACING.rateGuardMs;
		const counted = this.sends.filter(
			(send) => send.state !== 'refused' && send.at > now - windowMs,
		);
		const allowed = allowance(this.rate);
		const windowFreeAt =
			counted.length < allowed
				? Number.NEGATIVE_INFINITY
				: counted[counted.length - allowed].at + windowMs;
		const spacing = PACING.rateWindowMs / (PACING.rateBurst * this.rate);
		return Math.max(this.pausedUntilMs, windowFreeAt, this.lastSendAt + spacing);
	}

	pauseUntil(epochMs: number): void {
		this.pausedUntilMs = Math.max(this.pausedUntilMs, epochMs);
	}

	/** Requests sent in the second before `at` and not refused (answered or still in flight). */
	acceptedBefore(at: number, except?: SendRecord): number {
		return this.sends.filter(
			(send) =>
				send !== except &&
				send.state !== 'refused' &&
				send.at < at &&
				send.at >= at - PACING.rateWindowMs,
		).length;
	}

	/** The highest in-flight level of the logged sends the API answered (not refused). */
	highestAnsweredLevel(): number {
		let highest = 0;
		for (const send of this.sends)
			if (send.state === 'answered') highest = Math.max(highest, send.level);
		return highest;
	}

	/**
	 * A per-second limit never lets more through in a second than it did just before it refused: when a recent
	 * second (since the last rate refusal, within PACING.rateCheckMs) had clearly more accepted requests than the
	 * second before this refusal, the refusal is not a per-second limit.
	 */
	windowsAgree(record: SendRecord): boolean {
		const accepted = this.acceptedBefore(record.at, record);
		const since = Math.max(record.at - PACING.rateCheckMs, this.lastRefusalAt);
		// Answered ones only: requests still in flight may yet be refused.
		const recent = this.sends.filter((send) => send.state === 'answered' && send.at > since);
		let most = 0;
		let start = 0;
		for (let end = 0; end < recent.length; end++) {
			while (recent[end].at - recent[start].at >= PACING.rateWindowMs) start++;
			most = Math.max(most, end - start + 1);
		}
		return most <= accepted + Math.max(2, PACING.sameLimitTolerance * accepted);
	}

	/**
	 * Whether a 429 that looks like a per-second limit is one. An API that refuses now and then at random (an
	 * overloaded backend) also answers 429 at any count: one refusal alone is not read as a limit, only the refused
	 * request waits. A limit refuses again at the same count: a second refusal at no more than the first one's count
	 * (PACING.confirmTolerance), of a send that went after the first 429 was read (PACING.confirmWithinSends),
	 * confirms it; at random, the count has climbed by then. (A second with clearly more accepted since the first
	 * refusal already made windowsAgree() say no.)
	 */
	confirms(record: SendRecord): boolean {
		const accepted = this.acceptedBefore(record.at, record);
		// Refused beyond the pace before it last grew: the probe went too far. (Not only the request that filled the new
		// pace: one sent while the count climbed to it is refused at a lower count, and would wait for a second refusal
		// that agrees.)
		if (this.grownSinceRefusal && accepted + 1 > this.paceBeforeGrowth) {
			this.suspect = undefined;
			return true;
		}
		const suspect = this.suspect;
		// Sent after the suspect's 429 was read, and soon after: two refused in one burst are no evidence (random ones
		// fall together now and then), a limit refuses the next sends too.
		if (
			suspect !== undefined &&
			record.index > suspect.sentBeforeRead &&
			record.index - suspect.sentBeforeRead <= PACING.confirmWithinSends &&
			accepted <= suspect.accepted + PACING.confirmTolerance
		) {
			this.suspect = undefined;
			return true;
		}
		// A refusal of the same burst as the suspect does not replace it; it confirms only when nearly every send since
		// the suspect was refused too: a limit refuses a run of them, random 429s (a few in a hundred) leave gaps.
		if (suspect !== undefined && record.index <= suspect.sentBeforeRead) {
			if (!this.refusedInARow(suspect.index, record.index)) return false;
			this.suspect = undefined;
			return true;
		}
		this.suspect = { accepted, index: record.index, sentBeforeRead: this.sendCount };
		return false;
	}

	/**
	 * Whether the sends from `fromIndex` to `toIndex` were refused in a run: at least PACING.burstRefusals of them,
	 * with at most one in PACING.burstGapShare not refused (answered, or still in flight: a refusal comes back first).
	 */
	private refusedInARow(fromIndex: number, toIndex: number): boolean {
		const span = this.sends.filter((send) => send.index >= fromIndex && send.index <= toIndex);
		const refused = span.filter((send) => send.state === 'refused').length;
		return (
			refused >= PACING.burstRefusals && span.length - refused <= PACING.burstGapShare * span.length
		);
	}

	/**
	 * A per-second limit: everything waits for the Retry-After, then goes at a little below what the API accepted
	 * in the second before the refused request (the requests sent then and not refused, answered or not yet).
	 * `pauseMs` is undefined when the request ends in an error: the others are not held for a wait too long to make.
	 */
	onRefusal(record: SendRecord, now: number, pauseMs: number | undefined): void {
		this.refusals++;
		if (pauseMs !== undefined) this.pauseUntil(now + pauseMs);
		const limit = Math.max(1, this.acceptedBefore(record.at, record));
		// Refusals of one overshoot (sent before the first of them came back) say the same: only ever lower.
		const sameOvershoot = record.at <= this.lastRefusalAt;
		if (!sameOvershoot) {
			const sameLimit =
				Number.isFinite(this.ceiling) &&
				Math.abs(limit - this.ceiling) <= PACING.sameLimitTolerance * this.ceiling;
			this.holdMs = sameLimit
				? Math.min(PACING.maxRateHoldMs, this.holdMs * 2)
				: PACING.rateWindowMs;
			this.refusedProbes = sameLimit && this.grownSinceRefusal ? this.refusedProbes + 1 : 0;
		}
		this.ceiling = sameOvershoot ? Math.min(this.ceiling, limit) : limit;
		// Refused as the request that filled a pace that held since the last refusal: the limit is at the pace (or the
		// API refused at random), so the pace stays; one that just grew was a probe, and goes back.
		const atHeldPace = limit + 1 >= this.rate && !this.grownSinceRefusal && !sameOvershoot;
		if (!sameOvershoot) this.paceBeforeRefusal = this.rate;
		// At most halved by one refusal: a 429 at random after a pause (few sent in the second before) is not a crawl.
		if (!atHeldPace)
			this.set(
				Math.min(this.rate, Math.max(limit * PACING.rateMargin, halfOf(this.paceBeforeRefusal))),
			);
		this.grownSinceRefusal = false;
		this.steps = 0;
		this.lastRefusalAt = now;
		// The pace holds from the end of the pause.
		this.lastChangeAt = Math.max(now, this.pausedUntilMs);
	}

	/**
	 * After a pace held without refusal (a second, longer when the same rate was refused again and again), it grows;
	 * above the rate last refused only when the `waiting` requests pay for a refusal.
	 */
	grow(now: number, waiting: number, lastRetryAfterMs: number): void {
		if (!Number.isFinite(this.rate) || now < this.pausedUntilMs) return;
		const hold =
			this.rate * (1 + this.nextStep()) > this.ceiling ? this.holdMs : PACING.rateWindowMs;
		if (now - this.lastChangeAt < hold) return;
		// The pace held without refusal: the API takes at least this much now.
		this.bestHeld = Math.max(this.bestHeld, this.rate);
		// ... and more than it refused before: the limit has risen, so probing need not wait longer any more. (More
		// requests a second, not a fraction more: a fractional pace lets go only as many as the whole number below it,
		// holds whenever that does, and would keep the pacer probing the rate above, each refusal pausing every send.)
		if (allowance(this.rate) > allowance(this.ceiling)) {
			this.ceiling = this.rate;
			this.holdMs = PACING.rateWindowMs;
			this.refusedProbes = 0;
		}
		const step = this.nextStep();
		if (
			this.rate * (1 + step) > this.ceiling &&
			!this.probeWorthIt(step, waiting, lastRetryAfterMs)
		)
			return;
		this.grownSinceRefusal = true;
		this.paceBeforeGrowth = this.rate;
		this.lastChangeAt = now;
		// Back up to the best pace that ever held, no further in one step; beyond it, the steps start small again.
		if (this.rate < this.bestHeld && this.rate * (1 + step) > this.bestHeld) {
			this.steps = 0;
			this.set(this.bestHeld);
			return;
		}
		this.steps++;
		this.set(this.rate * (1 + step));
	}

	private set(value: number): void {
		this.rate = value > PACING.maxRate ? Number.POSITIVE_INFINITY : Math.max(value, 0.1);
		this.lowestRate = Math.min(this.lowestRate, this.rate);
	}

	private nextStep(): number {
		return Math.min(PACING.maxRateStep, PACING.firstRateStep * 2 ** this.steps);
	}

	/**
	 * The waiting requests go `step` faster: worth a refusal's Retry-After (everything paused) if they save more; after
	 * probes refused in a row at the same rate, more: each of those refusals paused every send.
	 */
	private probeWorthIt(step: number, waiting: number, lastRetryAfterMs: number): boolean {
		const secondsLeft = waiting / this.rate;
		const savedMs = (1000 * secondsLeft * step) / (1 + step);
		return savedMs > lastRetryAfterMs * (1 + this.refusedProbes);
	}
}

/** How many requests a pace lets go in one second. */
function allowance(rate: number): number {
	return Math.max(1, Math.floor(rate));
}

/** Half a pace; no floor at all while there is none. */
function halfOf(rate: number): number {
	return Number.isFinite(rate) ? rate / 2 : 0;
}
