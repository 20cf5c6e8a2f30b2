/**
 * `npm run sandbox -- [command] [flags]`: starts the sandbox (default command) or drives a running one.
 * Run with --help for every flag.
 */
import { parseArgs } from 'node:util';

import { DEFAULT_LIMITS } from './choices';
import { SandboxAdminClient } from './client';
import { SANDBOX_DEFAULTS } from './defaults';
import { CLIENT_AUTH_METHODS } from './delivery';
import type { ClientAuthMethod, Delivery } from './delivery';
import { FAULT_ENDPOINTS, FAULT_KINDS } from './faults';
import type { FaultEndpoint, FaultKind, FaultRuleInput } from './faults';
import type { InFlightLimitInput } from './inFlight';
import type { PerSecondLimitInput } from './perSecond';
import { startSandbox } from './server';

const HELP = `Ticket marketplace sandbox: a local Partner API simulator (127.0.0.1 only).

Usage:
  npm run sandbox -- [start] [flags]            start a sandbox and print its URL and demo credentials
  npm run sandbox -- <command> --url URL [...]  drive a running sandbox (URL also from env SANDBOX_URL)

Start flags:
  --port N                  port to listen on; 0 picks a free one (env SANDBOX_PORT; default 0)
  --token-lifetime S        access-token lifetime in seconds (default ${DEFAULT_LIMITS.tokenLifetimeSeconds}, six months)
  --delivery-auth MODE      how the sandbox authenticates to a subscriber's token endpoint:
                            basic (HTTP Basic, default) or client_secret_post
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
  --endpoint E              with --max-in-flight / --max-per-second: count one endpoint only (${FAULT_ENDPOINTS.join('|')})
  --json                    print one JSON line {url, port, credentials} instead of the text banner

Commands for a running sandbox (all take --url URL):
  state                                  print the inspection state (secrets redacted) as JSON
  activate --subscription ID             activate a pending webhook subscription
  sell --listing ID [--external-id X ...] [--count N]
                                         sell products (default: one) and print the delivery outcomes
  sample-sale --token-url URL --callback-url URL --client-id ID [--client-secret S] [--delivery-auth MODE]
        [--delivery-attempts N]
                                         deliver a sample listing_sale to any trigger (token exchange, then the
                                         notification), e.g. its /webhook-test/ URLs while n8n's editor listens;
                                         the secret also from env TM_CALLBACK_CLIENT_SECRET (kept out of shell
                                         history); one attempt unless --delivery-attempts says more
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
  reset                                  forget tokens, listings, subscriptions, sales, deliveries, faults

Admin HTTP API (what the commands call): GET ${'{url}'}/__sandbox lists the routes; see sandbox/README.md.
`;

function fail(message: string): never {
	console.error(`error: ${message}\n(run with --help for usage)`);
	process.exit(2);
}

function integer(value: string | undefined, name: string): number | undefined {
	if (value === undefined) return undefined;
	const parsed = Number(value);
	if (!Number.isInteger(parsed) || parsed < 0)
		fail(`${name} must be a non-negative integer, got "${value}"`);
	return parsed;
}

