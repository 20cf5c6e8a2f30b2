import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { firstLineOf, warnOwner } from './ownerLog';

/** Shown in WWW-Authenticate challenges of both endpoints. */
export const REALM = 'Ticket Marketplace Trigger';

/**
 * Answers the request itself, with plain Node response methods (Express and bare http alike); without workflowData
 * n8n starts no execution and does not answer again.
 */
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

/** Returns the media type of a Content-Type header without parameters, lower-cased. */
export function mediaType(contentType: string | undefined): string {
	return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

export function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How many times the request carried a header: Node's parsed headers keep only the first Authorization. */
export function headerCount(context: IWebhookFunctions, name: string): number {
	const rawHeaders = (context.getRequestObject() as { rawHeaders?: string[] }).rawHeaders ?? [];
	return rawHeaders.filter((header, index) => index % 2 === 0 && header.toLowerCase() === name)
		.length;
}

/** The last resort for an unexpected error: logged for the owner and answered 500, never a failed execution. */
export function answerUnexpected(context: IWebhookFunctions, error: unknown): IWebhookResponseData {
	warnOwner(
		context,
		`Unexpected error (${firstLineOf(error)})`,
		'The request was answered 500.',
		'unexpected error',
	);
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
