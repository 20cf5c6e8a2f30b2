/**
 * The sample sale: the sandbox delivers a listing_sale to ANY token URL + callback URL with a
 * given callback client, through the same token exchange and notification as a sale (startDelivery), without a
 * listing or a subscription. Checked in process, over the admin API, through the CLI, against a strict receiver
 * and against the real trigger served over loopback.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

import {
	SandboxAdminClient,
	SandboxAdminError,
	startSandbox,
	type Sandbox,
	type SandboxOptions,
} from '../../../sandbox/index';
import { SAMPLE_SALE } from '../../../sandbox/choices';
import { serveTrigger, type ServedTrigger } from '../../../support/fakeN8n/serveTrigger';
import { startReceiver, type Receiver } from '../../../support/sandboxRequests';

const ROOT = path.resolve(__dirname, '../../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const CLI = path.join(ROOT, 'sandbox/cli.ts');

const CALLBACK_CLIENT = {
	clientId: 'editor-callback client',
	clientSecret: 'sample secret: 32 characters, &+/',
};
const WEBHOOK_ID = '0b6f3c2a-7d1e-4f5a-9b8c-2d3e4f5a6b7c';

const running: { sandbox?: Sandbox; receiver?: Receiver; trigger?: ServedTrigger } = {};

afterEach(async () => {
	await running.trigger?.stop();
	await running.receiver?.stop();
	await running.sandbox?.stop();
	delete running.trigger;
	delete running.receiver;
	delete running.sandbox;
});

async function sandboxWith(options: SandboxOptions = {}): Promise<Sandbox> {
	running.sandbox = await startSandbox({
		deliveryBaseDelayMs: 5,
		deliveryTimeoutMs: 2000,
		...options,
	});
	return running.sandbox;
}

function runCli(
	args: string[],
	env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
	return new Promise((resolve, reject) => {
		const child = spawn(TSX, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		child.on('error', reject);
		child.on('exit', (code) => resolve({ code, stdout, stderr }));
	});
}

describe('sample sale: the token exchange and the notification, to any URL pair', () => {
	it.each(['basic', 'client_secret_post'] as const)(
		'authenticates by %s and posts a listing_sale shaped like a sale’s, recorded as a sample',
		async (clientAuth) => {
			const sandbox = await sandboxWith();
			const receiver = await startReceiver({ ...CALLBACK_CLIENT, clientAuth });
			running.receiver = receiver;

			const sample = sandbox.deliverSampleSale({
				tokenEndPoint: receiver.tokenUrl,
				callbackUrl: receiver.callbackUrl,
				...CALLBACK_CLIENT,
				clientAuth,
			});
			const delivery = await sample.delivery;

			expect(delivery).toMatchObject({
				status: 'delivered',
				sample: true,
				saleId: sample.sampleId,
				subscriptionId: SAMPLE_SALE.subscriptionId,
				clientAuth,
				tokenEndPoint: receiver.tokenUrl,
				callbackUrl: receiver.callbackUrl,
			});
			expect(sample.sampleId).toMatch(/^sample_/);
			expect(delivery.attempts.map((a) => [a.step, a.status, a.ok])).toEqual([
				['token', 200, true],
				['callback', 200, true],
			]);
			expect(receiver.callbacks).toHaveLength(1);
			expect(receiver.callbacks[0].authorization).toBe('Bearer receiver-token-1');
			expect(receiver.callbacks[0].body).toEqual({
				notificationId: delivery.notificationId,
				eventType: 'listing_sale',
				subscriptionId: SAMPLE_SALE.subscriptionId,
				occurredAt: expect.any(String),
				listing: SAMPLE_SALE.listing,
				products: SAMPLE_SALE.products,
			});

			// A sample sells nothing: no sale, no listing; its delivery is inspectable, without the secret.
			const state = sandbox.state();
			expect(state.sales).toEqual([]);
			expect(state.listings).toEqual([]);
			expect(state.deliveries).toEqual([delivery]);
			expect(JSON.stringify(state)).not.toContain(CALLBACK_CLIENT.clientSecret);
		},
	);

	it('makes one attempt by default, so a URL that is not listening is reported at once', async () => {
		const sandbox = await sandboxWith({ deliveryAttempts: 5, deliveryBaseDelayMs: 60_000 });
		const receiver = await startReceiver({ ...CALLBACK_CLIENT, clientAuth: 'basic' });
		running.receiver = receiver;

		const delivery = await sandbox.deliverSampleSale({
			tokenEndPoint: `${receiver.tokenUrl}-not-here`,
			callbackUrl: receiver.callbackUrl,
			...CALLBACK_CLIENT,
		}).delivery;

		expect(delivery.status).toBe('failed');
		expect(delivery.attempts.map((a) => [a.step, a.status])).toEqual([['token', 404]]);
		expect(receiver.callbacks).toEqual([]);
	});

	it('retries with the sandbox’s backoff when asked for more attempts', async () => {
		const sandbox = await sandboxWith();
		const receiver = await startReceiver({
			...CALLBACK_CLIENT,
			clientAuth: 'basic',
			failTokenRequests: 1,
		});
		running.receiver = receiver;

		const delivery = await sandbox.deliverSampleSale({
			tokenEndPoint: receiver.tokenUrl,
			callbackUrl: receiver.callbackUrl,
			...CALLBACK_CLIENT,
			attempts: 2,
		}).delivery;

		expect(delivery.status).toBe('delivered');
		expect(delivery.attempts.map((a) => [a.attempt, a.step, a.status])).toEqual([
			[1, 'token', 503],
			[2, 'token', 200],
			[2, 'callback', 200],
		]);
	});
});

describe('sample sale to the real trigger (served over loopback as n8n does)', () => {
	it('over the admin API: one execution whose item is the sample with the kind the trigger read', async () => {
		const sandbox = await sandboxWith();
		const trigger = await serveTrigger({ webhookId: WEBHOOK_ID, credentials: CALLBACK_CLIENT });
		running.trigger = trigger;

		const result = await new SandboxAdminClient(sandbox.url).deliverSampleSale({
			tokenEndPoint: trigger.tokenUrl,
			callbackUrl: trigger.callbackUrl,
			...CALLBACK_CLIENT,
		});

		expect(result).toMatchObject({
			complete: true,
			delivery: { status: 'delivered', sample: true },
		});
		expect(trigger.requests).toEqual([
			{ webhook: 'setup', status: 200 },
			{ webhook: 'default', status: 200 },
		]);
		expect(trigger.executions).toHaveLength(1);
		expect(trigger.executions[0].items[0].json).toEqual({
			...(JSON.parse(trigger.executions[0].rawBody) as object),
			notificationKind: { kind: 'listing_sale', field: 'eventType', sale: true },
		});
		expect(trigger.executions[0].items[0].json).toMatchObject({
			eventType: 'listing_sale',
			notificationId: result.delivery.notificationId,
			listing: SAMPLE_SALE.listing,
		});
		expect(JSON.stringify(result)).not.toContain(CALLBACK_CLIENT.clientSecret);
	});

	it('with a client the trigger does not know: refused at the token URL, no execution', async () => {
		const sandbox = await sandboxWith();
		const trigger = await serveTrigger({ webhookId: WEBHOOK_ID, credentials: CALLBACK_CLIENT });
		running.trigger = trigger;

		const result = await new SandboxAdminClient(sandbox.url).deliverSampleSale({
			tokenEndPoint: trigger.tokenUrl,
			callbackUrl: trigger.callbackUrl,
			clientId: CALLBACK_CLIENT.clientId,
			clientSecret: 'not the secret in the credential',
		});

		expect(result.delivery.status).toBe('failed');
		expect(result.delivery.attempts.map((a) => [a.step, a.status])).toEqual([['token', 401]]);
		expect(trigger.requests).toEqual([{ webhook: 'setup', status: 401 }]);
		expect(trigger.executions).toEqual([]);
	});

	it('through the CLI (secret from the environment): exit 0 and the outcome; a 404 says to listen first', async () => {
		const sandbox = await sandboxWith();
		const trigger = await serveTrigger({ webhookId: WEBHOOK_ID, credentials: CALLBACK_CLIENT });
		running.trigger = trigger;
		const env = { TM_CALLBACK_CLIENT_SECRET: CALLBACK_CLIENT.clientSecret };
		const args = ['sample-sale', '--url', sandbox.url, '--client-id', CALLBACK_CLIENT.clientId];

		const delivered = await runCli(
			[...args, '--token-url', trigger.tokenUrl, '--callback-url', trigger.callbackUrl],
			env,
		);
		expect(delivered.code).toBe(0);
		expect(JSON.parse(delivered.stdout)).toMatchObject({ delivery: { status: 'delivered' } });
		expect(delivered.stderr).toContain('Sample sale delivered');
		expect(trigger.executions).toHaveLength(1);

		const notListening = await runCli(
			[
				...args,
				'--token-url',
				trigger.tokenUrl.replace('/webhook/', '/webhook-test/'),
				'--callback-url',
				trigger.callbackUrl.replace('/webhook/', '/webhook-test/'),
			],
			env,
		);
		expect(notListening.code).toBe(1);
		expect(notListening.stderr).toContain('token 404');
		expect(notListening.stderr).toContain('click Execute workflow on the canvas');
		expect(trigger.executions).toHaveLength(1);
	}, 60_000);

	it('through the CLI without --url: no running sandbox needed, to the Production URLs; a 404 there says to publish', async () => {
		const trigger = await serveTrigger({ webhookId: WEBHOOK_ID, credentials: CALLBACK_CLIENT });
		running.trigger = trigger;
		const env = { TM_CALLBACK_CLIENT_SECRET: CALLBACK_CLIENT.clientSecret, SANDBOX_URL: '' };
		const args = ['sample-sale', '--client-id', CALLBACK_CLIENT.clientId];

		const delivered = await runCli(
			[...args, '--token-url', trigger.tokenUrl, '--callback-url', trigger.callbackUrl],
			env,
		);
		expect(delivered.code).toBe(0);
		expect(JSON.parse(delivered.stdout)).toMatchObject({
			delivery: { status: 'delivered', sample: true },
			complete: true,
		});
		expect(delivered.stderr).toContain('Sample sale delivered');
		expect(trigger.executions).toHaveLength(1);

		const inactive = await runCli(
			[
				...args,
				'--token-url',
				trigger.tokenUrl.replace(WEBHOOK_ID, 'not-a-registered-webhook'),
				'--callback-url',
				trigger.callbackUrl.replace(WEBHOOK_ID, 'not-a-registered-webhook'),
			],
			env,
		);
		expect(inactive.code).toBe(1);
		expect(inactive.stderr).toContain('token 404');
		expect(inactive.stderr).toContain('publish (on n8n 1.x, activate) the workflow');
		expect(trigger.executions).toHaveLength(1);
	}, 60_000);

	it('through the CLI: a refused client and an n8n not reached each say what to check', async () => {
		const trigger = await serveTrigger({ webhookId: WEBHOOK_ID, credentials: CALLBACK_CLIENT });
		running.trigger = trigger;
		const args = ['sample-sale', '--client-id', CALLBACK_CLIENT.clientId];
		const urls = ['--token-url', trigger.tokenUrl, '--callback-url', trigger.callbackUrl];

		const refused = await runCli([...args, ...urls], {
			TM_CALLBACK_CLIENT_SECRET: 'not the secret in the credential',
			SANDBOX_URL: '',
		});
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain('token 401');
		expect(refused.stderr).toContain(
			"must be the Client ID and Client Secret of the trigger's Ticket Marketplace Callback API credential",
		);
		expect(refused.stderr).not.toContain('not the secret in the credential');

		await trigger.stop();
		delete running.trigger;
		const unreachable = await runCli([...args, ...urls], {
			TM_CALLBACK_CLIENT_SECRET: CALLBACK_CLIENT.clientSecret,
			SANDBOX_URL: '',
		});
		expect(unreachable.code).toBe(1);
		expect(unreachable.stderr).toContain('n8n could not be reached at these URLs');
	}, 60_000);
});

describe('sample sale input', () => {
	it.each([
		[{ tokenEndPoint: 'ftp://127.0.0.1/token' }, 'tokenEndPoint must be an http(s) URL'],
		[{ callbackUrl: 'not a url' }, 'callbackUrl must be an http(s) URL'],
		[{ clientId: '' }, 'clientId must be a non-empty string'],
		[{ clientSecret: undefined }, 'clientSecret must be a non-empty string'],
		[{ clientAuth: 'digest' }, 'clientAuth must be one of basic, client_secret_post'],
		[{ attempts: 0 }, 'attempts must be a positive integer'],
	])('refuses %j with 400', async (change, message) => {
		const sandbox = await sandboxWith();
		const input = {
			tokenEndPoint: 'http://127.0.0.1:9/token',
			callbackUrl: 'http://127.0.0.1:9/notifications',
			...CALLBACK_CLIENT,
			...change,
		};
		const call = new SandboxAdminClient(sandbox.url).deliverSampleSale(input as never);
		await expect(call).rejects.toBeInstanceOf(SandboxAdminError);
		await expect(call).rejects.toMatchObject({
			status: 400,
			message: expect.stringContaining(message),
		});
		expect(sandbox.state().deliveries).toEqual([]);
	});

	it('the CLI refuses to run without the client secret', async () => {
		const result = await runCli(
			[
				'sample-sale',
				'--url',
				'http://127.0.0.1:9',
				'--token-url',
				'http://127.0.0.1:9/token',
				'--callback-url',
				'http://127.0.0.1:9/notifications',
				'--client-id',
				'x',
			],
			{ TM_CALLBACK_CLIENT_SECRET: '' },
		);
		expect(result.code).toBe(2);
		expect(result.stderr).toContain('--client-secret');
	}, 30_000);
});
