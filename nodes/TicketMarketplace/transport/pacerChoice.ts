/**
 * Which pacer paces Listing → Create's sends. Today's (pacing.ts) unless the hidden parameter `pacingController`
 * asks for the simple one (simpleGate.ts), which only the bench sets: it weighs the two side by side.
 */
import { RequestPacer } from './pacing';
import type { PacingMode } from './pacingTypes';
import { SimplePacer } from './simpleGate';

export type PacingController = 'current' | 'simple';

/** What the transport and Create use of a pacer. */
export type Pacer = Pick<
	RequestPacer,
	'acquire' | 'close' | 'closeOn' | 'snapshot' | 'currentLimit' | 'currentRate'
>;

/** A parameter's value as a controller: anything but 'simple' is today's. */
export function pacingControllerOf(value: unknown): PacingController {
	return value === 'simple' ? 'simple' : 'current';
}

/** Fixed mode is today's pacer whatever the controller: the simple one only replaces adaptive pacing. */
export function createPacer(
	controller: PacingController,
	mode: PacingMode,
	maximum: number,
	stopOnFailure = false,
): Pacer {
	if (controller === 'simple' && mode === 'adaptive')
		return new SimplePacer(maximum, stopOnFailure);
	return new RequestPacer(mode, maximum, stopOnFailure);
}
