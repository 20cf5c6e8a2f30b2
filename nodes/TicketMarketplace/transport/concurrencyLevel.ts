/**
 * How many requests may be in flight (the loss- and latency-based ideas of Netflix's concurrency-limits):
 * - slow start from a few slots (like TCP's initial window): one more slot per success, so the limit doubles every
 *   round trip, up to the maximum;
 * - a 429 read as the concurrency lowers the limit just below the level that was refused and remembers that level as
 *   a ceiling; above the ceiling the pacer probes only when enough work is left for one more slot to pay for a refusal;
 * - a round trip well above the API's quiet latency (queueing at the API) shrinks the limit.
 */
import { fuzzOf, PACING, type SendRecord } from './pacingConfig';
import type { RoundTrips } from './roundTrips';

export class ConcurrencyLevel {
	limit = 1;
	peakLimit = 1;
	decreases = 0;
	private slowStart = true;
	private additive = 0;
	/** The lowest in-flight level at which the API answered 429; probing above it is rationed. */
	private ceiling = Number.POSITIVE_INFINITY;
	private lastDecreaseAt = Number.NEGATIVE_INFINITY;
	/**
	 * The 429s read as the concurrency: the lowest level refused (never raised: a request refused at one level and
	 * answered at a higher one is the client's count, not the API's) and when the first came back; forgotten after
	 * PACING.sendLogMs.
	 */
	private refusal?: { level: number; at: number };
	private lastRefusalAt = Number.NEGATIVE_INFINITY;
	/** Overshoots refused at the ceiling (one overshoot's refusals count once): one alone may have been random. */
	private ceilingRefusals = 0;
	/** Slow start resumes at most once a run, when a ceiling refused once is answered well above. */
	private resumed = false;

	constructor(
		private readonly maximum: number,
		private readonly roundTrips: RoundTrips,
	) {}

	set(value: number): void {
		this.limit = Math.min(this.maximum, Math.max(1, Math.floor(value)));
		this.peakLimit = Math.max(this.peakLimit, this.limit);
	}

	/** Whether slow start still climbs (no refusal, no decrease yet). */
	get slowStarting(): boolean {
		return this.slowStart;
	}

	/** The lowest level refused as the concurrency in the last PACING.sendLogMs, and when the first came back. */
	recentRefusal(now: number): { level: number; at: number } | undefined {
		const last = this.refusal;
		if (last === undefined || now - last.at > PACING.sendLogMs) return undefined;
		return last;
	}

	/** An accepted or refused (4xx) answer at `levelAtSend`; `waiting` requests have no slot yet. */
	onAnswered(levelAtSend: number, waiting: number, lastRetryAfterMs: number, now: number): void {
		// A request answered above the remembered ceiling shows the API takes more now; well above a ceiling refused
		// once, that refusal was random (an API refusing now and then), and slow start climbs again, once a run.
		if (levelAtSend >= this.ceiling) {
			// Only well above: just above may be the pacer's count running ahead of the API's.
			if (levelAtSend >= this.ceiling + fuzzOf(this.ceiling)) {
				if (this.ceilingRefusals <= 1 && !this.resumed) {
					this.resumed = true;
					this.slowStart = true;
				}
				this.ceilingRefusals = 0;
			}
			this.ceiling = levelAtSend + 1;
		}
		if (this.roundTrips.queueing()) {
			this.decrease(PACING.backoffFactor * this.limit, now);
			return;
		}
		if (this.limit >= this.maximum) return;
		if (this.limit + 1 >= this.ceiling && !this.probeWorthIt(waiting, lastRetryAfterMs)) return;
		if (this.slowStart) {
			this.set(this.limit + 1);
			return;
		}
		this.additive += 1 / this.limit;
		if (this.additive >= 1) {
			this.additive = 0;
			this.set(this.limit + 1);
		}
	}

	/**
	 * A 429 read as the concurrency. At once, not once per round trip: a 429 comes back quickly, and a freed slot
	 * must not be handed straight to the next request at the refused level. Nor to a slot another refusal just
	 * freed: until an answer comes back, no more requests than are in flight.
	 */
	onRefusal(record: SendRecord, inFlight: number, now: number): void {
		const levelAtSend = record.level;
		const recent = this.recentRefusal(now);
		// A new overshoot (sent after the last refusal came back): at the ceiling again, or a lower one.
		if (record.at > this.lastRefusalAt)
			this.ceilingRefusals =
				levelAtSend >= this.ceiling - fuzzOf(this.ceiling) ? this.ceilingRefusals + 1 : 1;
		// Refused although sent after the limit was lowered: lower it further, so that if the next refusal comes
		// anyway it is clearly below the level refused (a per-second limit), and an in-flight limit the pacer's count
		// only met early (its answers on their way back) costs a short dip, not a pause.
		const soon = now - this.lastRefusalAt <= Math.max(this.roundTrips.smoothedMs ?? 0, 100);
		const below = recent && record.at > recent.at && soon ? PACING.lowerAgain : 1;
		this.lastRefusalAt = now;
		// The refusals of one overshoot set the level; one sent after the limit was lowered lowers it by one at most
		// (the pacer's count running ahead), so that a run of them cannot walk it down to a per-second limit's levels.
		if (!recent) this.refusal = { level: levelAtSend, at: now };
		else if (record.at <= recent.at) recent.level = Math.min(recent.level, levelAtSend);
		else recent.level = Math.min(recent.level, Math.max(levelAtSend, recent.level - 1));
		this.ceiling = Math.min(this.ceiling, levelAtSend);
		this.slowStart = false;
		this.additive = 0;
		const target = Math.min(levelAtSend - below, Math.max(1, inFlight));
		if (this.limit > target) {
			this.decreases++;
			this.lastDecreaseAt = now;
			this.set(target);
		}
	}

	/** At most one decrease per round trip: the answers of one overshoot arrive together. */
	decrease(target: number, now: number): void {
		if (now - this.lastDecreaseAt < (this.roundTrips.smoothedMs ?? 0)) return;
		this.lastDecreaseAt = now;
		this.slowStart = false;
		this.additive = 0;
		this.decreases++;
		this.set(Math.min(this.limit, target));
	}

	/**
	 * One more slot saves about waiting/limit - waiting/(limit+1) round trips; a refusal costs one Retry-After. A ceiling
	 * refused once is tried again for free: one random 429 during slow start would otherwise hold a whole run at that
	 * level.
	 */
	private probeWorthIt(waiting: number, lastRetryAfterMs: number): boolean {
		const roundTripMs = this.roundTrips.typicalMs();
		if (!Number.isFinite(roundTripMs) || roundTripMs <= 0) return false;
		if (this.ceilingRefusals <= 1) return waiting > this.limit;
		const roundsSaved = waiting / this.limit - waiting / (this.limit + 1);
		return roundsSaved * roundTripMs > lastRetryAfterMs;
	}
}
