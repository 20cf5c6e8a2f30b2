/**
 * The sandbox's admin HTTP API under /__sandbox/ (loopback only, no auth): the in-process `Sandbox` operations for
 * other processes (the CLI commands, the real-n8n harness, the demo), through `SandboxAdminClient`.
 */
import type http from 'node:http';

import { ERROR_CODE } from './choices';
import type { Delivery, DeliverySettings } from './delivery';
import { SandboxError } from './errors';
import { FaultInputError, parseFaultRule } from './faults';
import { parseQuotaLimit, parseSpikeArrestLimit } from './gatewayLimits';
import { isPlainObject, parseJson, sendError, sendJson } from './http';
import { parseInFlightLimit } from './inFlight';
import { parsePerSecondLimit } from './perSecond';
import { activateSubscription } from './partner/webhooks';
import { expireTokens, revokeTokens } from './partner/tokenAdmin';
import { sell } from './sales';
import { deliverSampleSale } from './sampleSale';
import type { SandboxStore } from './store';

export const ADMIN_PREFIX = '/__sandbox';

const ADMIN_ROUTES = [
	'GET  /__sandbox/state',
	'POST /__sandbox/subscriptions/:id/activate',
	'POST /__sandbox/listings/:id/sell  {externalIds?: string[], count?: number, wait?: boolean}',
	'POST /__sandbox/sample-sale  {tokenEndPoint, callbackUrl, clientId, clientSecret, clientAuth?, attempts?, wait?: boolean}',
	'POST /__sandbox/tokens/expire  {all?: true, ids?: string[], refreshTokens?: boolean}',
	'POST /__sandbox/tokens/revoke  {all?: true, ids?: string[]}',
	'GET  /__sandbox/faults',
	'POST /__sandbox/faults  {endpoint, kind?, sequence?, latencyMs?, jitterMs?, retryAfterSeconds?, status?, rate?, seed?, created?, allowedRate?}',
	'DELETE /__sandbox/faults',
	'POST /__sandbox/delivery  {clientAuth?, attempts?, baseDelayMs?, maxDelayMs?, timeoutMs?}',
	'POST /__sandbox/in-flight  {maxInFlight: n | null, endpoint?, retryAfterSeconds?}',
	'POST /__sandbox/per-second  {maxPerSecond: n | null, endpoint?, retryAfterSeconds?}',
	'POST /__sandbox/quota  {limit: n | null, windowSeconds?, endpoint?, status?: 500 | 429}',
	'POST /__sandbox/spike-arrest  {rate: "40ps" | "300pm" | null, useEffectiveCount?, endpoint?, status?: 500 | 429}',
	'GET  /__sandbox/answers',
	'POST /__sandbox/answers  {shapes?: "service" | "spec", listingStatus?, withoutApiProduct?, inactiveEventIds?, seatCheck?}',
	'POST /__sandbox/reset',
];

async function waitBounded<T>(
	store: SandboxStore,
	promise: Promise<T>,
	ms: number,
): Promise<{ value?: T; timedOut: boolean }> {
	const settled = new AbortController();
	const timeout = store.timers.sleep(ms, settled.signal).then(() => ({ timedOut: true as const }));
	try {
		return await Promise.race([promise.then((value) => ({ value, timedOut: false })), timeout]);
	} finally {
		settled.abort();
	}
}

export function isAdminPath(pathname: string): boolean {
	return pathname === ADMIN_PREFIX || pathname.startsWith(`${ADMIN_PREFIX}/`);
}

