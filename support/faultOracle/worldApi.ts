/**
 * The widened fault oracle's Partner API: each listing request and each token request is answered with the next
 * answer of a generated script (status, body shape, Retry-After, whether the API created the listing), and the API
 * keeps what it holds per marketplace account (listings, seats per event), every token it issued and whether it
 * still accepts it, and a timeline of what arrived when (so that the invariants can read its state once every send
 * has ended). Runs are told apart by their consumer key (as in fakePartnerApi), accounts by the login's e-mail.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { basicAuthorization } from '../../nodes/shared/partnerApi/partnerApi';
import { PARTNER_API_PATHS } from '../../nodes/shared/partnerApi/paths';
import { GATEWAY_FAULT, gatewayFaultBody, spikeArrestFault } from '../../sandbox/answers';
import { BASE } from '../fakeN8n/actionContext';
import { elapse } from './virtualClock';

export const ACCOUNTS = ['a1', 'a2'] as const;
export type Account = (typeof ACCOUNTS)[number];

/** Credential values chosen so that each encoding (URL, form, HTML, JSON) writes them differently. */
export function accountCredentials(account: Account, run: string) {
	return {
		consumerKey: `ck-world-${account}-${run}`,
		consumerSecret: `cs world+${account}&<secret>`,
		email: `seller+${account}@example.test`,
		password: `pass word&<${account}>"quoted"`,
	};
}

/** The spellings of one Base URL a seller may type: one API behind all of them. */
export const BASE_URL_SPELLINGS = [`${BASE}/`, 'https://PARTNER.API.TEST', `${BASE}:443`] as const;

export const STATUSES = [
	200, 201, 202, 204, 301, 302, 303, 307, 308, 400, 401, 403, 404, 409, 413, 422, 429, 500, 502,
	503, 504,
] as const;
export type Status = (typeof STATUSES)[number] | 'resetBefore' | 'resetAfter';

export const BODY_SHAPES = [
	'listingId',
	'object',
	'array',
	'string',
	'empty',
	'html',
	'huge',
	'nested',
	'echoValue',
	'echoKey',
	'echoUrl',
	'echoForm',
	'echoHtml',
] as const;
export type BodyShape = (typeof BODY_SHAPES)[number];

export type RetryAfter =
	| { kind: 'absent' }
	| { kind: 'seconds'; value: string }
	| { kind: 'datePast' }
	| { kind: 'dateFuture'; seconds: number };

/**
 * The gateway's own refusals (Apigee's rate policies, as the sandbox sends them), and near-misses that only look
 * like them. A gateway fault is answered before the listing service sees the request: nothing is created. A
 * near-miss is a failure of the listing service (or a page in front of it) whose words merely mention a spike arrest
 * or a quota: it may have created the listing.
 */
export type GatewayFault =
	| { kind: 'spikeArrest'; status: 500 | 429; rate: 'none' | 'perSecond' | 'messageRate' }
	| { kind: 'quota'; status: 500 | 429 }
	| { kind: 'nearMiss'; body: 'systemErrorSpike' | 'systemErrorQuota' | 'htmlSpike' };

/** The rate a spike arrest's fault names, in each spelling Apigee uses (none: "Allowed rate : " and nothing). */
const SPIKE_RATES = {
	none: '',
	perSecond: '40ps',
	messageRate:
		'MessageRate{messagesPerPeriod=300, periodInMicroseconds=60000000, maxBurstMessageCount=30.0}',
} as const;

/** A gateway fault's status and body, as the gateway (or, for a near-miss, the listing service) sends it. */
function gatewayAnswer(fault: GatewayFault): { status: 429 | 500; body: unknown; html: boolean } {
	switch (fault.kind) {
		case 'spikeArrest':
			return {
				status: fault.status,
				body: gatewayFaultBody(spikeArrestFault(SPIKE_RATES[fault.rate])),
				html: false,
			};
		case 'quota':
			return { status: fault.status, body: gatewayFaultBody(GATEWAY_FAULT.quota), html: false };
		case 'nearMiss':
			switch (fault.body) {
				case 'systemErrorSpike':
					return {
						status: 500,
						body: {
							code: 'inventory.listings.systemError',
							description:
								'System error while the listing was saved (a spike arrest of the seat service)',
						},
						html: false,
					};
				case 'systemErrorQuota':
					return {
						status: 500,
						body: {
							code: 'inventory.listings.systemError',
							description: 'System error: the inventory quota check timed out',
						},
						html: false,
					};
				case 'htmlSpike':
					return {
						status: 500,
						body: '<html><body><h1>Internal Server Error</h1><p>Upstream spike arrest monitor failed</p></body></html>',
						html: true,
					};
			}
	}
}

