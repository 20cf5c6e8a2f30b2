/**
 * How many listing requests go at once, and how fast. The API's real limits are not documented, so in adaptive
 * mode they are found, not configured:
 * - the first request goes alone, so that n8n fetches the access token once (it has no single-flight);
 * - then the concurrency level is learned (concurrencyLevel.ts) from 429s and from round trips (roundTrips.ts);
 * - APIs also limit requests per second, so a rate is learned beside it (perSecondRate.ts). A 429 at an in-flight
 *   level the API has recently answered without complaint cannot be the concurrency: it is a rate, and every send
 *   pauses until its Retry-After, not only the refused request. A 429 at a level never answered before is read as
 *   the concurrency: only the refused request waits, outside any slot, then goes first, so nothing else stalls;
 * - the first overshoot: after such a 429 nothing more goes until an answer comes back, then one probe. Refused
 *   too, the limit is per second (every send pauses, the pace is set); accepted, it was the concurrency. And the
 *   ramp spreads its sends over the round trip, so that a per-second limit refuses few before its first 429 is back.
 * Fixed mode keeps the first-request-alone rule and then holds exactly the maximum; it learns no rate, and each
 * refused request waits its own Retry-After.
 */
import { waitOrStop } from '../helpers/waitOrStop';

import { ConcurrencyLevel } from './concurrencyLevel';
import { fuzzOf, PACING, type SendRecord } from './pacingConfig';
import { PerSecondRate } from './perSecondRate';
import { RampSpread } from './rampSpread';
import type { AttemptOutcome, PacerStats, PacingMode, Slot } from './pacingTypes';
import { RoundTrips } from './roundTrips';

export { PACING } from './pacingConfig';

export type { AttemptOutcome, PacerStats, PacingMode, Slot } from './pacingTypes';

/** A request waiting for a slot: given one, or null when the run stops first (it is then never sent). */
type Waiter = (slot: Slot | null) => void;

export class RequestPacer {
	private inFlight = 0;
	private peakInFlight = 0;
	private rateLimited = 0;
	private answeredOnce = false;
	private readonly waiting: Waiter[] = [];
	private closed = false;
	private lastRetryAfterMs = PACING.defaultRetryAfterMs;
	private readonly roundTrips = new RoundTrips();
	private readonly level: ConcurrencyLevel;
	private readonly pace = new PerSecondRate();
	private readonly ramp = new RampSpread();
	/**
	 * After a 429 read as the concurrency, nothing more goes until an answer comes back; then one probe: refused
	 * too, the limit is per second (every send pauses); accepted, it was the concurrency.
	 */
	private hold: 'none' | 'untilAnswer' | 'probeReady' | 'probeInFlight' = 'none';
	private probe?: SendRecord;
	/** The in-flight level of the refusal that started the hold. */
	private heldForLevel = 0;
	/** A level the API refused as its concurrency, shown by an accepted probe: refusals there need no new hold. */
	private knownConcurrency = Number.POSITIVE_INFINITY;
	private holds = 0;
	/** The time the pending wake-up (if any) is for. */
	private wakeAt?: number;
	/** One per pending wake-up (an AbortSignal keeps every listener it was given): close() aborts them. */
	private readonly wakeUps = new Set<AbortController>();

	constructor(
		readonly mode: PacingMode,
		readonly maximum: number,
		/** Without Continue On Fail, the first request that ends in an error stops the run. */
		private readonly stopOnFailure = false,
		private readonly now: () => number = Date.now,
		/** Waits until a pause or the spacing between sends is over (n8n's sleep; tests pass fake time). */
		private readonly wait: (ms: number, signal: AbortSignal) => Promise<void> = waitOrStop,
	) {
		if (!Number.isInteger(maximum) || maximum < 1)
			throw new Error('The maximum concurrency must be a whole number of 1 or more');
		this.level = new ConcurrencyLevel(maximum, this.roundTrips);
	}

	/**
	 * Waits for a slot: null once the run has stopped, so the request is never sent. `first` puts a retried
	 * request ahead of requests not yet sent.
	 */
	async acquire(first = false): Promise<Slot | null> {
		if (this.closed) return null;
		if (this.hasRoom() && this.waiting.length === 0 && this.readyAt(this.now()) <= this.now())
			return this.grant();
		const slot = new Promise<Slot | null>((resolve) => {
			if (first) this.waiting.unshift(resolve);
			else this.waiting.push(resolve);
		});
		this.admit();
		return await slot;
	}

