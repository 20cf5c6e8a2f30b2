/**
 * The gateway's own rate policies, as Apigee enforces them in front of the real service: a spike arrest (a short-window
 * rate, smoothed) and a quota (the plan's calls per day). A refused request is answered by the gateway with its fault
 * body (answers.ts), status 500 by Apigee's default or 429 where configured, and no Retry-After; the listing service
 * never sees it. Both read the sandbox's clock, so tests drive them with an injected one.
 */
import { ERROR_CODE } from './choices';
import { positiveInteger, SandboxError } from './errors';
import { FAULT_ENDPOINTS } from './faults';
import type { FaultEndpoint, PartnerEndpoint } from './faults';

/** The statuses a gateway refusal may have: Apigee's default 500, or 429 where the API's owner set it. */
export const RATE_LIMIT_STATUSES = [500, 429] as const;
export type RateLimitStatus = (typeof RATE_LIMIT_STATUSES)[number];

export const DAY_MS = 86_400_000;

export interface QuotaLimit {
	/** Requests allowed in each window; the next one is refused until the window ends. */
	limit: number;
	/** Length of the window in milliseconds: a day by default (the service counts per day); shorter for tests. */
	windowMs: number;
	endpoint: FaultEndpoint;
	status: RateLimitStatus;
}

export interface QuotaLimitInput {
	limit: number;
	/** The window in seconds; a day (86400) by default. */
	windowSeconds?: number;
	endpoint?: FaultEndpoint;
	status?: RateLimitStatus;
}

export interface QuotaView {
	limit: QuotaLimit | null;
	/** Requests counted in the current window, when it ends (ISO time), and how many were refused in all. */
	used: number;
	resetsAt: string | null;
	refused: number;
}

export interface SpikeArrestLimit {
	/** Apigee's rate: `<n>ps` (per second) or `<n>pm` (per minute). */
	rate: string;
	/**
	 * false (Apigee's default): smoothed, one request per interval (1000/n ms for `ps`, 60000/n ms for `pm`).
	 * true: Apigee's UseEffectiveCount, up to n requests in any sliding window of a second (`ps`) or a minute (`pm`).
	 */
	useEffectiveCount: boolean;
	endpoint: FaultEndpoint;
	status: RateLimitStatus;
}

export type SpikeArrestLimitInput = Pick<SpikeArrestLimit, 'rate'> &
	Partial<Omit<SpikeArrestLimit, 'rate'>>;

export interface SpikeArrestView {
	limit: SpikeArrestLimit | null;
	/** The smallest gap between two admitted requests when smoothed, in milliseconds. */
	intervalMs: number | null;
	admitted: number;
	refused: number;
}

function invalid(message: string): never {
	throw new SandboxError(400, ERROR_CODE.invalidRequest, message);
}

function checkObject(input: unknown, fields: string[]): Record<string, unknown> {
	if (typeof input !== 'object' || input === null || Array.isArray(input))
		invalid('The limit must be a JSON object, or null to remove it');
	const raw = input as Record<string, unknown>;
	for (const key of Object.keys(raw))
		if (!fields.includes(key)) invalid(`Unknown limit field: ${key}`);
	return raw;
}

function endpointOf(value: unknown): FaultEndpoint {
	const endpoint = value ?? '*';
	if (!FAULT_ENDPOINTS.includes(endpoint as FaultEndpoint))
		invalid(`endpoint must be one of ${FAULT_ENDPOINTS.join(', ')}`);
	return endpoint as FaultEndpoint;
}

function statusOf(value: unknown): RateLimitStatus {
	const status = value ?? 500;
	if (!RATE_LIMIT_STATUSES.includes(status as RateLimitStatus))
		invalid(`status must be one of ${RATE_LIMIT_STATUSES.join(', ')}`);
	return status as RateLimitStatus;
}

function inScope(scope: FaultEndpoint, endpoint: PartnerEndpoint): boolean {
	return scope === '*' || scope === endpoint;
}

/** Checks an untrusted quota (it may come over HTTP); null, or a null limit, removes it. */
export function parseQuotaLimit(input: unknown): QuotaLimit | null {
	if (input === null) return null;
	const raw = checkObject(input, ['limit', 'windowSeconds', 'endpoint', 'status']);
	if (raw.limit === null) return null;
	return {
		limit: positiveInteger(raw.limit, 'limit'),
		windowMs:
			raw.windowSeconds === undefined
				? DAY_MS
				: positiveInteger(raw.windowSeconds, 'windowSeconds') * 1000,
		endpoint: endpointOf(raw.endpoint),
		status: statusOf(raw.status),
	};
}

/** `40ps` -> {count: 40, periodMs: 1000}; `30pm` -> {count: 30, periodMs: 60000}. */
export function parseRate(rate: unknown): { count: number; periodMs: number } {
	const match = typeof rate === 'string' ? /^([1-9]\d*)(ps|pm)$/.exec(rate) : null;
	if (!match) invalid('rate must be a number of requests per second or minute, e.g. 40ps or 300pm');
	return { count: Number(match[1]), periodMs: match[2] === 'ps' ? 1000 : 60_000 };
}

