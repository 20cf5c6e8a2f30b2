/** Faults on demand: per endpoint, by rate (seeded, repeatable) or as a scripted sequence. */

export const FAULT_ENDPOINTS = ['token', 'listings', 'webhooks', 'pdfs', '*'] as const;
export const FAULT_KINDS = [
	'latency',
	'429',
	'5xx',
	'drop',
	'expireToken',
	'revokeEarlierTokens',
	'redirect',
	'echo',
	'systemError',
	'quotaViolation',
	'spikeArrestViolation',
	'maintenance',
] as const;

/** Kinds answered with the gateway's rate-limit fault, whose status is 500 (Apigee's default) or 429. */
const GATEWAY_RATE_KINDS: string[] = ['quotaViolation', 'spikeArrestViolation'];

export type FaultEndpoint = (typeof FAULT_ENDPOINTS)[number];
export type PartnerEndpoint = Exclude<FaultEndpoint, '*'>;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultRuleInput {
	endpoint: FaultEndpoint;
	/** The fault to inject; may be omitted when `sequence` is given. */
	kind?: FaultKind;
	/** `latency`: added delay, plus up to `jitterMs` more drawn from the seeded generator. */
	latencyMs?: number;
	jitterMs?: number;
	/** `429`: the Retry-After header, in seconds (default 1); `maintenance`: sent only when given. */
	retryAfterSeconds?: number;
	/**
	 * `5xx`: the status to answer (500 to 599); `redirect`: the 3xx (307 by default); `quotaViolation` and
	 * `spikeArrestViolation`: 500 (default) or 429.
	 */
	status?: number;
	/**
	 * `systemError` (listings): whether the listing is created before the 500 `inventory.listings.systemError`;
	 * drawn from the seeded generator (even odds) when not given.
	 */
	created?: boolean;
	/** `spikeArrestViolation`: the allowed rate its fault names (default `10ps`). */
	allowedRate?: string;
	/** `maintenance`: Apigee's own `ServiceUnavailable` fault (JSON) instead of an HTML page. */
	fault?: boolean;
	/** Probability (0..1) that a matching request gets the fault; drawn from the seeded generator. Default 1. */
	rate?: number;
	/** One entry consumed per matching request: a kind, or "ok" for no fault. Once used up the rule does nothing. */
	sequence?: Array<FaultKind | 'ok'>;
}

export interface FaultRule extends FaultRuleInput {
	id: string;
	/** How many requests this rule has seen and how many it faulted. */
	seen: number;
	applied: number;
}

/** What the server must do for one request. Latency composes with at most one terminal fault. */
export interface FaultDecision {
	delayMs: number;
	terminal?: { kind: Exclude<FaultKind, 'latency'>; rule: FaultRule };
	applied: string[];
}

export class FaultInputError extends Error {}

/** mulberry32: a tiny, well-known seeded generator; good enough for repeatable test faults. */
export function seededRandom(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

function nonNegativeNumber(value: unknown, name: string): number | undefined {
	if (value === undefined) return undefined;
	if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
		throw new FaultInputError(`${name} must be a non-negative number`);
	}
	return value;
}

