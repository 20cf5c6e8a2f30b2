/**
 * The per-second gate alone, on a fake clock: the sliding window and Retry-After to the millisecond, without sleeping.
 * (The sandbox's pieces are tested here, beside the integration tests that drive them over HTTP.)
 */
import { SandboxError } from '../../../sandbox/index';
import { parsePerSecondLimit, PerSecondGate } from '../../../sandbox/perSecond';
import type { FaultEndpoint, PartnerEndpoint } from '../../../sandbox/faults';

describe('per-second gate (fake clock)', () => {
	let clock: number;
	const now = () => clock;

	beforeEach(() => {
		clock = 1_000_000;
	});

	function gate(maxPerSecond: number | null, endpoint: FaultEndpoint = '*', retry?: number) {
		return new PerSecondGate(
			maxPerSecond === null
				? null
				: parsePerSecondLimit({ maxPerSecond, endpoint, retryAfterSeconds: retry }),
			now,
		);
	}

	/** Admits and commits when it may; answers true when admitted, else the Retry-After. */
	function request(subject: PerSecondGate, endpoint: PartnerEndpoint = 'listings') {
		const admission = subject.admit(endpoint);
		if ('commit' in admission) {
			admission.commit();
			return true;
		}
		return admission.retryAfterSeconds;
	}

	it('admits maxPerSecond in a second, refuses the next, and admits again when the oldest leaves', () => {
		const subject = gate(3);
		expect(request(subject)).toBe(true);
		clock += 100;
		expect(request(subject)).toBe(true);
		clock += 100;
		expect(request(subject)).toBe(true);
		clock += 100;
		expect(request(subject)).toBe(1);
		expect(subject.view()).toEqual({
			limit: { maxPerSecond: 3, endpoint: '*', retryAfterSeconds: null },
			inWindow: 3,
			peak: 3,
			refused: 1,
		});
		// The first was admitted at +0 ms; it is still in the window at +999 and has left at +1000.
		clock = 1_000_999;
		expect(request(subject)).toBe(1);
		clock = 1_001_000;
		expect(subject.view().inWindow).toBe(2);
		expect(request(subject)).toBe(true);
		expect(request(subject)).toBe(1);
		expect(subject.view()).toMatchObject({ inWindow: 3, peak: 3, refused: 3 });
	});

	it('does not count a request that passed but was never committed (refused by another limit)', () => {
		const subject = gate(1);
		const passed = subject.admit('listings');
		expect('commit' in passed).toBe(true);
		expect(subject.view().inWindow).toBe(0);
		expect(request(subject)).toBe(true);
		expect(request(subject)).toBe(1);
	});

	it('commits once however often commit is called', () => {
		const subject = gate(2);
		const passed = subject.admit('token');
		if (!('commit' in passed)) throw new Error('expected admission');
		passed.commit();
		passed.commit();
		expect(subject.view().inWindow).toBe(1);
	});

	it('uses a fixed Retry-After when configured', () => {
		const subject = gate(1, '*', 7);
		expect(request(subject)).toBe(true);
		expect(request(subject)).toBe(7);
		expect(subject.view().limit).toEqual({ maxPerSecond: 1, endpoint: '*', retryAfterSeconds: 7 });
	});

	it('counts only its endpoint when scoped, though it remembers every admitted request', () => {
		const subject = gate(1, 'listings');
		expect(request(subject, 'token')).toBe(true);
		expect(request(subject, 'token')).toBe(true);
		expect(request(subject, 'listings')).toBe(true);
		expect(request(subject, 'listings')).toBe(1);
		expect(request(subject, 'webhooks')).toBe(true);
		expect(subject.view()).toMatchObject({ inWindow: 1, peak: 1, refused: 1 });
		// Widened to every endpoint, the requests just admitted elsewhere count at once.
		subject.set(parsePerSecondLimit({ maxPerSecond: 10 }));
		expect(subject.view().inWindow).toBe(4);
	});

	it('applies a tightened limit at once, and its Retry-After waits until enough have left', () => {
		const subject = gate(40);
		for (let i = 0; i < 30; i++) {
			expect(request(subject)).toBe(true);
			clock += 10;
		}
		// 30 admitted at +0..+290 ms; now +300 ms.
		subject.set(parsePerSecondLimit({ maxPerSecond: 10 }));
		expect(request(subject)).toBe(1);
		// The 21st oldest (admitted at +200) must leave before an 11th fits: at +1200.
		clock = 1_001_199;
		expect(request(subject)).toBe(1);
		clock = 1_001_200;
		expect(subject.view().inWindow).toBe(9);
		expect(request(subject)).toBe(true);
		expect(request(subject)).toBe(1);
		subject.set(parsePerSecondLimit({ maxPerSecond: 40 }));
		expect(request(subject)).toBe(true);
		expect(subject.view()).toMatchObject({ inWindow: 11, peak: 30, refused: 3 });
	});

	it('rounds a computed Retry-After up to whole seconds, at least 1', () => {
		const subject = gate(2);
		expect(request(subject)).toBe(true);
		expect(request(subject)).toBe(true);
		// Both leave 1000 ms after now: exactly one second.
		expect(request(subject)).toBe(1);
		clock += 999;
		// One millisecond to go still says one second (never 0, which would invite an immediate retry).
		expect(request(subject)).toBe(1);
	});

	it('admits everything without a limit but keeps counting, and reset restores the initial limit', () => {
		const subject = gate(2);
		subject.set(null);
		for (let i = 0; i < 5; i++) expect(request(subject)).toBe(true);
		expect(subject.view()).toEqual({ limit: null, inWindow: 5, peak: 5, refused: 0 });
		subject.reset();
		expect(subject.view()).toEqual({
			limit: { maxPerSecond: 2, endpoint: '*', retryAfterSeconds: null },
			inWindow: 0,
			peak: 0,
			refused: 0,
		});
		expect(request(subject)).toBe(true);
		expect(request(subject)).toBe(true);
		expect(request(subject)).toBe(1);
	});

	it('refuses bad limits', () => {
		for (const bad of [
			{ maxPerSecond: 0 },
			{ maxPerSecond: -1 },
			{ maxPerSecond: 2.5 },
			{ maxPerSecond: '10' },
			{},
			{ maxPerSecond: 2, endpoint: 'orders' },
			{ maxPerSecond: 2, retryAfterSeconds: 1.5 },
			{ maxPerSecond: 2, extra: true },
			[],
			'10',
		]) {
			expect(() => parsePerSecondLimit(bad)).toThrow(SandboxError);
		}
		expect(parsePerSecondLimit(null)).toBeNull();
		expect(parsePerSecondLimit({ maxPerSecond: null })).toBeNull();
		expect(parsePerSecondLimit({ maxPerSecond: 5, retryAfterSeconds: null })).toEqual({
			maxPerSecond: 5,
			endpoint: '*',
			retryAfterSeconds: null,
		});
	});
});
