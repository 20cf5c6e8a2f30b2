/**
 * How many listing requests go at once, and how fast. The API's real limits are not documented, so in adaptive mode
 * they are found, not configured: the rules are pure functions of one state (pacingControl.ts); this gate feeds
 * them what happens (a request sent, answered, refused with its Retry-After, failed) and holds the requests waiting
 * for a slot until the rules let one go, with one timer for the earliest moment one may. It owns no pacing rule.
 */
import { waitOrStop } from './waitOrStop';

import {
	beforeAdmit,
	hasRoom,
	type PacerState,
	pauseUntil,
	readyAt,
	sendNow,
	startPacing,
	statsOf,
	step,
} from './pacingControl';
import {
	eventOf,
	type PacerEvent,
	type PacerStats,
	type PacingMode,
	type Slot,
} from './pacingTypes';

export type { AttemptOutcome, PacerStats, PacingMode, Slot } from './pacingTypes';

/** A request waiting for a slot: given one, or null when the run stops first (it is then never sent). */
type Waiter = (slot: Slot | null) => void;

export class RequestPacer {
	private state: PacerState;
	private readonly waiting: Waiter[] = [];
	private closed = false;
	/** The time the pending wake-up (if any) is for. */
	private wakeAt?: number;
	/** One per pending wake-up (an AbortSignal keeps every listener it was given): close() aborts them. */
	private readonly wakeUps = new Set<AbortController>();
	/** Aborted by close(): a request waiting to be tried again stops waiting, since nothing more is sent. */
	private readonly closing = new AbortController();

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
		this.state = startPacing(mode, maximum);
	}

	/**
	 * Waits for a slot: null once the run has stopped, so the request is never sent. `first` puts a retried
	 * request ahead of requests not yet sent.
	 */
	async acquire(first = false): Promise<Slot | null> {
		if (this.closed) return null;
		const now = this.now();
		if (hasRoom(this.state) && this.waiting.length === 0 && this.readyAt(now) <= now)
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
		this.state = pauseUntil(this.state, epochMs);
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

	/** Aborted once the pacer is closed (the run stopped, or an answer stopped every send, like the quota). */
	get closedSignal(): AbortSignal {
		return this.closing.signal;
	}

	/** No new request starts; requests waiting for a slot get null, and so do waits on closedSignal. */
	close(): void {
		this.closed = true;
		this.closing.abort();
		for (const wakeUp of this.wakeUps) wakeUp.abort();
		this.wakeUps.clear();
		for (const waiter of this.waiting.splice(0)) waiter(null);
	}

	get currentLimit(): number {
		return this.state.level.limit;
	}

	/** Requests per second the pacer keeps to; Infinity when no per-second limit has shown. */
	get currentRate(): number {
		return this.state.rate.rate;
	}

	snapshot(): PacerStats {
		return statsOf(this.state);
	}

	private tell(event: PacerEvent): void {
		this.state = step(this.state, event, this.now());
	}

	private readyAt(now: number): number {
		const ready = readyAt(this.state, now);
		this.state = ready.state;
		return ready.at;
	}

	private grant(): Slot {
		let send = sendNow(this.state, this.now());
		this.tell({ kind: 'sent', send });
		let released = false;
		return {
			sentAgain: () => {
				if (released) return;
				const again = sendNow(this.state, this.now(), true);
				this.tell({ kind: 'sent', send: again, replaces: send });
				send = again;
			},
			release: (outcome) => {
				if (released) return;
				released = true;
				if (outcome.final && this.stopOnFailure) this.close();
				this.tell(eventOf(outcome, send, this.waiting.length));
				this.admit();
			},
		};
	}

	private admit(): void {
		while (!this.closed && this.waiting.length > 0 && hasRoom(this.state)) {
			const now = this.now();
			this.state = beforeAdmit(this.state, now, this.waiting.length);
			const at = this.readyAt(now);
			if (now < at) {
				this.wakeUpAt(at, now);
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
}
