/**
 * The first overshoot's check, as pure functions of an `Overshoot`: after a 429 read as the concurrency, nothing
 * more goes until an answer comes back (the API has room again), then one probe, below the lowered limit. Refused
 * too, the limit is per second (refusalKind.ts reads the probe's 429 as a rate); accepted, it was the concurrency,
 * and later refusals at that level need no new hold.
 */
import { fuzzOf } from './pacingConfig';
import type { Send } from './pacingTypes';

/** `level`: the in-flight level of the refusal that started the hold; `probe`: the probe's send index. */
export type Hold =
	| { readonly kind: 'none' }
	| { readonly kind: 'untilAnswer'; readonly level: number }
	| { readonly kind: 'probeReady'; readonly level: number }
	| { readonly kind: 'probeInFlight'; readonly level: number; readonly probe: number };

export interface Overshoot {
	readonly hold: Hold;
	/** A level the API refused as its concurrency, shown by an accepted probe (undefined: none yet). */
	readonly provenConcurrency?: number;
	/** Holds started in the run. */
	readonly holds: number;
}

export const NO_OVERSHOOT: Overshoot = { hold: { kind: 'none' }, holds: 0 };

/** Whether the hold lets one more go with `inFlight` out, below `limit`. */
export function holdHasRoom(hold: Hold, inFlight: number, limit: number): boolean {
	if (hold.kind === 'probeInFlight') return false;
	// Held until an answer shows the API has room again, unless nothing is in flight to answer; then one probe.
	if (hold.kind === 'untilAnswer' && inFlight > 0) return false;
	// The probe goes below the lowered limit: one above it tells nothing (an in-flight limit refuses it too, and a
	// busy n8n reads answers late, so an answer back did not mean a level below the refused one).
	return inFlight < limit;
}

export function isProbe(overshoot: Overshoot, send: Send): boolean {
	return overshoot.hold.kind === 'probeInFlight' && overshoot.hold.probe === send.index;
}

/** A send went: while held, it is the probe; sent again within its slot, the probe follows it. */
export function overshootSent(overshoot: Overshoot, send: Send, replaces?: Send): Overshoot {
	const { hold } = overshoot;
	if (replaces !== undefined)
		return hold.kind === 'probeInFlight' && hold.probe === replaces.index
			? { ...overshoot, hold: { ...hold, probe: send.index } }
			: overshoot;
	if (hold.kind !== 'untilAnswer' && hold.kind !== 'probeReady') return overshoot;
	return { ...overshoot, hold: { kind: 'probeInFlight', level: hold.level, probe: send.index } };
}

/** The probe came back: the hold ends; answered, the level held for was the API's concurrency. */
export function probeBack(overshoot: Overshoot, answered: boolean): Overshoot {
	const { hold } = overshoot;
	if (hold.kind !== 'probeInFlight') return overshoot;
	const proven = answered
		? Math.min(overshoot.provenConcurrency ?? Number.POSITIVE_INFINITY, hold.level)
		: overshoot.provenConcurrency;
	return { ...overshoot, hold: { kind: 'none' }, provenConcurrency: proven };
}

/** An answer: the API has room again, the probe may go. */
export function overshootAnswered(overshoot: Overshoot): Overshoot {
	const { hold } = overshoot;
	if (hold.kind !== 'untilAnswer') return overshoot;
	return { ...overshoot, hold: { kind: 'probeReady', level: hold.level } };
}

/** A 429 read as the concurrency: hold, unless it is the proven concurrency met again or every send is paused. */
export function overshootRefused(overshoot: Overshoot, send: Send, paused: boolean): Overshoot {
	const proven = overshoot.provenConcurrency;
	// The API's concurrency, met again while climbing: nothing to find out.
	if (proven !== undefined && send.level >= proven - fuzzOf(proven)) return overshoot;
	if (overshoot.hold.kind !== 'none' || paused) return overshoot;
	return {
		...overshoot,
		hold: { kind: 'untilAnswer', level: send.level },
		holds: overshoot.holds + 1,
	};
}
