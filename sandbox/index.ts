/** Public surface of the sandbox for tests, scripts, benchmarks and the demo. */
export { startSandbox } from './server';
export { SandboxError } from './errors';
export type {
	Sandbox,
	SandboxOptions,
	SandboxApp,
	SandboxAccount,
	SandboxState,
	SellOptions,
	SellResult,
	Sale,
	ListingView,
	SubscriptionView,
	TokenView,
	TokenSelector,
	RequestLogEntry,
	SampleSaleInput,
	SampleSaleResult,
} from './types';
export { SANDBOX_DEFAULTS } from './defaults';
export { SandboxAdminClient, SandboxAdminError } from './client';
export type { RemoteSellResult, RemoteSampleSaleResult } from './client';
export type { Delivery, DeliveryAttempt, DeliverySettings, ClientAuthMethod } from './delivery';
export { basicClientAuthorization } from './delivery';
export type { FaultRule, FaultRuleInput, FaultKind, FaultEndpoint } from './faults';
export type { InFlightLimit, InFlightLimitInput, InFlightView } from './inFlight';
export type { PerSecondLimit, PerSecondLimitInput, PerSecondView } from './perSecond';
export type {
	QuotaLimit,
	QuotaLimitInput,
	QuotaView,
	RateLimitStatus,
	SpikeArrestLimit,
	SpikeArrestLimitInput,
	SpikeArrestView,
} from './gatewayLimits';
export type { AnswerSettings, AnswerSettingsInput, AnswerShapes, ListingStatus } from './answers';
export * as answers from './answers';
export * as choices from './choices';
