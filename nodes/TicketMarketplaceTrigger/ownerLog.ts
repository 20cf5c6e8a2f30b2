import type { IWebhookFunctions } from 'n8n-workflow';

/**
 * How often one trigger logs one problem, per n8n process. Strangers reach both URLs: without a bound, each of
 * their requests would add a line to n8n's log.
 */
export const OWNER_LOG_INTERVAL_MS = 60_000;
/** More distinct problems than this at once means something else is wrong; start counting afresh. */
const MAX_REMEMBERED = 1_000;

const lastLogged = new Map<string, number>();

/** The first line of what was thrown, short: n8n's own messages name no secret. */
export function firstLineOf(error: unknown): string {
	const text = error instanceof Error ? error.message : String(error);
	const firstLine = text.split('\n')[0].trim();
	return firstLine.length > 300 ? `${firstLine.slice(0, 297)}...` : firstLine;
}

/**
 * Tells the workflow's owner, in n8n's log, why the trigger refused a request it would otherwise have served.
 * `problem` and `answered` must name no secret. `kind` is what the repeat limit counts by: a fixed name whenever
 * `problem` quotes text a request could choose (a thrown message), so that no stranger can make a new log line by
 * varying it; `problem` itself when it is fixed. Never throws: the caller is about to answer the request.
 */
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
		if (last !== undefined && nowMs >= last && nowMs - last < OWNER_LOG_INTERVAL_MS) return;
		if (lastLogged.size >= MAX_REMEMBERED) lastLogged.clear();
		lastLogged.set(key, nowMs);
		context.logger.warn(
			`Ticket Marketplace Trigger "${nodeName}" in workflow ${workflowId}: ${problem}${problem.endsWith('.') ? '' : '.'} ${answered}`,
			{ workflowId, nodeName },
		);
	} catch {
		// A log that cannot be written must not turn the answer into a failed execution.
	}
}
