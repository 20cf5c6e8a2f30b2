/**
 * Partner API resource: webhook subscriptions (spec 2.3). Subscribing (PENDING) and the support team's activation,
 * which the admin API stands in for.
 */
import type http from 'node:http';

import {
	ERROR_CODE,
	ID_PREFIX,
	SUBSCRIPTION_STATUS,
	SUCCESS_STATUS,
	subscriptionResponse,
} from '../choices';
import { SandboxError } from '../errors';
import { jsonBody, sendError, sendJson } from '../http';
import { newId, subscriptionView } from '../records';
import type { SubscriptionRecord } from '../records';
import type { SandboxStore } from '../store';
import type { SubscriptionView } from '../types';
import { validateSubscription } from '../validation';
import { requireBearer } from './tokens';

export function handleWebhook(
	store: SandboxStore,
	req: http.IncomingMessage,
	res: http.ServerResponse,
	buffer: Buffer,
): void {
	const token = requireBearer(store, req, res, 'webhooks');
	if (!token) return;
	const parsed = jsonBody(req, res, buffer);
	if (!parsed) return;
	const problems = validateSubscription(parsed.value);
	if (problems.length > 0) {
		sendError(
			res,
			400,
			ERROR_CODE.validationFailed,
			`The webhook subscription is invalid: ${problems[0].message}`,
			problems,
		);
		return;
	}
	const body = parsed.value as {
		callback: {
			url: string;
			auth: { authType: string; tokenEndPoint: string; oauthRequest: Record<string, string> };
		};
		subscription: { listing: string[] };
	};
	const record: SubscriptionRecord = {
		id: newId(ID_PREFIX.subscription),
		consumerKey: token.consumerKey,
		status: SUBSCRIPTION_STATUS.pending,
		createdAt: new Date(store.now()).toISOString(),
		callbackUrl: body.callback.url,
		authType: body.callback.auth.authType,
		tokenEndPoint: body.callback.auth.tokenEndPoint,
		clientId: body.callback.auth.oauthRequest.clientId,
		clientSecret: body.callback.auth.oauthRequest.clientSecret,
		grantType: body.callback.auth.oauthRequest.grantType,
		kinds: [...body.subscription.listing],
	};
	store.subscriptions.set(record.id, record);
	sendJson(
		res,
		SUCCESS_STATUS.webhook,
		subscriptionResponse({
			id: record.id,
			status: record.status,
			createdAt: record.createdAt,
			callback: {
				url: record.callbackUrl,
				auth: {
					authType: record.authType,
					tokenEndPoint: record.tokenEndPoint,
					clientId: record.clientId,
					grantType: record.grantType,
				},
			},
			kinds: record.kinds,
		}),
	);
}

/** PENDING -> ACTIVE, as the marketplace's support team does after an e-mail (spec 2.3). */
export function activateSubscription(store: SandboxStore, id: string): SubscriptionView {
	const record = store.subscriptions.get(id);
	if (!record)
		throw new SandboxError(404, ERROR_CODE.unknownSubscription, `No subscription with id ${id}`);
	if (record.status !== SUBSCRIPTION_STATUS.active) {
		record.status = SUBSCRIPTION_STATUS.active;
		record.activatedAt = new Date(store.now()).toISOString();
	}
	return subscriptionView(record);
}
