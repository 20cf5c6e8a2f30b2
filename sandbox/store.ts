/**
 * The sandbox's one state store: apps, accounts, tokens, listings, subscriptions, sales, deliveries, the request log,
 * faults and settings. Every module (the Partner API resources, sales, the admin API, the server) reads and writes
 * through it; none keeps state of its own.
 */
import { DEFAULT_LIMITS, ERROR_CODE, LISTING_SALE_EVENT, SUBSCRIPTION_STATUS } from './choices';
import { SANDBOX_DEFAULTS } from './defaults';
import { CLIENT_AUTH_METHODS } from './delivery';
import type { Delivery, DeliverySettings } from './delivery';
import { nonNegativeInteger, positiveInteger, SandboxError } from './errors';
import { DEFAULT_ANSWERS, parseAnswerSettings } from './answers';
import type { AnswerSettings } from './answers';
import { FaultInjector } from './faults';
import {
	parseQuotaLimit,
	parseSpikeArrestLimit,
	QuotaGate,
	SpikeArrestGate,
} from './gatewayLimits';
import { InFlightGate, parseInFlightLimit } from './inFlight';
import { parsePerSecondLimit, PerSecondGate } from './perSecond';
import { listingView, subscriptionView, tokenView } from './records';
import type { ListingRecord, RefreshTokenRecord, SubscriptionRecord, TokenRecord } from './records';
import { TimerRegistry } from './timers';
import type {
	RequestLogEntry,
	Sale,
	SandboxAccount,
	SandboxApp,
	SandboxOptions,
	SandboxState,
} from './types';

export class SandboxStore {
	readonly now: () => number;
	readonly tokenLifetimeSeconds: number;
	readonly maxBodyBytes: number;
	readonly requestLogLimit: number;
	readonly sellWaitMs: number;
	readonly deliverySettings: DeliverySettings = {
		clientAuth: 'basic',
		attempts: DEFAULT_LIMITS.deliveryAttempts,
		baseDelayMs: DEFAULT_LIMITS.deliveryBaseDelayMs,
		maxDelayMs: DEFAULT_LIMITS.deliveryMaxDelayMs,
		timeoutMs: DEFAULT_LIMITS.deliveryTimeoutMs,
	};

	readonly apps = new Map<string, SandboxApp>();
	readonly accounts: SandboxAccount[] = [];
	/** Keyed by the token value, which never leaves the sandbox except in the token answer itself. */
	readonly tokens = new Map<string, TokenRecord>();
	/** Keyed by the refresh token's value, which leaves the sandbox only in the token answer. */
	readonly refreshTokens = new Map<string, RefreshTokenRecord>();
	readonly listings = new Map<string, ListingRecord>();
	readonly subscriptions = new Map<string, SubscriptionRecord>();
	readonly sales: Sale[] = [];
	readonly deliveries = new Map<string, Delivery>();
	readonly faults: FaultInjector;
	readonly inFlight: InFlightGate;
	readonly perSecond: PerSecondGate;
	readonly quota: QuotaGate;
	readonly spikeArrest: SpikeArrestGate;
	/** How the sandbox answers now (answers.ts); back to `initialAnswers` on reset. */
	answers: AnswerSettings;
	private readonly initialAnswers: AnswerSettings;
	private requests: RequestLogEntry[] = [];

	// Replaced on reset and cancelled on stop, so pending retries and latency waits never outlive their sandbox.
	private currentTimers = new TimerRegistry();
	private outbound = new AbortController();
	private isStopped = false;

	/** Known once the server listens. */
	url = '';

