/**
 * A real n8n on loopback: environment (from the measured facts in real-n8n.md), headless CLI commands, the
 * server process, owner setup and the public API.
 */
import type { N8nInstall } from './n8nInstall';
import { cleanEnv, runCommand, startLoggedProcess, type LoggedProcess } from './processes';
import { step } from './progress';

export interface N8nConfig {
	install: N8nInstall;
	userFolder: string;
	port: number;
	brokerPort: number;
	/** Folder the Read/Write Files node may read (n8n 2.x restricts file access; the n8n folder itself is blocked). */
	filesFolder: string;
	/** Where the server's output is written (kept with the run for post-mortems). */
	logFile: string;
	/** Which n8n process: the main one (default), a webhook process or a worker (queue mode). */
	role?: N8nRole;
	/** More environment (queue mode: Postgres, Redis, WEBHOOK_URL); wins over the defaults. */
	env?: Record<string, string>;
}

export type N8nRole = 'start' | 'webhook' | 'worker';

/** What each process prints once it serves (the main one: once the REST routes exist, after /healthz turns OK). */
const READY: Record<N8nRole, RegExp> = {
	start: /Editor is now accessible via/,
	webhook: /Webhook listener waiting for requests/,
	worker: /n8n worker is now ready/,
};

export function n8nEnv(config: N8nConfig): NodeJS.ProcessEnv {
	return cleanEnv({
		N8N_USER_FOLDER: config.userFolder,
		N8N_PORT: String(config.port),
		N8N_RUNNERS_BROKER_PORT: String(config.brokerPort),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_ENCRYPTION_KEY: 'e2e-fixed-encryption-key-not-a-secret',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		DB_TYPE: 'sqlite',
		EXTERNAL_FRONTEND_HOOKS_URLS: '',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_RESTRICT_FILE_ACCESS_TO: config.filesFolder,
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_OUTPUT: 'console',
		// Nothing to drain in a test instance: do not wait 30 s on stop.
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
		// What this n8n version needs (its install recipe): the Node it runs with first on PATH, engine settings.
		...config.install.env,
		...config.env,
	});
}

/** Runs one headless n8n command (import:credentials, import:workflow, ...) against the user folder. */
export async function n8nCli(config: N8nConfig, args: string[]): Promise<string> {
	const { output } = await runCommand(config.install.node, [config.install.entry, ...args], {
		cwd: config.userFolder,
		env: n8nEnv(config),
		timeoutMs: 180_000,
		label: `n8n ${args.join(' ')}`,
	});
	return output;
}

export interface N8nServer extends LoggedProcess {
	baseUrl: string;
}

function delay(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until check() returns true; bounded by timeoutMs. */
export async function pollUntil(
	description: string,
	check: () => Promise<boolean>,
	timeoutMs: number,
	intervalMs = 200,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (await check()) return;
		if (Date.now() > deadline)
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}`);
		await delay(intervalMs);
	}
}

export async function startN8nServer(config: N8nConfig): Promise<N8nServer> {
	const baseUrl = `http://127.0.0.1:${config.port}`;
	const role = config.role ?? 'start';
	const name = role === 'start' ? 'n8n' : `n8n ${role}`;
	step(
		`${name}: starting on ${baseUrl} (task-runner broker on ${config.brokerPort}); log at ${config.logFile}`,
	);
	const server = await startLoggedProcess({
		name,
		command: config.install.node,
		args: [config.install.entry, role],
		cwd: config.userFolder,
		env: n8nEnv(config),
		logFile: config.logFile,
		ready: READY[role],
		readyTimeoutMs: 180_000,
	});
	step(role === 'start' ? 'n8n: ready (editor and REST API up)' : `${name}: ready`);
	return { baseUrl, ...server };
}

/** JSON over HTTP to n8n, with errors that name the call and show n8n's answer. */
async function callJson<T>(
	url: string,
	init: RequestInit,
): Promise<{ body: T; response: Response }> {
	const response = await fetch(url, init);
	const text = await response.text();
	if (!response.ok)
		throw new Error(`${init.method ?? 'GET'} ${url} -> ${response.status}: ${text.slice(0, 1000)}`);
	return { body: (text ? JSON.parse(text) : undefined) as T, response };
}

export const OWNER = {
	email: 'owner@example.test',
	firstName: 'E2E',
	lastName: 'Owner',
	password: 'E2e-owner-password-1',
};
export const OWNER_BROWSER_ID = 'n8n-nodes-ticket-marketplace-e2e';

/** Sets up the owner on a fresh instance and creates a public API key with every scope the instance offers. */
export async function createApiKey(baseUrl: string): Promise<string> {
	const headers = { 'content-type': 'application/json', 'browser-id': OWNER_BROWSER_ID };
	const { response } = await callJson(`${baseUrl}/rest/owner/setup`, {
		method: 'POST',
		headers,
		body: JSON.stringify(OWNER),
	});
	const cookie = (response.headers.getSetCookie?.() ?? [])
		.map((entry) => entry.split(';')[0])
		.join('; ');
	if (!cookie) throw new Error('owner setup answered without a session cookie');
	const authed = { ...headers, cookie };
	const scopes = await callJson<{ data: string[] }>(`${baseUrl}/rest/api-keys/scopes`, {
		headers: authed,
	});
	const created = await callJson<{ data: { rawApiKey: string } }>(`${baseUrl}/rest/api-keys`, {
		method: 'POST',
		headers: authed,
		body: JSON.stringify({ label: 'e2e', scopes: scopes.body.data, expiresAt: null }),
	});
	return created.body.data.rawApiKey;
}

