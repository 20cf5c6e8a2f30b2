/**
 * The fault oracle's one clock: Date.now reads it, and only the oracle's waits and the fake APIs' answers move it,
 * so a seed plays the same interleaving whatever the machine's load.
 */
const HOUR_MS = 3_600_000;

let nowMs = 0;

/** Moves the clock on (a wait waited, an answer's latency). */
export function elapse(ms: number): void {
	nowMs += Math.max(0, ms);
}

/** Each scenario starts on the next hour: a Retry-After in whole seconds waits the same, whatever ran before. */
export function startScenarioClock(): void {
	nowMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS + HOUR_MS;
}

/** Date.now reads the oracle's clock for the whole test file; it starts on an hour near the real time. */
export function useVirtualClock(): void {
	let spy: jest.SpyInstance<number, []> | undefined;
	beforeAll(() => {
		nowMs = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
		spy = jest.spyOn(Date, 'now').mockImplementation(() => nowMs);
	});
	afterAll(() => spy?.mockRestore());
}
