import type { IWebhookResponseData, WebhookType } from 'n8n-workflow';

import { TicketMarketplaceTrigger } from '../../nodes/TicketMarketplaceTrigger/TicketMarketplaceTrigger.node';
import {
	createTriggerContext,
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

/**
 * Runs one of the trigger's webhooks and counts how often it read its callback credential through n8n's credentials
 * helper (each read starts an expression sandbox on n8n 2.41). Give each test its own credentialId in the setup: the
 * trigger reuses a read per credential for a few seconds.
 */
export async function runCountingReads(
	setup: TriggerSetup,
	webhookName: WebhookType,
	request: TriggerRequest,
): Promise<{ result: IWebhookResponseData; response: RecordingResponse; reads: number }> {
	const response = new RecordingResponse();
	const context = createTriggerContext(setup, webhookName, request, response);
	const helper = (
		context as unknown as {
			additionalData: { credentialsHelper: { getDecrypted: () => Promise<unknown> } };
		}
	).additionalData.credentialsHelper;
	const getDecrypted = helper.getDecrypted.bind(helper);
	let reads = 0;
	helper.getDecrypted = async () => {
		reads += 1;
		return await getDecrypted();
	};
	const result = await new TicketMarketplaceTrigger().webhook.call(context);
	return { result, response, reads };
}
