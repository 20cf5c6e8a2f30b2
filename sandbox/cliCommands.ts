/** The CLI's commands for a running sandbox (`state`, `sell`, `sample-sale`, ...), over its admin HTTP API. */
import { SandboxAdminClient } from './client';
import type { RemoteSampleSaleResult } from './client';
import {
	answerFlags,
	deliveryFlags,
	fail,
	inFlightFlags,
	integer,
	number,
	perSecondFlags,
	quotaFlags,
	spikeArrestFlags,
} from './cliFlags';
import type { Flags } from './cliFlags';
import type { Delivery } from './delivery';
import type { FaultEndpoint, FaultKind, FaultRuleInput } from './faults';
import type { SampleSaleInput } from './types';
import { startSandbox } from './server';

function sandboxUrl(values: Flags): string | undefined {
	return values.url ?? (process.env.SANDBOX_URL || undefined);
}

function client(values: Flags): SandboxAdminClient {
	const url = sandboxUrl(values);
	if (!url) fail('--url (or env SANDBOX_URL) is required, e.g. --url http://127.0.0.1:3000');
	return new SandboxAdminClient(url);
}

function ids(values: Flags): { all?: boolean; ids?: string[] } {
	return values.ids
		? {
				ids: values.ids
					.split(',')
					.map((id) => id.trim())
					.filter(Boolean),
			}
		: { all: true };
}

/** One line on how the sample went, with what to do when n8n's URLs were not listening. */
function describeSample(delivery: Delivery, tokenUrl: string): string {
	const steps = delivery.attempts
		.map((a) => `${a.step} ${a.status ?? a.error ?? ''}`.trim())
		.join(', ');
	if (delivery.status === 'delivered') return `Sample sale delivered (${steps}).`;
	return `Sample sale ${delivery.status} (${steps}).${adviceFor(delivery, tokenUrl)}`;
}

/** What to do about a sample that did not arrive: the URLs not listening, a refused client, n8n not reached. */
function adviceFor(delivery: Delivery, tokenUrl: string): string {
	const statuses = delivery.attempts.map((a) => a.status);
	if (statuses.includes(404))
		return tokenUrl.includes('/webhook-test/')
			? " A 404 from n8n's /webhook-test/ URLs means the editor is not listening: click Execute workflow on the canvas (Listen for test event on n8n 1.x), then run this again within two minutes."
			: " A 404 from n8n means nothing listens at these URLs: for the trigger's Production URLs, publish (on n8n 1.x, activate) the workflow first; for its Test URLs, click Execute workflow on the canvas.";
	if (statuses.includes(401))
		return " The trigger refused the client: --client-id and TM_CALLBACK_CLIENT_SECRET must be the Client ID and Client Secret of the trigger's Ticket Marketplace Callback API credential.";
	if (delivery.attempts.some((a) => a.status === undefined && a.error))
		return ' n8n could not be reached at these URLs: check that n8n is running and copy the URLs again from the trigger.';
	return '';
}

/**
 * A sample sale through the running sandbox at --url, or, without one, through a sandbox started for this command
 * alone (the delivery goes from this process to the trigger: no Partner API call is involved).
 */
async function sampleSale(values: Flags, input: SampleSaleInput): Promise<RemoteSampleSaleResult> {
	if (sandboxUrl(values)) return client(values).deliverSampleSale(input);
	const delivery = deliveryFlags(values);
	const sandbox = await startSandbox({
		port: 0,
		deliveryBaseDelayMs: delivery.baseDelayMs,
		deliveryMaxDelayMs: delivery.maxDelayMs,
		deliveryTimeoutMs: delivery.timeoutMs,
	});
	try {
		const started = sandbox.deliverSampleSale(input);
		return { sampleId: started.sampleId, delivery: await started.delivery, complete: true };
	} finally {
		await sandbox.stop();
	}
}

export async function drive(command: string, values: Flags): Promise<void> {
	const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));
	switch (command) {
		case 'state':
			return print(await client(values).state());
		case 'activate':
			if (!values.subscription) fail('activate needs --subscription ID');
			return print(await client(values).activateSubscription(values.subscription));
		case 'sell': {
			if (!values.listing) fail('sell needs --listing ID');
			const result = await client(values).sell(values.listing, {
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
			const delivery = deliveryFlags(values);
			const result = await sampleSale(values, {
				tokenEndPoint,
				callbackUrl,
				clientId,
				clientSecret,
				clientAuth: delivery.clientAuth,
				attempts: delivery.attempts,
			});
			print(result);
			console.error(describeSample(result.delivery, tokenEndPoint));
			if (result.delivery.status !== 'delivered') process.exitCode = 1;
			return;
		}
		case 'expire-tokens':
			return print({ expired: await client(values).expireTokens(ids(values)) });
		case 'revoke-tokens':
			return print({ revoked: await client(values).revokeTokens(ids(values)) });
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
			return print(await client(values).addFault(rule));
		}
		case 'clear-faults':
			await client(values).clearFaults();
			return print({ faults: [] });
		case 'delivery':
			return print(
				await client(values).configureDelivery(
					Object.fromEntries(
						Object.entries(deliveryFlags(values)).filter(([, v]) => v !== undefined),
					),
				),
			);
		case 'in-flight': {
			const limit = values['no-limit'] ? null : inFlightFlags(values);
			if (limit === undefined) fail('in-flight needs --max-in-flight N or --no-limit');
			return print(await client(values).limitInFlight(limit));
		}
		case 'per-second': {
			const limit = values['no-limit'] ? null : perSecondFlags(values);
			if (limit === undefined) fail('per-second needs --max-per-second N or --no-limit');
			return print(await client(values).limitPerSecond(limit));
		}
		case 'quota': {
			const limit = values['no-limit'] ? null : quotaFlags(values);
			if (limit === undefined) fail('quota needs --quota N or --no-limit');
			return print(await client(values).limitQuota(limit));
		}
		case 'spike-arrest': {
			const limit = values['no-limit'] ? null : spikeArrestFlags(values);
			if (limit === undefined) fail('spike-arrest needs --spike-arrest RATE or --no-limit');
			return print(await client(values).limitSpikeArrest(limit));
		}
		case 'answers':
			return print(await client(values).configureAnswers(answerFlags(values)));
		case 'reset':
			await client(values).reset({ keepTokens: values['keep-tokens'] === true });
			return print({ reset: true, keptTokens: values['keep-tokens'] === true });
		default:
			fail(`unknown command "${command}"`);
	}
}
