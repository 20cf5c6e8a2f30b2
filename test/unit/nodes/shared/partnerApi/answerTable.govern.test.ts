/**
 * The answer table is the whole truth: every answer (every status of both endpoints, every way of getting none) is
 * one row, and what the transport and the token renewal do with it (retry, renew, stop, what became of the request)
 * is read from that row's fields. Each row's fields are flipped here in turn: a decision re-derived anywhere from a
 * status or a network code instead of the row would not follow the flip, and fails.
 */
import type { IN8nHttpFullResponse, INode } from 'n8n-workflow';

import {
	ANSWER_ROWS,
	meaningOf,
	readAnswer,
} from '../../../../../nodes/shared/partnerApi/answerTable';
import type {
	ApiRowName,
	Outcome,
	Retry,
	RowName,
} from '../../../../../nodes/shared/partnerApi/answerTable';
import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';
import { diagnoseTokenResponse } from '../../../../../nodes/shared/partnerApi/tokenDiagnosis';
import { failTokenExchange } from '../../../../../nodes/shared/partnerApi/pastN8n';
import {
	meaningOfFailure,
	settleFailure,
} from '../../../../../nodes/TicketMarketplace/transport/attempt';
import type {
	HttpFailure,
	RetryCounts,
} from '../../../../../nodes/TicketMarketplace/transport/attempt';
import { classifyFailure } from '../../../../../nodes/TicketMarketplace/transport/httpFailure';
import type { RequestPacer } from '../../../../../nodes/TicketMarketplace/transport/pacing';
import { TokenRenewal } from '../../../../../nodes/TicketMarketplace/transport/tokenRenewal';

const LISTINGS = PARTNER_API_PATHS.listings;
const BASE = 'https://api.example.test';
const node = {
	name: 'Ticket Marketplace',
	type: 'n8n-nodes-ticket-marketplace.ticketMarketplace',
} as INode;
const fault = (errorcode: string, faultstring: string) => ({
	fault: { faultstring, detail: { errorcode } },
});

type ApiRow = ApiRowName;

/** One failure per row of a request made with the token, and the path it went to: a new row needs one here. */
const SAMPLES: Record<ApiRow, [Partial<HttpFailure>, string?]> = {
	unreadableFile: [{ unreadableFile: true }],
	tokenExchange: [{ tokenExchange: { title: 'Login refused', description: 'Check it.' } }],
	connectionRefused: [{ code: 'ECONNREFUSED' }],
	requestNotBuilt: [{ code: 'ERR_INVALID_CHAR' }],
	failedAfterHanding: [{ handedOn: true }],
	connectionLost: [{ code: 'ECONNRESET' }],
	notSent: [{}],
	created: [{ status: 201, evidence: true } as Partial<HttpFailure>],
	unconfirmed: [{ status: 202, body: '' }],
	seeOther: [{ status: 302 }],
	redirected: [{ status: 307 }],
	unexpected: [{ status: 101 }],
	spikeTooSlow: [{ status: 429, spikeIntervalMs: 120_000 }],
	waitTooLong: [{ status: 429, retryAfterMs: 3_600_000 }],
	freshTokenRefused: [{ status: 401, refusedAfterRenewal: true }],
	renewalsExhausted: [{ status: 401, renewalsExhausted: 3 }],
	quota: [
		{ status: 429, body: fault('policies.ratelimit.QuotaViolation', 'Rate limit quota violation') },
	],
	spikeArrest: [
		{
			status: 500,
			body: fault('policies.ratelimit.SpikeArrestViolation', 'Spike arrest violation'),
		},
	],
	noApiProduct: [
		{
			status: 403,
			body: fault(
				'keymanagement.service.InvalidAPICallAsNoApiProductMatchFound',
				'no apiproduct match',
			),
		},
	],
	tokenRefused: [{ status: 401 }],
	forbidden: [{ status: 403 }],
	tooLarge: [{ status: 413 }, `${PARTNER_API_PATHS.preDeliver}/55`],
	noSuchListing: [{ status: 404 }, `${PARTNER_API_PATHS.preDeliver}/55`],
	alreadyListed: [{ status: 409, body: { description: 'External listing ID 7 already exists' } }],
	uploadConflict: [{ status: 409 }, `${PARTNER_API_PATHS.preDeliver}/55`],
	conflict: [{ status: 409 }],
	notFound: [{ status: 405 }],
	tooManyRequests: [{ status: 429 }],
	unavailable: [{ status: 503 }],
	serverError: [{ status: 502 }],
	refused: [{ status: 400 }],
};

const failureOf = (name: ApiRow): [HttpFailure, string] => {
	const [sample, path = LISTINGS] = SAMPLES[name];
	const { evidence: _evidence, ...rest } = sample as Partial<HttpFailure> & { evidence?: boolean };
	return [{ headers: {}, message: 'failed', ...rest }, path];
};

const context = (path: string) => ({
	method: 'POST',
	path,
	baseUrl: BASE,
	itemIndex: 0,
	rateLimitAnswers: 1,
	connectionRetries: 0,
	createsId: 7,
});

/** The row named so at an endpoint, to flip its fields for one test (restored after). */
function rowNamed(endpoint: 'api' | 'token', name: RowName) {
	const row = ANSWER_ROWS[endpoint].find((candidate) => candidate.name === name);
	if (!row) throw new Error(`no row ${name}`);
	return row as { outcome: Outcome; retry: Retry; stopsRun: boolean };
}

function flipped<T>(endpoint: 'api' | 'token', name: RowName, fields: object, run: () => T): T {
	const row = rowNamed(endpoint, name);
	const saved = { ...row };
	Object.assign(row, fields);
	try {
		return run();
	} finally {
		Object.assign(row, saved);
	}
}

