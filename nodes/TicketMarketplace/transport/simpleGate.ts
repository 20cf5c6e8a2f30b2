/**
 * The gate of the simple pacer (simplePacer.ts): it owns the requests waiting for a slot and the one timer that
 * wakes them when a pause ends, and feeds the controller's `step` with what happens to each request. Same surface
 * as today's RequestPacer, so the transport takes either.
 */
import { waitOrStop } from '../helpers/waitOrStop';

import type { AttemptOutcome, PacerStats, Slot } from './pacingTypes';
import { canSend, initialState, readyAt, step } from './simplePacer';
import type { PacerEvent, SimpleState } from './simplePacer';

/** A request waiting for a slot: given one, or null when the run stops first (it is then never sent). */
type Waiter = (slot: Slot | null) => void;

function eventOf(outcome: AttemptOutcome): PacerEvent {
	if (outcome.kind === 'answered') return { kind: 'answered' };
	if (outcome.kind === 'rateLimited')
		return { kind: 'refused', retryAfterMs: outcome.retryAfterMs, final: outcome.final };
	return { kind: 'failed' };
}

export class SimplePacer {
	private state: SimpleState;
	private readonly waiting: Waiter[] = [];
	private closed = false;
	/** The time the pending wake-up (if any) is for. */
	private wakeAt?: number;
	/** One per pending wake-up (an AbortSignal keeps every listener it was given): close() aborts them. */
	private readonly wakeUps = new Set<AbortController>();

	constructor(
		readonly maximum: number,
		/** Without Continue On Fail, the first request that ends in an error stops the run. */
		private readonly stopOnFailure = false,
		private readonly now: () => number = Date.now,
		/** Waits until a pause is over (n8n's sleep; tests pass fake time). */
		private readonly wait: (ms: number, signal: AbortSignal) => Promise<void> = waitOrStop,
	) {
		if (!Number.isInteger(maximum) || maximum < 1)
			throw new Error('The maximum concurrency must be a whole number of 1 or more');
		this.state = initialState(maximum);
	}

	/** Waits for a slot: null once the run has stopped. `first` puts a retried request ahead of the others. */
	async acquire(first = false): Promise<Slot | null> {
		if (this.closed) return null;
		if (this.waiting.length === 0 && canSend(this.state, this.now())) return this.grant();
		const slot = new Promise<Slot | null>((resolve) => {
			if (first) this.waiting.unshift(resolve);
			else this.waiting.push(resolve);
		});
		this.admit();
		return await slot;
	}

	/** Closes the pacer when the run is stopped, so waits end at once. Returns what undoes the subscription. */
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
		return this.state.level;
	}

	/** No rate is learned: always Infinity. */
	get currentRate(): number {
		return Number.POSITIVE_INFINITY;
	}

	snapshot(): PacerStats {
		const state = this.state;
		return {
			peakInFlight: state.peakInFlight,
			peakLimit: state.peakLevel,
			finalLimit: state.level,
			rateLimited: state.refusals,
			decreases: state.decreases,
			rateRefusals: 0,
			finalRate: Number.POSITIVE_INFINITY,
			lowestRate: Number.POSITIVE_INFINITY,
			holds: 0,
		};
	}

	private grant(): Slot {
		this.state = step(this.state, { kind: 'sent' }, this.now());
		let released = false;
		return {
			// The controller learns no rate: a request sent again (after a 401) changes nothing.
			sentAgain: () => {},
			release: (outcome) => {
				if (released) return;
				released = true;
				this.state = step(this.state, eventOf(outcome), this.now());
				if (outcome.final && this.stopOnFailure) this.close();
				this.admit();
			},
		};
	}

	private admit(): void {
		while (!this.closed && this.waiting.length > 0) {
			const now = this.now();
			if (canSend(this.state, now)) {
				this.waiting.shift()!(this.grant());
				continue;
			}
			// No room in flight: an answer will call admit() again. Paused: wake up when the pause ends.
			const at = readyAt(this.state, now);
			if (at > now) this.wakeUpAt(at, now);
			return;
		}
	}

	/** Comes back to admit() at `at`; one wake-up at a time, the earliest needed. */
	private wakeUpAt(at: number, now: number): void {
		if (this.wakeAt !== undefined && this.wakeAt <= at && this.wakeAt > now) return;
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
}
