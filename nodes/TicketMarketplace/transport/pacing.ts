/** The gate (requests waiting for a slot, one timer) and how an answer or a 429 is read; limiter.ts: the state. */
import type { Pace, PacingMode, Sent } from './limiter';
import {
	acceptedBefore,
	climbPays,
	fuzz,
	grown,
	marked,
	nextAt,
	openingLimit,
	PACE,
	queueing,
	rateRefused,
	refusedInARow,
	sent,
	spikeAnswered,
	spikeRefused,
	startPace,
	timed,
} from './limiter';
import { waitOrStop } from './waitOrStop';

/** What an attempt tells the pacer as it frees its slot; `final`: the request ends in an error (no retry follows). */
export type AttemptOutcome = (
	| { kind: 'answered'; roundTripMs: number; accepted?: boolean } // a 4xx (not accepted) tells no latency
	// A 429, or a spike arrest's refusal (500 or 429) naming the rate it allows where its fault does.
	| { kind: 'rateLimited'; retryAfterMs?: number; spikeArrest?: boolean; allowedPerSecond?: number }
	| { kind: 'failed' }
) & { final?: boolean };

export type PaceEvent =
	| { kind: 'sent'; replaces?: Sent }
	| (AttemptOutcome & { send: Sent; left: number }); // left: the requests waiting for a slot

export interface Slot {
	/** The request goes to the API once more within this slot (a 401 re-sent): an API counting requests counts both. */
	sentAgain(): void;
	/** Frees the slot and tells the pacer how the attempt went. Call exactly once. */
	release(outcome: AttemptOutcome): void;
}

export class RequestPacer {
	private state: Pace;
	/** Requests waiting for a slot: given one, or null when the run stops first (then never sent). */
	private readonly waiting: Array<(slot: Slot | null) => void> = [];
	private wakeAt?: number;
	private readonly lateMs: number[] = [];
	/** One per pending wake-up (an AbortSignal keeps every listener it was given): close() aborts them. */
	private readonly wakeUps = new Set<AbortController>();
	private readonly closing = new AbortController();
	/** Aborted by close() (the run stopped, or an answer stopped every send): a request waiting to retry stops waiting. */
	readonly closedSignal = this.closing.signal;

	constructor(
		readonly mode: PacingMode,
		readonly maximum: number,
		/** Without Continue On Fail, the first request that ends in an error stops the run. */
		private readonly stopOnFailure = false,
		/** No login to wait for (the credential holds a token): the first requests need not go alone. */
		opened = false,
		private readonly now: () => number = Date.now,
		/** Waits until a pause or the gap between sends is over (n8n's sleep; tests pass fake time). */
		private readonly wait: (ms: number, signal: AbortSignal) => Promise<void> = waitOrStop,
	) {
		if (!Number.isInteger(maximum) || maximum < 1)
			throw new Error('The maximum concurrency must be a whole number of 1 or more');
		this.state = startPace(mode, maximum, opened);
	}

	/** Waits for a slot: null once the run has stopped. `first` puts a retried request ahead of those not yet sent. */
	async acquire(first = false): Promise<Slot | null> {
		if (this.closedSignal.aborted) return null;
		const now = this.now();
		if (this.waiting.length === 0 && nextAt(this.state, now) <= now) return this.grant();
		const slot = new Promise<Slot | null>((resolve) =>
			first ? this.waiting.unshift(resolve) : this.waiting.push(resolve),
		);
		this.admit();
		return await slot;
	}

	/** Closes the pacer when the run is stopped (n8n's cancel signal). Returns what undoes the subscription. */
	closeOn(signal: AbortSignal | undefined): () => void {
		const onAbort = () => this.close();
		if (signal?.aborted) onAbort();
		signal?.addEventListener('abort', onAbort, { once: true });
		return () => signal?.removeEventListener('abort', onAbort);
	}

	/** No new request starts; requests waiting for a slot get null, and so do waits on closedSignal. */
	close(): void {
		this.closing.abort();
		for (const wakeUp of this.wakeUps) wakeUp.abort();
		this.wakeUps.clear();
		for (const waiter of this.waiting.splice(0)) waiter(null);
	}

	/** What a run's pacing came to (the bench and the tests read it). */
	snapshot() {
		const { stats, limiter, spike, limit } = this.state;
		return {
			...stats, // rateLimited: 429s and a spike arrest's refusals
			finalLimit: limit,
			rateRefusals: limiter.refusals, // 429s read as a per-second limit
			finalRate: limiter.rate,
			lowestRate: limiter.lowestRate,
			spikeRefusals: spike.refusals,
			spikeSpacingMs: spike.gapMs,
		};
	}

