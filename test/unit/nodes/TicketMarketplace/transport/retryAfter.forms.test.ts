/**
 * "Retry-After is either delta-seconds or an HTTP date … Unknown forms count as absent" (retryAfter.ts): Date.parse
 * takes far more than HTTP's three date forms, and words with a year in them would become a wait of decades.
 */
import { parseRetryAfter } from '../../../../../nodes/TicketMarketplace/transport/retryAfter';

const NOW = Date.parse('2026-11-29T09:00:00Z');

describe('a Retry-After that is neither delta-seconds nor an HTTP date', () => {
	it.each(['later 2099', 'May 2099', 'x 5', 'next 12'])('"%s" counts as absent', (value) => {
		expect(parseRetryAfter(value, NOW)).toBeUndefined();
	});

	it.each([
		['Sun, 29 Nov 2026 09:00:30 GMT', 30_000],
		['Sunday, 29-Nov-26 09:00:30 GMT', 30_000],
		['Sun Nov 29 09:00:30 2026', 30_000],
	])('holds: the HTTP date "%s" waits until then', (value, ms) => {
		expect(parseRetryAfter(value, NOW)).toBe(ms);
	});
});