async function flippedWhile<T>(
	endpoint: 'api' | 'token',
	name: RowName,
	fields: object,
	run: () => Promise<T>,
): Promise<T> {
	const row = rowNamed(endpoint, name);
	const saved = { ...row };
	Object.assign(row, fields);
	try {
		return await run();
	} finally {
		Object.assign(row, saved);
	}
}

describe('every answer is one row', () => {
	it.each(['api', 'token'] as const)(
		'each status from 100 to 599 at the %s endpoint has a row',
		(endpoint) => {
			const names = ANSWER_ROWS[endpoint].map((row) => row.name);
			expect(new Set(names).size).toBe(names.length);
			for (let status = 100; status < 600; status++) {
				const meaning = meaningOf(readAnswer(status, {}, ''), { endpoint, path: LISTINGS });
				expect(names).toContain(meaning.row);
			}
		},
	);

	it('reads each failure of a request made with the token as the row it stands for, once', () => {
		for (const name of Object.keys(SAMPLES) as ApiRow[]) {
			if (name === 'created') continue;
			const [failure, path] = failureOf(name);
			expect([name, meaningOfFailure(failure, { path, createsId: 7 }).row]).toEqual([name, name]);
		}
		const names = ANSWER_ROWS.api.map((row) => row.name).sort();
		expect(names).toEqual(Object.keys(SAMPLES).sort());
	});

	it('reads every way of getting no answer as a row that says whether anything was sent', () => {
		for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'ERR_INVALID_URL', '']) {
			const meaning = meaningOfFailure(
				{ headers: {}, message: 'x', code: code || undefined },
				{ path: LISTINGS },
			);
			expect(['connectionRefused', 'connectionLost', 'notSent']).toContain(meaning.row);
		}
	});
});

describe('retry, stopping and the outcome read the row, nothing else', () => {
	const counts = (): RetryCounts => ({
		rateLimitRetries: 0,
		connectionRetries: 0,
		rateLimitAnswers: 0,
	});
	const decisions = (name: ApiRow) => {
		const [failure, path] = failureOf(name);
		failure.meaning = meaningOfFailure(failure, { path, createsId: 7 });
		const { effect } = classifyFailure(node, { ...failure }, context(path));
		// Stopping every send closes the run's pacer.
		const pacer = { close: jest.fn() };
		const waitMs = settleFailure(failure, counts(), Date.now(), pacer as unknown as RequestPacer);
		return {
			retried: waitMs !== undefined,
			stops: pacer.close.mock.calls.length > 0,
			effect,
		};
	};
	// The rows whose meaning is the run's own reading of a wait (retryWaitMs turns a rate refusal into them).
	const rows = (Object.keys(SAMPLES) as ApiRow[]).filter((name) => name !== 'created');

	it.each(rows)('%s: as its row says, and as the row says once flipped', (name) => {
		const row = rowNamed('api', name);
		expect(decisions(name)).toEqual({
			retried: row.retry === 'rateLimit' || row.retry === 'reconnect',
			stops: row.stopsRun,
			effect: row.outcome,
		});
		const retry: Retry = row.retry === 'no' ? 'reconnect' : 'no';
		const outcome: Outcome = row.outcome === 'notCreated' ? 'unknown' : 'notCreated';
		const flip = { retry, stopsRun: !row.stopsRun, outcome };
		expect(flipped('api', name, flip, () => decisions(name))).toEqual({
			retried: retry === 'reconnect',
			stops: !row.stopsRun,
			effect: outcome,
		});
	});

	it('a newcomer\'s "treat 202 as created" is one row', () => {
		const [failure, path] = failureOf('unconfirmed');
		const as = () => classifyFailure(node, { ...failure }, context(path)).effect;
		expect(as()).toBe('unknown');
		expect(flipped('api', 'unconfirmed', { outcome: 'created' }, as)).toBe('created');
	});
});

describe('the token renewal reads the row', () => {
	const answer = (statusCode: number, body: object = {}): IN8nHttpFullResponse => ({
		statusCode,
		headers: {},
		body: body as IN8nHttpFullResponse['body'],
	});

	/** A 401 to the request that carried a new token: no expiry, unless its row says no renewal mends it. */
	async function refusedAfterRenewal(): Promise<boolean | undefined> {
		const renewal = new TokenRenewal({ accessToken: '' });
		const sent = await renewal.send(async () => answer(401));
		return sent.kind === 'response' ? sent.refusedAfterRenewal : undefined;
	}

	it('reads a 401 as a refused token where its row says a renewal mends it, and only there', async () => {
		expect(await refusedAfterRenewal()).toBe(true);
		expect(await flippedWhile('api', 'tokenRefused', { retry: 'no' }, refusedAfterRenewal)).toBe(
			false,
		);
	});

	async function loginsAfter502(): Promise<number> {
		const credential: Record<string, unknown> = { accessToken: '' };
		const renewal = new TokenRenewal(credential as never);
		let logins = 0;
		await renewal.send(async () => {
			logins++;
			const response = answer(502, { message: 'Bad Gateway' });
			throw failTokenExchange(credential, diagnoseTokenResponse(BASE, response), { status: 502 });
		});
		return logins;
	}

	it('logs in again after a token endpoint failure as its row says, and only then', async () => {
		expect(await loginsAfter502()).toBe(4);
		expect(
			await flippedWhile('token', 'tokenEndpointFailed', { retry: 'no' }, loginsAfter502),
		).toBe(1);
	});
});
