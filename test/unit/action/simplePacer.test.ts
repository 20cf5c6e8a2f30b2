import { description } from '../../../nodes/TicketMarketplace/actions/listing/create/description';
import { PACING_CONTROLLER_PARAMETER } from '../../../nodes/TicketMarketplace/actions/listing/create/description';
import {
	createPacer,
	pacingControllerOf,
} from '../../../nodes/TicketMarketplace/transport/pacerChoice';
import { RequestPacer } from '../../../nodes/TicketMarketplace/transport/pacing';
import { SimplePacer } from '../../../nodes/TicketMarketplace/transport/simpleGate';
import {
	canSend,
	initialState,
	readyAt,
	step,
	type PacerEvent,
	type SimpleState,
} from '../../../nodes/TicketMarketplace/transport/simplePacer';

/** One line of a trace: an event at a time, then what the state should show. */
type TraceStep = [
	at: number,
	event: PacerEvent,
	expected: Partial<Pick<SimpleState, 'level' | 'inFlight' | 'hold' | 'decreases'>>,
];

const sent: PacerEvent = { kind: 'sent' };
const answered: PacerEvent = { kind: 'answered' };
const failed: PacerEvent = { kind: 'failed' };
const refused = (retryAfterMs?: number, final?: boolean): PacerEvent => ({
	kind: 'refused',
	retryAfterMs,
	final,
});
const none = { kind: 'none' } as const;
const paused = (untilMs: number) => ({ kind: 'paused', untilMs }) as const;

/** `count` sends then `count` answers at `at`: one round trip at the level. */
function roundTrip(at: number, count: number): Array<[number, PacerEvent]> {
	return [
		...Array.from({ length: count }, (): [number, PacerEvent] => [at, sent]),
		...Array.from({ length: count }, (): [number, PacerEvent] => [at + 100, answered]),
	];
}

function run(maximum: number, events: Array<[number, PacerEvent]>): SimpleState {
	return events.reduce((state, [at, event]) => step(state, event, at), initialState(maximum));
}

describe('the simple controller: step(state, event, now)', () => {
	const traces: Array<[name: string, maximum: number, trace: TraceStep[]]> = [
		[
			'the first request goes alone; its answer opens the level at 4',
			48,
			[
				[0, sent, { level: 1, inFlight: 1 }],
				[300, answered, { level: 4, inFlight: 0, hold: none }],
			],
		],
		[
			'any first answer opens the level, a failure too',
			48,
			[
				[0, sent, { level: 1 }],
				[50, failed, { level: 4, inFlight: 0 }],
			],
		],
		[
			'the level never opens above the maximum',
			2,
			[
				[0, sent, {}],
				[100, answered, { level: 2 }],
			],
		],
		[
			'a 429 halves the level and pauses every send until its Retry-After',
			48,
			[
				[0, sent, {}],
				[100, answered, { level: 4 }],
				[100, sent, { inFlight: 1 }],
				[150, refused(1000), { level: 2, inFlight: 0, hold: paused(1150), decreases: 1 }],
			],
		],
		[
			'the other 429s of one pause are the same overshoot: one halving, the pause extended',
			48,
			[
				[0, sent, {}],
				[100, answered, { level: 4 }],
				[100, sent, {}],
				[100, sent, {}],
				[100, sent, {}],
				[150, refused(1000), { level: 2, hold: paused(1150) }],
				[160, refused(1000), { level: 2, hold: paused(1160), decreases: 1 }],
				[170, refused(500), { level: 2, hold: paused(1160), decreases: 1 }],
			],
		],
		[
			'a 429 after the pause ended halves again',
			48,
			[
				[0, sent, {}],
				[100, answered, { level: 4 }],
				[100, sent, {}],
				[150, refused(1000), { level: 2, hold: paused(1150) }],
				[1200, sent, { hold: none }],
				[1250, refused(1000), { level: 1, hold: paused(2250), decreases: 2 }],
			],
		],
		[
			'a 429 without Retry-After pauses a second',
			48,
			[
				[0, sent, {}],
				[100, answered, {}],
				[100, sent, {}],
				[200, refused(undefined), { level: 2, hold: paused(1200) }],
			],
		],
		[
			'a 429 that ends its request (Retry-After too long, no retry left) lowers the level but pauses nobody',
			48,
			[
				[0, sent, {}],
				[100, answered, {}],
				[100, sent, {}],
				[200, refused(600_000, true), { level: 2, hold: none, decreases: 1 }],
			],
		],
		[
			'the level never falls below 1',
			48,
			[
				[0, sent, {}],
				[10, refused(10), { level: 2, hold: paused(20) }],
				[30, sent, {}],
				[40, refused(10), { level: 1 }],
				[60, sent, {}],
				[70, refused(10), { level: 1, decreases: 3 }],
			],
		],
		[
			'a failure (no answer) changes nothing but the count in flight',
			48,
			[
				[0, sent, {}],
				[100, answered, { level: 4 }],
				[100, sent, {}],
				[100, sent, {}],
				[200, failed, { level: 4, inFlight: 1, hold: none, decreases: 0 }],
			],
		],
	];

	it.each(traces)('%s', (_name, maximum, trace) => {
		let state = initialState(maximum);
		for (const [at, event, expected] of trace) {
			state = step(state, event, at);
			expect({ at, ...pick(state, expected) }).toEqual({ at, ...expected });
		}
	});

	it('adds one to the level a round trip (level answers), up to the maximum', () => {
		const levels: number[] = [];
		let state = run(7, [
			[0, sent],
			[100, answered],
		]);
		for (let round = 1; round <= 5; round++) {
			const at = round * 100;
			state = [...roundTrip(at, state.level)].reduce((s, [t, e]) => step(s, e, t), state);
			levels.push(state.level);
		}
		expect(levels).toEqual([5, 6, 7, 7, 7]);
	});

	it('sends while there is room and no pause', () => {
		const open = run(48, [
			[0, sent],
			[100, answered],
		]);
		expect(canSend(open, 100)).toBe(true);
		const full = [sent, sent, sent, sent].reduce((state) => step(state, sent, 100), open);
		expect(canSend(full, 100)).toBe(false);
		const held = step(step(open, sent, 100), refused(1000), 150);
		expect(canSend(held, 1149)).toBe(false);
		expect(readyAt(held, 500)).toBe(1150);
		expect(canSend(held, 1150)).toBe(true);
	});

	it('does not change the state it is given', () => {
		const state = run(48, [
			[0, sent],
			[100, answered],
			[100, sent],
		]);
		const copy = structuredClone(state);
		step(state, refused(1000), 150);
		expect(state).toEqual(copy);
	});
});