	private grant(): Slot {
		this.state = advance(this.state, { kind: 'sent' }, this.now());
		let send = this.state.log.at(-1)!;
		let released = false;
		let resent = false;
		return {
			sentAgain: () => {
				if (released) return;
				this.state = advance(this.state, { kind: 'sent', replaces: send }, this.now());
				send = this.state.log.at(-1)!;
				resent = true;
			},
			release: (outcome) => {
				if (released) return;
				released = true;
				if (outcome.final && this.stopOnFailure) this.close();
				const event = { ...outcome, send, left: this.waiting.length };
				// Sent again after a 401: timed from that send (the wait for the new token is no API latency).
				if (resent && event.kind === 'answered')
					event.roundTripMs = Math.min(event.roundTripMs, this.now() - send.at);
				this.state = advance(this.state, event, this.now());
				this.admit();
			},
		};
	}

	private admit(): void {
		while (!this.closedSignal.aborted && this.waiting.length > 0) {
			const now = this.now();
			const at = nextAt(this.state, now);
			if (at === Infinity) return;
			if (now < at) return this.wakeUpAt(at, now);
			this.waiting.shift()!(this.grant());
		}
	}

	/** Comes back to admit() at `at`; one wake-up at a time, the earliest needed. */
	private wakeUpAt(at: number, now: number): void {
		if (this.wakeAt !== undefined && this.wakeAt <= at) return;
		this.wakeAt = at;
		const wakeUp = new AbortController();
		this.wakeUps.add(wakeUp);
		const { lateMs } = this;
		const earlyMs = lateMs.length < PACE.lateSamples ? 0 : Math.max(0, Math.min(...lateMs));
		const waitMs = Math.max(1, Math.ceil(at - now - Math.min(PACE.maxEarlyMs, earlyMs)));
		this.wait(waitMs, wakeUp.signal).then(
			() => {
				this.wakeUps.delete(wakeUp);
				lateMs.push(this.now() - now - waitMs);
				if (lateMs.length > PACE.lateSamples) lateMs.shift();
				if (this.wakeAt === at) this.wakeAt = undefined;
				this.admit();
			},
			() => {}, // aborted: the run has stopped
		);
	}
}

export function advance(state: Pace, event: PaceEvent, now: number): Pace {
	if (event.kind === 'sent') return sent(state, now, event.replaces);
	// The answer that opens the pace waited for the login; a pace started opened waited for none.
	const first = !state.opened;
	const log = marked(state.log, event.send, event.kind === 'rateLimited' ? 'refused' : event.kind);
	const probe = state.hold?.probe === event.send.index ? state.hold : undefined;
	const hold = probe ? undefined : state.hold;
	let next: Pace = { ...state, inFlight: state.inFlight - 1, log, hold };
	if (first) next = setLimit({ ...next, opened: true }, openingLimit(next.mode, next.maximum));
	if (event.kind === 'rateLimited') next = refused(next, event, now, probe !== undefined);
	else if (event.kind === 'answered') next = answered(next, event, now, first, probe);
	else if (!first && next.mode === 'adaptive') next = lowered(next, now);
	const left = event.kind === 'answered' ? event.left : 0;
	return { ...next, limiter: grown(next.limiter, now, left + next.inFlight) };
}

function answered(state: Pace, event: Answered, now: number, first: boolean, probe: Pace['hold']) {
	const { send } = event;
	const { hold } = state;
	let next = state;
	if (probe) next = { ...next, proven: Math.min(next.proven ?? Infinity, probe.level) };
	if (hold && !hold.answered) next = { ...next, hold: { ...hold, answered: true } };
	if (event.accepted !== false) {
		const limiter = timed(next.limiter, event.roundTripMs, first);
		next = { ...next, limiter, spike: spikeAnswered(next.spike) };
	}
	if (first || next.mode === 'fixed') return next;
	// Answered at or above the level refused: the API takes more now. Well above a level refused once, that refusal
	// was random, and slow start climbs again, once a run.
	if (send.level >= next.ceiling) {
		if (send.level >= next.ceiling + fuzz(next.ceiling)) {
			const resume = next.ceilingHits <= 1 && !next.resumed;
			next = { ...next, ceilingHits: 0, ...(resume && { resumed: true, slowStart: true }) };
		}
		next = { ...next, ceiling: send.level + 1 };
	}
	if (queueing(next.limiter)) return lowered(next, now);
	if (next.limit >= next.maximum) return next;
	if (next.limit + 1 >= next.ceiling && !climbPays(next, event.left)) return next;
	if (next.slowStart) return setLimit(next, next.limit + 1);
	const credit = next.credit + 1 / next.limit;
	return credit < 1 ? { ...next, credit } : setLimit({ ...next, credit: 0 }, next.limit + 1);
}
type Answered = Extract<PaceEvent, { kind: 'answered' }>;
type Refused = Extract<PaceEvent, { kind: 'rateLimited' }>;

