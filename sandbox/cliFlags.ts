/**
 * The CLI's flags: the help text, parsing, and the checks that turn a flag into an option (a bad value exits 2 with
 * what is wrong). The command is named as the user runs it: `npm run sandbox --` in this repository (from the
 * TypeScript source), `npx ticket-marketplace-sandbox` from the published package (compiled JavaScript).
 */
import { parseArgs } from 'node:util';

import { DEFAULT_LIMITS } from './choices';
import { CLIENT_AUTH_METHODS } from './delivery';
import type { ClientAuthMethod } from './delivery';
import { FAULT_ENDPOINTS, FAULT_KINDS } from './faults';
import type { FaultEndpoint } from './faults';
import type { InFlightLimitInput } from './inFlight';
import type { PerSecondLimitInput } from './perSecond';
import { ANSWER_SHAPES, LISTING_STATUSES } from './answers';
import type { AnswerSettingsInput, AnswerShapes, ListingStatus } from './answers';
import { RATE_LIMIT_STATUSES } from './gatewayLimits';
import type { QuotaLimitInput, RateLimitStatus, SpikeArrestLimitInput } from './gatewayLimits';

export const COMMAND = __filename.endsWith('.ts')
	? 'npm run sandbox --'
	: 'npx ticket-marketplace-sandbox';

