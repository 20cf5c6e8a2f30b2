/**
 * What the two request limits (inFlight.ts, perSecond.ts) share: the checks of a limit, which arrives untrusted (over
 * HTTP, or as a start option) as `{<count field>, endpoint?, retryAfterSeconds?}` or null to remove it. The admission
 * of a request through them is in admission.ts, which reads the store that holds them.
 */
import { ERROR_CODE } from './choices';
import { nonNegativeInteger, positiveInteger, SandboxError } from './errors';
import { FAULT_ENDPOINTS } from './faults';
import type { FaultEndpoint } from './faults';

export interface ParsedLimit {
	/** The count field's value: a positive integer. */
	count: number;
	/** Which Partner API endpoint the limit counts; `*` (the default) counts every one together. */
	endpoint: FaultEndpoint;
	/** A non-negative integer, or undefined when not given (null too, when `retryAfterMayBeNull`). */
	retryAfterSeconds: number | null | undefined;
}

/**
 * Checks an untrusted limit whose count is in `countField` (maxInFlight, maxPerSecond); null, or a null count,
 * removes the limit. A null retryAfterSeconds is accepted only when `retryAfterMayBeNull` (it then means "computed").
 */
export function parseLimit(
	input: unknown,
	countField: string,
	retryAfterMayBeNull: boolean,
): ParsedLimit | null {
	if (input === null) return null;
	if (typeof input !== 'object' || Array.isArray(input)) {
		throw new SandboxError(
			400,
			ERROR_CODE.invalidRequest,
			'The limit must be a JSON object, or null to remove it',
		);
	}
	const raw = input as Record<string, unknown>;
	for (const key of Object.keys(raw)) {
		if (![countField, 'endpoint', 'retryAfterSeconds'].includes(key)) {
			throw new SandboxError(400, ERROR_CODE.invalidRequest, `Unknown limit field: ${key}`);
		}
	}
	if (raw[countField] === null) return null;
	const endpoint = raw.endpoint ?? '*';
	if (!FAULT_ENDPOINTS.includes(endpoint as FaultEndpoint)) {
		throw new SandboxError(
			400,
			ERROR_CODE.invalidRequest,
			`endpoint must be one of ${FAULT_ENDPOINTS.join(', ')}`,
		);
	}
	const retryAfter = raw.retryAfterSeconds;
	return {
		count: positiveInteger(raw[countField], countField),
		endpoint: endpoint as FaultEndpoint,
		retryAfterSeconds:
			retryAfter === undefined || (retryAfter === null && retryAfterMayBeNull)
				? retryAfter
				: nonNegativeInteger(retryAfter, 'retryAfterSeconds'),
	};
}