	/** No request is sent before `epochMs` (the pacer's clock): the API asked every client to wait (Retry-After). */
	pauseUntil(epochMs: number): void {
		this.pace.pauseUntil(epochMs);
	}

	/**
	 * Closes the pacer when the run is stopped (n8n's cancel signal), so requests waiting out a pause end at once
	 * instead of at its end. Returns what undoes the subscription.
	 */
	closeOn(signal: AbortSignal | undefined): () => void {
		if (signal === undefined) return () => {};
		if (signal.aborted) {
			this.close();
			return () => {};
		}
		const onAbort = () => this.close();
		signal.addEventListener('abort', onAbort, { once: true });
		return () => signal.removeEventListener('abort', onAbort);
	}

	/** No new request starts; requests waiting for a slot get null. */
	close(): void {
		this.closed = true;
		for (const wakeUp of this.wakeUps) wakeUp.abort();
		this.wakeUps.clear();
		for (const waiter of this.waiting.splice(0)) waiter(null);
	}

	get currentLimit(): number {
		return this.level.limit;
	}

	/** Requests per second the pacer keeps to; Infinity when no per-second limit has shown. */
	get currentRate(): number {
		return this.pace.rate;
	}

	snapshot(): PacerStats {
		return {
			peakInFlight: this.peakInFlight,
			peakLimit: this.level.peakLimit,
			finalLimit: this.level.limit,
			rateLimited: this.rateLimited,
			decreases: this.level.decreases,
			rateRefusals: this.pace.refusals,
			finalRate: this.pace.rate,
			lowestRate: this.pace.lowestRate,
			holds: this.holds,
		};
	}

	private hasRoom(): boolean {
		if (this.hold === 'probeInFlight') return false;
		// Held until an answer shows the API has room again, unless nothing is in flight to answer; then one probe.
		if (this.hold === 'untilAnswer' && this.inFlight > 0) return false;
		// The probe goes below the lowered limit: one above it tells nothing (an in-flight limit refuses it too, and a
		// busy n8n reads answers late, so an answer back did not mean a level below the refused one).
		return this.inFlight < this.level.limit;
	}

	/** The earliest time the next request may go: the per-second pace, and the ramp's spread (rampSpread.ts). */
	private readyAt(now: number): number {
		return Math.max(
			this.pace.readyAt(now),
			this.ramp.readyAt(now, this.rampPerMs(), this.rampBurst()),
		);
	}

	private rampPerMs(): number | undefined {
		if (this.mode === 'fixed') return undefined;
		return RampSpread.perMs(this.level.limit, this.roundTrips.typicalMs());
	}

	/** One at a time while slow start climbs into levels never tried; a few once it has met a limit. */
	private rampBurst(): number {
		return this.level.slowStarting ? PACING.slowStartBurst : PACING.rampBurst;
	}

	private grant(): Slot {
		this.inFlight++;
		this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
		const now = this.now();
		this.ramp.take(now, this.rampPerMs(), this.rampBurst());
		let record = this.pace.logSend(now, this.inFlight);
		if (this.hold === 'untilAnswer' || this.hold === 'probeReady') {
			this.hold = 'probeInFlight';
			this.probe = record;
		}
		let released = false;
		return {
			sentAgain: () => {
				if (released) return;
				// The first request was answered (401): it stays in the log as a request the API counted.
				record.state = 'answered';
				const again = this.pace.logSend(this.now(), this.inFlight);
				if (this.probe === record) this.probe = again;
				record = again;
			},
			release: (outcome) => {
				if (released) return;
				released = true;
				this.inFlight--;
				record.state =
					outcome.kind === 'rateLimited'
						? 'refused'
						: outcome.kind === 'answered'
							? 'answered'
							: 'failed';
				if (outcome.final && this.stopOnFailure) this.close();
				this.learn(outcome, record);
				this.admit();
			},
		};
	}

	private admit(): void {
		while (!this.closed && this.waiting.length > 0 && this.hasRoom()) {
			const now = this.now();
			this.pace.grow(now, this.waiting.length, this.lastRetryAfterMs);
			const readyAt = this.readyAt(now);
			if (now < readyAt) {
				this.wakeUpAt(readyAt, now);
				return;
			}
			this.waiting.shift()!(this.grant());
		}
	}

