/**
 * The whole real-n8n setup in one call: the pinned n8n (cached), the package built, packed and installed as a
 * community package without node_modules, the sandbox, a fresh n8n user folder with credentials and workflows
 * imported, n8n started on loopback, the owner and a public API key set up, and the workflows activated. The
 * e2e runner, the e2e tests (when run on their own) and the demo all use it; stop() undoes all of it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SANDBOX_DEFAULTS, startSandbox, type SandboxOptions } from '../../sandbox/index';
import {
	createApiKey,
	n8nCli,
	N8nPublicApi,
	startN8nServer,
	type N8nConfig,
	type N8nServer,
} from './n8n';
import { CHAT_STAND_IN_TOKEN, startChatStandIn } from './chatStandIn';
import { OPENAI_STAND_IN_KEY, startOpenAiStandIn } from './openAiStandIn';
import { createInventoryTable, dataTablesOf, INVENTORY_TABLE } from './inventory';
import { ensureN8nInstalled } from './n8nInstall';
import { ensureBuilt, installPackedPackage } from './packageUnderTest';
import { freePort, startedResources } from './processes';
import { step } from './progress';
import {
	configuredLikeAUser,
	CREDENTIAL_IDS,
	EXAMPLE_WEBHOOK_KEY,
	type WorkflowJson,
} from './workflows';

/** Requests the e2e sandbox keeps in its log: every request of one suite run. */
const E2E_REQUEST_LOG_LIMIT = 100_000;

export interface HarnessOptions {
	/** Workflows to import; those with `activate` true are activated after start. */
	workflows: Array<{ workflow: WorkflowJson; activate: boolean }>;
	/** Keep the user folder after stop (for post-mortems); removed by default. */
	keepUserFolder?: boolean;
	/** Options of the sandbox the harness starts (the benchmarks keep a longer request log, for example). */
	sandbox?: Omit<SandboxOptions, 'port'>;
	/** The n8n version to run (default: TM_N8N_VERSION or the pinned one); the bench runs two side by side. */
	n8nVersion?: string;
	/** More credentials to import beside the harness's own (n8n's import format: id, name, type, plain data). */
	credentials?: Array<Record<string, unknown>>;
	/** More environment for n8n's processes (wins over the harness's). */
	n8nEnv?: Record<string, string>;
}

/** What a test process needs to use a running harness (written to a file for jest by the e2e runner). */
export interface HarnessContext {
	n8nUrl: string;
	apiKey: string;
	sandboxUrl: string;
	userFolder: string;
	/** The only folder n8n's file nodes may read (N8N_RESTRICT_FILE_ACCESS_TO). */
	filesFolder: string;
	packageDir: string;
	packedFiles: string[];
	n8nLogFile: string;
	n8nFolder: string;
	/** The Mattermost stand-in that n8n's Mattermost node posts sale alerts to (support/harness/chatStandIn.ts). */
	chatUrl: string;
	/**
	 * The OpenAI-compatible chat model stand-in (support/harness/openAiStandIn.ts) behind the AI example's OpenAI Chat
	 * Model node; n8n's credential holds `${openAiUrl}/v1`.
	 */
	openAiUrl: string;
	/** The n8n Data Table the data-table examples read and update (support/harness/inventory.ts). */
	inventoryTableId: string;
	/** Set by the e2e runner: where a test process stops and starts n8n (support/harness/control.ts). */
	controlUrl?: string;
}

export interface Harness {
	context: HarnessContext;
	api: N8nPublicApi;
	/** The running n8n server (a new one after restartN8n). */
	readonly n8n: N8nServer;
	/** Stops n8n alone (the sandbox keeps running); startN8n brings it back on the same port, folder and database. */
	stopN8n(): Promise<void>;
	startN8n(): Promise<void>;
	stop(): Promise<void>;
}

/** Demo values the sandbox presents to the trigger's token endpoint; not a secret of anything real. */
export const SANDBOX_CALLBACK_CLIENT = {
	clientId: 'sandbox-marketplace',
	clientSecret: 'sandbox-callback-secret-0123456789',
};

/** The Basic Auth login of the AI example's chat page (an httpBasicAuth credential); not a secret of anything real. */
export const LISTING_ASSISTANT_CHAT_LOGIN = {
	user: 'listing-assistant',
	password: 'stand-in-chat-password-0123456789',
};

/** The Basic Auth login of the ticket PDF form example (an httpBasicAuth credential); not a secret of anything real. */
export const TICKET_PDF_FORM_LOGIN = {
	user: 'seller',
	password: 'stand-in-form-password-0123456789',
};

/**
 * A wrong marketplace password for the seller's account (the credential `apiWrongPassword`): the sandbox refuses
 * its login. Still a value no output may show.
 */
export const WRONG_MARKETPLACE_PASSWORD = 'wrong-marketplace-password-0123456789';

