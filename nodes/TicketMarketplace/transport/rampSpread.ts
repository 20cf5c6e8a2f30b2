/**
 * Spreads adaptive sends over the round trip (the first overshoot): a burst of PACING.slowStartBurst at
 * most while slow start climbs (PACING.rampBurst after), then PACING.rampGain times the level a round trip (a token
 * bucket). Slow start still doubles the level every round trip, but a per-second limit then refuses few sends before
 * its first 429 is back, not a whole burst.
 */
import { PACING } from './pacingConfig';

export class RampSpread {
	private tokens: number = PACING.slowStartBurst;
	private refilledAt = 0;

	/** The earliest time a send may go; `perMs` undefined (no round trip yet, fixed mode): now. */
	readyAt(now: number, perMs: number | undefined, burst: number): number {
		if (perMs === undefined) return now;
		this.refill(now, perMs, burst);
		return this.tokens >= 1 ? now : now + (1 - this.tokens) / perMs;
	}

	/** A send goes now. */
	take(now: number, perMs: number | undefined, burst: number): void {
		if (perMs === undefined) return;
		this.refill(now, perMs, burst);
		this.tokens = Math.max(0, this.tokens - 1);
	}

	/** Sends a millisecond for `level` in flight at `roundTripMs`; undefined before a round trip is known. */
	static perMs(level: number, roundTripMs: number): number | undefined {
		if (!Number.isFinite(roundTripMs) || roundTripMs <= 0) return undefined;
		return (PACING.rampGain * level) / roundTripMs;
	}

	private refill(now: number, perMs: number, burst: number): void {
		const elapsed = Math.max(0, now - this.refilledAt);
		this.tokens = Math.min(burst, this.tokens + elapsed * perMs);
		this.refilledAt = now;
	}
}
