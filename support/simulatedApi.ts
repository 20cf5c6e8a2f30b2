/**
 * A simulated Partner API on jest's fake clock, for the pacer's tests. Each request reaches the API
 * after up to `jitterMs` (deterministic), and its answer comes back after up to `jitterMs` more. The API admits a
 * request while fewer than `perSecond(now)` were admitted in the last second (a sliding window, as the sandbox
 * does; `perSecond` gets the time since the run started) and fewer than `capacity` are in flight; else it answers
 * 429 at once, with a Retry-After of the whole seconds until the next request fits (per second) or of `retryAfterMs`
 * (in flight; 1 s unless given). Admitted requests take `latencyMs`, a number or a function of how many are in
 * flight. A refused request waits its Retry-After outside any slot and asks again first, as the transport does.
 *
 * In front of it, the gateway's policies as the sandbox plays them (sandbox/gatewayLimits.ts): a smoothed spike
 * arrest (one request per interval; a request sooner after the last admitted one is refused and not counted) and a
 * quota, each answered with the gateway's fault (500 or 429, no Retry-After). Their answers are read by the answer
 * table, as the transport reads them: a spike arrest is retried after the transport's wait, a quota stops the run.
 */
import { meaningOf, readAnswer } from '../nodes/shared/partnerApi/answerTable';
import { PARTNER_API_PATHS } from '../nodes/shared/partnerApi/paths';
import type { RequestPacer } from '../nodes/TicketMarketplace/transport/pacing';
import { rateRetryWaitMs } from '../nodes/TicketMarketplace/transport/retryAfter';
import { GATEWAY_FAULT, spikeArrestFault } from '../sandbox/answers';
import { seededRandom } from '../sandbox/faults';

/** jest's fake clock as the pacer's wait (n8n's sleepWithAbort in production). */
export const fakeWait = async (ms: number, signal: AbortSignal) =>
	await new Promise<void>((resolve, reject) => {
		const timer = setTimeout(resolve, ms);
		signal.addEventListener('abort', () => {
			clearTimeout(timer);
			reject(new Error('aborted'));
		});
	});

/**
 * A client with one event loop, as n8n has: each send and each answer read costs it this much work, done one after
 * another, and a wake-up of the pacer runs only once the loop is free. So a client that sends faster than its loop
 * can work reads its 429s late, as a real n8n does (15 to 40 ms at the first overshoot on this 2-core machine).
 */
export class BusyClient {
	private busyUntil = 0;

	constructor(
		readonly sendCostMs: number,
		readonly readCostMs: number,
	) {}

	/** Queues `costMs` of work on the loop; resolves when it is done. */
	async work(costMs: number): Promise<void> {
		const now = Date.now();
		this.busyUntil = Math.max(now, this.busyUntil) + costMs;
		await delay(this.busyUntil - now);
	}

	/** The pacer's wait on this loop: the timer fires on time, its callback runs when the loop is free. */
	readonly wait = async (ms: number, signal: AbortSignal): Promise<void> => {
		await fakeWait(ms, signal);
		const late = this.busyUntil - Date.now();
		if (late > 0) await delay(late);
	};
}

export function answered(roundTripMs: number) {
	return { kind: 'answered' as const, roundTripMs, accepted: true };
}

/** Deterministic jitter: the same run every time. */
function jitter(seed: number) {
	let state = seed;
	return (maxMs: number) => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return (state / 2147483648) * maxMs;
	};
}

const delay = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `requests` calls of `one` at once and every fake timer until they are done. */
export async function runAll<T>(requests: number, one: (index: number) => Promise<T>) {
	const started = Date.now();
	const all = Promise.all(Array.from({ length: requests }, (_, index) => one(index)));
	await jest.runAllTimersAsync();
	const results = await all;
	return { results, elapsedMs: Date.now() - started };
}