/** The harness's credentials: the Partner API account and the callback client first, in that order. */
export function credentialsFor(sandboxUrl: string): Array<Record<string, unknown>> {
	const api = {
		baseUrl: sandboxUrl,
		consumerKey: SANDBOX_DEFAULTS.consumerKey,
		consumerSecret: SANDBOX_DEFAULTS.consumerSecret,
		email: SANDBOX_DEFAULTS.marketplaceAccount.email,
		password: SANDBOX_DEFAULTS.marketplaceAccount.password,
	};
	return [
		{
			id: CREDENTIAL_IDS.api.id,
			name: CREDENTIAL_IDS.api.name,
			type: 'ticketMarketplaceApi',
			data: api,
		},
		{
			id: CREDENTIAL_IDS.callback.id,
			name: CREDENTIAL_IDS.callback.name,
			type: 'ticketMarketplaceCallbackApi',
			data: { ...SANDBOX_CALLBACK_CLIENT },
		},
		{
			id: CREDENTIAL_IDS.apiWrongPassword.id,
			name: CREDENTIAL_IDS.apiWrongPassword.name,
			type: 'ticketMarketplaceApi',
			data: { ...api, password: WRONG_MARKETPLACE_PASSWORD },
		},
		{
			id: CREDENTIAL_IDS.webhookKey.id,
			name: CREDENTIAL_IDS.webhookKey.name,
			type: 'httpHeaderAuth',
			data: { ...EXAMPLE_WEBHOOK_KEY },
		},
	];
}

/**
 * Credentials of n8n's own chat, AI, form and spreadsheet nodes in the examples: Mattermost and OpenAI point at the
 * loopback stand-ins (OpenAI's `url` is the API's base, `…/v1`); Slack and Google Sheets cannot run here (no
 * network), their placeholders only let the examples import complete.
 */
