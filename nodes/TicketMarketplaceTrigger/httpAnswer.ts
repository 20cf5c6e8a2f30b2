import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { firstLineOf, warnOwner } from './ownerLog';

/** Shown in WWW-Authenticate challenges of both endpoints. */
export const REALM = 'Ticket Marketplace Trigger';

/**
 * Answers the HTTP request directly and tells n8n not to answer it again. Without workflowData in the result, n8n
 * starts no execution, which is what token requests and refusals need. Only plain Node response methods are used,
 * so the same code runs under n8n's Express response and under a bare http.ServerResponse.
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

/**
 * How many times the request carried a header. Node keeps only the first of several Authorization headers, so the
 * parsed headers cannot show that a request was ambiguous; the raw ones can.
 */
export function headerCount(context: IWebhookFunctions, name: string): number {
	const rawHeaders = (context.getRequestObject() as { rawHeaders?: string[] }).rawHeaders ?? [];
	let count = 0;
	for (let index = 0; index < rawHeaders.length; index += 2) {
		if (rawHeaders[index].toLowerCase() === name) count += 1;
	}
	return count;
}

/**
 * The last resort for an error that no endpoint expected: told to the owner in n8n's log and answered 500 by the
 * node, so that n8n neither answers with its own error nor records a failed execution for the request.
 */
export function answerUnexpected(context: IWebhookFunctions, error: unknown): IWebhookResponseData {
	warnOwner(
		context,
		`Unexpected error (${firstLineOf(error)})`,
		'The request was answered 500.',
		'unexpected error',
	);
	try {
		if (!context.getResponseObject().headersSent) {
			const body: IDataObject =
				context.getWebhookName() === 'setup'
					? {
							error: 'server_error',
							error_description: 'The trigger could not answer this request',
						}
					: { message: 'The trigger could not answer this request' };
			answerJson(context, 500, body, { 'Cache-Control': 'no-store' });
		}
	} catch {
		// Nothing more can be answered; n8n must still not be handed an error.
	}
	return { noWebhookResponse: true };
}
