import {
	nextAt,
	type Pace,
	type Sent,
	startPace,
} from '../../../../../nodes/TicketMarketplace/transport/limiter';
import { advance } from '../../../../../nodes/TicketMarketplace/transport/pacing';

/**
 * The pacer's rules read from traces, one pure `advance` at a time: what the gate told them (each step at a time in
 * ms: a new request sent, or the send with that index answered or refused), and what the trace's last refusal was
 * read as: a rate (every send paused), the concurrency (the limit lowered), or random (only its request waits).
 */
type TraceStep =
	| [at: number, what: 'send']
	| [at: number, what: 'answer' | 'refuse', index: number];

type RefusalKind = 'rate' | 'concurrency' | 'random';

/** The state after a trace; `sends` the sends by index. */
function replay(trace: TraceStep[], mode: 'adaptive' | 'fixed' = 'adaptive'): Pace {
	let state = startPace(mode, 48);
	const sends = new Map<number, Sent>();
	const sendOfIndex = (index: number) => {
		const send = sends.get(index);
		if (!send) throw new Error(`no send ${index} in the trace`);
		return send;
	};
	for (const [at, what, index] of trace) {
		if (what === 'send') {
			state = advance(state, { kind: 'sent' }, at);
			const send = state.log.at(-1)!;
			sends.set(send.index, send);
		} else if (what === 'answer') {
			const send = sendOfIndex(index);
			const event = {
				kind: 'answered',
				send,
				roundTripMs: at - send.at,
				accepted: true,
				left: 0,
			} as const;
			state = advance(state, event, at);
		} else
			state = advance(
				state,
				{
					kind: 'rateLimited',
					send: sendOfIndex(index),
					retryAfterMs: 1000,
					final: false,
					left: 0,
				},
				at,
			);
	}
	return state;
}

function kindOfLastRefusal(trace: TraceStep[]): RefusalKind {
	const last = trace[trace.length - 1];
	if (last[1] !== 'refuse') throw new Error('a trace ends in a refusal');
	const before = replay(trace.slice(0, -1));
	const after = replay(trace);
	if (after.limiter.refusals > before.limiter.refusals) return 'rate';
	if (after.refusal !== before.refusal) return 'concurrency';
	return 'random';
}

/** Sends 1 to `count`, 10 ms apart from `from`. */
function sendsFrom(from: number, count: number): TraceStep[] {
	return Array.from({ length: count }, (_, index): TraceStep => [from + 10 * index, 'send']);
}

/** The first request alone, answered after 100 ms: the token is settled, nothing else learned. */
const FIRST: TraceStep[] = [
	[0, 'send'],
	[100, 'answer', 1],
];

/** Three in flight (2, 3, 4 at levels 1, 2, 3); the one at level 3 answered, then the one at level 2 refused. */
const BELOW_ANSWERED: TraceStep[] = [
	...FIRST,
	...sendsFrom(100, 3),
	[220, 'answer', 4],
	[221, 'refuse', 3],
];

/** The first answered, then four at once (levels 1 to 4), all answered. */
const CLIMBED: TraceStep[] = [
	...FIRST,
	...sendsFrom(100, 4),
	...[2, 3, 4, 5].map((index): TraceStep => [200, 'answer', index]),
];

/** The climb refused at level 4 (a hold), the three others answered, then the probe (send 6) goes. */
const PROBE_SENT: TraceStep[] = [
	...FIRST,
	...sendsFrom(100, 4),
	[150, 'refuse', 5],
	[200, 'answer', 2],
	[210, 'answer', 3],
	[220, 'answer', 4],
	[230, 'send'],
];

const TRACES: Array<{ name: string; trace: TraceStep[]; kind: RefusalKind }> = [
	{
		name: 'a refusal at a level never answered (the climb meets a limit): the concurrency',
		trace: [...FIRST, ...sendsFrom(100, 4), [150, 'refuse', 5]],
		kind: 'concurrency',
	},
	{
		name: 'a lone refusal below a level the API answered: random until another agrees',
		trace: BELOW_ANSWERED,
		kind: 'random',
	},
	{
		name: 'a request refused alone (nothing else in flight): not the concurrency; lone, random',
		trace: [...FIRST, [200, 'send'], [210, 'refuse', 2]],
		kind: 'random',
	},
	{
		name: 'a second refusal of a send after the first 429 was read, at no more accepted in the second before: a rate',
		trace: [...BELOW_ANSWERED, [230, 'send'], [250, 'refuse', 5]],
		kind: 'rate',
	},
	{
		name: 'a second refusal after the count climbed well above the first one (6 accepted against 2): no confirmation, random again',
		trace: [
			...BELOW_ANSWERED,
			...[5, 6, 7, 8].flatMap((index): TraceStep[] => [
				[200 + 40 * index, 'send'],
				[220 + 40 * index, 'answer', index],
			]),
			[600, 'send'],
			[620, 'refuse', 9],
		],
		kind: 'random',
	},
	{
		name: 'a refusal in a quiet second after a busier one the API answered (9 against none): no per-second limit, nothing pauses',
		trace: [
			...FIRST,
			...sendsFrom(100, 8),
			...[2, 3, 4, 5, 6, 7, 8, 9].map((index): TraceStep => [200 + 10 * index, 'answer', index]),
			[1500, 'send'],
			[1510, 'refuse', 10],
		],
		kind: 'random',
	},
	{
		name: 'two refusals of one burst (the second sent before the first came back): no evidence, random',
		trace: [
			...CLIMBED,
			...sendsFrom(300, 8),
			[400, 'answer', 6],
			[401, 'refuse', 7],
			[402, 'refuse', 8],
		],
		kind: 'random',
	},
	{
		name: 'a level answered more than ten seconds ago is forgotten: a refusal there, the climb meeting a limit anew, is the concurrency',
		trace: [...CLIMBED, ...sendsFrom(11_000, 3), [11_050, 'refuse', 8]],
		kind: 'concurrency',
	},
	{
		name: 'three of one burst refused in a run: a rate, without waiting for a send after the first 429',
		trace: [
			...CLIMBED,
			...sendsFrom(300, 4),
			[400, 'answer', 6],
			[401, 'refuse', 7],
			[402, 'refuse', 8],
			[403, 'refuse', 9],
		],
		kind: 'rate',
	},
	{
		name: 'the probe after a hold, refused too: a rate',
		trace: [...PROBE_SENT, [240, 'refuse', 6]],
		kind: 'rate',
	},
	{
		name: 'after a refusal read as the concurrency, one a level below it (the pacer counts ahead): the concurrency',
		trace: [...PROBE_SENT, [240, 'answer', 6], ...sendsFrom(250, 3), [290, 'refuse', 9]],
		kind: 'concurrency',
	},
];

