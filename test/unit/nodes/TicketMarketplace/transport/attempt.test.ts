/** What a thrown error tells of the answer, whatever shape it comes in. */
import { describeThrown } from '../../../../../nodes/TicketMarketplace/transport/attempt';

describe("describeThrown: an error carrying its HTTP answer (axios' shape)", () => {
	const axiosLike = Object.assign(new Error('Request failed with status code 429'), {
		code: 'ERR_BAD_REQUEST',
		response: {
			status: 429,
			headers: { 'retry-after': '2' },
			data: { code: 'rate.limited', description: 'slow down' },
		},
	});

	it('keeps the status, the headers and the body', () => {
		const failure = describeThrown(axiosLike);
		expect(failure.status).toBe(429);
		expect(failure.headers).toEqual({ 'retry-after': '2' });
		expect(failure.body).toEqual({ code: 'rate.limited', description: 'slow down' });
	});
});
