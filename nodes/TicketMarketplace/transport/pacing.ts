/** The gate: the requests waiting for a slot and one timer; the rules (pace.ts) say when the next may go. */
import { PACE, type PacingMode } from './limiter';
import { advance, type AttemptOutcome, nextAt, type Pace, startPace } from './pace';
import { waitOrStop } from './waitOrStop';

export type { PacingMode } from './limiter';
export type { AttemptOutcome } from './pace';

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
	/** Aborted by close() (the run stopped, or an answer stopped every send, like the quota): nothing more is sent,
	 * so a request waiting to be tried again stops waiting. */
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
		if (signal?.aborted) this.close();
		if (signal === undefined || signal.aborted) return () => {};
		const onAbort = () => this.close();
		signal.addEventListener('abort', onAbort, { once: true });
		return () => signal.removeEventListener('abort', onAbort);
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