/** Checks an untrusted spike arrest (it may come over HTTP); null, or a null rate, removes it. */
export function parseSpikeArrestLimit(input: unknown): SpikeArrestLimit | null {
	if (input === null) return null;
	const raw = checkObject(input, ['rate', 'useEffectiveCount', 'endpoint', 'status']);
	if (raw.rate === null) return null;
	parseRate(raw.rate);
	if (raw.useEffectiveCount !== undefined && typeof raw.useEffectiveCount !== 'boolean')
		invalid('useEffectiveCount must be true or false');
	return {
		rate: raw.rate as string,
		useEffectiveCount: raw.useEffectiveCount === true,
		endpoint: endpointOf(raw.endpoint),
		status: statusOf(raw.status),
	};
}

/**
 * Apigee's default quota (no type): windows of `windowMs` aligned on the clock's epoch (a UTC day for the default),
 * so the count starts again at the start of each day, not a day after the first request.
 */
export class QuotaGate {
	private limit: QuotaLimit | null;
	private windowStart = 0;
	private used = 0;
	private refused = 0;

	constructor(
		private readonly initial: QuotaLimit | null,
		private readonly now: () => number,
	) {
		this.limit = initial;
	}

	set(limit: QuotaLimit | null): QuotaView {
		this.limit = limit;
		this.used = 0;
		return this.view();
	}

	reset(): void {
		this.limit = this.initial;
		this.used = 0;
		this.refused = 0;
	}

	private roll(now: number): void {
		if (!this.limit) return;
		const start = Math.floor(now / this.limit.windowMs) * this.limit.windowMs;
		if (start !== this.windowStart) {
			this.windowStart = start;
			this.used = 0;
		}
	}

	view(): QuotaView {
		const limit = this.limit;
		if (limit) this.roll(this.now());
		return {
			limit: limit && { ...limit },
			used: this.used,
			resetsAt: limit ? new Date(this.windowStart + limit.windowMs).toISOString() : null,
			refused: this.refused,
		};
	}

	/** Counts a request to `endpoint`; returns the refusal's status when the window's quota is used up. */
	admit(endpoint: PartnerEndpoint): { refusedWith?: RateLimitStatus } {
		const limit = this.limit;
		if (!limit || !inScope(limit.endpoint, endpoint)) return {};
		this.roll(this.now());
		if (this.used >= limit.limit) {
			this.refused++;
			return { refusedWith: limit.status };
		}
		this.used++;
		return {};
	}
}

/**
 * Apigee's spike arrest. Smoothed (the default): "40ps" admits one request every 25 ms, not 40 at once; a request
 * that comes sooner after the last admitted one is refused and does not count. With UseEffectiveCount: up to n
 * requests in any sliding window of the rate's period.
 */
export class SpikeArrestGate {
	private limit: SpikeArrestLimit | null;
	private admittedAt: number[] = [];
	private lastAdmitted: number | null = null;
	private admitted = 0;
	private refused = 0;

	constructor(
		private readonly initial: SpikeArrestLimit | null,
		private readonly now: () => number,
	) {
		this.limit = initial;
	}

	set(limit: SpikeArrestLimit | null): SpikeArrestView {
		this.limit = limit;
		this.admittedAt = [];
		this.lastAdmitted = null;
		return this.view();
	}

	reset(): void {
		this.set(this.initial);
		this.admitted = 0;
		this.refused = 0;
	}

	view(): SpikeArrestView {
		const limit = this.limit;
		let intervalMs: number | null = null;
		if (limit) {
			const { count, periodMs } = parseRate(limit.rate);
			intervalMs = periodMs / count;
		}
		return {
			limit: limit && { ...limit },
			intervalMs,
			admitted: this.admitted,
			refused: this.refused,
		};
	}

	/** Admits a request to `endpoint`, or returns the refusal's status and the allowed rate. */
	admit(endpoint: PartnerEndpoint): { refusedWith?: RateLimitStatus; rate?: string } {
		const limit = this.limit;
		if (!limit || !inScope(limit.endpoint, endpoint)) return {};
		const { count, periodMs } = parseRate(limit.rate);
		const now = this.now();
		let allowed: boolean;
		if (limit.useEffectiveCount) {
			while (this.admittedAt.length > 0 && now - this.admittedAt[0] >= periodMs)
				this.admittedAt.shift();
			allowed = this.admittedAt.length < count;
		} else {
			allowed = this.lastAdmitted === null || now - this.lastAdmitted >= periodMs / count;
		}
		if (!allowed) {
			this.refused++;
			return { refusedWith: limit.status, rate: limit.rate };
		}
		this.admitted++;
		this.lastAdmitted = now;
		if (limit.useEffectiveCount) this.admittedAt.push(now);
		return {};
	}
}
