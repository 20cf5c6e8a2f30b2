/**
 * A small client for a sandbox running in another process (the CLI subcommands, the real-n8n harness, the demo):
 * the same admin operations as the in-process `Sandbox`, over its `/__sandbox/` HTTP API.
 */
import type { Delivery, DeliverySettings } from './delivery';
import type { AnswerSettings, AnswerSettingsInput } from './answers';
import type { FaultRule, FaultRuleInput } from './faults';
import type {
	QuotaLimitInput,
	QuotaView,
	SpikeArrestLimitInput,
	SpikeArrestView,
} from './gatewayLimits';
import type { InFlightLimitInput, InFlightView } from './inFlight';
import type { PerSecondLimitInput, PerSecondView } from './perSecond';
import type {
	Sale,
	SampleSaleInput,
	SandboxState,
	SellOptions,
	SubscriptionView,
	TokenSelector,
} from './types';

export interface RemoteSellResult {
	sale: Sale;
	deliveries: Delivery[];
	/** False when the sandbox stopped waiting (bounded) before every delivery finished. */
	complete: boolean;
}

export interface RemoteSampleSaleResult {
	sampleId: string;
	delivery: Delivery;
	/** False when the sandbox stopped waiting (bounded) before the delivery finished. */
	complete: boolean;
}

export class SandboxAdminError extends Error {
	constructor(
		readonly status: number,
		readonly body: unknown,
	) {
		const message =
			typeof body === 'object' && body !== null && 'message' in body
				? String((body as { message: unknown }).message)
				: '';
		super(`Sandbox admin call failed with ${status}${message ? `: ${message}` : ''}`);
	}
}

export class SandboxAdminClient {
	readonly url: string;

	constructor(
		url: string,
		private readonly timeoutMs = 90_000,
	) {
		this.url = url.replace(/\/+$/, '');
	}

	private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await fetch(`${this.url}/__sandbox${path}`, {
			method,
			headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(this.timeoutMs),
		});
		const text = await response.text();
		const parsed: unknown = text ? JSON.parse(text) : undefined;
		if (!response.ok) throw new SandboxAdminError(response.status, parsed);
		return parsed as T;
	}

	state(): Promise<SandboxState> {
		return this.call('GET', '/state');
	}

	activateSubscription(id: string): Promise<SubscriptionView> {
		return this.call('POST', `/subscriptions/${encodeURIComponent(id)}/activate`);
	}

	/** Sells and waits (bounded by the sandbox) for the deliveries' outcomes. */
	sell(listingId: string, options: SellOptions = {}): Promise<RemoteSellResult> {
		return this.call('POST', `/listings/${encodeURIComponent(listingId)}/sell`, options);
	}

	/**
	 * Delivers a sample listing_sale to a trigger's token URL and callback URL with this callback client, and waits
	 * (bounded by the sandbox) for the outcome: the same token exchange and notification as a sale's.
	 */
	deliverSampleSale(input: SampleSaleInput): Promise<RemoteSampleSaleResult> {
		return this.call('POST', '/sample-sale', input);
	}

	async expireTokens(selector: TokenSelector = { all: true }): Promise<number> {
		return (await this.call<{ expired: number }>('POST', '/tokens/expire', selector)).expired;
	}

	async revokeTokens(selector: TokenSelector = { all: true }): Promise<number> {
		return (await this.call<{ revoked: number }>('POST', '/tokens/revoke', selector)).revoked;
	}

	addFault(rule: FaultRuleInput & { seed?: number }): Promise<FaultRule> {
		return this.call('POST', '/faults', rule);
	}

	async clearFaults(): Promise<void> {
		await this.call('DELETE', '/faults');
	}

	configureDelivery(settings: Partial<DeliverySettings>): Promise<DeliverySettings> {
		return this.call('POST', '/delivery', settings);
	}

	/** Sets (or with null removes) the limit on requests in flight until the next reset. */
	limitInFlight(limit: InFlightLimitInput | null): Promise<InFlightView> {
		return this.call('POST', '/in-flight', limit ?? { maxInFlight: null });
	}

	/** Sets (or with null removes) the limit on requests per second until the next reset. */
	limitPerSecond(limit: PerSecondLimitInput | null): Promise<PerSecondView> {
		return this.call('POST', '/per-second', limit ?? { maxPerSecond: null });
	}

	/** Sets (or with null removes) the gateway's quota until the next reset. */
	limitQuota(limit: QuotaLimitInput | null): Promise<QuotaView> {
		return this.call('POST', '/quota', limit ?? { limit: null });
	}

	/** Sets (or with null removes) the gateway's spike arrest until the next reset. */
	limitSpikeArrest(limit: SpikeArrestLimitInput | null): Promise<SpikeArrestView> {
		return this.call('POST', '/spike-arrest', limit ?? { rate: null });
	}

	/** Changes how the sandbox answers until the next reset; answers the settings now in force. */
	configureAnswers(settings: AnswerSettingsInput): Promise<AnswerSettings> {
		return this.call('POST', '/answers', settings);
	}

	/** Forgets data and faults (see the store's reset); with `keepTokens`, issued tokens stay valid. */
	async reset(options: { keepTokens?: boolean } = {}): Promise<void> {
		await this.call('POST', '/reset', options.keepTokens ? { keepTokens: true } : undefined);
	}
}