function refused(state: Pace, event: Refused, now: number, probe: boolean): Pace {
	const { send } = event;
	const stats = { ...state.stats, rateLimited: state.stats.rateLimited + 1 };
	let next: Pace = { ...state, stats };
	const learns = next.mode === 'adaptive';
	if (event.spikeArrest === true) {
		const spike = spikeRefused(next.spike, next.log, send, now, event.allowedPerSecond, learns);
		return { ...next, spike };
	}
	// A Retry-After too long to wait ends its request: it must never become every send's pause.
	if (event.retryAfterMs !== undefined && !event.final)
		next = { ...next, limiter: { ...next.limiter, retryAfterMs: event.retryAfterMs } };
	if (!learns) return next;
	const concurrency = probe ? undefined : concurrencyRefused(next, send, now);
	if (concurrency) return concurrency;
	const accepted = acceptedBefore(next.log, send);
	const { suspect, limiter } = next;
	const agrees =
		probe ||
		(limiter.grownFrom !== undefined && accepted + 1 > limiter.grownFrom) ||
		// Confirmed within the two bursts after the lone 429 was read.
		(suspect !== undefined &&
			send.index > suspect.read &&
			send.index - suspect.read <= 2 * PACE.burst &&
			accepted <= suspect.accepted + 2);
	// In the burst of a lone one: evidence only when nearly every send since was refused (random 429s leave gaps).
	if (!agrees && (suspect === undefined || send.index > suspect.read))
		return { ...next, suspect: { accepted, index: send.index, read: next.count } };
	if (!agrees && !refusedInARow(next.log, suspect!.index, send.index)) return next;
	const pauseMs = event.final ? undefined : (event.retryAfterMs ?? limiter.retryAfterMs);
	const rate = rateRefused(limiter, send.at, accepted, now, pauseMs);
	return { ...next, suspect: undefined, limiter: rate };
}

/** A 429 alone is never the concurrency; one at a level never answered is, and so is one sent before the last such
 * refusal came back or at a level close to it (the pacer counts a request until its answer is read). The limit then
 * drops below the refused level (a slot freed by a refusal is not handed on); sends at a level not proven are held
 * for a probe, unless every send is paused. Undefined: not the concurrency. */
function concurrencyRefused(state: Pace, send: Sent, now: number): Pace | undefined {
	if (send.level <= 1) return undefined;
	const { refusal } = state;
	const recent = refusal && now - refusal.at <= PACE.memoryMs ? refusal : undefined;
	const sameOvershoot = recent !== undefined && send.at <= recent.at;
	const concurrency = recent
		? sameOvershoot || send.level >= recent.level - fuzz(recent.level)
		: !state.log.some((s) => s.state === 'answered' && s.level >= send.level);
	if (!concurrency) return undefined;
	const hits = send.level >= state.ceiling - fuzz(state.ceiling) ? state.ceilingHits + 1 : 1;
	let next: Pace = {
		...state,
		refusal: sameOvershoot
			? { ...recent, level: Math.min(recent.level, send.level) }
			: { level: send.level, at: now },
		ceiling: Math.min(state.ceiling, send.level),
		ceilingHits: sameOvershoot ? state.ceilingHits : hits,
		slowStart: false,
		credit: 0,
	};
	const { proven, stats } = next;
	const unproven = proven === undefined || send.level < proven - fuzz(proven);
	if (unproven && !next.hold && next.limiter.pausedUntil <= now) {
		const hold = { level: send.level, answered: false };
		next = { ...next, hold, stats: { ...stats, holds: stats.holds + 1 } };
	}
	const target = Math.min(send.level - 1, Math.max(1, next.inFlight));
	return next.limit <= target ? next : decreased(next, target, now);
}

/** Queueing or failing, the limit gives up PACE.tolerance, at most once a round trip (an overshoot answers at once). */
function lowered(state: Pace, now: number): Pace {
	if (now - state.lastDecreaseAt < (state.limiter.smoothedMs ?? 0)) return state;
	return decreased(state, (1 - PACE.tolerance) * state.limit, now);
}

function decreased(state: Pace, target: number, now: number): Pace {
	const stats = { ...state.stats, decreases: state.stats.decreases + 1 };
	return setLimit({ ...state, slowStart: false, credit: 0, lastDecreaseAt: now, stats }, target);
}

function setLimit(state: Pace, value: number): Pace {
	const limit = Math.min(state.maximum, Math.max(1, Math.floor(value)));
	const stats = { ...state.stats, peakLimit: Math.max(state.stats.peakLimit, limit) };
	return { ...state, limit, stats };
}
