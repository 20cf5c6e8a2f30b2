/**
 * The fault oracle's Partner API: each listing request is answered with the next behaviour of a generated
 * list, and the API keeps what it saw and what it created, per run (runs are told apart by their consumer key and
 * so by their token).
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { basicAuthorization } from '../../nodes/shared/partnerApi/partnerApi';
import { PARTNER_API_PATHS } from '../../nodes/shared/partnerApi/paths';
import { API_CREDENTIALS, BASE } from '../fakeN8n/actionContext';
import { elapse } from './virtualClock';

export const LISTING_PATH = PARTNER_API_PATHS.listings;

/** What the fake API does with one listing request (17 behaviours and a slow answer). */
export const BEHAVIOURS = [
	'created',
	'slowCreated',
	'refused400',
	'rateLimited',
	'rateLimitedZero',
	'rateLimitedPast',
	'rateLimitedHuge',
	'serverErrorCreated',
	'serverErrorNotCreated',
	'resetBefore',
	'resetAfter',
	'redirect301',
	'redirect302',
	'redirect303',
	'redirect307',
	'redirect308',
	'echo',
	'tokenExpired',
] as const;
export type Behaviour = (typeof BEHAVIOURS)[number];

/** What the API does with a listing it already holds (the spec does not say): refuse it, or create it again. */
export type DuplicatePolicy = 'refuse' | 'create';

export interface ApiScenario {
	behaviours: Behaviour[];
	loginRefused: boolean;
	duplicates: DuplicatePolicy;
	/** Milliseconds each answer takes on the oracle's clock, cycled: the round trips adaptive pacing reads. */
	answerMs: number[];
	/** Event-loop turns (a millisecond each) before each slow answer, cycled: it overtakes store calls, or not. */
	slowTurns: number[];
}

/** The consumer key of each run: the API tells runs apart by it. */
export function consumerKeyOf(run: string): string {
	return `${API_CREDENTIALS.consumerKey}-${run}`;
}

type Count = Map<number, number>;
const bump = (counts: Count, id: number) => counts.set(id, (counts.get(id) ?? 0) + 1);

export class FakePartnerApi {
	/** Per run: how often each External Listing ID was received, and created. */
	readonly seen = new Map<string, Count>();
	readonly created = new Map<string, Count>();
	/** Every token issued, with the run it was issued to. */
	readonly tokens = new Map<string, string>();
	/** Token requests per run. */
	readonly logins = new Map<string, number>();
	/** Requests that reached another host (a redirect followed). */
	readonly elsewhere: string[] = [];
	private requests = 0;
	private slowAnswers = 0;

	constructor(
		private readonly scenario: ApiScenario,
		private readonly runs: string[],
		/** Called with each run's request number (1-based) as it arrives; the oracle stops runs from it. */
		private readonly onRequest: (run: string, requestNumber: number) => void = () => {},
		/** Called when a run sends one listing more often than any bounded retry may: the oracle stops that run. */
		private readonly onRunaway: (run: string) => void = () => {},
		private readonly maxAttempts = Number.POSITIVE_INFINITY,
	) {}

	get loginRefused(): boolean {
		return this.scenario.loginRefused;
	}

	/** How often the API holds each ID, over all runs. */
	held(): Count {
		const total: Count = new Map();
		for (const counts of this.created.values()) {
			for (const [id, count] of counts) total.set(id, (total.get(id) ?? 0) + count);
		}
		return total;
	}

	seenBy(run: string): Count {
		return this.seen.get(run) ?? new Map();
	}

	createdBy(run: string): Count {
		return this.created.get(run) ?? new Map();
	}

	private runOfBasic(authorization: string): string {
		const run = this.runs.find(
			(candidate) =>
				basicAuthorization(consumerKeyOf(candidate), API_CREDENTIALS.consumerSecret) ===
				authorization,
		);
		if (!run) throw new Error('token request from an unknown consumer key');
		return run;
	}

	private runOfBearer(authorization: string): string {
		const run = this.tokens.get(authorization.replace(/^Bearer /, ''));
		if (!run) throw new Error(`listing request with an unknown token`);
		return run;
	}

	intercept(): void {
		// Nock's reply functions see the request as `this.req`: captured here as `api` instead.
		// eslint-disable-next-line @typescript-eslint/no-this-alias
		const api = this;
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(function () {
				const run = api.runOfBasic(String(this.req.headers.authorization));
				api.logins.set(run, (api.logins.get(run) ?? 0) + 1);
				if (api.scenario.loginRefused)
					return [401, { error: 'invalid_grant', error_description: 'no' }];
				const token = `tok-oracle-${run}-${api.tokens.size + 1}-${'x'.repeat(8)}`;
				api.tokens.set(token, run);
				return [200, { access_token: token }];
			});
		nock(BASE)
			.persist()
			.post(LISTING_PATH)
			.reply(function (_uri, body, callback) {
				const run = api.runOfBearer(String(this.req.headers.authorization));
				api.answer(run, Number((body as IDataObject).externalListingId), callback);
			});
		// A followed redirect (GET after 301/302/303, POST after 307/308) would land here.
		for (const method of ['GET', 'POST']) {
			nock('https://elsewhere.example.test')
				.persist()
				.intercept(/.*/, method)
				.reply(function () {
					api.elsewhere.push(`${method} ${this.req.path}`);
					return [200, { listingId: 'followed' }];
				});
		}
	}

