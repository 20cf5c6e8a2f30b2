import type { IWebhookResponseData, WebhookType } from 'n8n-workflow';

import {
	runTriggerWebhook,
	type TriggerRequest,
	type TriggerResponse,
	type TriggerSetup,
} from './triggerContext';

/** Stands in for n8n's HTTP response in unit tests and records the one answer the node writes. */
export class RecordingResponse implements TriggerResponse {
	status: number | undefined;
	headers: Record<string, string> = {};
	text: string | undefined;
	writes = 0;

	writeHead(status: number, headers: Record<string, string> = {}): this {
		this.writes += 1;
		this.status = status;
		this.headers = Object.fromEntries(
			Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
		);
		return this;
	}

	end(body?: string): this {
		this.text = body;
		return this;
	}

	get headersSent(): boolean {
		return this.writes > 0;
	}

	get json(): Record<string, unknown> {
		if (this.text === undefined) throw new Error('Nothing was answered');
		return JSON.parse(this.text) as Record<string, unknown>;
	}
}

/** Runs one of the trigger's webhooks against a RecordingResponse and hands back both. */
export async function runRecorded(
	setup: TriggerSetup,
	webhookName: WebhookType,
	request: TriggerRequest,
): Promise<{ result: IWebhookResponseData; response: RecordingResponse }> {
	const response = new RecordingResponse();
	const result = await runTriggerWebhook(setup, webhookName, request, response);
	return { result, response };
}

/** The node answered by itself, exactly once, and returned nothing that would start an execution. */
export function expectNoExecution(result: IWebhookResponseData, response: RecordingResponse): void {
	expect(result).toEqual({ noWebhookResponse: true });
	expect(result.workflowData).toBeUndefined();
	expect(response.writes).toBe(1);
}
