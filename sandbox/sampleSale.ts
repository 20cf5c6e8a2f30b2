/**
 * A sample `listing_sale` delivered to any trigger's URL pair with a given callback client: what a sale does for an
 * active subscription (startDelivery: the client-credentials exchange with the token URL, then the notification
 * with the Bearer token), without a listing or a subscription. For building a workflow in n8n's editor: click
 * "Listen for test event" on the trigger, then deliver a sample to its /webhook-test/ URLs.
 */
import {
	DELIVERABLE_AUTH_TYPE,
	ERROR_CODE,
	ID_PREFIX,
	SAMPLE_SALE,
	saleNotificationPayload,
} from './choices';
import { CLIENT_AUTH_METHODS } from './delivery';
import type { ClientAuthMethod } from './delivery';
import { positiveInteger, SandboxError } from './errors';
import { newId } from './records';
import { startDelivery } from './sales';
import type { SandboxStore } from './store';
import type { SampleSaleResult } from './types';

function invalid(message: string): SandboxError {
	return new SandboxError(400, ERROR_CODE.invalidRequest, message);
}

function httpUrl(value: unknown, name: string): string {
	if (typeof value !== 'string' || value.trim() === '')
		throw invalid(`${name} must be an http(s) URL`);
	let url: URL;
	try {
		url = new URL(value.trim());
	} catch {
		throw invalid(`${name} must be an http(s) URL, got "${value}"`);
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:')
		throw invalid(`${name} must be an http(s) URL, got "${value}"`);
	return url.toString();
}

function nonEmpty(value: unknown, name: string): string {
	if (typeof value !== 'string' || value === '')
		throw invalid(`${name} must be a non-empty string`);
	return value;
}

/** Checks the input as the admin API receives it (any JSON) and starts the sample's delivery. */
export function deliverSampleSale(
	store: SandboxStore,
	input: Record<string, unknown>,
): SampleSaleResult {
	if (store.stopped) throw new SandboxError(503, ERROR_CODE.serverError, 'The sandbox is stopped');
	const callbackUrl = httpUrl(input.callbackUrl, 'callbackUrl');
	const tokenEndPoint = httpUrl(input.tokenEndPoint, 'tokenEndPoint');
	const clientId = nonEmpty(input.clientId, 'clientId');
	const clientSecret = nonEmpty(input.clientSecret, 'clientSecret');
	if (
		input.clientAuth !== undefined &&
		!CLIENT_AUTH_METHODS.includes(input.clientAuth as ClientAuthMethod)
	) {
		throw invalid(`clientAuth must be one of ${CLIENT_AUTH_METHODS.join(', ')}`);
	}
	const attempts =
		input.attempts === undefined
			? SAMPLE_SALE.attempts
			: positiveInteger(input.attempts, 'attempts');

	const sampleId = newId(ID_PREFIX.sample);
	const occurredAt = new Date(store.now()).toISOString();
	const started = startDelivery(
		store,
		{ saleId: sampleId, subscriptionId: SAMPLE_SALE.subscriptionId, sample: true },
		{ callbackUrl, tokenEndPoint, clientId, clientSecret, authType: DELIVERABLE_AUTH_TYPE },
		(notificationId) =>
			saleNotificationPayload({
				notificationId,
				subscriptionId: SAMPLE_SALE.subscriptionId,
				occurredAt,
				listing: SAMPLE_SALE.listing,
				products: [...SAMPLE_SALE.products],
			}),
		{
			...store.deliverySettings,
			clientAuth:
				(input.clientAuth as ClientAuthMethod | undefined) ?? store.deliverySettings.clientAuth,
			attempts,
		},
	);
	return {
		sampleId,
		deliveryId: started.id,
		delivery: started.done.then((delivery) => structuredClone(delivery)),
	};
}
