/**
 * The Partner API on nock, as most unit tests answer it: the token exchange, and a listing endpoint that creates
 * every listing it is sent. Tests that need other answers build their own scopes.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { PARTNER_API_PATHS } from '../nodes/shared/partnerApi/paths';
import { BASE } from './fakeN8n/actionContext';

/** The token exchange answers `times` requests (any query) with `token`. */
export function grantTokens(token: string, times = 1): nock.Scope {
	return nock(BASE)
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.times(times)
		.reply(200, { access_token: token });
}

/**
 * The listing endpoint creates each listing it is sent (up to `times`), with the id `L-<External Listing ID>`; the
 * bodies it was sent, in order, fill the array returned.
 */
export function acceptListings(times = 50): IDataObject[] {
	const bodies: IDataObject[] = [];
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(times)
		.reply((_uri, body) => {
			bodies.push(body as IDataObject);
			return [201, { id: `L-${String((body as IDataObject).externalListingId)}` }];
		});
	return bodies;
}

/** The listing endpoint answers its n-th request (from 1, with its body) by `answer`, a reply without headers as JSON;
 * the External Listing IDs received, in order. */
export function answerListings(
	answer: (count: number, body: IDataObject) => [number, unknown, Record<string, string>?],
	times = 20,
): number[] {
	const received: number[] = [];
	nock(BASE)
		.post(PARTNER_API_PATHS.listings)
		.times(times)
		.reply((_uri, body) => {
			received.push(Number((body as IDataObject).externalListingId));
			const [status, reply, headers] = answer(received.length, body as IDataObject);
			return [status, reply as nock.Body, headers ?? { 'Content-Type': 'application/json' }];
		});
	return received;
}

type Scripted = () => [number, unknown, Record<string, string>?];

/** The token exchange, for good: each login issues tok-1, tok-2, … into `valid` (a `grant` script answers first). */
export function issueTokens(valid: Set<string>, grant: Scripted[] = []) {
	const count = { grants: 0, logins: 0 };
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.reply(() => {
			count.grants++;
			const scripted = grant.shift();
			if (scripted) return scripted() as unknown as nock.ReplyFnResult;
			valid.add(`tok-${++count.logins}`);
			return [200, { access_token: `tok-${count.logins}` }];
		});
	return count;
}
type ListingEvent =
	| { kind: 'arrived'; id: number; token: string }
	| { kind: 'answered'; id: number };

/**
 * The API with tokens: `accepted` tokens create (each login issues tok-1, tok-2, …, unless `grant` scripts its
 * answers in turn), any other is refused 401; a listing is answered after `delay` ms (20 by default).
 */
export function tokenCheckingApi(
	accepted: string[],
	options: { delay?: (id: number, token: string) => number; grant?: Scripted[] } = {},
) {
	const valid = new Set(accepted);
	const events: ListingEvent[] = [];
	const created = new Map<number, number>();
	const exchanges = issueTokens(valid, options.grant);
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.listings)
		.reply(function (_uri, body, callback) {
			const token = String(this.req.headers.authorization).replace(/^Bearer /, '');
			const id = Number((body as IDataObject).externalListingId);
			events.push({ kind: 'arrived', id, token });
			const accepts = valid.has(token);
			if (accepts) created.set(id, (created.get(id) ?? 0) + 1);
			setTimeout(
				() => {
					events.push({ kind: 'answered', id });
					callback(null, accepts ? [201, { id }] : [401, { message: 'invalid token' }]);
				},
				options.delay?.(id, token) ?? 20,
			);
		});
	const arrivals = () =>
		events.filter(
			(event): event is Extract<ListingEvent, { kind: 'arrived' }> => event.kind === 'arrived',
		);
	return {
		created,
		arrivals,
		logins: () => exchanges.logins,
		grants: () => exchanges.grants,
		/** Requests that reached the API before its first answer. */
		beforeFirstAnswer: () => events.findIndex((event) => event.kind === 'answered'),
	};
}
