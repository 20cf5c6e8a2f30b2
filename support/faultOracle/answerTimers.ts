/**
 * nock's answers for the fault oracle. nock lets an answer go, and its body flow, on setTimeout(0): a millisecond of
 * real time, so how many event-loop turns an answer took (against the store's gaps and the pauses, counted in
 * turns) hung on the machine's load. Here a timer of no delay fires after a seeded number of turns instead.
 */
type NockTimer = (
	callback: (...args: unknown[]) => void,
	ms?: number,
	...args: unknown[]
) => unknown;

let turns: number[] = [0];
let next = 0;

/** The turns each of nock's zero-delay timers waits beyond one, cycled; set per scenario. */
export function setAnswerTurns(list: number[]): void {
	turns = list.length > 0 ? list : [0];
	next = 0;
}

/** For the whole test file, nock's zero-delay timers wait their turns (a timer with a delay stays a real one). */
export function useAnswerTimers(): void {
	// The module nock's playback calls its timers through, loaded by the unit tests' setup before any test file.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const common = require('nock/lib/common') as { setTimeout: NockTimer };
	const real = common.setTimeout;
	beforeAll(() => {
		common.setTimeout = (callback, ms, ...args) => {
			if (ms !== undefined && ms > 0) return real(callback, ms, ...args);
			const wait = turns[next++ % turns.length];
			void (async () => {
				for (let turn = 0; turn <= wait; turn++)
					await new Promise((resolve) => setImmediate(resolve));
				callback(...args);
			})();
			return undefined;
		};
	});
	afterAll(() => {
		common.setTimeout = real;
	});
}