	private answer(
		run: string,
		id: number,
		callback: (error: NodeJS.ErrnoException | null, result: nock.ReplyFnResult) => void,
	): void {
		bump(this.seen.get(run) ?? this.seen.set(run, new Map()).get(run)!, id);
		if (this.seenBy(run).get(id)! > this.maxAttempts) this.onRunaway(run);
		const behaviour = this.scenario.behaviours[this.requests % this.scenario.behaviours.length];
		elapse(this.scenario.answerMs[this.requests % this.scenario.answerMs.length]);
		this.requests++;
		this.onRequest(
			run,
			[...this.seenBy(run).values()].reduce((sum, count) => sum + count, 0),
		);
		const duplicate = (this.held().get(id) ?? 0) > 0 && this.scenario.duplicates === 'refuse';
		const create = () => {
			if (duplicate) return false;
			bump(this.created.get(run) ?? this.created.set(run, new Map()).get(run)!, id);
			return true;
		};
		const reset = () =>
			callback(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), [0, '']);
		switch (behaviour) {
			case 'created':
				return create()
					? callback(null, [201, { listingId: `L-${id}` }])
					: callback(null, [400, { message: `externalListingId ${id} exists already` }]);
			case 'slowCreated':
				// Answered later, maybe after requests sent after it: answers come back out of order.
				if (!create())
					return callback(null, [400, { message: `externalListingId ${id} exists already` }]);
				return void this.later(
					this.scenario.slowTurns[this.slowAnswers++ % this.scenario.slowTurns.length],
					() => callback(null, [201, { listingId: `L-${id}` }]),
				);
			case 'refused400':
				return callback(null, [400, { message: 'invalid listing' }]);
			case 'rateLimited':
				return callback(null, [429, {}, { 'Retry-After': '1' }]);
			case 'rateLimitedZero':
				return callback(null, [429, {}, { 'Retry-After': '0' }]);
			case 'rateLimitedPast':
				return callback(null, [429, {}, { 'Retry-After': 'Thu, 01 Jan 2015 00:00:00 GMT' }]);
			case 'rateLimitedHuge':
				return callback(null, [429, {}, { 'Retry-After': '86400' }]);
			case 'serverErrorCreated':
				create();
				return callback(null, [502, { message: 'upstream' }]);
			case 'serverErrorNotCreated':
				return callback(null, [503, { message: 'busy' }]);
			case 'resetBefore':
				return reset();
			case 'resetAfter':
				create();
				return reset();
			case 'echo':
				return callback(null, [
					400,
					{
						message: `bad: ${API_CREDENTIALS.consumerSecret} ${API_CREDENTIALS.password} ${API_CREDENTIALS.email}`,
						echo: {
							tokens: [...this.tokens.keys()],
							keys: this.runs.map(consumerKeyOf),
							basic: this.runs.map((each) =>
								basicAuthorization(consumerKeyOf(each), API_CREDENTIALS.consumerSecret),
							),
							url: `q=${encodeURIComponent(API_CREDENTIALS.password)}`,
						},
					},
				]);
			case 'tokenExpired':
				// n8n renews the token and sends the request once more (the next behaviour answers it).
				return callback(null, [401, { message: 'token expired' }]);
			default: {
				const status = Number(behaviour.replace('redirect', ''));
				return callback(null, [status, '', { Location: 'https://elsewhere.example.test/x' }]);
			}
		}
	}

	/** After `turns` turns of the event loop, on the oracle's clock a millisecond each (no real timer). */
	private async later(turns: number, answer: () => void): Promise<void> {
		for (let turn = 0; turn < turns; turn++) await new Promise((resolve) => setImmediate(resolve));
		elapse(turns);
		answer();
	}

	/** Every credential value and token, in the encodings an echo may carry them in. */
	secrets(): string[] {
		return [
			API_CREDENTIALS.consumerSecret,
			API_CREDENTIALS.password,
			API_CREDENTIALS.email,
			encodeURIComponent(API_CREDENTIALS.password),
			...this.runs.flatMap((run) => [
				consumerKeyOf(run),
				basicAuthorization(consumerKeyOf(run), API_CREDENTIALS.consumerSecret).slice(
					'Basic '.length,
				),
			]),
			...this.tokens.keys(),
		];
	}
}
