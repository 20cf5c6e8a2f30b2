/** Failures of admin operations and option checks, with the HTTP status and error code each maps to. */
import { ERROR_CODE } from './choices';
import type { Problem } from './validation';

/** An admin-operation failure with the HTTP status and error code it maps to. */
export class SandboxError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly details?: Problem[],
	) {
		super(message);
	}
}

export function positiveInteger(value: unknown, name: string): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
		throw new SandboxError(400, ERROR_CODE.invalidRequest, `${name} must be a positive integer`);
	}
	return value;
}

export function nonNegativeInteger(value: unknown, name: string): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
		throw new SandboxError(
			400,
			ERROR_CODE.invalidRequest,
			`${name} must be a non-negative integer`,
		);
	}
	return value;
}