	/** Comes back to admit() at `at`; one wake-up at a time, the earliest needed. */
	private wakeUpAt(at: number, now: number): void {
		if (this.wakeAt !== undefined && this.wakeAt <= at) return;
		this.wakeAt = at;
		const wakeUp = new AbortController();
		this.wakeUps.add(wakeUp);
		this.wait(Math.max(1, Math.ceil(at - now)), wakeUp.signal).then(
			() => {
				this.wakeUps.delete(wakeUp);
				if (this.wakeAt === at) this.wakeAt = undefined;
				this.admit();
			},
			() => {
				// Aborted: the run has stopped.
			},
		);
	}

	private learn(outcome: AttemptOutcome, record: SendRecord): void {
		const now = this.now();
		const first = !this.answeredOnce;
		if (first) {
			// The first answer settles the token; from now on requests may overlap.
			this.answeredOnce = true;
			this.level.set(this.mode === 'fixed' ? this.maximum : PACING.initialLimit);
		}
		if (record === this.probe) {
			this.probe = undefined;
			this.hold = 'none';
			if (outcome.kind === 'answered')
				this.knownConcurrency = Math.min(this.knownConcurrency, this.heldForLevel);
			if (outcome.kind === 'rateLimited') {
				this.rateLimited++;
				this.onRateRefusal(outcome, record, now);
				return;
			}
		}
		if (outcome.kind === 'rateLimited') this.onRateLimited(outcome, record, now);
		else if (outcome.kind === 'answered') {
			// An answer: the API has room again, the probe may go.
			if (this.hold === 'untilAnswer') this.hold = 'probeReady';
			this.roundTrips.record(outcome, first);
			if (!first && this.mode === 'adaptive')
				this.level.onAnswered(record.level, this.waiting.length, this.lastRetryAfterMs, now);
		} else if (!first && this.mode === 'adaptive')
			this.level.decrease(PACING.backoffFactor * this.level.limit, now);
	}

	private onRateLimited(
		outcome: { retryAfterMs?: number; final?: boolean },
		record: SendRecord,
		now: number,
	): void {
		this.rateLimited++;
		// A Retry-After too long to wait ends the request (final): it must not become the pause of the next 429
		// without one, which would then pause every send that long.
		if (outcome.retryAfterMs !== undefined && !outcome.final)
			this.lastRetryAfterMs = outcome.retryAfterMs;
		if (this.mode === 'fixed') return;
		if (this.isRateRefusal(record) && this.pace.windowsAgree(record)) {
			// Not the concurrency; a per-second limit only once a second refusal agrees (perSecondRate.ts).
			if (this.pace.confirms(record)) this.onRateRefusal(outcome, record, now);
			return;
		}
		this.level.onRefusal(record, this.inFlight, now);
		// The API's concurrency, met again while probing upward: nothing to find out.
		if (record.level >= this.knownConcurrency - fuzzOf(this.knownConcurrency)) return;
		if (this.hold === 'none' && this.pace.pausedUntilMs <= now) {
			this.hold = 'untilAnswer';
			this.heldForLevel = record.level;
			this.holds++;
		}
	}

	private onRateRefusal(
		outcome: { retryAfterMs?: number; final?: boolean },
		record: SendRecord,
		now: number,
	): void {
		// A Retry-After too long to wait ends the request in an error; the others are not held for it.
		const pauseMs = outcome.final ? undefined : (outcome.retryAfterMs ?? this.lastRetryAfterMs);
		this.pace.onRefusal(record, now, pauseMs);
	}

	/**
	 * Whether a 429 shows a per-second limit rather than one on requests in flight. An API that limits requests in
	 * flight refuses a request only when at least that many others are in flight, so once the limit was lowered
	 * below a refused level, it refuses nothing below that level again (give or take PACING.levelFuzz: the pacer's
	 * count runs ahead of the API's). A per-second limit does: a request sent after the limit was lowered and
	 * refused clearly below the lowest level refused, or refused at a level the API answered recently (before any
	 * refusal read as the concurrency), or refused alone, is read as a rate. The first refusals of a climb, at
	 * levels never answered, are read as the concurrency.
	 */
	private isRateRefusal(record: SendRecord): boolean {
		if (record.level <= 1) return true;
		const concurrency = this.level.recentRefusal(this.now());
		if (concurrency === undefined) return record.level <= this.pace.highestAnsweredLevel();
		// Sent before that refusal came back: the same overshoot.
		if (record.at <= concurrency.at) return false;
		if (record.level >= concurrency.level) return false;
		// One level below may still be the concurrency: the pacer counts a request from its send to the end of its
		// answer, the API a little less.
		return record.level < concurrency.level - fuzzOf(concurrency.level);
	}
}