	constructor(options: SandboxOptions) {
		this.now = options.now ?? Date.now;
		this.tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? DEFAULT_LIMITS.tokenLifetimeSeconds;
		this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_LIMITS.maxBodyBytes;
		this.requestLogLimit = options.requestLogLimit ?? DEFAULT_LIMITS.requestLogLimit;
		this.sellWaitMs = options.sellWaitMs ?? DEFAULT_LIMITS.sellWaitMs;
		positiveInteger(this.tokenLifetimeSeconds, 'tokenLifetimeSeconds');
		positiveInteger(this.maxBodyBytes, 'maxBodyBytes');
		this.faults = new FaultInjector(options.seed ?? DEFAULT_LIMITS.faultSeed);
		this.inFlight = new InFlightGate(
			options.inFlightLimit === undefined ? null : parseInFlightLimit(options.inFlightLimit),
		);
		this.perSecond = new PerSecondGate(
			options.perSecondLimit === undefined ? null : parsePerSecondLimit(options.perSecondLimit),
			this.now,
		);
		this.quota = new QuotaGate(
			options.quota === undefined ? null : parseQuotaLimit(options.quota),
			this.now,
		);
		this.spikeArrest = new SpikeArrestGate(
			options.spikeArrest === undefined ? null : parseSpikeArrestLimit(options.spikeArrest),
			this.now,
		);
		this.initialAnswers = parseAnswerSettings(options.answers ?? {}, DEFAULT_ANSWERS);
		this.answers = this.initialAnswers;

		if (options.includeDefaults !== false) {
			this.registerApp({
				consumerKey: SANDBOX_DEFAULTS.consumerKey,
				consumerSecret: SANDBOX_DEFAULTS.consumerSecret,
				name: 'Sandbox demo app',
			});
			this.registerAccount({ ...SANDBOX_DEFAULTS.marketplaceAccount, kind: 'marketplace' });
			this.registerAccount({ ...SANDBOX_DEFAULTS.developerAccount, kind: 'developer' });
		}
		for (const app of options.apps ?? []) this.registerApp(app);
		for (const account of options.accounts ?? []) this.registerAccount(account);
		this.configureDelivery({
			clientAuth: options.deliveryAuth,
			attempts: options.deliveryAttempts,
			baseDelayMs: options.deliveryBaseDelayMs,
			maxDelayMs: options.deliveryMaxDelayMs,
			timeoutMs: options.deliveryTimeoutMs,
		});
	}

	/** Waits of this generation of the sandbox (cancelled by reset and stop). */
	get timers(): TimerRegistry {
		return this.currentTimers;
	}

	/** Aborts outbound calls of this generation of the sandbox (on reset and stop). */
	get outboundSignal(): AbortSignal {
		return this.outbound.signal;
	}

	get stopped(): boolean {
		return this.isStopped;
	}

	registerApp(app: SandboxApp): void {
		if (!app.consumerKey || !app.consumerSecret)
			throw new SandboxError(
				400,
				ERROR_CODE.invalidRequest,
				'An app needs a consumerKey and a consumerSecret',
			);
		this.apps.set(app.consumerKey, { ...app });
	}

	registerAccount(account: SandboxAccount): void {
		if (
			!account.email ||
			!account.password ||
			!['marketplace', 'developer'].includes(account.kind)
		) {
			throw new SandboxError(
				400,
				ERROR_CODE.invalidRequest,
				'An account needs an email, a password and a kind (marketplace or developer)',
			);
		}
		this.accounts.push({ ...account });
	}

	configureDelivery(settings: Partial<DeliverySettings>): DeliverySettings {
		const next = { ...this.deliverySettings };
		if (settings.clientAuth !== undefined) {
			if (!CLIENT_AUTH_METHODS.includes(settings.clientAuth)) {
				throw new SandboxError(
					400,
					ERROR_CODE.invalidRequest,
					`clientAuth must be one of ${CLIENT_AUTH_METHODS.join(', ')}`,
				);
			}
			next.clientAuth = settings.clientAuth;
		}
		if (settings.attempts !== undefined)
			next.attempts = positiveInteger(settings.attempts, 'attempts');
		if (settings.baseDelayMs !== undefined)
			next.baseDelayMs = nonNegativeInteger(settings.baseDelayMs, 'baseDelayMs');
		if (settings.maxDelayMs !== undefined)
			next.maxDelayMs = nonNegativeInteger(settings.maxDelayMs, 'maxDelayMs');
		if (settings.timeoutMs !== undefined)
			next.timeoutMs = positiveInteger(settings.timeoutMs, 'timeoutMs');
		Object.assign(this.deliverySettings, next);
		return { ...this.deliverySettings };
	}

