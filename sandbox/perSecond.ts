/**
 * A limit on Partner API requests per second, the other way rate-limited APIs behave: a request is admitted while
 * fewer than `maxPerSecond` requests in its scope were admitted in the last second (a sliding window), else it gets
 * 429 with Retry-After at once. With the in-flight limit (inFlight.ts) it lets benchmarks and tests check that a client
 * finds an API's pace, also when the pace changes during a run.
 */
import type { FaultEndpoint, PartnerEndpoint } from './faults';
import { parseLimit } from './limits';

/** Length of the sliding window, in milliseconds. */
export const PER_SECOND_WINDOW_MS = 1000;

export interface PerSecondLimit {
	/** The most requests admitted within any one second; the next one is refused. */
	maxPerSecond: number;
	/** Which Partner API endpoint the limit counts; `*` counts every one together. Default `*`. */
	endpoint: FaultEndpoint;
	/**
	 * The Retry-After header of a refusal, in seconds; null (default) computes it: the whole seconds until enough
	 * admitted requests have left the window for the next one to fit (at least 1).
	 */
	retryAfterSeconds: number | null;
}

export type PerSecondLimitInput = Pick<PerSecondLimit, 'maxPerSecond'> &
	Partial<Omit<PerSecondLimit, 'maxPerSecond'>>;

export interface PerSecondView {
	limit: PerSecondLimit | null;
	/** Requests counted by the limit that were admitted in the last second, the most in any second, and refusals. */
	inWindow: number;
	peak: number;
	refused: number;
}

/** Checks an untrusted limit (it may come over HTTP); null removes the limit. */
export function parsePerSecondLimit(input: unknown): PerSecondLimit | null {
	const limit = parseLimit(input, 'maxPerSecond', true);
	return (
		limit && {
			maxPerSecond: limit.count,
			endpoint: limit.endpoint,
			retryAfterSeconds: limit.retryAfterSeconds ?? null,
		}
	);
}

export class PerSecondGate {
	private limit: PerSecondLimit | null;
	/**
	 * Admitted requests of the last second, oldest first, of every endpoint (not only the limit's scope), so a limit
	 * set or tightened mid-run counts what was just admitted.
	 */
	private admitted: Array<{ at: number; endpoint: PartnerEndpoint }> = [];
	private peak = 0;
	private refused = 0;

	constructor(
		private readonly initial: PerSecondLimit | null,
		private readonly now: () => number = Date.now,
	) {
		this.limit = initial;
	}

	set(limit: PerSecondLimit | null): PerSecondView {
		this.limit = limit;
		return this.view();
	}

	/**
	 * Back to the limit the sandbox started with, window and counters empty: a reset starts a new run, which should not
	 * be refused for the previous run's requests.
	 */
	reset(): void {
		this.limit = this.initial;
		this.admitted = [];
		this.peak = 0;
		this.refused = 0;
	}

	view(): PerSecondView {
		return {
			limit: this.limit && { ...this.limit },
			inWindow: this.windowTimes(this.now()).length,
			peak: this.peak,
			refused: this.refused,
		};
	}

	/** Admission times of the window's requests in the limit's scope (every endpoint when there is no limit). */
	private windowTimes(now: number): number[] {
		while (this.admitted.length > 0 && now - this.admitted[0].at >= PER_SECOND_WINDOW_MS)
			this.admitted.shift();
		const scope = this.limit?.endpoint ?? '*';
		return this.admitted
			.filter((entry) => scope === '*' || entry.endpoint === scope)
			.map((entry) => entry.at);
	}

	/**
	 * Passes a request to `endpoint`, or refuses it (counted) and returns its Retry-After in seconds. A passed request
	 * counts as admitted only when `commit` is called, so one that another limit then refuses is not counted here.
	 */
	admit(endpoint: PartnerEndpoint): { commit: () => void } | { retryAfterSeconds: number } {
		const limit = this.limit;
		const inScope = !limit || limit.endpoint === '*' || limit.endpoint === endpoint;
		if (limit && inScope) {
			const now = this.now();
			const window = this.windowTimes(now);
			if (window.length >= limit.maxPerSecond) {
				this.refused++;
				if (limit.retryAfterSeconds !== null) return { retryAfterSeconds: limit.retryAfterSeconds };
				// The next request fits once all but maxPerSecond - 1 of these have left; a tightened limit may need several.
				const leavesAt = window[window.length - limit.maxPerSecond] + PER_SECOND_WINDOW_MS;
				return { retryAfterSeconds: Math.max(1, Math.ceil((leavesAt - now) / 1000)) };
			}
		}
		let committed = false;
		return {
			commit: () => {
				if (committed) return;
				committed = true;
				const now = this.now();
				this.windowTimes(now);
				this.admitted.push({ at: now, endpoint });
				if (inScope) this.peak = Math.max(this.peak, this.windowTimes(now).length);
			},
		};
	}
}