export const HELP = `Ticket marketplace sandbox: a local Partner API simulator (127.0.0.1 only).

Usage:
  ${COMMAND} [start] [flags]            start a sandbox and print its URL and demo credentials
  ${COMMAND} <command> --url URL [...]  drive a running sandbox (URL also from env SANDBOX_URL)

Start flags:
  --port N                  port to listen on; 0 picks a free one (env SANDBOX_PORT; default 0)
  --token-lifetime S        access-token lifetime in seconds (default ${DEFAULT_LIMITS.tokenLifetimeSeconds}, six months)
  --delivery-auth MODE      how the sandbox spells its token request to a subscriber's token endpoint:
                            basic (HTTP Basic + form grant_type, default; the likeliest, a guess),
                            client_secret_post (RFC 6749 names, form), client_secret_json (the same names as JSON)
                            or subscription_json (the subscription's oauthRequest names as JSON)
  --delivery-attempts N     notification attempts per delivery (default ${DEFAULT_LIMITS.deliveryAttempts})
  --delivery-base-delay MS  first retry delay, doubled each retry (default ${DEFAULT_LIMITS.deliveryBaseDelayMs})
  --delivery-max-delay MS   longest retry delay (default ${DEFAULT_LIMITS.deliveryMaxDelayMs})
  --delivery-timeout MS     timeout of each outbound call (default ${DEFAULT_LIMITS.deliveryTimeoutMs})
  --max-body-bytes N        request body limit; larger bodies get 413 (default ${DEFAULT_LIMITS.maxBodyBytes})
  --seed N                  seed of rate-based faults (default ${DEFAULT_LIMITS.faultSeed})
  --max-in-flight N         answer 429 (Retry-After: --retry-after, default 1 s) to a Partner API request that
                            arrives while N others are being answered (default: no limit)
  --max-per-second N        answer 429 to a Partner API request when N were admitted in the last second (sliding
                            window; Retry-After: --retry-after, default the seconds until one fits) (default: no limit)
  --endpoint E              with --max-in-flight / --max-per-second / --quota / --spike-arrest: count one endpoint
                            only (${FAULT_ENDPOINTS.join('|')})
  --answers SHAPES          service (default): answer as the real service and its gateway do (Apigee's token errors
                            and faults, {code, description} listing errors, the refresh endpoint); spec: the
                            sandbox's own older shapes ({error, message}, 409 for a duplicate listing)
  --listing-status S        status of a created listing: ${LISTING_STATUSES.join('|')} (default ACTIVE)
  --without-api-product E   the app lacks the API product of E (listings|webhooks|pdfs|*): 403 no apiproduct match found
  --inactive-events IDS     comma-separated event ids that are not on sale (400 inventory.listings.invalidEvent)
  --seat-check on|off       on (default): refuse a listing that reuses a row and seat of an earlier listing of the
                            event (400 inventory.listings.duplicateSectionRowSeat, service answers only); off: allow it
  --quota N                 the plan's quota: N requests a day, then the gateway's QuotaViolation (default: none)
  --quota-window S          the quota's window in seconds (default 86400, a day)
  --spike-arrest RATE       the gateway's spike arrest, e.g. 40ps or 300pm, smoothed as Apigee does: 40ps admits one
                            request every 25 ms; then SpikeArrestViolation (default: none)
  --use-effective-count     with --spike-arrest: up to N in any sliding second (minute) instead of smoothing
  --rate-limit-status N     status of a quota or spike-arrest refusal: 500 (Apigee's default) or 429
  --json                    print one JSON line {url, port, credentials} instead of the text banner

Commands for a running sandbox (all take --url URL):
  state                                  print the inspection state (secrets redacted) as JSON
  activate --subscription ID             activate a pending webhook subscription
  sell --listing ID [--external-id X ...] [--count N]
                                         sell products (default: one) and print the delivery outcomes
  sample-sale --token-url URL --callback-url URL --client-id ID [--client-secret S] [--delivery-auth MODE]
        [--delivery-attempts N] [--url URL]
                                         deliver a sample listing_sale to any trigger (token exchange, then the
                                         notification): its Test URLs while n8n's editor listens, or its
                                         Production URLs; the secret also from env TM_CALLBACK_CLIENT_SECRET (kept
                                         out of shell history); one attempt unless --delivery-attempts says more;
                                         without --url (or SANDBOX_URL) it needs no running sandbox
  expire-tokens [--ids a,b]              expire all (or the named) access tokens
  revoke-tokens [--ids a,b]              revoke all (or the named) access tokens
  fault --endpoint E (--kind K | --sequence K,K,ok) [--rate R] [--latency MS] [--jitter MS]
        [--retry-after S] [--status N] [--seed N]
                                         add a fault rule; E: ${FAULT_ENDPOINTS.join('|')}; K: ${FAULT_KINDS.join('|')}
  clear-faults                           remove every fault rule
  delivery [--delivery-auth MODE] [--delivery-attempts N] [--delivery-base-delay MS] ...
                                         change delivery settings of the running sandbox
  in-flight (--max-in-flight N [--endpoint E] [--retry-after S] | --no-limit)
                                         set or remove the limit on requests in flight
  per-second (--max-per-second N [--endpoint E] [--retry-after S] | --no-limit)
                                         set or remove the limit on requests per second
  quota (--quota N [--quota-window S] [--endpoint E] [--rate-limit-status N] | --no-limit)
                                         set or remove the gateway's quota
  spike-arrest (--spike-arrest RATE [--use-effective-count] [--endpoint E] [--rate-limit-status N] | --no-limit)
                                         set or remove the gateway's spike arrest
  answers [--answers SHAPES] [--listing-status S] [--without-api-product E|none] [--inactive-events IDS]
        [--seat-check on|off]
                                         change (or with no flag, print) how the running sandbox answers
  reset [--keep-tokens]                  forget tokens (unless kept), listings, subscriptions, sales,
                                         deliveries, faults

Admin HTTP API (what the commands call): GET ${'{url}'}/__sandbox lists the routes; the sandbox's README has more.
`;

export function fail(message: string): never {
	console.error(`error: ${message}\n(run with --help for usage)`);
	process.exit(2);
}

export function integer(value: string | undefined, name: string): number | undefined {
	if (value === undefined) return undefined;
	const parsed = Number(value);
	if (!Number.isInteger(parsed) || parsed < 0)
		fail(`${name} must be a non-negative integer, got "${value}"`);
	return parsed;
}