/**
 * n8n 2.41 allows 5 logins a minute per e-mail address (the sixth saw its connection closed here); the tests sign in
 * far more often than that, so one session per instance is kept (n8n's session cookie outlives a restart).
 */
const ownerSessions = new Map<string, Promise<string>>();

/** Logs the owner in (the REST API behind the editor, which the public API does not cover) and returns the cookie. */
export async function ownerSessionCookie(baseUrl: string): Promise<string> {
	let session = ownerSessions.get(baseUrl);
	if (session === undefined) {
		session = logOwnerIn(baseUrl);
		ownerSessions.set(baseUrl, session);
		// A failed login is not kept: the next call tries again.
		session.catch(() => ownerSessions.delete(baseUrl));
	}
	return await session;
}

async function logOwnerIn(baseUrl: string): Promise<string> {
	const { response } = await callJson(`${baseUrl}/rest/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': OWNER_BROWSER_ID },
		body: JSON.stringify({ emailOrLdapLoginId: OWNER.email, password: OWNER.password }),
	});
	const cookie = (response.headers.getSetCookie?.() ?? [])
		.map((entry) => entry.split(';')[0])
		.join('; ');
	if (!cookie) throw new Error('login answered without a session cookie');
	return cookie;
}

export interface N8nRestSession {
	/** JSON over n8n's REST API (the editor's, under /rest), signed in as the owner; answers are unwrapped from `data`. */
	call<T>(method: string, path: string, body?: unknown): Promise<T>;
}

/** Signs the owner in and returns a session for the REST API behind the editor. */
export async function n8nRest(baseUrl: string): Promise<N8nRestSession> {
	const cookie = await ownerSessionCookie(baseUrl);
	return {
		call: async <T>(method: string, path: string, body?: unknown) => {
			const { body: answer } = await callJson<{ data: T }>(`${baseUrl}/rest${path}`, {
				method,
				headers: {
					'browser-id': OWNER_BROWSER_ID,
					cookie,
					...(body === undefined ? {} : { 'content-type': 'application/json' }),
				},
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			return answer.data;
		},
	};
}

/** What the editor's "Test" button does for a saved credential: POST /rest/credentials/test. */
export async function testCredentialAsEditor(
	baseUrl: string,
	cookie: string,
	credentials: { id: string; name: string; type: string; data: Record<string, unknown> },
): Promise<{ status: string; message: string }> {
	const { body } = await callJson<{ data: { status: string; message: string } }>(
		`${baseUrl}/rest/credentials/test`,
		{
			method: 'POST',
			headers: { 'content-type': 'application/json', 'browser-id': OWNER_BROWSER_ID, cookie },
			body: JSON.stringify({ credentials }),
		},
	);
	return body.data;
}

export interface ExecutionSummary {
	id: string;
	workflowId: string;
	status: string;
	finished: boolean;
	mode: string;
	startedAt: string;
	data?: unknown;
}

/** The public API (/api/v1) of one instance. */
export class N8nPublicApi {
	constructor(
		readonly baseUrl: string,
		private readonly apiKey: string,
	) {}

	async request<T>(method: string, path: string, body?: unknown): Promise<T> {
		const { body: answer } = await callJson<T>(`${this.baseUrl}/api/v1${path}`, {
			method,
			headers: {
				'X-N8N-API-KEY': this.apiKey,
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return answer;
	}

	async activate(workflowId: string): Promise<void> {
		const workflow = await this.request<{ active: boolean }>(
			'POST',
			`/workflows/${workflowId}/activate`,
		);
		if (!workflow.active) throw new Error(`workflow ${workflowId} is not active after activation`);
	}

	async deactivate(workflowId: string): Promise<void> {
		await this.request('POST', `/workflows/${workflowId}/deactivate`);
	}

	async executions(workflowId: string, includeData = false): Promise<ExecutionSummary[]> {
		const page = await this.request<{ data: ExecutionSummary[] }>(
			'GET',
			`/executions?workflowId=${encodeURIComponent(workflowId)}&includeData=${includeData}&limit=250`,
		);
		return page.data;
	}

	/** How many of the workflow's executions have this status, over every page (the API gives 250 at most a page). */
	async countExecutions(workflowId: string, status: string): Promise<number> {
		let count = 0;
		let cursor: string | undefined;
		do {
			const page = await this.request<{ data: ExecutionSummary[]; nextCursor?: string | null }>(
				'GET',
				`/executions?workflowId=${encodeURIComponent(workflowId)}&status=${encodeURIComponent(status)}&limit=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
			);
			count += page.data.filter((execution) => execution.status === status).length;
			cursor = page.nextCursor ?? undefined;
		} while (cursor);
		return count;
	}

	async execution(id: string): Promise<ExecutionSummary> {
		return await this.request<ExecutionSummary>('GET', `/executions/${id}?includeData=true`);
	}
}
