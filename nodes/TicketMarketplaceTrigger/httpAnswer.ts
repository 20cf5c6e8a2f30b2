import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

export const REALM = 'Ticket Marketplace Trigger';

/** Plain Node response methods (Express and bare http alike); without workflowData n8n starts nothing. */
export function answerJson(
	context: IWebhookFunctions,
	status: number,
	body: IDataObject,
	headers: Record<string, string> = {},
): IWebhookResponseData {
	const response = context.getResponseObject();
	response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
	response.end(JSON.stringify(body));
	return { noWebhookResponse: true };
}

export const mediaType = (contentType: string | undefined) =>
	(contentType ?? '').split(';')[0].trim().toLowerCase();

export const isPlainObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether the request has several Authorization headers: Node's parsed headers keep only the first. */
export function hasSeveralAuthorizations(context: IWebhookFunctions): boolean {
	const rawHeaders = (context.getRequestObject() as { rawHeaders?: string[] }).rawHeaders ?? [];
	const names = rawHeaders.filter((_, index) => index % 2 === 0);
	return names.filter((name) => name.toLowerCase() === 'authorization').length > 1;
}

/** The last resort for an unexpected error: logged for the owner and answered 500, never a failed execution. */
export function answerUnexpected(context: IWebhookFunctions, error: unknown): IWebhookResponseData {
	const problem = `Unexpected error (${firstLineOf(error)})`;
	warnOwner(context, problem, 'The request was answered 500.', 'unexpected error');
	try {
		const text = 'The trigger could not answer this request';
		const body: IDataObject =
			context.getWebhookName() === 'setup'
				? { error: 'server_error', error_description: text }
				: { message: text };
		if (!context.getResponseObject().headersSent)
			answerJson(context, 500, body, { 'Cache-Control': 'no-store' });
	} catch {
		// Nothing more can be answered; n8n must still not be handed an error.
	}
	return { noWebhookResponse: true };
}

/** The first line of what was thrown, short: n8n's own messages name no secret. */
export function firstLineOf(error: unknown): string {
	const firstLine = (error instanceof Error ? error.message : String(error)).split('\n')[0].trim();
	return firstLine.length > 300 ? `${firstLine.slice(0, 297)}...` : firstLine;
}

const lastLogged = new Map<string, number>();
/** Logs why a request was refused (no secret in it), once a minute per `kind`: fixed when `problem` quotes a request. */
export function warnOwner(
	context: IWebhookFunctions,
	problem: string,
	answered: string,
	kind: string = problem,
): void {
	try {
		const nodeName = context.getNode().name;
		const workflowId = context.getWorkflow().id ?? '';
		const key = `${workflowId}\n${nodeName}\n${kind}`;
		const nowMs = Date.now();
		const last = lastLogged.get(key);
		// Strangers reach both URLs and must not flood the log: one problem of one trigger per minute.
		if (last !== undefined && nowMs >= last && nowMs - last < 60_000) return;
		// More distinct problems than this at once means something else is wrong; start counting afresh.
		if (lastLogged.size >= 1_000) lastLogged.clear();
		lastLogged.set(key, nowMs);
		const end = problem.endsWith('.') ? '' : '.';
		const where = `Ticket Marketplace Trigger "${nodeName}" in workflow ${workflowId}`;
		context.logger.warn(`${where}: ${problem}${end} ${answered}`, { workflowId, nodeName });
	} catch {
		// A log that cannot be written must not turn the answer into a failed execution.
	}
}