export function number(value: string | undefined, name: string): number | undefined {
	if (value === undefined) return undefined;
	const parsed = Number(value);
	if (!Number.isFinite(parsed)) fail(`${name} must be a number, got "${value}"`);
	return parsed;
}

function clientAuth(value: string | undefined): ClientAuthMethod | undefined {
	if (value === undefined) return undefined;
	if (!CLIENT_AUTH_METHODS.includes(value as ClientAuthMethod))
		fail(`--delivery-auth must be one of ${CLIENT_AUTH_METHODS.join(', ')}`);
	return value as ClientAuthMethod;
}

const OPTIONS = {
	help: { type: 'boolean', short: 'h' },
	port: { type: 'string' },
	'token-lifetime': { type: 'string' },
	'delivery-auth': { type: 'string' },
	'delivery-attempts': { type: 'string' },
	'delivery-base-delay': { type: 'string' },
	'delivery-max-delay': { type: 'string' },
	'delivery-timeout': { type: 'string' },
	'max-body-bytes': { type: 'string' },
	seed: { type: 'string' },
	'max-in-flight': { type: 'string' },
	'max-per-second': { type: 'string' },
	'no-limit': { type: 'boolean' },
	answers: { type: 'string' },
	'listing-status': { type: 'string' },
	'without-api-product': { type: 'string' },
	'inactive-events': { type: 'string' },
	'seat-check': { type: 'string' },
	quota: { type: 'string' },
	'quota-window': { type: 'string' },
	'spike-arrest': { type: 'string' },
	'use-effective-count': { type: 'boolean' },
	'keep-tokens': { type: 'boolean' },
	'rate-limit-status': { type: 'string' },
	json: { type: 'boolean' },
	url: { type: 'string' },
	subscription: { type: 'string' },
	listing: { type: 'string' },
	'external-id': { type: 'string', multiple: true },
	count: { type: 'string' },
	ids: { type: 'string' },
	endpoint: { type: 'string' },
	kind: { type: 'string' },
	sequence: { type: 'string' },
	rate: { type: 'string' },
	latency: { type: 'string' },
	jitter: { type: 'string' },
	'retry-after': { type: 'string' },
	status: { type: 'string' },
	'token-url': { type: 'string' },
	'callback-url': { type: 'string' },
	'client-id': { type: 'string' },
	'client-secret': { type: 'string' },
} as const;

function parse(args: string[]) {
	return parseArgs({ args, allowPositionals: true, options: OPTIONS });
}

export type Flags = ReturnType<typeof parse>['values'];

/** The flags and positionals of `args` (the command line after the script); an unknown flag exits 2. */
export function parseFlags(args: string[]): { values: Flags; positionals: string[] } {
	try {
		return parse(args);
	} catch (error) {
		fail((error as Error).message);
	}
}

export function deliveryFlags(values: Flags) {
	return {
		clientAuth: clientAuth(values['delivery-auth']),
		attempts: integer(values['delivery-attempts'], '--delivery-attempts'),
		baseDelayMs: integer(values['delivery-base-delay'], '--delivery-base-delay'),
		maxDelayMs: integer(values['delivery-max-delay'], '--delivery-max-delay'),
		timeoutMs: integer(values['delivery-timeout'], '--delivery-timeout'),
	};
}

/** --max-in-flight with its optional --endpoint and --retry-after; undefined when not given. */
export function inFlightFlags(values: Flags): InFlightLimitInput | undefined {
	const maxInFlight = integer(values['max-in-flight'], '--max-in-flight');
	if (maxInFlight === undefined) return undefined;
	if (maxInFlight < 1) fail('--max-in-flight must be at least 1');
	return {
		maxInFlight,
		endpoint: values.endpoint as FaultEndpoint | undefined,
		retryAfterSeconds: integer(values['retry-after'], '--retry-after'),
	};
}