export async function handleAdmin(
	store: SandboxStore,
	req: http.IncomingMessage,
	res: http.ServerResponse,
	url: URL,
	buffer: Buffer,
): Promise<void> {
	const method = req.method ?? 'GET';
	const path = url.pathname.replace(/\/+$/, '');
	let body: Record<string, unknown> = {};
	if (buffer.length > 0) {
		const parsed = parseJson(buffer);
		if (!parsed.ok) return sendError(res, 400, ERROR_CODE.malformedJson, parsed.message);
		if (!isPlainObject(parsed.value))
			return sendError(res, 400, ERROR_CODE.invalidRequest, 'The body must be a JSON object');
		body = parsed.value;
	}
	const allow = (methods: string[]) => {
		if (methods.includes(method)) return true;
		sendError(
			res,
			405,
			ERROR_CODE.methodNotAllowed,
			`${method} is not allowed on ${path}; use ${methods.join(' or ')}`,
			undefined,
			{
				Allow: methods.join(', '),
			},
		);
		return false;
	};
	try {
		let match: RegExpExecArray | null;
		if (path === ADMIN_PREFIX) {
			if (allow(['GET'])) sendJson(res, 200, { routes: ADMIN_ROUTES });
		} else if (path === `${ADMIN_PREFIX}/state`) {
			if (allow(['GET'])) sendJson(res, 200, store.state());
		} else if ((match = /^\/__sandbox\/subscriptions\/([^/]+)\/activate$/.exec(path))) {
			if (allow(['POST']))
				sendJson(res, 200, activateSubscription(store, decodeURIComponent(match[1])));
		} else if ((match = /^\/__sandbox\/listings\/([^/]+)\/sell$/.exec(path))) {
			if (!allow(['POST'])) return;
			const result = sell(store, decodeURIComponent(match[1]), {
				externalIds: body.externalIds as string[] | undefined,
				count: body.count as number | undefined,
			});
			if (body.wait === false) {
				sendJson(res, 202, { sale: result.sale, deliveries: [], complete: false });
				return;
			}
			const outcome = await waitBounded(store, result.deliveries, store.sellWaitMs);
			const current = result.sale.deliveryIds
				.map((id) => store.deliveries.get(id))
				.filter((d): d is Delivery => d !== undefined);
			sendJson(res, 200, {
				sale: result.sale,
				deliveries: outcome.value ?? structuredClone(current),
				complete: !outcome.timedOut,
			});
		} else if (path === `${ADMIN_PREFIX}/sample-sale`) {
			if (!allow(['POST'])) return;
			const { wait, ...input } = body;
			const sample = deliverSampleSale(store, input);
			if (wait === false) {
				sendJson(res, 202, { sampleId: sample.sampleId, delivery: null, complete: false });
				return;
			}
			const outcome = await waitBounded(store, sample.delivery, store.sellWaitMs);
			sendJson(res, 200, {
				sampleId: sample.sampleId,
				delivery: outcome.value ?? structuredClone(store.deliveries.get(sample.deliveryId)),
				complete: !outcome.timedOut,
			});
		} else if ((match = /^\/__sandbox\/tokens\/(expire|revoke)$/.exec(path))) {
			if (!allow(['POST'])) return;
			const selector = {
				all: body.all === true,
				ids: body.ids as string[] | undefined,
				refreshTokens: body.refreshTokens === true,
			};
			if (match[1] === 'expire') sendJson(res, 200, { expired: expireTokens(store, selector) });
			else sendJson(res, 200, { revoked: revokeTokens(store, selector) });
		} else if (path === `${ADMIN_PREFIX}/faults`) {
			if (!allow(['GET', 'POST', 'DELETE'])) return;
			if (method === 'GET') sendJson(res, 200, { faults: store.faults.list() });
			else if (method === 'DELETE') {
				store.faults.clear();
				sendJson(res, 200, { faults: [] });
			} else {
				const { seed: newSeed, ...rest } = body;
				if (newSeed !== undefined) {
					if (typeof newSeed !== 'number' || !Number.isInteger(newSeed))
						throw new FaultInputError('seed must be an integer');
					store.faults.reseed(newSeed);
				}
				sendJson(res, 201, store.faults.add(parseFaultRule(rest)));
			}
		} else if (path === `${ADMIN_PREFIX}/delivery`) {
			if (allow(['POST']))
				sendJson(res, 200, store.configureDelivery(body as Partial<DeliverySettings>));
		} else if (path === `${ADMIN_PREFIX}/in-flight`) {
			if (allow(['POST'])) sendJson(res, 200, store.inFlight.set(parseInFlightLimit(body)));
		} else if (path === `${ADMIN_PREFIX}/per-second`) {
			if (allow(['POST'])) sendJson(res, 200, store.perSecond.set(parsePerSecondLimit(body)));
		} else if (path === `${ADMIN_PREFIX}/quota`) {
			if (allow(['POST'])) sendJson(res, 200, store.quota.set(parseQuotaLimit(body)));
		} else if (path === `${ADMIN_PREFIX}/spike-arrest`) {
			if (allow(['POST'])) sendJson(res, 200, store.spikeArrest.set(parseSpikeArrestLimit(body)));
		} else if (path === `${ADMIN_PREFIX}/answers`) {
			if (!allow(['GET', 'POST'])) return;
			if (method === 'GET') sendJson(res, 200, store.answers);
			else sendJson(res, 200, store.configureAnswers(body));
		} else if (path === `${ADMIN_PREFIX}/reset`) {
			if (allow(['POST'])) {
				if (body.keepTokens !== undefined && typeof body.keepTokens !== 'boolean')
					throw new FaultInputError('keepTokens must be true or false');
				store.reset({ keepTokens: body.keepTokens === true });
				sendJson(res, 200, { reset: true, keptTokens: body.keepTokens === true });
			}
		} else {
			sendError(
				res,
				404,
				ERROR_CODE.notFound,
				`No sandbox admin route ${method} ${path}; see GET ${ADMIN_PREFIX}`,
			);
		}
	} catch (error) {
		if (error instanceof SandboxError)
			sendError(res, error.status, error.code, error.message, error.details);
		else if (error instanceof FaultInputError)
			sendError(res, 400, ERROR_CODE.invalidRequest, error.message);
		else throw error;
	}
}
