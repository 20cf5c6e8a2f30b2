/**
 * Serves the Ticket Marketplace Trigger's two webhooks over loopback HTTP the way n8n 2.8.4 does, for integration
 * tests: production URLs `/webhook/<webhookId>/token` and `/webhook/<webhookId>/notifications`, n8n's body parsing
 * (JSON exactly for application/json, with 422 when it does not parse; querystring for form bodies; text for
 * text/plain), the node run inside n8n-core's real WebhookContext, and n8n's handling of what webhook() returns:
 * nothing more for noWebhookResponse, an "execution" recorded for workflowData, answered with webhookResponse.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { parse as parseQueryString } from 'node:querystring';

import type { IDataObject, INodeExecutionData, WebhookType } from 'n8n-workflow';

import { runTriggerWebhook, type TriggerSetup } from './triggerContext';

export interface TriggerExecution {
	/** What n8n would hand the workflow: the node's output items. */
	items: INodeExecutionData[];
	/** The request body exactly as it arrived, to prove pass-through. */
	rawBody: string;
}

export interface ServedTrigger {
	baseUrl: string;
	tokenUrl: string;
	callbackUrl: string;
	executions: TriggerExecution[];
	/** Errors thrown by webhook(); n8n would answer 500 and record a failed execution. */
	errors: unknown[];
	/** Every request seen, in order, with the status answered. */
	requests: Array<{ webhook: WebhookType; status: number }>;
	/** Replaces the credential or options, as editing the workflow would. */
	update(setup: Partial<TriggerSetup>): void;
	stop(): Promise<void>;
}

const PATHS: Record<string, WebhookType> = { token: 'setup', notifications: 'default' };

function readBody(request: http.IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => resolve(Buffer.concat(chunks)));
		request.on('error', reject);
	});
}

/** n8n's parseBody (packages/cli/src/middlewares/body-parser.ts) for the content types it handles. */
function parseLikeN8n(contentType: string, raw: Buffer): { body: unknown } | { unparsable: true } {
	if (raw.length === 0) return { body: undefined };
	const text = raw.toString('utf8');
	if (contentType === 'application/json') {
		try {
			return { body: JSON.parse(text) as unknown };
		} catch {
			return { unparsable: true };
		}
	}
	if (contentType === 'application/x-www-form-urlencoded')
		return { body: { ...parseQueryString(text) } };
	if (contentType === 'text/plain') return { body: text };
	return { body: undefined };
}

function sendJson(response: http.ServerResponse, status: number, body: unknown): void {
	response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
	response.end(JSON.stringify(body));
}

export async function serveTrigger(
	initialSetup: TriggerSetup & { webhookId: string },
): Promise<ServedTrigger> {
	let setup: TriggerSetup & { webhookId: string } = initialSetup;
	const executions: TriggerExecution[] = [];
	const errors: unknown[] = [];
	const requests: ServedTrigger['requests'] = [];
	const sockets = new Set<Socket>();

	async function handle(
		request: http.IncomingMessage,
		response: http.ServerResponse,
	): Promise<void> {
		const url = new URL(request.url ?? '/', 'http://127.0.0.1');
		const match = /^\/webhook\/([^/]+)\/([^/]+)$/.exec(url.pathname);
		const webhook = match && match[1] === setup.webhookId ? PATHS[match[2]] : undefined;
		if (webhook === undefined || request.method !== 'POST') {
			sendJson(response, 404, { message: 'The requested webhook is not registered' });
			return;
		}
		const raw = await readBody(request);
		const contentType = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
		const parsed = parseLikeN8n(contentType, raw);
		if ('unparsable' in parsed) {
			sendJson(response, 422, { message: 'Failed to parse request body' });
			requests.push({ webhook, status: 422 });
			return;
		}
		const query: IDataObject = { ...parseQueryString(url.search.replace(/^\?/, '')) };
		try {
			const result = await runTriggerWebhook(
				setup,
				webhook,
				{ headers: request.headers, body: parsed.body, query },
				response,
			);
			if (result.workflowData !== undefined) {
				executions.push({ items: result.workflowData[0] ?? [], rawBody: raw.toString('utf8') });
			}
			if (result.noWebhookResponse !== true) {
				// responseMode onReceived with responseData '': n8n answers the webhookResponse (or its own message).
				const fallback = result.workflowData
					? { message: 'Workflow was started' }
					: { message: 'Webhook call received' };
				sendJson(response, 200, result.webhookResponse ?? fallback);
			}
		} catch (error) {
			errors.push(error);
			if (!response.headersSent) sendJson(response, 500, { message: 'Error in workflow' });
		}
		requests.push({ webhook, status: response.statusCode });
	}

	const server = http.createServer((request, response) => {
		handle(request, response).catch((error: unknown) => {
			errors.push(error);
			if (!response.headersSent) sendJson(response, 500, { message: 'Adapter failure' });
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const baseUrl = `http://127.0.0.1:${port}`;

	return {
		baseUrl,
		tokenUrl: `${baseUrl}/webhook/${setup.webhookId}/token`,
		callbackUrl: `${baseUrl}/webhook/${setup.webhookId}/notifications`,
		executions,
		errors,
		requests,
		update(change) {
			setup = { ...setup, ...change };
		},
		async stop() {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve, reject) =>
				server.close((error) => (error ? reject(error) : resolve())),
			);
		},
	};
}
