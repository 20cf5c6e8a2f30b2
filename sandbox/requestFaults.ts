/**
 * The faults chosen for a Partner API request (faults.ts decides them): the latency waited, a terminal fault answered
 * here, or what the resource must do differently (a token issued expired, a listing created before a system error).
 */
import type http from 'node:http';

import {
	GATEWAY_FAULT,
	INVENTORY_ERROR,
	sendGatewayFault,
	sendInventoryError,
	sendMaintenance,
	spikeArrestFault,
} from './answers';
import { DEFAULT_FAULT_STATUS, DEFAULT_RETRY_AFTER_SECONDS, ERROR_CODE } from './choices';
import type { PartnerEndpoint } from './faults';
import { sendError, sendJson } from './http';
import type { ListingAnswer } from './partner/listings';
import { bearerRecord } from './partner/tokens';
import type { TokenIssue } from './partner/tokens';
import type { SandboxStore } from './store';

/** How the resource must answer a request the faults let through. */
export interface Faulted extends ListingAnswer {
	issue: TokenIssue;
}

/**
 * Applies the faults chosen for this request: waits the latency, then answers a terminal fault itself. Returns
 * undefined when the request has been answered (or dropped), else how the resource must answer (faults that act
 * inside it: a token issued expired, a listing created before a system error).
 */
export async function applyFaults(
	store: SandboxStore,
	req: http.IncomingMessage,
	res: http.ServerResponse,
	endpoint: PartnerEndpoint,
	appliedFaults: string[],
): Promise<Faulted | undefined> {
	const decision = store.faults.decide(endpoint);
	appliedFaults.push(...decision.applied);
	if (decision.delayMs > 0 && !(await store.timers.sleep(decision.delayMs))) {
		req.destroy();
		return undefined;
	}
	const terminal = decision.terminal;
	const asUsual: Faulted = { issue: { expired: false, revokeEarlier: false } };
	if (!terminal) return asUsual;
	switch (terminal.kind) {
		case '429': {
			const retryAfter = terminal.rule.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
			sendError(
				res,
				429,
				ERROR_CODE.rateLimited,
				`Too many requests; retry after ${retryAfter} s (sandbox fault)`,
				undefined,
				{
					'Retry-After': String(Math.ceil(retryAfter)),
				},
			);
			return undefined;
		}
		case '5xx': {
			const status = terminal.rule.status ?? DEFAULT_FAULT_STATUS;
			sendError(
				res,
				status,
				ERROR_CODE.serverError,
				`The service failed with ${status} (sandbox fault)`,
			);
			return undefined;
		}
		case 'drop':
			req.socket.destroy();
			return undefined;
		case 'redirect': {
			// A hostile or misconfigured API: sends the client elsewhere (status 307 unless the rule says).
			const status = terminal.rule.status ?? 307;
			res.writeHead(status, { Location: 'http://127.0.0.1:9/elsewhere' });
			res.end();
			return undefined;
		}
		case 'echo':
			// An API whose error echoes what it received, the Authorization header included.
			sendJson(res, 400, {
				error: ERROR_CODE.invalidRequest,
				message: `Bad request from ${String(req.headers.authorization)} (sandbox fault)`,
				echo: { headers: req.headers },
			});
			return undefined;
		case 'systemError': {
			// The listing service failed, after storing the listing or before: its 500, on any endpoint.
			const created = terminal.rule.created ?? store.faults.chance(0.5);
			if (created && endpoint === 'listings') return { ...asUsual, systemErrorAfterCreate: true };
			sendInventoryError(res, 500, 'systemError', INVENTORY_ERROR.systemError);
			return undefined;
		}
		case 'quotaViolation':
			sendGatewayFault(res, GATEWAY_FAULT.quota, terminal.rule.status ?? 500);
			return undefined;
		case 'spikeArrestViolation':
			sendGatewayFault(
				res,
				spikeArrestFault(terminal.rule.allowedRate ?? '10ps'),
				terminal.rule.status ?? 500,
			);
			return undefined;
		case 'maintenance':
			// The service is under maintenance: the gateway answers 503 and the request goes no further.
			sendMaintenance(res, terminal.rule);
			return undefined;
		case 'expireToken': {
			if (endpoint === 'token') return { issue: { ...asUsual.issue, expired: true } };
			const { record } = bearerRecord(store, req);
			if (record) record.expiresAt = Math.min(record.expiresAt, store.now());
			return asUsual;
		}
		case 'revokeEarlierTokens':
			// Only the token endpoint issues tokens; elsewhere the request goes on as usual.
			return { issue: { ...asUsual.issue, revokeEarlier: endpoint === 'token' } };
	}
}