export interface SimulatedRun {
	elapsedMs: number;
	created: number;
	/** Requests that reached the API (each attempt), and how many listings were sent more than once. */
	arrivals: number;
	/** Listings that got an answer of the quota, and sends the pacer let go after the first quota answer was read. */
	quotaRefused: number;
	sentAfterQuota: number;
	/** Listings never created: refused for good, or not sent once the run stopped. */
	notCreated: number;
	peak: number;
	/** When each 429 came back, and the pacer's pace right after. */
	refusals: Array<{ at: number; rateAfter: number }>;
	/** Each send: when, and the pace then. */
	rates: Array<{ at: number; rate: number }>;
	/** The pacer's level at each send. */
	limits: number[];
	stats: ReturnType<RequestPacer['snapshot']>;
}

export async function simulate(options: {
	pacer: RequestPacer;
	requests: number;
	/** How long an admitted request takes (100 ms unless given), or a function of how many are in flight with it. */
	latencyMs?: number | ((inFlight: number) => number);
	perSecond?: (now: number) => number | undefined;
	capacity?: number;
	/** The Retry-After of a refusal for `capacity` (1 s unless given). */
	retryAfterMs?: number;
	jitterMs?: number;
	/** This share of requests is answered 429 (Retry-After 1 s) at random, whatever the load: an API without a rate limit that refuses now and then. */
	sporadic429?: number;
	/** Every n-th request is answered 429 without Retry-After (the transport backs off 500 ms, the pacer assumes 1 s). */
	every429WithoutRetryAfter?: number;
	/** This share of admitted requests takes `ms` longer (a latency spike). */
	spikes?: { share: number; ms: number };
	/** These arrivals (1 for the first request to reach the API) are answered 429 (Retry-After 1 s): chosen random refusals. */
	refuseArrivals?: number[];
	/** A 429 comes back this much later (a busy client: n8n's event loop reads it late). */
	refusalLagMs?: number;
	/** The client's event loop (give the pacer its `wait`): sends and reads cost it work, one after another. */
	client?: BusyClient;
	/** The gateway's smoothed spike arrest: `perSecond` a second, answered `status`, the rate named in the fault or not. */
	spikeArrest?: { perSecond: number; status: 500 | 429; namesRate: boolean };
	/** The gateway's quota: this many requests admitted, every later one refused (500 or 429). */
	quota?: { limit: number; status: 500 | 429 };
}): Promise<SimulatedRun> {
	const { pacer } = options;
	const { latencyMs = 100 } = options;
	const random = jitter(7);
	// The sandbox's seeded generator: the jitter's generator is too coarse for a share of requests.
	const dice = seededRandom(11);
	const wander = async () => {
		if (options.jitterMs) await delay(random(options.jitterMs));
	};
	const admitted: number[] = [];
	const run: Omit<SimulatedRun, 'elapsedMs' | 'stats'> = {
		created: 0,
		arrivals: 0,
		quotaRefused: 0,
		sentAfterQuota: 0,
		notCreated: 0,
		peak: 0,
		refusals: [],
		rates: [],
		limits: [],
	};
	let inFlight = 0;
	const started = Date.now();
	/** The API's gate: undefined when admitted, else Retry-After in ms. */
	let arrivals = 0;
	let lastAdmittedBySpike: number | undefined;
	let quotaUsed = 0;
	let quotaReadAt: number | undefined;
	/** The gateway's policies, before the API: the fault it answers, or undefined when they admit the request. */
	const gateway = (): { status: number; body: unknown } | undefined => {
		const now = Date.now();
		const spike = options.spikeArrest;
		if (spike) {
			if (lastAdmittedBySpike !== undefined && now - lastAdmittedBySpike < 1000 / spike.perSecond) {
				const fault = spikeArrestFault(`${spike.perSecond}ps`);
				const faultstring = spike.namesRate ? fault.faultstring : 'Spike arrest violation';
				return {
					status: spike.status,
					body: { fault: { faultstring, detail: { errorcode: fault.errorcode } } },
				};
			}
			lastAdmittedBySpike = now;
		}
		if (options.quota) {
			if (quotaUsed >= options.quota.limit) {
				const { faultstring, errorcode } = GATEWAY_FAULT.quota;
				return {
					status: options.quota.status,
					body: { fault: { faultstring, detail: { errorcode } } },
				};
			}
			quotaUsed++;
		}
		return undefined;
	};
	const gate = (): number | undefined => {
		const now = Date.now();
		arrivals++;
		if (options.every429WithoutRetryAfter && arrivals % options.every429WithoutRetryAfter === 0)
			return -500;
		if (options.sporadic429 !== undefined && dice() < options.sporadic429) return 1000;
		if (options.refuseArrivals?.includes(arrivals)) return 1000;
		if (options.capacity !== undefined && inFlight >= options.capacity)
			return options.retryAfterMs ?? 1000;
		const limit = options.perSecond?.(now - started);
		while (admitted.length > 0 && now - admitted[0] >= 1000) admitted.shift();
		if (limit !== undefined && admitted.length >= limit) {
			const leavesAt = admitted[admitted.length - limit] + 1000;
			return Math.max(1, Math.ceil((leavesAt - now) / 1000)) * 1000;
		}
		admitted.push(now);
		return undefined;
	};
	const one = async () => {
		let first = false;
		let rateRetries = 0;
		for (let attempt = 0; attempt < 30; attempt++) {
			const slot = await pacer.acquire(first);
			if (!slot) {
				if (!options.quota) throw new Error('the pacer had stopped');
				run.notCreated++;
				return;
			}
			const sentAt = Date.now();
			if (quotaReadAt !== undefined) run.sentAfterQuota++;
			run.rates.push({ at: sentAt, rate: pacer.snapshot().finalRate });
			run.limits.push(pacer.snapshot().finalLimit);
			await options.client?.work(options.client.sendCostMs);
			await wander();
			run.arrivals++;
			const fault = gateway();
			if (fault !== undefined) {
				await wander();
				if (options.refusalLagMs) await delay(options.refusalLagMs);
				await options.client?.work(options.client.readCostMs);
				const meaning = meaningOf(readAnswer(fault.status, {}, fault.body), {
					endpoint: 'api',
					path: PARTNER_API_PATHS.listings,
				});
				if (meaning?.retry !== 'rateLimit') {
					// The quota (or any answer that is not retried): the request ends; the quota stops every send.
					if (meaning?.stopsRun) {
						run.quotaRefused++;
						quotaReadAt ??= Date.now();
						pacer.close();
					}
					slot.release({
						kind: 'answered',
						roundTripMs: Date.now() - sentAt,
						accepted: false,
						final: true,
					});
					run.notCreated++;
					return;
				}
				// The transport's bound and wait (transport/index.ts).
				const final = rateRetries >= 6;
				slot.release({
					kind: 'rateLimited',
					spikeArrest: meaning.row === 'spikeArrest',
					allowedPerSecond: meaning.allowedPerSecond,
					final,
				});
				run.refusals.push({ at: Date.now(), rateAfter: pacer.snapshot().finalRate });
				if (final) {
					run.notCreated++;
					return;
				}
				await delay(rateRetryWaitMs(undefined, rateRetries++, meaning.allowedPerSecond));
				first = true;
				continue;
			}
			const retryAfterMs = gate();
			if (retryAfterMs !== undefined) {
				await wander();
				if (options.refusalLagMs) await delay(options.refusalLagMs);
				await options.client?.work(options.client.readCostMs);
				// A negative wait: no Retry-After, the transport's own backoff.
				slot.release({
					kind: 'rateLimited',
					retryAfterMs: retryAfterMs < 0 ? undefined : retryAfterMs,
				});
				run.refusals.push({ at: Date.now(), rateAfter: pacer.snapshot().finalRate });
				await delay(Math.abs(retryAfterMs));
				first = true;
				continue;
			}
			inFlight++;
			run.peak = Math.max(run.peak, inFlight);
			const latency = typeof latencyMs === 'function' ? latencyMs(inFlight) : latencyMs;
			await delay(
				latency + (options.spikes && dice() < options.spikes.share ? options.spikes.ms : 0),
			);
			inFlight--;
			await wander();
			await options.client?.work(options.client.readCostMs);
			run.created++;
			slot.release(answered(Date.now() - sentAt));
			return;
		}
		throw new Error('too many attempts');
	};
	const { elapsedMs } = await runAll(options.requests, one);
	return { ...run, elapsedMs, stats: pacer.snapshot() };
}