/**
 * One answer of the listing endpoint. `creates` is what the API did (only where the status leaves it open: a 2xx
 * without evidence, a 500, 502 or 504; never a 503, which HTTP defines as not handled).
 */
export interface ListingAnswer {
	status: Status;
	body: BodyShape;
	retryAfter: RetryAfter;
	creates: boolean;
	/** Event-loop turns before the answer: requests overlap and answers come back out of order. */
	delayTurns: number;
	/** A 401 that persists: the app lacks the listing product, a fresh token does not help. */
	persistent401: boolean;
	/** The gateway's fault (or a near-miss) instead of `status` and `body`. */
	gateway?: GatewayFault;
}

export type TokenAnswer =
	| { kind: 'ok'; delayTurns: number; revokesPrevious: boolean }
	| { kind: 'rateLimited'; retryAfter: RetryAfter }
	| { kind: 'serverError'; status: 500 | 502 | 503 }
	| { kind: 'noAccessToken' }
	| { kind: 'refused' };

/** A definitive refusal of a listing by the listing endpoint: the API did not and will not create it. */
export const DEFINITIVE_REFUSALS = new Set<Status>([400, 403, 404, 413, 422]);

export interface ListingArrival {
	run: string;
	/** The Retry On Fail attempt of the run (1 for the first execution of the node). */
	attempt: number;
	account: Account;
	id: number;
	at: number;
	status: Status;
	created: boolean;
	/** The answer proves the creation (a 200 or 201 with a JSON object, served as JSON). */
	evidence: boolean;
	/** A 401 because the app lacks the listing product (a fresh token does not help). */
	persistent401: boolean;
	/**
	 * A 401 to a token issued to this run's attempt that no answer had accepted yet: to the node that is the API
	 * refusing a token it just issued, whatever the reason (an immediate expiry, a revocation, a missing product).
	 */
	freshToken401: boolean;
	seats: string[];
	eventId: number;
	/** The answer was a gateway fault (nothing created) or a near-miss (a 500 that may have created it). */
	gateway?: GatewayFault['kind'];
	/** The API's clock when the answer left (after its delay). */
	answeredAt: number;
}

/** A seat as a person reads it: compatibility-normalised, invisible characters removed. */
export function seatKey(row: unknown, seat: unknown): string {
	const clean = (value: unknown) =>
		String(value ?? '')
			.normalize('NFKC')
			.replace(/[\u200b-\u200d\u2060\ufeff\u00ad]/g, '')
			.trim()
			.toUpperCase();
	return `${clean(row)}|${clean(seat)}`;
}

const tick = async () => await new Promise<void>((resolve) => setImmediate(resolve));

