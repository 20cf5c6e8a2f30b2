/**
 * n8n-workflow's two sleeps in every unit test file (jest.config.js runs this file first): mocks that return at
 * once, so that retries, Retry-After pauses and the run memory's settle pauses take no time. They are jest.fn()s:
 * a test can read their calls (`jest.mocked(sleep)`) or change them for a while. A file that needs other sleeps
 * says so once, at its top, with one of the functions below.
 */
type Sleep = (ms: number) => Promise<void>;
type SleepWithAbort = (ms: number, signal?: AbortSignal) => Promise<void>;

jest.mock('n8n-workflow', () => ({
	...jest.requireActual<object>('n8n-workflow'),
	sleep: jest.fn(async () => undefined),
	sleepWithAbort: jest.fn(async () => undefined),
}));

/** The mocked module itself: what the product's `import ... from 'n8n-workflow'` reads at each call. */
function mockedWorkflow(): { sleep: jest.Mock; sleepWithAbort?: jest.Mock } {
	return jest.requireMock('n8n-workflow');
}

/** This file's sleeps: a simulated clock's (the fault oracle's), for either or both. */
export function useSleeps(sleeps: { sleep?: Sleep; sleepWithAbort?: SleepWithAbort }): void {
	const workflow = mockedWorkflow();
	if (sleeps.sleep) workflow.sleep.mockImplementation(sleeps.sleep);
	if (sleeps.sleepWithAbort) workflow.sleepWithAbort?.mockImplementation(sleeps.sleepWithAbort);
}

/** n8n's own sleeps for this file: real time, or jest's fake time where the file uses fake timers. */
export function useRealSleeps(): void {
	const actual = jest.requireActual<{ sleep: Sleep; sleepWithAbort: SleepWithAbort }>(
		'n8n-workflow',
	);
	useSleeps({ sleep: actual.sleep, sleepWithAbort: actual.sleepWithAbort });
}

/** No sleepWithAbort for this file, as in n8n 2.41's n8n-workflow, which no longer exports it. */
export function withoutSleepWithAbort(): void {
	mockedWorkflow().sleepWithAbort = undefined;
}