export function chatCredentialsFor(
	chatUrl: string,
	openAiBaseUrl: string,
): Array<Record<string, unknown>> {
	return [
		{
			id: CREDENTIAL_IDS.openAi.id,
			name: CREDENTIAL_IDS.openAi.name,
			type: 'openAiApi',
			data: { apiKey: OPENAI_STAND_IN_KEY, url: openAiBaseUrl, header: false },
		},
		{
			id: CREDENTIAL_IDS.chatLogin.id,
			name: CREDENTIAL_IDS.chatLogin.name,
			type: 'httpBasicAuth',
			data: { ...LISTING_ASSISTANT_CHAT_LOGIN },
		},
		{
			id: CREDENTIAL_IDS.formLogin.id,
			name: CREDENTIAL_IDS.formLogin.name,
			type: 'httpBasicAuth',
			data: { ...TICKET_PDF_FORM_LOGIN },
		},
		{
			id: CREDENTIAL_IDS.mattermost.id,
			name: CREDENTIAL_IDS.mattermost.name,
			type: 'mattermostApi',
			data: { baseUrl: chatUrl, accessToken: CHAT_STAND_IN_TOKEN, allowUnauthorizedCerts: false },
		},
		{
			id: CREDENTIAL_IDS.slack.id,
			name: CREDENTIAL_IDS.slack.name,
			type: 'slackApi',
			data: { accessToken: 'xoxb-placeholder-not-a-token' },
		},
		{
			id: CREDENTIAL_IDS.googleSheets.id,
			name: CREDENTIAL_IDS.googleSheets.name,
			type: 'googleSheetsOAuth2Api',
			data: {
				clientId: 'placeholder.apps.googleusercontent.com',
				clientSecret: 'placeholder-not-a-secret',
			},
		},
		{
			id: CREDENTIAL_IDS.googleDrive.id,
			name: CREDENTIAL_IDS.googleDrive.name,
			type: 'googleDriveOAuth2Api',
			data: {
				clientId: 'placeholder.apps.googleusercontent.com',
				clientSecret: 'placeholder-not-a-secret',
			},
		},
	];
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
	const install = await ensureN8nInstalled(options.n8nVersion);
	await ensureBuilt();

	const userFolder = mkdtempSync(join(tmpdir(), 'tm-n8n-e2e-'));
	// What this harness started; stop() (or a failed start) undoes it newest first.
	const { remember, stop } = startedResources();

	const removeFolder = () => {
		if (!options.keepUserFolder) rmSync(userFolder, { recursive: true, force: true });
	};
	remember({
		name: options.keepUserFolder ? `keeping ${userFolder}` : 'removing the user folder',
		stop: async () => removeFolder(),
		stopNow: removeFolder,
	});
	step(`user folder: ${userFolder}`);

	try {
		const filesFolder = join(userFolder, 'files');
		const importFolder = join(userFolder, 'import');
		mkdirSync(filesFolder, { recursive: true });
		mkdirSync(join(importFolder, 'workflows'), { recursive: true });

		const { packageDir, files: packedFiles } = await installPackedPackage(userFolder, userFolder);

		// The suite's tests read what they sent as the log's tail past its length before: a log that has reached its
		// limit (1,000 by default) no longer grows, and that tail is empty. One suite sends a few thousand requests.
		const sandbox = await startSandbox({
			requestLogLimit: E2E_REQUEST_LOG_LIMIT,
			...options.sandbox,
			port: 0,
		});
		remember({
			name: 'stopping the sandbox',
			stop: () => sandbox.stop(),
			stopNow: () => undefined,
		});
		step(`sandbox: listening on ${sandbox.url}`);
		const chat = await startChatStandIn();
		remember({
			name: 'stopping the chat stand-in',
			stop: () => chat.stop(),
			stopNow: () => undefined,
		});
		step(`chat: Mattermost stand-in listening on ${chat.url}`);
		const openAi = await startOpenAiStandIn();
		remember({
			name: 'stopping the OpenAI stand-in',
			stop: () => openAi.stop(),
			stopNow: () => undefined,
		});
		step(`model: OpenAI-compatible stand-in listening on ${openAi.url}`);

		const config: N8nConfig = {
			install,
			userFolder,
			port: await freePort(),
			brokerPort: await freePort(),
			filesFolder,
			logFile: join(userFolder, 'n8n.log'),
			env: options.n8nEnv,
		};

		writeFileSync(
			join(importFolder, 'credentials.json'),
			JSON.stringify([
				...credentialsFor(sandbox.url),
				...chatCredentialsFor(chat.url, openAi.baseUrl),
				...(options.credentials ?? []),
			]),
		);
		for (const { workflow } of options.workflows) {
			const configured = configuredLikeAUser(workflow, {
				partnerApiUrl: sandbox.url,
				n8nUrl: `http://127.0.0.1:${config.port}`,
				filesFolder,
			});
			writeFileSync(
				join(importFolder, 'workflows', `${workflow.id}.json`),
				JSON.stringify(configured),
			);
		}
		step(
			'n8n: importing credentials (the first command on a fresh folder also creates the database)',
		);
		await n8nCli(config, [
			'import:credentials',
			`--input=${join(importFolder, 'credentials.json')}`,
		]);
		step(`n8n: importing ${options.workflows.length} workflow(s)`);
		await n8nCli(config, [
			'import:workflow',
			'--separate',
			`--input=${join(importFolder, 'workflows')}`,
		]);
		// The import folder holds plain-text credential data: gone before n8n starts.
		rmSync(importFolder, { recursive: true, force: true });

		let n8n = await startN8nServer(config);
		// startN8nServer tracks n8n for Ctrl-C itself; this only orders the orderly stop (of whichever n8n runs then).
		remember({ name: 'stopping n8n', stop: () => n8n.stop(), stopNow: () => undefined });
		const apiKey = await createApiKey(n8n.baseUrl);
		const api = new N8nPublicApi(n8n.baseUrl, apiKey);
		step('n8n: owner set up, public API key created');
		const inventoryTableId = await createInventoryTable(await dataTablesOf(n8n.baseUrl));
		step(`n8n: data table "${INVENTORY_TABLE}" created (${inventoryTableId})`);
		for (const { workflow } of options.workflows.filter((entry) => entry.activate)) {
			await api.activate(workflow.id);
			step(`n8n: activated "${workflow.name}" (${workflow.id})`);
		}

		const context: HarnessContext = {
			n8nUrl: n8n.baseUrl,
			apiKey,
			sandboxUrl: sandbox.url,
			chatUrl: chat.url,
			openAiUrl: openAi.url,
			inventoryTableId,
			userFolder,
			filesFolder,
			packageDir,
			packedFiles,
			n8nLogFile: config.logFile,
			n8nFolder: join(userFolder, '.n8n'),
		};
		const activeWorkflowIds = options.workflows
			.filter((entry) => entry.activate)
			.map((entry) => entry.workflow.id);
		return {
			context,
			api,
			get n8n() {
				return n8n;
			},
			stopN8n: async () => {
				step('n8n: stopping (the sandbox keeps running)');
				await n8n.stop();
			},
			startN8n: async () => {
				if (n8n.isRunning()) throw new Error('n8n is already running');
				n8n = await startN8nServer(config);
				// n8n activates its stored active workflows before the editor line; where it logs each one, check them all.
				if (install.logsActivation)
					for (const workflowId of activeWorkflowIds)
						await n8n.waitForOutput(
							new RegExp(`Activated workflow .*\\(ID: ${workflowId}\\)`),
							120_000,
						);
				step(`n8n: started again, ${activeWorkflowIds.length} workflow(s) active`);
			},
			stop,
		};
	} catch (error) {
		const logFile = join(userFolder, 'n8n.log');
		if (existsSync(logFile))
			step(
				`start failed; last lines of the n8n log:\n${readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n')}`,
			);
		await stop();
		throw error;
	}
}
