/**
 * A limit on Partner API requests in flight, the way a rate-limited API behaves: a request that arrives while
 * `maxInFlight` others are still being answered gets 429 with Retry-After at once. It is what lets the benchmarks
 * and tests check that a client finds an API's pace without knowing its limit.
 */
import { DEFAULT_RETRY_AFTER_SECONDS } from './choices';
import type { FaultEndpoint, PartnerEndpoint } from './faults';
import { parseLimit } from './limits';

export interface InFlightLimit {
	/** The most requests answered at once; the next one is refused. */
	maxInFlight: number;
	/** Which Partner API endpoint the limit counts; `*` counts every one together. Default `*`. */
	endpoint: FaultEndpoint;
	/** The Retry-After header of a refusal, in seconds. */
	retryAfterSeconds: number;
}

export type InFlightLimitInput = Pick<InFlightLimit, 'maxInFlight'> &
	Partial<Omit<InFlightLimit, 'maxInFlight'>>;

export interface InFlightView {
	limit: InFlightLimit | null;
	/** Requests counted by the limit that are being answered now, the most at once, and how many were refused. */
	now: number;
	peak: number;
	refused: number;
}

/** Checks an untrusted limit (it may come over HTTP); null removes the limit. */
export function parseInFlightLimit(input: unknown): InFlightLimit | null {
	const limit = parseLimit(input, 'maxInFlight', false);
	return (
		limit && {
			maxInFlight: limit.count,
			endpoint: limit.endpoint,
			retryAfterSeconds: limit.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS,
		}
	);
}

export class InFlightGate {
	private limit: InFlightLimit | null;
	private readonly inFlight = new Map<PartnerEndpoint, number>();
	private peak = 0;
	private refused = 0;

	constructor(private readonly initial: InFlightLimit | null) {
		this.limit = initial;
	}

	set(limit: InFlightLimit | null): InFlightView {
		this.limit = limit;
		return this.view();
	}

	/** Back to the limit the sandbox started with, counters at zero (requests still in flight keep counting). */
	reset(): void {
		this.limit = this.initial;
		this.peak = this.counted();
		this.refused = 0;
	}

	view(): InFlightView {
		return {
			limit: this.limit && { ...this.limit },
			now: this.counted(),
			peak: this.peak,
			refused: this.refused,
		};
	}

	/** Requests in flight in the limit's scope (every endpoint when there is no limit). */
	private counted(): number {
		const scope = this.limit?.endpoint ?? '*';
		if (scope !== '*') return this.inFlight.get(scope) ?? 0;
		let sum = 0;
		for (const count of this.inFlight.values()) sum += count;
		return sum;
	}

	/**
	 * Admits a request to `endpoint`, or returns the Retry-After (seconds) of its refusal. An admitted request calls
	 * the returned release once, when its answer is over (sent or dropped).
	 */
	admit(endpoint: PartnerEndpoint): { release: () => void } | { retryAfterSeconds: number } {
		const limit = this.limit;
		const inScope = !limit || limit.endpoint === '*' || limit.endpoint === endpoint;
		if (limit && inScope && this.counted() >= limit.maxInFlight) {
			this.refused++;
			return { retryAfterSeconds: limit.retryAfterSeconds };
		}
		this.inFlight.set(endpoint, (this.inFlight.get(endpoint) ?? 0) + 1);
		if (inScope) this.peak = Math.max(this.peak, this.counted());
		let released = false;
		return {
			release: () => {
				if (released) return;
				released = true;
				this.inFlight.set(endpoint, (this.inFlight.get(endpoint) ?? 1) - 1);
			},
		};
	}
}
