import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { refusalBeforeSignature, verifyAccessToken, type TokenCheck } from './accessToken';
import { REALM, answerJson, headerCount, isPlainObject, mediaType } from './httpAnswer';
import { isAcceptedKind, readNotificationKind, type NotificationKind } from './notificationKind';
import { nowInSeconds, readAcceptedKinds, readAudience, readIncludeHeaders } from './options';
import { firstLineOf, warnOwner } from './ownerLog';
import {
	readCurrentCallbackClient,
	recentCallbackClient,
	rememberCallbackClient,
} from './recentCredential';

/** Headers never copied into the item: they carry the access token. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization']);

/** undefined when no Bearer credentials were presented at all (RFC 6750 3.1: then no error code). */
function readBearerToken(authorization: string | undefined): string | undefined {
	const match = /^bearer(?:\s+(.*))?$/i.exec((authorization ?? '').trim());
	if (match === null) return undefined;
	return (match[1] ?? '').trim();
}

function headersWithoutSecrets(headers: IDataObject): IDataObject {
	const copy: IDataObject = {};
	for (const [name, value] of Object.entries(headers)) {
		if (!SECRET_HEADERS.has(name.toLowerCase())) copy[name] = value;
	}
	return copy;
}

/**
 * Checks the token against the callback credential. A token that cannot be ours (not our format, another trigger's,
 * expired) is refused without reading the credential; one that a recent read of the same credential accepts is
 * accepted without reading it again. One that it refuses is judged on the credential as stored now (its secret may
 * have just changed), once per reuse time: after that read, further refusals reuse it too. Returns a sentence for
 * the owner when the credential cannot be used.
 */
async function checkAccessToken(
	context: IWebhookFunctions,
	token: string,
): Promise<TokenCheck | string> {
	const audience = readAudience(context);
	const refusal = refusalBeforeSignature(token, audience, nowInSeconds());
	if (refusal !== undefined) return { valid: false, reason: refusal };
	const recent = recentCallbackClient(context, Date.now());
	if (recent !== undefined) {
		const check = verifyAccessToken(token, { audience, ...recent }, nowInSeconds());
		if (check.valid || recent.readForRefusal) return check;
	}
	const client = await readCurrentCallbackClient(context);
	if (typeof client === 'string') return client;
	const check = verifyAccessToken(token, { audience, ...client }, nowInSeconds());
	rememberCallbackClient(context, client, Date.now(), !check.valid);
	return check;
}

/** The `default` webhook: listing notifications from the marketplace, each carrying a token we issued. */
export async function answerNotification(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const headers = this.getHeaderData();
	const refusal = await refusedAccess(this, headers.authorization);
	if (refusal !== undefined) return refusal;

	// n8n parses only application/json bodies as JSON; a form body would also arrive here as an object.
	const body: unknown = this.getBodyData();
	if (mediaType(headers['content-type']) !== 'application/json' || !isPlainObject(body)) {
		return answerJson(this, 400, { message: 'The notification body must be a JSON object' });
	}
	const options = readNotificationOptions(this);
	if (options === undefined) {
		return answerJson(this, 503, {
			message: 'The trigger cannot take notifications now; send it again later',
		});
	}
	const kind = readNotificationKind(body);
	if (
		options.acceptedKinds.length > 0 &&
		kind.kind !== null &&
		kind.sale !== null &&
		!isAcceptedKind(kind.kind, options.acceptedKinds)
	) {
		// Answered 200 so the marketplace does not retry a notification the user chose to skip; the answer says so.
		// Only a kind told plainly gets here: one that cannot be told, or may be a sale, starts the workflow.
		return answerJson(this, 200, {
			received: true,
			started: false,
			message: `Not started: kind "${kind.kind}" (from ${kind.field}) is not among this trigger's Accepted Kinds (${options.acceptedKinds.join(', ')}). The marketplace will not send it again.`,
		});
	}
	return {
		workflowData: [[{ json: notificationItem(body, kind, headers, options.includeHeaders) }]],
		webhookResponse: { received: true },
	};
}

/**
 * The item: the notification unchanged, and beside it which kind the trigger read and from where. A notification
 * with a field of that name of its own keeps it as sent.
 */
function notificationItem(
	body: IDataObject,
	kind: NotificationKind,
	headers: object,
	includeHeaders: boolean,
): IDataObject {
	const notificationKind: IDataObject = { kind: kind.kind, field: kind.field, sale: kind.sale };
	if (includeHeaders)
		return { headers: headersWithoutSecrets(headers as IDataObject), body, notificationKind };
	return 'notificationKind' in body ? body : { ...body, notificationKind };
}

/** The answer refusing a notification without one valid Bearer access token, or undefined when it has one. */
async function refusedAccess(
	context: IWebhookFunctions,
	authorization: string | undefined,
): Promise<IWebhookResponseData | undefined> {
	if (headerCount(context, 'authorization') > 1) {
		// Node keeps the first of several headers, a proxy in front may keep another: refuse rather than pick one.
		return bearerError(
			context,
			400,
			'invalid_request',
			'The request has more than one Authorization header',
		);
	}
	const token = readBearerToken(authorization);
	if (token === undefined) {
		return answerJson(
			context,
			401,
			{ message: 'A Bearer access token from the token endpoint is required' },
			{ 'WWW-Authenticate': `Bearer realm="${REALM}"` },
		);
	}
	let check = await checkAccessToken(context, token);
	if (typeof check === 'string') {
		// No token can be verified without the credential: the caller is refused as for a bad token (RFC 6750 3.1),
		// and learns nothing about the trigger's configuration.
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
	return answerJson(
		context,
		status,
		{ error, error_description: description },
		{
			'WWW-Authenticate': `Bearer realm="${REALM}", error="${error}", error_description="${description}"`,
		},
	);
}

/**
 * The trigger's options for a notification, or undefined when they cannot be read. The marketplace sent it, but the
 * trigger cannot tell whether to start: the owner is told, and a 5xx lets the marketplace send it again once the
 * owner has fixed the option.
 */
function readNotificationOptions(
	context: IWebhookFunctions,
): { acceptedKinds: string[]; includeHeaders: boolean } | undefined {
	try {
		return {
			acceptedKinds: readAcceptedKinds(context),
			includeHeaders: readIncludeHeaders(context),
		};
	} catch (error) {
		warnOwner(
			context,
			firstLineOf(error),
			'Notifications with a valid token are answered 503 and start nothing until this is fixed.',
		);
		return undefined;
	}
}