	/** Spec 3 and 6: the subscriptions a sale of this app notifies (and whose existence makes a new listing eligible). */
	activeSaleSubscriptions(consumerKey: string): SubscriptionRecord[] {
		return [...this.subscriptions.values()].filter(
			(s) =>
				s.consumerKey === consumerKey &&
				s.status === SUBSCRIPTION_STATUS.active &&
				s.kinds.includes(LISTING_SALE_EVENT),
		);
	}

	logRequest(entry: RequestLogEntry): void {
		this.requests.push(entry);
		if (this.requests.length > this.requestLogLimit)
			this.requests.splice(0, this.requests.length - this.requestLogLimit);
	}

	state(): SandboxState {
		const at = this.now();
		const tokenItems = [...this.tokens.values()].map((record) => tokenView(record, at));
		return {
			url: this.url,
			settings: {
				...this.deliverySettings,
				tokenLifetimeSeconds: this.tokenLifetimeSeconds,
				maxBodyBytes: this.maxBodyBytes,
			},
			requests: structuredClone(this.requests),
			tokens: {
				count: tokenItems.length,
				valid: tokenItems.filter((t) => !t.expired && !t.revoked).length,
				items: tokenItems,
			},
			listings: [...this.listings.values()].map(listingView),
			subscriptions: [...this.subscriptions.values()].map(subscriptionView),
			sales: structuredClone(this.sales),
			deliveries: structuredClone([...this.deliveries.values()]),
			faults: this.faults.list(),
			inFlight: this.inFlight.view(),
			perSecond: this.perSecond.view(),
			quota: this.quota.view(),
			spikeArrest: this.spikeArrest.view(),
			answers: structuredClone(this.answers),
		};
	}

	/**
	 * Forgets tokens, listings, subscriptions, sales, deliveries, requests and faults, and puts the limits (in flight,
	 * per second, quota, spike arrest) and the answer settings back to the ones the sandbox started with; keeps apps
	 * and accounts. With `keepTokens`, the tokens issued (access and refresh) stay valid: a client that holds one
	 * goes on without logging in again, as between two runs a few minutes apart.
	 */
	reset({ keepTokens = false }: { keepTokens?: boolean } = {}): void {
		this.cancelBackgroundWork();
		this.currentTimers = new TimerRegistry();
		this.outbound = new AbortController();
		if (!keepTokens) {
			this.tokens.clear();
			this.refreshTokens.clear();
		}
		this.listings.clear();
		this.subscriptions.clear();
		this.sales.length = 0;
		this.deliveries.clear();
		this.requests = [];
		this.faults.clear();
		this.faults.reseed();
		this.inFlight.reset();
		this.perSecond.reset();
		this.quota.reset();
		this.spikeArrest.reset();
		this.answers = this.initialAnswers;
	}

	/** Changes how the sandbox answers (answers.ts) until the next reset. */
	configureAnswers(input: unknown): AnswerSettings {
		this.answers = parseAnswerSettings(input, this.answers);
		return structuredClone(this.answers);
	}

	get serviceShapes(): boolean {
		return this.answers.shapes === 'service';
	}

	/** Marks the sandbox stopped and cancels its waits and outbound calls; false when it was already stopped. */
	stop(): boolean {
		if (this.isStopped) return false;
		this.isStopped = true;
		this.cancelBackgroundWork();
		return true;
	}

	private cancelBackgroundWork(): void {
		this.currentTimers.cancelAll();
		this.outbound.abort();
	}
}