function pick(state: SimpleState, expected: object): Record<string, unknown> {
	return Object.fromEntries(
		Object.keys(expected).map((key) => [key, state[key as keyof SimpleState]]),
	);
}

describe('the simple pacer gate', () => {
	beforeEach(() => jest.useFakeTimers({ now: 0 }));
	afterEach(() => jest.useRealTimers());

	/** n8n's sleep stand-in on jest's fake clock: rejects when the signal aborts. */
	const fakeWait = (ms: number, signal: AbortSignal) =>
		new Promise<void>((resolve, reject) => {
			const timer = setTimeout(resolve, ms);
			signal.addEventListener('abort', () => {
				clearTimeout(timer);
				reject(new Error('stopped'));
			});
		});
	const gate = (maximum = 48) => new SimplePacer(maximum, false, () => Date.now(), fakeWait);

	it('sends the first request alone, then opens the level', async () => {
		const pacer = gate();
		const first = await pacer.acquire();
		let second = false;
		void pacer.acquire().then(() => (second = true));
		await jest.advanceTimersByTimeAsync(50);
		expect(second).toBe(false);
		first!.release({ kind: 'answered', roundTripMs: 50 });
		await jest.advanceTimersByTimeAsync(0);
		expect(second).toBe(true);
		expect(pacer.currentLimit).toBe(4);
	});

	it('holds every send until the Retry-After instant, then lets them go', async () => {
		const pacer = gate();
		(await pacer.acquire())!.release({ kind: 'answered', roundTripMs: 10 });
		const slot = await pacer.acquire();
		jest.setSystemTime(100);
		slot!.release({ kind: 'rateLimited', retryAfterMs: 1000 });
		const granted: number[] = [];
		for (let index = 0; index < 2; index++)
			void pacer.acquire().then(() => granted.push(Date.now()));
		await jest.advanceTimersByTimeAsync(999);
		expect(granted).toEqual([]);
		await jest.advanceTimersByTimeAsync(1);
		expect(granted).toEqual([1100, 1100]);
	});

	it('ends the waits at once when the run is stopped', async () => {
		const pacer = gate();
		const cancel = new AbortController();
		pacer.closeOn(cancel.signal);
		(await pacer.acquire())!.release({ kind: 'answered', roundTripMs: 10 });
		(await pacer.acquire())!.release({ kind: 'rateLimited', retryAfterMs: 5000 });
		const waiting = pacer.acquire();
		await jest.advanceTimersByTimeAsync(10);
		cancel.abort();
		await expect(waiting).resolves.toBeNull();
		expect(jest.getTimerCount()).toBe(0);
		await expect(pacer.acquire()).resolves.toBeNull();
	});

	it('stops starting requests after a final failure without Continue On Fail', async () => {
		const pacer = new SimplePacer(48, true, () => Date.now(), fakeWait);
		const slot = await pacer.acquire();
		const waiting = pacer.acquire();
		slot!.release({ kind: 'failed', final: true });
		await expect(waiting).resolves.toBeNull();
	});
});

describe('the switch between pacers', () => {
	it("defaults to today's pacer", () => {
		expect(pacingControllerOf(undefined)).toBe('current');
		expect(pacingControllerOf('')).toBe('current');
		expect(pacingControllerOf('anything')).toBe('current');
		expect(createPacer(pacingControllerOf(undefined), 'adaptive', 48)).toBeInstanceOf(RequestPacer);
	});

	it('is a hidden parameter of Listing → Create whose default is today’s pacer', () => {
		const parameter = description.find((property) => property.name === PACING_CONTROLLER_PARAMETER);
		expect(parameter).toMatchObject({ type: 'hidden', default: 'current' });
	});

	it('gives the simple pacer only when asked, and only in adaptive mode', () => {
		expect(createPacer('simple', 'adaptive', 48)).toBeInstanceOf(SimplePacer);
		expect(createPacer('simple', 'fixed', 10)).toBeInstanceOf(RequestPacer);
		expect(createPacer('current', 'fixed', 10)).toBeInstanceOf(RequestPacer);
	});
});
