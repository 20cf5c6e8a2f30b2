/**
 * n8n's queue mode on one machine, as a seller who outgrew one n8n deploys it: PostgreSQL and Redis, one main
 * process (editor, API, activation), two webhook processes behind a round-robin load balancer (the URL the
 * marketplace reaches, WEBHOOK_URL), and two workers that run the executions. The packed package is installed as
 * a community package that every process loads; the sandbox is the Partner API. Everything binds 127.0.0.1 and
 * stop() undoes all of it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/index';
import { credentialsFor } from './harness';
import {
	createApiKey,
	n8nCli,
	N8nPublicApi,
	startN8nServer,
	type N8nConfig,
	type N8nRole,
	type N8nServer,
} from './n8n';
import { ensureN8nInstalled } from './n8nInstall';
import { ensureBuilt, installPackedPackage } from './packageUnderTest';
import { freePort, startedResources } from './processes';
import { step } from './progress';
import {
	ensureQueueServicesInstalled,
	QUEUE_DATABASE,
	startPostgres,
	startRedis,
	type Service,
} from './queueServices';
import { startRoundRobin } from './roundRobin';
import { configuredLikeAUser, type WorkflowJson } from './workflows';

export interface QueueHarness {
	sandbox: Sandbox;
	api: N8nPublicApi;
	/** The public API key (the secret scan looks for it too). */
	apiKey: string;
	mainUrl: string;
	/** The load balancer in front of the webhook processes: what WEBHOOK_URL names. */
	publicUrl: string;
	webhookUrls: string[];
	/** Connections the load balancer handed to each webhook process so far. */
	balancerConnections: number[];
	main: N8nServer;
	webhooks: N8nServer[];
	workers: N8nServer[];
	postgresPort: number;
	filesFolder: string;
	stop(): Promise<void>;
}

export async function startQueueHarness(options: {
	workflows: WorkflowJson[];
	sandbox?: Omit<SandboxOptions, 'port'>;
}): Promise<QueueHarness> {
	await ensureQueueServicesInstalled();
	const install = await ensureN8nInstalled();
	await ensureBuilt();

	const userFolder = mkdtempSync(join(tmpdir(), 'tm-n8n-queue-'));
	// PostgreSQL runs as its own user: its folder is apart from the n8n user folder (which only root may enter).
	const servicesFolder = mkdtempSync(join(tmpdir(), 'tm-n8n-queue-services-'));
	const { remember, stop } = startedResources();
	const removeFolders = () => {
		rmSync(userFolder, { recursive: true, force: true });
		rmSync(servicesFolder, { recursive: true, force: true });
	};
	remember({
		name: 'removing the queue-mode folders',
		stop: async () => removeFolders(),
		stopNow: removeFolders,
	});
	step(`queue mode: user folder ${userFolder}`);

	try {
		const filesFolder = join(userFolder, 'files');
		const importFolder = join(userFolder, 'import');
		mkdirSync(filesFolder, { recursive: true });
		mkdirSync(join(importFolder, 'workflows'), { recursive: true });
		await installPackedPackage(userFolder, userFolder);

		const postgres: Service = await startPostgres(servicesFolder);
		remember({
			name: 'stopping PostgreSQL',
			stop: () => postgres.stop(),
			stopNow: () => undefined,
		});
		const redis: Service = await startRedis(servicesFolder);
		remember({ name: 'stopping Redis', stop: () => redis.stop(), stopNow: () => undefined });
		const sandbox = await startSandbox({ ...options.sandbox, port: 0 });
		remember({
			name: 'stopping the sandbox',
			stop: () => sandbox.stop(),
			stopNow: () => undefined,
		});
		step(`sandbox: listening on ${sandbox.url}`);

		const webhookPorts = [await freePort(), await freePort()];
		const balancer = await startRoundRobin(webhookPorts);
		remember({
			name: 'stopping the load balancer',
			stop: () => balancer.stop(),
			stopNow: () => undefined,
		});
		step(`load balancer: ${balancer.url} -> webhook processes on ports ${webhookPorts.join(', ')}`);

		// What every process shares: the database, the queue, the key that encrypts credentials, the public URL.
		const env = {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(postgres.port),
			DB_POSTGRESDB_DATABASE: QUEUE_DATABASE.name,
			DB_POSTGRESDB_USER: QUEUE_DATABASE.user,
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			WEBHOOK_URL: `${balancer.url}/`,
			// Production webhooks are served by the webhook processes only, as in a real deployment.
			N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
		};
		const configFor = async (role: N8nRole, name: string, port?: number): Promise<N8nConfig> => ({
			install,
			userFolder,
			port: port ?? (await freePort()),
			brokerPort: await freePort(),
			filesFolder,
			logFile: join(userFolder, `${name}.log`),
			role,
			env: role === 'worker' ? { ...env, QUEUE_HEALTH_CHECK_PORT: String(await freePort()) } : env,
		});

		const mainConfig = await configFor('start', 'main');
		writeFileSync(
			join(importFolder, 'credentials.json'),
			JSON.stringify(credentialsFor(sandbox.url)),
		);
		for (const workflow of options.workflows)
			writeFileSync(
				join(importFolder, 'workflows', `${workflow.id}.json`),
				JSON.stringify(
					configuredLikeAUser(workflow, {
						partnerApiUrl: sandbox.url,
						n8nUrl: balancer.url,
						filesFolder,
					}),
				),
			);
		step('n8n: importing credentials into PostgreSQL (the first command also creates the schema)');
		await n8nCli(mainConfig, [
			'import:credentials',
			`--input=${join(importFolder, 'credentials.json')}`,
		]);
		step(`n8n: importing ${options.workflows.length} workflow(s)`);
		await n8nCli(mainConfig, [
			'import:workflow',
			'--separate',
			`--input=${join(importFolder, 'workflows')}`,
		]);
		rmSync(importFolder, { recursive: true, force: true });

		const main = await startN8nServer(mainConfig);
		remember({ name: 'stopping n8n main', stop: () => main.stop(), stopNow: () => undefined });
		const apiKey = await createApiKey(main.baseUrl);
		const api = new N8nPublicApi(main.baseUrl, apiKey);
		for (const workflow of options.workflows) {
			await api.activate(workflow.id);
			step(`n8n: activated "${workflow.name}" (${workflow.id})`);
		}

		const webhooks: N8nServer[] = [];
		const workers: N8nServer[] = [];
		// Two at a time: the machine has two cores, and each process compiles n8n on start.
		const [webhookOne, webhookTwo] = await Promise.all(
			webhookPorts.map(async (port, index) =>
				startN8nServer(await configFor('webhook', `webhook-${index + 1}`, port)),
			),
		);
		webhooks.push(webhookOne, webhookTwo);
		for (const server of webhooks)
			remember({
				name: 'stopping an n8n webhook process',
				stop: () => server.stop(),
				stopNow: () => undefined,
			});
		const [workerOne, workerTwo] = await Promise.all(
			[1, 2].map(async (index) => startN8nServer(await configFor('worker', `worker-${index}`))),
		);
		workers.push(workerOne, workerTwo);
		for (const server of workers)
			remember({
				name: 'stopping an n8n worker',
				stop: () => server.stop(),
				stopNow: () => undefined,
			});

		return {
			sandbox,
			api,
			apiKey,
			mainUrl: main.baseUrl,
			publicUrl: balancer.url,
			webhookUrls: webhooks.map((server) => server.baseUrl),
			balancerConnections: balancer.connections,
			main,
			webhooks,
			workers,
			postgresPort: postgres.port,
			filesFolder,
			stop,
		};
	} catch (error) {
		await stop();
		throw error;
	}
}
