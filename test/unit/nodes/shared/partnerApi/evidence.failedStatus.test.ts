/**
 * showsCreated on 200 JSON answers whose `status` or `state` speaks: a failure anywhere in the answer is no
 * evidence (the outcome is then unknown, so nothing is sent again); a status that merely exists is no failure.
 */
import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { showsCreated } from '../../../../../nodes/shared/partnerApi/evidence';

const answer = (body: IN8nHttpFullResponse['body'], statusCode = 200): IN8nHttpFullResponse => ({
	statusCode,
	headers: { 'content-type': 'application/json; charset=utf-8' },
	body,
});

describe('a status that is no failure stays evidence; one that says so is none', () => {
	it.each([
		['status ACTIVE', { id: 1, status: 'ACTIVE' }],
		['status as an object {code: ok}', { id: 1, status: { code: 'ok' } }],
		['a numeric status 200', { id: 1, status: 200 }],
		['a numeric status 0', { id: 1, status: 0 }],
		['status true / null', { id: 1, status: true, state: null }],
		['data.status PENDING', { data: { id: 1, status: 'PENDING' } }],
		['a status list of good words', { id: 1, status: ['ACTIVE', 'LISTED'] }],
		['a venue state (geography)', { id: 1, venue: { state: 'NY' }, listing: { state: 'CA' } }],
		['a word that only holds a failure word', { id: 1, state: 'unfailed' }],
		['a message without a failure word', { id: 1, message: 'Listing created' }],
		['a nested message saying not found', { id: 1, tickets: [{ message: 'not found yet' }] }],
		['a number in a message', { id: 1, message: 'Listed 450 tickets' }],
		['a ticket not delivered yet', { id: 1, tickets: [{ delivered: false }] }],
		['result true', { id: 1, result: true }],
		['an address whose field name holds http', { id: 1, httpsCallback: 'https://x.test/errors' }],
	])('%s is evidence', (_name, body) => {
		expect(showsCreated(answer(body))).toBe(true);
	});

	it.each([
		['status FAILED', { id: 1, status: 'FAILED' }],
		['Status " failure "', { Status: ' failure ' }],
		['STATE error', { STATE: 'error' }],
		['st-ate (dashes ignored) errored', { 'st-ate': 'errored' }],
		['data.status rejected', { data: { id: 1, status: 'rejected' } }],
		['result.response.state refused', { result: { response: { state: 'REFUSED' } } }],
		['status as a one-word list ["failed"]', { id: 1, status: ['failed'] }],
		// Read on the safe side: the seller checks an unknown outcome, and nothing is sent again.
		['state FAILED_OVER', { id: 1, state: 'FAILED_OVER' }],
		['a nested order status', { id: 1, order: { status: 'FAILED' } }],
		['an HTTP error number in a status text', { id: 1, status: '400 BAD_REQUEST' }],
		['a result that is an HTTP error number', { id: 1, result: 500 }],
		['a message saying could not', { data: null, message: 'Listing could not be created' }],
		['a message saying cannot', { message: 'Cannot list: event closed' }],
		['a status BAD_REQUEST in an object', { status: { statusCode: 'BAD_REQUEST' } }],
		['a status NOT_FOUND', { id: 1, status: 'NOT_FOUND' }],
		['a status FORBIDDEN', { id: 1, status: 'FORBIDDEN' }],
		['a status UNAUTHORIZED', { id: 1, status: 'UNAUTHORIZED' }],
		['a status SERVICE_UNAVAILABLE', { id: 1, status: 'SERVICE_UNAVAILABLE' }],
		['Success "N"', { Success: 'N' }],
		['isSuccess false', { isSuccess: false }],
		['succeeded false', { id: 1, succeeded: false }],
		['created false', { created: false }],
		['rejectedFiles', { rejectedFiles: ['file1.pdf'] }],
	])('%s is no evidence', (_name, body) => {
		expect(showsCreated(answer(body))).toBe(false);
	});
});

describe('failures in other shapes', () => {
	// RFC 9457 problem details sent as plain application/json (a gateway or framework error page mapped to 200).
	it('a numeric HTTP error status in the body ({status: 400, title, detail}) is no evidence', () => {
		const body = {
			type: 'about:blank',
			title: 'Bad Request',
			status: 400,
			detail: 'Seat A-1 is not available',
		};
		expect(showsCreated(answer(body))).toBe(false);
	});

	it('{status: 500, message} (no code) is no evidence', () => {
		expect(showsCreated(answer({ status: 500, message: 'Internal Server Error' }))).toBe(false);
	});

	it('a status object that says it failed ({status: {code: "FAILED", message}}) is no evidence', () => {
		const body = { status: { code: 'FAILED', message: 'Seat A-1 is not available' } };
		expect(showsCreated(answer(body))).toBe(false);
	});

	it('a failed word inside a longer status ("VALIDATION_FAILED", "FAILED: seat taken", "DECLINED") is no evidence', () => {
		expect(showsCreated(answer({ status: 'VALIDATION_FAILED' }))).toBe(false);
		expect(showsCreated(answer({ status: 'FAILED: seat taken' }))).toBe(false);
		expect(showsCreated(answer({ status: 'DECLINED' }))).toBe(false);
	});

	it('an upload answer whose every ticket failed ({tickets: [{status: "FAILED"}]}) is no evidence of a delivery', () => {
		const body = {
			listingId: 9001,
			tickets: [
				{ row: 'E', seat: '151', status: 'FAILED', reason: 'not a ticket PDF' },
				{ row: 'E', seat: '152', status: 'FAILED', reason: 'not a ticket PDF' },
			],
		};
		expect(showsCreated(answer(body))).toBe(false);
	});

	it('a wrapper that is a list ({data: [{status: "error"}]}) is no evidence', () => {
		expect(
			showsCreated(answer({ data: [{ id: 1, status: 'error', message: 'seat taken' }] })),
		).toBe(false);
	});
});

it('a hostile answer nested without end is read without overflowing', () => {
	let deep: unknown = 'FAILED';
	for (let level = 0; level < 20_000; level++) deep = [deep];
	expect(() => showsCreated(answer({ id: 1, status: deep, success: deep }))).not.toThrow();
	expect(showsCreated(answer({ id: 1, success: false, status: deep }))).toBe(false);
});
