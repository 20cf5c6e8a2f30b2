/**
 * The admission of a Partner API request through the gateway's spike arrest and quota (gatewayLimits.ts), then the
 * limits on requests per second and in flight (perSecond.ts, inFlight.ts), all held by the store.
 */
import type http from 'node:http';

import { GATEWAY_FAULT, sendGatewayFault, spikeArrestFault } from './answers';
import { ERROR_CODE } from './choices';
import type { PartnerEndpoint } from './faults';
import { sendError } from './http';
import type { SandboxStore } from './store';

function refuse(
	res: http.ServerResponse,
	appliedFaults: string[],
	fault: string,
	reason: string,
	retryAfterSeconds: number,
): false {
	appliedFaults.push(fault);
	sendError(
		res,
		429,
		ERROR_CODE.rateLimited,
		`${reason}; retry after ${retryAfterSeconds} s (sandbox limit)`,
		undefined,
		{
			'Retry-After': String(retryAfterSeconds),
		},
	);
	return false;
}

/**
 * The gateway's policies first, as at the start of Apigee's flow: the spike arrest, then the quota. A refusal is the
 * gateway's fault (500 or 429, no Retry-After); a request they pass counts in both, whatever follows.
 */
function admitGateway(
	store: SandboxStore,
	res: http.ServerResponse,
	endpoint: PartnerEndpoint,
	appliedFaults: string[],
): boolean {
	const spike = store.spikeArrest.admit(endpoint);
	if (spike.refusedWith !== undefined) {
		appliedFaults.push('spikeArrest');
		sendGatewayFault(res, spikeArrestFault(spike.rate ?? ''), spike.refusedWith);
		return false;
	}
	const quota = store.quota.admit(endpoint);
	if (quota.refusedWith !== undefined) {
		appliedFaults.push('quota');
		sendGatewayFault(res, GATEWAY_FAULT.quota, quota.refusedWith);
		return false;
	}
	return true;
}

/**
 * Refuses the request when the gateway's spike arrest or quota refuses it (admitGateway), or with 429 when the
 * per-second or the in-flight limit is reached; else counts it in both (in
 * flight until its answer is over). The per-second gate only commits once the in-flight gate has admitted too, so a
 * request refused by either is counted as admitted by neither, and as refused by the one that refused it.
 */
export function admitLimits(
	store: SandboxStore,
	res: http.ServerResponse,
	endpoint: PartnerEndpoint,
	appliedFaults: string[],
): boolean {
	if (!admitGateway(store, res, endpoint, appliedFaults)) return false;
	const perSecond = store.perSecond.admit(endpoint);
	if ('retryAfterSeconds' in perSecond) {
		return refuse(
			res,
			appliedFaults,
			'perSecondLimit',
			'Too many requests per second',
			perSecond.retryAfterSeconds,
		);
	}
	const inFlight = store.inFlight.admit(endpoint);
	if ('retryAfterSeconds' in inFlight) {
		return refuse(
			res,
			appliedFaults,
			'inFlightLimit',
			'Too many requests in flight',
			inFlight.retryAfterSeconds,
		);
	}
	perSecond.commit();
	res.on('close', inFlight.release);
	return true;
}
