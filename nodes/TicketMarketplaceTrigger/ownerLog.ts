import type { IWebhookFunctions } from 'n8n-workflow';

/** How often one trigger logs one problem, per process: strangers reach both URLs and must not flood the log. */
const OWNER_LOG_INTERVAL_MS = 60_000;
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
 * Tells the owner, in n8n's log, why a request was refused; no secret in `problem` or `answered`. `kind` is what
 * the repeat limit counts by: a fixed name when `problem` quotes text a request chose. Never throws.
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