/** Checks an untrusted rule (it may come over HTTP) and returns a clean copy. */
export function parseFaultRule(input: unknown): FaultRuleInput {
	if (typeof input !== 'object' || input === null || Array.isArray(input)) {
		throw new FaultInputError('A fault rule must be a JSON object');
	}
	const raw = input as Record<string, unknown>;
	if (!FAULT_ENDPOINTS.includes(raw.endpoint as FaultEndpoint)) {
		throw new FaultInputError(`endpoint must be one of ${FAULT_ENDPOINTS.join(', ')}`);
	}
	const rule: FaultRuleInput = { endpoint: raw.endpoint as FaultEndpoint };
	if (raw.kind !== undefined) {
		if (!FAULT_KINDS.includes(raw.kind as FaultKind))
			throw new FaultInputError(`kind must be one of ${FAULT_KINDS.join(', ')}`);
		rule.kind = raw.kind as FaultKind;
	}
	if (raw.sequence !== undefined) {
		const allowed = [...FAULT_KINDS, 'ok'];
		if (
			!Array.isArray(raw.sequence) ||
			raw.sequence.some((entry) => !allowed.includes(entry as string))
		) {
			throw new FaultInputError(`sequence must be an array of ${allowed.join(', ')}`);
		}
		rule.sequence = [...(raw.sequence as Array<FaultKind | 'ok'>)];
	}
	if (rule.kind === undefined && rule.sequence === undefined)
		throw new FaultInputError('Give a kind or a sequence');
	rule.latencyMs = nonNegativeNumber(raw.latencyMs, 'latencyMs');
	rule.jitterMs = nonNegativeNumber(raw.jitterMs, 'jitterMs');
	rule.retryAfterSeconds = nonNegativeNumber(raw.retryAfterSeconds, 'retryAfterSeconds');
	if (raw.status !== undefined) {
		if (GATEWAY_RATE_KINDS.includes(raw.kind as string)) {
			if (raw.status !== 500 && raw.status !== 429)
				throw new FaultInputError('status must be 500 or 429');
		} else {
			const [low, high] = raw.kind === 'redirect' ? [300, 399] : [500, 599];
			if (
				typeof raw.status !== 'number' ||
				!Number.isInteger(raw.status) ||
				raw.status < low ||
				raw.status > high
			) {
				throw new FaultInputError(`status must be an integer from ${low} to ${high}`);
			}
		}
		rule.status = raw.status;
	}
	if (raw.created !== undefined) {
		if (typeof raw.created !== 'boolean')
			throw new FaultInputError('created must be true or false');
		rule.created = raw.created;
	}
	if (raw.allowedRate !== undefined) {
		if (typeof raw.allowedRate !== 'string' || !/^[1-9]\d*(ps|pm)$/.test(raw.allowedRate))
			throw new FaultInputError('allowedRate must be a rate such as 40ps or 300pm');
		rule.allowedRate = raw.allowedRate;
	}
	if (raw.fault !== undefined) {
		if (typeof raw.fault !== 'boolean') throw new FaultInputError('fault must be true or false');
		rule.fault = raw.fault;
	}
	if (raw.rate !== undefined) {
		if (typeof raw.rate !== 'number' || !(raw.rate >= 0 && raw.rate <= 1))
			throw new FaultInputError('rate must be a number from 0 to 1');
		rule.rate = raw.rate;
	}
	for (const key of Object.keys(raw)) {
		if (
			![
				'endpoint',
				'kind',
				'sequence',
				'latencyMs',
				'jitterMs',
				'retryAfterSeconds',
				'status',
				'rate',
				'seed',
				'created',
				'allowedRate',
				'fault',
			].includes(key)
		) {
			throw new FaultInputError(`Unknown fault field: ${key}`);
		}
	}
	return rule;
}

export class FaultInjector {
	private rules: FaultRule[] = [];
	private random: () => number;
	private nextId = 1;

	constructor(private seed: number) {
		this.random = seededRandom(seed);
	}

	add(input: FaultRuleInput): FaultRule {
		const rule: FaultRule = {
			...input,
			sequence: input.sequence ? [...input.sequence] : undefined,
			id: `flt_${this.nextId++}`,
			seen: 0,
			applied: 0,
		};
		this.rules.push(rule);
		return rule;
	}

	clear(): void {
		this.rules = [];
	}

	/** Restarts the random generator, with a new seed when given, so a run can be repeated. */
	reseed(seed?: number): void {
		if (seed !== undefined) this.seed = seed;
		this.random = seededRandom(this.seed);
	}

	/** A draw from the seeded generator: true with probability `p` (repeatable, like the rate-based faults). */
	chance(p: number): boolean {
		return this.random() < p;
	}

	list(): FaultRule[] {
		return this.rules.map((rule) => ({
			...rule,
			sequence: rule.sequence ? [...rule.sequence] : undefined,
		}));
	}

	/** Decides the faults for one request to `endpoint`, consuming sequence entries and random draws. */
	decide(endpoint: PartnerEndpoint): FaultDecision {
		const decision: FaultDecision = { delayMs: 0, applied: [] };
		for (const rule of this.rules) {
			if (rule.endpoint !== '*' && rule.endpoint !== endpoint) continue;
			rule.seen++;
			let kind: FaultKind | 'ok' | undefined;
			if (rule.sequence) {
				kind = rule.sequence.shift();
			} else if (rule.rate === undefined || this.random() < rule.rate) {
				kind = rule.kind;
			}
			if (kind === undefined || kind === 'ok') continue;
			if (kind === 'latency') {
				rule.applied++;
				const jitter = rule.jitterMs ? this.random() * rule.jitterMs : 0;
				decision.delayMs += (rule.latencyMs ?? 0) + jitter;
				decision.applied.push('latency');
			} else if (!decision.terminal) {
				rule.applied++;
				decision.terminal = { kind, rule };
				decision.applied.push(kind);
			}
		}
		return decision;
	}
}