function number(value: string | undefined, name: string): number | undefined {
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

const { values, positionals } = (() => {
	try {
		return parseArgs({
			allowPositionals: true,
			options: {
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
			},
		});
	} catch (error) {
		fail((error as Error).message);
	}
})();

function deliveryFlags() {
	return {
		clientAuth: clientAuth(values['delivery-auth']),
		attempts: integer(values['delivery-attempts'], '--delivery-attempts'),
		baseDelayMs: integer(values['delivery-base-delay'], '--delivery-base-delay'),
		maxDelayMs: integer(values['delivery-max-delay'], '--delivery-max-delay'),
		timeoutMs: integer(values['delivery-timeout'], '--delivery-timeout'),
	};
}

/** --max-in-flight with its optional --endpoint and --retry-after; undefined when not given. */
function inFlightFlags(): InFlightLimitInput | undefined {
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
function perSecondFlags(): PerSecondLimitInput | undefined {
	const maxPerSecond = integer(values['max-per-second'], '--max-per-second');
	if (maxPerSecond === undefined) return undefined;
	if (maxPerSecond < 1) fail('--max-per-second must be at least 1');
	return {
		maxPerSecond,
		endpoint: values.endpoint as FaultEndpoint | undefined,
		retryAfterSeconds: integer(values['retry-after'], '--retry-after'),
	};
}

async function start(): Promise<void> {
	const delivery = deliveryFlags();
	const sandbox = await startSandbox({
		port: integer(values.port ?? process.env.SANDBOX_PORT, '--port') ?? 0,
		tokenLifetimeSeconds: integer(values['token-lifetime'], '--token-lifetime'),
		deliveryAuth: delivery.clientAuth,
		deliveryAttempts: delivery.attempts,
		deliveryBaseDelayMs: delivery.baseDelayMs,
		deliveryMaxDelayMs: delivery.maxDelayMs,
		deliveryTimeoutMs: delivery.timeoutMs,
		maxBodyBytes: integer(values['max-body-bytes'], '--max-body-bytes'),
		seed: integer(values.seed, '--seed'),
		inFlightLimit: inFlightFlags() ?? undefined,
		perSecondLimit: perSecondFlags() ?? undefined,
	});
	if (values.json) {
		console.log(
			JSON.stringify({ url: sandbox.url, port: sandbox.port, credentials: SANDBOX_DEFAULTS }),
		);
	} else {
		const d = SANDBOX_DEFAULTS;
		console.log(`Ticket marketplace sandbox listening on ${sandbox.url}

Demo credentials (sandbox only):
  Base URL              ${sandbox.url}
  Consumer key          ${d.consumerKey}
  Consumer secret       ${d.consumerSecret}
  Marketplace account   ${d.marketplaceAccount.email} / ${d.marketplaceAccount.password}
  Developer-portal acct ${d.developerAccount.email} / ${d.developerAccount.password}   (exists, and is refused on purpose)

Partner API:  POST /sellers/oauth/accesstoken?grant_type=client_credentials
              POST /partners/webhooks/v3
              POST /sellers/inventory/listings/v3
Admin API:    GET  ${sandbox.url}/__sandbox (routes)   GET ${sandbox.url}/__sandbox/state
Drive it:     npm run sandbox -- sell --url ${sandbox.url} --listing <listing id>

Press Ctrl-C to stop.`);
	}
	let stopping = false;
	const shutdown = (signal: string) => {
		if (stopping) return;
		stopping = true;
		if (!values.json) console.log(`\n${signal}: stopping the sandbox...`);
		sandbox.stop().then(
			() => process.exit(0),
			(error: unknown) => {
				console.error(error);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', () => shutdown('SIGINT'));
	process.on('SIGTERM', () => shutdown('SIGTERM'));
}

function client(): SandboxAdminClient {
	const url = values.url ?? process.env.SANDBOX_URL;
	if (!url) fail('--url (or env SANDBOX_URL) is required, e.g. --url http://127.0.0.1:3000');
	return new SandboxAdminClient(url);
}

function ids(): { all?: boolean; ids?: string[] } {
	return values.ids
		? {
				ids: values.ids
					.split(',')
					.map((id) => id.trim())
					.filter(Boolean),
			}
		: { all: true };
}

/** One line on how the sample went, with what to do when n8n's test URLs were not listening. */
function describeSample(delivery: Delivery): string {
	const steps = delivery.attempts
		.map((a) => `${a.step} ${a.status ?? a.error ?? ''}`.trim())
		.join(', ');
	if (delivery.status === 'delivered') return `Sample sale delivered (${steps}).`;
	const notListening = delivery.attempts.some((a) => a.status === 404);
	return `Sample sale ${delivery.status} (${steps}).${
		notListening
			? " A 404 from n8n's /webhook-test/ URLs means the editor is not listening: open the trigger, click Listen for test event (or Execute workflow), then run this again within two minutes."
			: ''
	}`;
}

async function drive(command: string): Promise<void> {
	const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));
	switch (command) {
		case 'state':
			return print(await client().state());
		case 'activate':
			if (!values.subscription) fail('activate needs --subscription ID');
			return print(await client().activateSubscription(values.subscription));
		case 'sell': {
			if (!values.listing) fail('sell needs --listing ID');
			const result = await client().sell(values.listing, {
				externalIds: values['external-id'],
				count: integer(values.count, '--count'),
			});
			print(result);
			const outcomes = result.deliveries.map(
				(d) => `${d.subscriptionId}: ${d.status} after ${d.attempts.length} step(s)`,
			);
			console.error(
				`Sold ${result.sale.externalIds.join(', ')}; deliveries: ${outcomes.join('; ') || `none (${result.sale.notNotifiedReason})`}`,
			);
			return;
		}
		case 'sample-sale': {
			const tokenEndPoint = values['token-url'];
			const callbackUrl = values['callback-url'];
			const clientId = values['client-id'];
			const clientSecret = values['client-secret'] ?? process.env.TM_CALLBACK_CLIENT_SECRET;
			if (!tokenEndPoint || !callbackUrl || !clientId || !clientSecret)
				fail(
					'sample-sale needs --token-url, --callback-url, --client-id and --client-secret (or env TM_CALLBACK_CLIENT_SECRET)',
				);
			const delivery = deliveryFlags();
			const result = await client().deliverSampleSale({
				tokenEndPoint,
				callbackUrl,
				clientId,
				clientSecret,
				clientAuth: delivery.clientAuth,
				attempts: delivery.attempts,
			});
			print(result);
			console.error(describeSample(result.delivery));
			if (result.delivery.status !== 'delivered') process.exitCode = 1;
			return;
		}
		case 'expire-tokens':
			return print({ expired: await client().expireTokens(ids()) });
		case 'revoke-tokens':
			return print({ revoked: await client().revokeTokens(ids()) });
		case 'fault': {
			const rule: FaultRuleInput & { seed?: number } = {
				endpoint: values.endpoint as FaultEndpoint,
				kind: values.kind as FaultKind | undefined,
				sequence: values.sequence?.split(',').map((s) => s.trim()) as FaultRuleInput['sequence'],
				rate: number(values.rate, '--rate'),
				latencyMs: number(values.latency, '--latency'),
				jitterMs: number(values.jitter, '--jitter'),
				retryAfterSeconds: number(values['retry-after'], '--retry-after'),
				status: integer(values.status, '--status'),
				seed: integer(values.seed, '--seed'),
			};
			return print(await client().addFault(rule));
		}
		case 'clear-faults':
			await client().clearFaults();
			return print({ faults: [] });
		case 'delivery':
			return print(
				await client().configureDelivery(
					Object.fromEntries(Object.entries(deliveryFlags()).filter(([, v]) => v !== undefined)),
				),
			);
		case 'in-flight': {
			const limit = values['no-limit'] ? null : inFlightFlags();
			if (limit === undefined) fail('in-flight needs --max-in-flight N or --no-limit');
			return print(await client().limitInFlight(limit));
		}
		case 'per-second': {
			const limit = values['no-limit'] ? null : perSecondFlags();
			if (limit === undefined) fail('per-second needs --max-per-second N or --no-limit');
			return print(await client().limitPerSecond(limit));
		}
		case 'reset':
			await client().reset();
			return print({ reset: true });
		default:
			fail(`unknown command "${command}"`);
	}
}

async function main(): Promise<void> {
	if (values.help) {
		console.log(HELP);
		return;
	}
	const command = positionals[0] ?? 'start';
	if (positionals.length > 1) fail(`unexpected argument "${positionals[1]}"`);
	if (command === 'start') await start();
	else await drive(command);
}

main().catch((error: unknown) => {
	console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
	process.exit(1);
});