function nestedBody(depth: number): string {
	return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

export class WorldApi {
	/** The API's clock: every arrival ticks it. */
	clock = 0;
	readonly arrivals: ListingArrival[] = [];
	/** Per account: how often the API holds each ID (a deleted listing is taken out). */
	readonly held = new Map<Account, Map<number, number>>(ACCOUNTS.map((a) => [a, new Map()]));
	/** Token requests: run, when, what was answered. */
	readonly tokenRequests: Array<{
		run: string;
		attempt: number;
		at: number;
		answer: TokenAnswer['kind'];
	}> = [];
	/** Every token issued: to whom (run and attempt), whether the API still takes it, answers other than 401. */
	readonly tokens = new Map<
		string,
		{
			run: string;
			attempt: number;
			account: Account;
			valid: boolean;
			uses: number;
			accepted: number;
		}
	>();
	/** Per run: how often another run's login revoked its token (each may take one renewal). */
	readonly revokedByOthers = new Map<string, number>();
	/** Tokens the API expired by answering 401 (one per expiry event), per run. */
	readonly expiries = new Map<string, number>();
	/** Requests that reached another host (a redirect followed). */
	readonly elsewhere: string[] = [];
	/** Runs that have ended, with the clock at their end: nothing of theirs may arrive later. */
	readonly ended = new Map<string, number>();
	readonly afterEnd: string[] = [];
	/** Where an answer's handling failed in the fake itself (a bug of the oracle, reported as such). */
	readonly oracleErrors: string[] = [];
	/** In a probe, listings are recorded and answered 201 but the API's holdings do not change. */
	probe: { seen: Array<{ account: Account; id: number }> } | undefined;
	/** The Retry On Fail attempt each run is in (set by the oracle). */
	readonly currentAttempt = new Map<string, number>();
	/** Listings the user deleted on the marketplace (before forgetting them). */
	readonly deletions: Array<{ account: Account; id: number; at: number }> = [];
	private listingAnswerIndex = 0;
	private tokenAnswerIndex = 0;

	constructor(
		private readonly listingAnswers: ListingAnswer[],
		private readonly tokenAnswers: TokenAnswer[],
		/** Which runs are whose: a run's consumer key names it. */
		private readonly runAccounts: Map<string, Account>,
		/** Told of each arrival (the oracle stops runs from it). */
		private readonly onArrival: (run: string, kind: 'token' | 'listing') => void,
		/** What the API does with a listing it holds already: answer 409 (as the sandbox does) or create it again. */
		private readonly duplicates: 'conflict' | 'create',
		/** Listing requests a token serves before it expires (the expiry a long run meets); undefined: never. */
		private readonly tokenLifetime?: number,
	) {}

	heldBy(account: Account): Map<number, number> {
		return this.held.get(account)!;
	}

	private runOfBasic(authorization: string): string {
		for (const [run, account] of this.runAccounts) {
			const { consumerKey, consumerSecret } = accountCredentials(account, run);
			if (basicAuthorization(consumerKey, consumerSecret) === authorization) return run;
		}
		throw new Error('token request from an unknown consumer key');
	}

	/** Every credential value and token, as typed (the scan derives the encodings). */
	secrets(): string[] {
		return [
			...[...this.runAccounts].flatMap(([run, account]) => {
				const values = accountCredentials(account, run);
				return [
					values.consumerSecret,
					values.password,
					basicAuthorization(values.consumerKey, values.consumerSecret).slice('Basic '.length),
				];
			}),
			...this.tokens.keys(),
		];
	}

	private echo(shape: BodyShape, token: string, run: string): unknown {
		const account = this.runAccounts.get(run)!;
		const { password, consumerSecret } = accountCredentials(account, run);
		const html = (text: string) =>
			text
				.replace(/&/g, '&amp;')
				.replace(/</g, '&lt;')
				.replace(/>/g, '&gt;')
				.replace(/"/g, '&quot;');
		switch (shape) {
			case 'echoValue':
				return { message: `login ${password} with ${consumerSecret}`, token };
			case 'echoKey':
				return { [password]: 'was the password', [token]: 'token', [consumerSecret]: 1 };
			case 'echoUrl':
				return { query: `password=${encodeURIComponent(password)}&t=${encodeURIComponent(token)}` };
			case 'echoForm':
				return { form: new URLSearchParams({ password, secret: consumerSecret }).toString() };
			case 'echoHtml':
				return `<html><body>${html(password)} ${html(consumerSecret)}</body></html>`;
			default:
				return undefined;
		}
	}

	private body(
		shape: BodyShape,
		id: number,
		token: string,
		run: string,
	): { body: unknown; html: boolean } {
		switch (shape) {
			case 'listingId':
				return { body: { listingId: `L-${id}`, externalListingId: id }, html: false };
			case 'object':
				return { body: { status: 'queued', reference: `q-${id}` }, html: false };
			case 'array':
				return { body: [{ listing: `L-${id}` }, 'second'], html: false };
			case 'string':
				return { body: JSON.stringify('ok'), html: false };
			case 'empty':
				return { body: '', html: false };
			case 'html':
				return { body: '<html><body><h1>Down for maintenance</h1></body></html>', html: true };
			case 'huge':
				return {
					body: { message: 'x'.repeat(300_000), items: new Array(2000).fill(id) },
					html: false,
				};
			case 'nested':
				return { body: nestedBody(20_000), html: false };
			default: {
				const echoed = this.echo(shape, token, run);
				return { body: echoed, html: typeof echoed === 'string' };
			}
		}
	}

	private retryAfterHeader(retryAfter: RetryAfter): Record<string, string> {
		switch (retryAfter.kind) {
			case 'absent':
				return {};
			case 'seconds':
				return { 'Retry-After': retryAfter.value };
			case 'datePast':
				return { 'Retry-After': 'Thu, 01 Jan 2015 00:00:00 GMT' };
			case 'dateFuture':
				return {
					'Retry-After': new Date(Date.now() + retryAfter.seconds * 1000).toUTCString(),
				};
		}
	}

	intercept(): void {
		// Nock's reply functions see the request as `this.req`: captured here as `api` instead.
		// eslint-disable-next-line @typescript-eslint/no-this-alias
		const api = this;
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.grant)
			.query(true)
			.reply(function (_uri, body, callback) {
				api.answerToken(String(this.req.headers.authorization), body as IDataObject).then(
					(result) => callback(null, result),
					(error: Error) => callback(error, [0, '']),
				);
			});
		nock(BASE)
			.persist()
			.post(PARTNER_API_PATHS.listings)
			.reply(function (_uri, body, callback) {
				api.answerListing(String(this.req.headers.authorization), body as IDataObject).then(
					(result) => callback(null, result),
					(error: NodeJS.ErrnoException) => callback(error, [0, '']),
				);
			});
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

	private noteIfEnded(run: string, what: string): void {
		if (this.ended.has(run)) this.afterEnd.push(`${what} of run ${run} after it ended`);
	}

	private async answerToken(authorization: string, body: IDataObject): Promise<nock.ReplyFnResult> {
		const at = ++this.clock;
		const run = this.runOfBasic(authorization);
		const account = this.runAccounts.get(run)!;
		this.noteIfEnded(run, 'a token request');
		if (body?.username !== accountCredentials(account, run).email)
			this.oracleErrors.push(`token request of run ${run} with another account's login`);
		// The script is played once; after it, the token endpoint works.
		const scripted = this.probe ? undefined : this.tokenAnswers[this.tokenAnswerIndex++];
		const answer: TokenAnswer = scripted ?? {
			kind: 'ok',
			delayTurns: 0,
			revokesPrevious: false,
		};
		const attempt = this.currentAttempt.get(run) ?? 1;
		this.tokenRequests.push({ run, attempt, at, answer: answer.kind });
		this.onArrival(run, 'token');
		switch (answer.kind) {
			case 'ok': {
				for (let turn = 0; turn < answer.delayTurns; turn++) await tick();
				if (answer.revokesPrevious) {
					for (const held of this.tokens.values()) {
						if (held.account !== account || !held.valid) continue;
						held.valid = false;
						if (held.run !== run)
							this.revokedByOthers.set(held.run, (this.revokedByOthers.get(held.run) ?? 0) + 1);
					}
				}
				const token = `tok-world-${account}-${this.tokens.size + 1}-${'z'.repeat(8)}`;
				this.tokens.set(token, { run, attempt, account, valid: true, uses: 0, accepted: 0 });
				return [200, { access_token: token, token_type: 'bearer', expires_in: 3600 }];
			}
			case 'rateLimited':
				return [429, { error: 'too_many_requests' }, this.retryAfterHeader(answer.retryAfter)];
			case 'serverError':
				return [answer.status, '<html>bad gateway</html>', { 'Content-Type': 'text/html' }];
			case 'noAccessToken':
				return [200, { token_type: 'bearer' }];
			case 'refused':
				return [401, { error: 'invalid_grant', error_description: 'bad credentials' }];
		}
	}

	private async answerListing(
		authorization: string,
		body: IDataObject,
	): Promise<nock.ReplyFnResult> {
		const at = ++this.clock;
		const token = authorization.replace(/^Bearer /, '');
		const issued = this.tokens.get(token);
		if (!issued) {
			this.oracleErrors.push(`listing request with an unknown token "${token.slice(0, 12)}"`);
			return [401, { message: 'unknown token' }];
		}
		const id = Number(body.externalListingId);
		const products = (body.products ?? []) as IDataObject[];
		// A stored token serves later runs of the account too: the run is named in its tickets' ids.
		const run = String(products[0]?.externalId ?? '').split('~')[0];
		const account = this.runAccounts.get(run);
		if (!account || account !== issued.account) {
			this.oracleErrors.push(
				`listing request of run "${run}" with a token of account ${issued.account}`,
			);
			return [401, { message: 'token of another account' }];
		}
		if (this.probe) {
			this.probe.seen.push({ account, id });
			return [201, { listingId: `probe-${id}` }];
		}
		this.noteIfEnded(run, 'a listing request');
		const seats = products
			.filter((product) => product.seat !== undefined && product.seat !== '')
			.map((product) => seatKey(product.row, product.seat));
		const eventId = Number(body.eventId);
		this.onArrival(run, 'listing');
		const attempt = this.currentAttempt.get(run) ?? 1;
		const record = (
			status: Status,
			created: boolean,
			evidence = false,
			persistent401 = false,
			gateway?: GatewayFault['kind'],
		) => {
			const freshToken401 =
				status === 401 && issued.run === run && issued.attempt === attempt && issued.accepted === 0;
			// Any HTTP answer but a 401 tells the node the token works (a reset is no answer).
			if (typeof status === 'number' && status !== 401) issued.accepted++;
			this.arrivals.push({
				run,
				attempt,
				account,
				id,
				at,
				status,
				created,
				evidence,
				persistent401,
				freshToken401,
				seats,
				eventId,
				...(gateway && { gateway }),
				answeredAt: this.clock,
			});
		};
		issued.uses++;
		if (issued.valid && this.tokenLifetime !== undefined && issued.uses > this.tokenLifetime) {
			issued.valid = false;
			this.expiries.set(issued.run, (this.expiries.get(issued.run) ?? 0) + 1);
		}
		if (!issued.valid) {
			record(401, false);
			return [401, { message: 'invalid token' }];
		}
		const answer = this.listingAnswers[this.listingAnswerIndex++ % this.listingAnswers.length];
		if (answer.status === 401 && answer.persistent401) {
			record(401, false, false, true);
			return [401, { message: 'app has no access to this API product' }];
		}
		for (let turn = 0; turn < answer.delayTurns; turn++) await tick();
		// A turn of delay is a millisecond of latency: the round trips adaptive pacing reads.
		elapse(answer.delayTurns);
		if (answer.gateway && answer.gateway.kind !== 'nearMiss') {
			// The gateway refused it before the listing service saw it: nothing created, whatever the service holds.
			const fault = gatewayAnswer(answer.gateway);
			record(fault.status, false, false, false, answer.gateway.kind);
			return [fault.status, fault.body as nock.Body];
		}
		const heldNow = (this.heldBy(account).get(id) ?? 0) > 0;
		if (heldNow && this.duplicates === 'conflict') {
			record(409, false);
			return [409, { message: `externalListingId ${id} already exists` }];
		}
		const create = () => {
			this.heldBy(account).set(id, (this.heldBy(account).get(id) ?? 0) + 1);
		};
		const status = answer.status;
		if (status === 'resetBefore' || status === 'resetAfter') {
			if (status === 'resetAfter') create();
			record(status, status === 'resetAfter');
			const code = status === 'resetAfter' ? 'ECONNRESET' : 'ECONNREFUSED';
			throw Object.assign(new Error(code === 'ECONNRESET' ? 'socket hang up' : 'connect refused'), {
				code,
			});
		}
		if (status === 401) {
			// The token expired at this request: the API takes no request carrying it from now on.
			issued.valid = false;
			this.expiries.set(issued.run, (this.expiries.get(issued.run) ?? 0) + 1);
			record(401, false);
			return [401, { message: 'token expired' }];
		}
		if (status === 409) {
			// A 409 is answered only for a listing the API holds (above); here it stands for a refusal.
			record(400, false);
			return [400, { message: 'invalid listing' }];
		}
		if (answer.gateway) {
			// A near-miss: the listing service failed (it may have created the listing); its words mention a limit.
			const nearMiss = gatewayAnswer(answer.gateway);
			if (answer.creates) create();
			record(nearMiss.status, answer.creates, false, false, 'nearMiss');
			return [
				nearMiss.status,
				nearMiss.body as nock.Body,
				nearMiss.html ? { 'Content-Type': 'text/html' } : {},
			];
		}
		const { body: answerBody, html } = this.body(answer.body, id, token, run);
		const headers: Record<string, string> = {
			...(html ? { 'Content-Type': 'text/html' } : {}),
			...(status === 429 ? this.retryAfterHeader(answer.retryAfter) : {}),
			...(status >= 300 && status < 400 ? { Location: 'https://elsewhere.example.test/x' } : {}),
		};
		let created = false;
		let evidence = false;
		if (status >= 200 && status < 300) {
			// The package's rule for an API whose listing answer is not documented: a 200 or 201 with a JSON object
			// (nock marks an object body as JSON; a string body goes without a Content-Type) is a created listing. An
			// API that answers so without creating is outside that rule, so it is not generated; any other 2xx may or
			// may not have created it.
			const jsonObject =
				!html &&
				typeof answerBody === 'object' &&
				answerBody !== null &&
				!Array.isArray(answerBody);
			evidence = (status === 200 || status === 201) && jsonObject;
			created = evidence || answer.creates;
		}
		// A 503 was not handled (RFC 9110; a gateway's maintenance page): it never creates. Other 5xx may.
		else if (status >= 500 && status !== 503) created = answer.creates;
		if (created) create();
		record(status, created, evidence);
		if (status === 204) return [204, ''];
		return [status, answerBody as nock.Body, headers];
	}

	/** The user deleted the listing on the marketplace (before forgetting it). */
	delete(account: Account, id: number): void {
		if (this.heldBy(account).delete(id)) this.deletions.push({ account, id, at: ++this.clock });
	}
}