/** --max-per-second with its optional --endpoint and --retry-after; undefined when not given. */
export function perSecondFlags(values: Flags): PerSecondLimitInput | undefined {
	const maxPerSecond = integer(values['max-per-second'], '--max-per-second');
	if (maxPerSecond === undefined) return undefined;
	if (maxPerSecond < 1) fail('--max-per-second must be at least 1');
	return {
		maxPerSecond,
		endpoint: values.endpoint as FaultEndpoint | undefined,
		retryAfterSeconds: integer(values['retry-after'], '--retry-after'),
	};
}

function rateLimitStatus(values: Flags): RateLimitStatus | undefined {
	const status = integer(values['rate-limit-status'], '--rate-limit-status');
	if (status !== undefined && !RATE_LIMIT_STATUSES.includes(status as RateLimitStatus))
		fail(`--rate-limit-status must be one of ${RATE_LIMIT_STATUSES.join(', ')}`);
	return status as RateLimitStatus | undefined;
}

/** --quota with its optional --quota-window, --endpoint and --rate-limit-status; undefined when not given. */
export function quotaFlags(values: Flags): QuotaLimitInput | undefined {
	const limit = integer(values.quota, '--quota');
	if (limit === undefined) return undefined;
	if (limit < 1) fail('--quota must be at least 1');
	const windowSeconds = integer(values['quota-window'], '--quota-window');
	if (windowSeconds === 0) fail('--quota-window must be at least 1');
	return {
		limit,
		windowSeconds,
		endpoint: values.endpoint as FaultEndpoint | undefined,
		status: rateLimitStatus(values),
	};
}

/** --spike-arrest with its optional --use-effective-count, --endpoint and --rate-limit-status. */
export function spikeArrestFlags(values: Flags): SpikeArrestLimitInput | undefined {
	const rate = values['spike-arrest'];
	if (rate === undefined) return undefined;
	if (!/^[1-9]\d*(ps|pm)$/.test(rate))
		fail(`--spike-arrest must be a rate such as 40ps or 300pm, got "${rate}"`);
	return {
		rate,
		useEffectiveCount: values['use-effective-count'] === true,
		endpoint: values.endpoint as FaultEndpoint | undefined,
		status: rateLimitStatus(values),
	};
}

/**
 * --answers, --listing-status, --without-api-product (`none` for null), --inactive-events, --seat-check; only those
 * given.
 */
export function answerFlags(values: Flags): AnswerSettingsInput {
	const settings: AnswerSettingsInput = {};
	if (values.answers !== undefined) {
		if (!ANSWER_SHAPES.includes(values.answers as AnswerShapes))
			fail(`--answers must be one of ${ANSWER_SHAPES.join(', ')}`);
		settings.shapes = values.answers as AnswerShapes;
	}
	if (values['listing-status'] !== undefined) {
		if (!LISTING_STATUSES.includes(values['listing-status'] as ListingStatus))
			fail(`--listing-status must be one of ${LISTING_STATUSES.join(', ')}`);
		settings.listingStatus = values['listing-status'] as ListingStatus;
	}
	const without = values['without-api-product'];
	if (without !== undefined) {
		if (without !== 'none' && !FAULT_ENDPOINTS.includes(without as FaultEndpoint))
			fail(`--without-api-product must be one of ${FAULT_ENDPOINTS.join(', ')} or none`);
		settings.withoutApiProduct = without === 'none' ? null : (without as FaultEndpoint);
	}
	if (values['inactive-events'] !== undefined) {
		settings.inactiveEventIds = values['inactive-events']
			.split(',')
			.map((id) => id.trim())
			.filter(Boolean)
			.map((id) => {
				const parsed = Number(id);
				if (!Number.isInteger(parsed)) fail(`--inactive-events must be integers, got "${id}"`);
				return parsed;
			});
	}
	const seatCheck = values['seat-check'];
	if (seatCheck !== undefined) {
		if (seatCheck !== 'on' && seatCheck !== 'off')
			fail(`--seat-check must be on or off, got "${seatCheck}"`);
		settings.seatCheck = seatCheck === 'on';
	}
	return settings;
}