describe('the kind of a 429, read from a trace of sends, answers and refusals', () => {
	it.each(TRACES)('$name', ({ trace, kind }) => {
		expect(kindOfLastRefusal(trace)).toBe(kind);
	});

	it('a rate pauses every send until the Retry-After; the concurrency and a lone 429 pause nothing', () => {
		const rate = replay([...BELOW_ANSWERED, [230, 'send'], [250, 'refuse', 5]]);
		expect(nextAt(rate, 250)).toBe(1250);
		const lone = replay(BELOW_ANSWERED);
		expect(nextAt(lone, 221)).toBeLessThan(300);
	});

	it('after a refusal at a level never answered, nothing goes until an answer comes back, then one probe', () => {
		const held = replay([...FIRST, ...sendsFrom(100, 4), [150, 'refuse', 5]]);
		expect(held.hold).toBeDefined();
		expect(nextAt(held, 150)).toBe(Infinity);
		const answered = replay([
			...FIRST,
			...sendsFrom(100, 4),
			[150, 'refuse', 5],
			[200, 'answer', 2],
		]);
		expect(nextAt(answered, 200)).toBeLessThan(Infinity);
		expect(nextAt(replay(PROBE_SENT), 230)).toBe(Infinity);
		// The probe answered: the refused level was the concurrency, and sends go on.
		const proven = replay([...PROBE_SENT, [330, 'answer', 6]]);
		expect(proven.proven).toBe(4);
		expect(nextAt(proven, 330)).toBeLessThan(Infinity);
	});

	it('the first request goes alone; its answer opens 4 slots, and fixed mode the maximum', () => {
		const first = replay([[0, 'send']]);
		expect(nextAt(first, 0)).toBe(Infinity);
		expect(replay(FIRST).limit).toBe(4);
		expect(replay(FIRST, 'fixed').limit).toBe(48);
	});

	it('started opened (a token held): 4 slots at once, fixed mode the maximum; its first answer is a sample', () => {
		let state = startPace('adaptive', 48, true);
		for (let i = 0; i < 4; i++) {
			expect(nextAt(state, 0)).toBe(0);
			state = advance(state, { kind: 'sent' }, 0);
		}
		expect(nextAt(state, 0)).toBe(Infinity);
		const send = state.log[0];
		const event = { kind: 'answered', send, roundTripMs: 100, accepted: true, left: 10 } as const;
		const answered = advance(state, event, 100);
		// Not an opening answer: slow start adds a slot, and the round trip is smoothed like any other.
		expect(answered.limit).toBe(5);
		expect(answered.limiter.smoothedMs).toBe(100);
		expect(startPace('fixed', 48, true).limit).toBe(48);
		expect(startPace('adaptive', 2, true).limit).toBe(2);
		expect(startPace('adaptive', 48, true).stats.peakLimit).toBe(4);
	});

	it("a spike arrest's refusal keeps a gap between sends, in either mode, and pauses nothing", () => {
		for (const mode of ['adaptive', 'fixed'] as const) {
			let state = replay([...FIRST, ...sendsFrom(100, 3)], mode);
			const send = state.log.find((s) => s.index === 3)!;
			const event = {
				kind: 'rateLimited',
				send,
				final: false,
				spikeArrest: true,
				allowedPerSecond: 40,
				left: 0,
			} as const;
			state = advance(state, event, 125);
			expect(state.spike.gapMs).toBeGreaterThanOrEqual(25);
			expect(nextAt(state, 125)).toBeCloseTo(120 + state.spike.gapMs);
			expect(state.limiter.refusals).toBe(0);
		}
	});

	it('fixed mode reads nothing from a 429: no pause, no lower limit', () => {
		const trace: TraceStep[] = [
			...FIRST,
			...sendsFrom(100, 3),
			[220, 'answer', 4],
			[221, 'refuse', 3],
			[230, 'send'],
			[250, 'refuse', 5],
		];
		const fixed = replay(trace, 'fixed');
		expect(fixed.limit).toBe(48);
		expect(fixed.limiter.refusals).toBe(0);
		expect(nextAt(fixed, 250)).toBe(250);
	});
});
