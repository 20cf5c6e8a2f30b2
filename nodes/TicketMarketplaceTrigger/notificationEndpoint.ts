import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { checkAccessToken } from './accessToken';
import {
	REALM,
	answerJson,
	firstLineOf,
	headerCount,
	isPlainObject,
	mediaType,
	warnOwner,
} from './httpAnswer';
import { isAcceptedKind, readNotificationKind, type NotificationKind } from './notificationKind';
import { readAcceptedKinds, readIncludeHeaders } from './options';

/** Headers never copied into the item: they carry the access token. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization']);

/** The `default` webhook: listing notifications, each carrying a token we issued. */
export async function answerNotification(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const headers = this.getHeaderData();
	const refusal = await refusedAccess(this, headers.authorization);
	if (refusal !== undefined) return refusal;
	// n8n parses only application/json bodies as JSON; a form body would also arrive here as an object.
	const body: unknown = this.getBodyData();
	if (mediaType(headers['content-type']) !== 'application/json' || !isPlainObject(body))
		return answerJson(this, 400, { message: 'The notification body must be a JSON object' });
	const options = readNotificationOptions(this);
	if (options === undefined) {
		const message = 'The trigger cannot take notifications now; send it again later';
		return answerJson(this, 503, { message });
	}
	const { acceptedKinds, includeHeaders } = options;
	const kind = readNotificationKind(body);
	// Only a kind told plainly is skipped: answered 200 so the marketplace does not send it again.
	const told = kind.sale !== null && kind.kind !== null ? kind.kind : undefined;
	if (told !== undefined && acceptedKinds.length > 0 && !isAcceptedKind(told, acceptedKinds)) {
		return answerJson(this, 200, {
			received: true,
			started: false,
			message: `Not started: kind "${kind.kind}" (from ${kind.field}) is not among this trigger's Accepted Kinds (${acceptedKinds.join(', ')}). The marketplace will not send it again.`,
		});
	}
	return {
		workflowData: [[{ json: notificationItem(body, kind, headers, includeHeaders) }]],
		webhookResponse: { received: true },
	};
}

/** The notification unchanged, and beside it the kind read (a body with its own notificationKind keeps it). */
function notificationItem(
	body: IDataObject,
	{ kind, field, sale }: NotificationKind,
	headers: object,
	includeHeaders: boolean,
): IDataObject {
	const notificationKind: IDataObject = { kind, field, sale };
	if (!includeHeaders) return 'notificationKind' in body ? body : { ...body, notificationKind };
	const shown: IDataObject = {};
	for (const [name, value] of Object.entries(headers))
		if (!SECRET_HEADERS.has(name.toLowerCase())) shown[name] = value;
	return { headers: shown, body, notificationKind };
}

/** The answer refusing a notification without one valid Bearer access token, or undefined when it has one. */
async function refusedAccess(context: IWebhookFunctions, authorization: string | undefined) {
	// Node keeps the first of several headers, a proxy in front may keep another: refuse rather than pick one.
	if (headerCount(context, 'authorization') > 1) {
		const description = 'The request has more than one Authorization header';
		return bearerError(context, 400, 'invalid_request', description);
	}
	// No Bearer credentials at all: RFC 6750 3.1 gives the challenge no error code.
	const match = /^bearer(?:\s+(.*))?$/i.exec((authorization ?? '').trim());
	if (match === null) {
		const message = 'A Bearer access token from the token endpoint is required';
		return answerJson(context, 401, { message }, { 'WWW-Authenticate': `Bearer realm="${REALM}"` });
	}
	let check = await checkAccessToken(context, (match[1] ?? '').trim());
	if (typeof check === 'string') {
		// Refused as a bad token (RFC 6750 3.1): the caller learns nothing of the trigger's configuration.
		warnOwner(context, check, 'Notifications are refused 401 (invalid_token) until this is fixed.');
		check = { valid: false, reason: 'signature' };
	}
	if (check.valid) return undefined;
	const description =
		check.reason === 'expired' ? 'The access token expired' : 'The access token is invalid';
	return bearerError(context, 401, 'invalid_token', description);
}

/** An RFC 6750 error: its code and description in the body and in the WWW-Authenticate header. */
function bearerError(
	context: IWebhookFunctions,
	status: 400 | 401,
	error: 'invalid_request' | 'invalid_token',
	description: string,
): IWebhookResponseData {
	const challenge = `Bearer realm="${REALM}", error="${error}", error_description="${description}"`;
	const body = { error, error_description: description };
	return answerJson(context, status, body, { 'WWW-Authenticate': challenge });
}

/** The options, or undefined (the owner told) when they cannot be read: a 503 lets the marketplace resend. */
function readNotificationOptions(context: IWebhookFunctions) {
	try {
		return {
			acceptedKinds: readAcceptedKinds(context),
			includeHeaders: readIncludeHeaders(context),
		};
	} catch (error) {
		const answered =
			'Notifications with a valid token are answered 503 and start nothing until this is fixed.';
		warnOwner(context, firstLineOf(error), answered);
		return undefined;
	}
}
