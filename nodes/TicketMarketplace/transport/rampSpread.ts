/**
 * Spreads adaptive sends over the round trip (the first overshoot): a token bucket of RAMP.gain times the level a
 * round trip, with a burst of RAMP.slowStartBurst while slow start climbs and RAMP.burst after. Slow start still
 * doubles the level every round trip, but a per-second limit then refuses few sends before its first 429 is back.
 */
import { RAMP } from './pacingConfig';

export interface Ramp {
	readonly tokens: number;
	readonly refilledAt: number;
}

export const NEW_RAMP: Ramp = { tokens: RAMP.slowStartBurst, refilledAt: 0 };

/** How fast the bucket fills: sends a millisecond, undefined when nothing spreads (fixed mode, no round trip yet). */
export interface RampRate {
	perMs: number | undefined;
	burst: number;
}

/** Sends a millisecond for `level` in flight at `roundTripMs`; undefined before a round trip is known. */
export function rampPerMs(level: number, roundTripMs: number): number | undefined {
	if (!Number.isFinite(roundTripMs) || roundTripMs <= 0) return undefined;
	return (RAMP.gain * level) / roundTripMs;
}

/** The bucket filled up to `now`. */
export function refillRamp(ramp: Ramp, now: number, { perMs, burst }: RampRate): Ramp {
	if (perMs === undefined) return ramp;
	const elapsed = Math.max(0, now - ramp.refilledAt);
	return { tokens: Math.min(burst, ramp.tokens + elapsed * perMs), refilledAt: now };
}

/** The earliest time a send may go, from a bucket refilled up to `now`. */
export function rampReadyAt(ramp: Ramp, now: number, { perMs }: RampRate): number {
	if (perMs === undefined) return now;
	return ramp.tokens >= 1 ? now : now + (1 - ramp.tokens) / perMs;
}

/** A send goes now: one token less. */
export function takeRamp(ramp: Ramp, now: number, rate: RampRate): Ramp {
	if (rate.perMs === undefined) return ramp;
	const filled = refillRamp(ramp, now, rate);
	return { ...filled, tokens: Math.max(0, filled.tokens - 1) };
}
