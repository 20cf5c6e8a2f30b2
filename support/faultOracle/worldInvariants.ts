/**
 * The widened fault oracle's invariants, read once every send has ended: from the API's state (what it holds, what
 * arrived, which tokens it issued), from the probe runs (what the memory holds), from every output item and every
 * field of every thrown error. A broken invariant throws, naming it (the `W-…` names are what the table of known
 * cases refers to).
 *
 * How an output item says what became of its listing is read in ONE place, `readOutcome`, which accepts today's
 * words and the plausible new ones ("unknown", "already listed"); a change of the node's words is adapted there.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { RETRY_POLICY } from '../../nodes/TicketMarketplace/transport';
import { MAX_RENEWALS_PER_RUN } from '../../nodes/TicketMarketplace/transport/tokenRenewal';
import type { Attempt, CreateStep, StepResult, WorldRecord, WorldScenario } from './world';
import { DEFINITIVE_REFUSALS, seatKey } from './worldApi';
import type { Account, ListingArrival } from './worldApi';

export type Outcome =
	| 'created'
	| 'alreadyListed'
	| 'skipped'
	| 'unknown'
	| 'refused'
	| 'notSent'
	| 'invalid'
	| 'blank';

// ---------------------------------------------------------------------------------------------------------------
// The adapter: the node's words → outcomes. The only function that reads the words of an output item.

const WORDS: Record<string, Outcome> = {
	created: 'created',
	alreadylisted: 'alreadyListed',
	alreadyexists: 'alreadyListed',
	conflict: 'alreadyListed',
	skipped: 'skipped',
	unknown: 'unknown',
	outcomeunknown: 'unknown',
	mayhavebeencreated: 'unknown',
	refused: 'refused',
	notcreated: 'refused',
	notsent: 'notSent',
	invalid: 'invalid',
	blank: 'blank',
};

const word = (value: unknown) =>
	typeof value === 'string' ? WORDS[value.toLowerCase().replace(/[^a-z]/g, '')] : undefined;

/** A failure's words (the per-row `listingError`, or a per-listing error item). */
function failureOutcome(detail: IDataObject): Outcome {
	const text = `${String(detail.error ?? '')} ${String(detail.message ?? '')}`;
	if (detail.mayHaveBeenCreated === true || /may have been created|outcome unknown/i.test(text))
		return 'unknown';
	if (/already (listed|exists|held)/i.test(text) && !/already sent by this workflow/i.test(text))
		return 'alreadyListed';
	if (/failed validation/i.test(text)) return 'invalid';
	if (/^not sent/i.test(String(detail.error ?? '')) || /\bnot sent\b/i.test(text)) return 'notSent';
	return 'refused';
}

export function readOutcome(
	json: IDataObject,
	settings: { output: 'listing' | 'row'; onError: string },
): Outcome {
	// n8n's error output: the json is exactly { error, message }.
	if (
		settings.onError === 'continueErrorOutput' &&
		Object.keys(json).sort().join() === 'error,message'
	)
		return failureOutcome(json);
	if (settings.output === 'row') {
		const said = word(json.listingStatus);
		if (said && said !== 'refused') {
			if (said === 'skipped' && /outcome unknown|may have been created/i.test(JSON.stringify(json)))
				return 'unknown';
			return said;
		}
		return failureOutcome((json.listingError ?? json) as IDataObject);
	}
	// Per listing: a created listing is the API's own answer, whatever keys it has; the node's items say a status.
	const said =
		word(json.listingStatus) ??
		(json.externalListingId !== undefined ? word(json.status) : undefined);
	if (said === 'skipped' && /outcome unknown|may have been created/i.test(String(json.message)))
		return 'unknown';
	if (said) return said;
	if (json.error !== undefined || json.mayHaveBeenCreated !== undefined)
		return failureOutcome(json);
	return 'created';
}

/** The run said the memory of listings sent failed (so what it remembers is not promised). */
export function saysMemoryFailed(text: string): boolean {
	return /memory of listings already sent could not be used/i.test(text);
}

/**
 * The run named this ID as remembered although not created (the user was told to forget it). A list names its
 * first IDs and counts the rest ("1, 2 and 3", "1, 2, …, 10 and 390 more"): a count names no ID.
 */
export function namesAsRemembered(text: string, id: number): boolean {
	return [...text.matchAll(/remembered as sent[^:]*: ([^.]*)/g)].some(([, list]) =>
		new RegExp(`\\b${id}\\b`).test(list.replace(/\band \d+ more\b/g, '')),
	);
}

// ---------------------------------------------------------------------------------------------------------------

/** The invariants broken so far in the check under way: all are collected, so one case does not hide another. */
let broken: string[] = [];

function fail(invariant: string, detail: string): void {
	broken.push(`${invariant} broken: ${detail}`);
}

/** Every string (keys too) reachable from a value, errors' own fields included; cycles and depth bounded. */
function strings(
	value: unknown,
	out: string[] = [],
	seen = new Set<unknown>(),
	depth = 0,
): string[] {
	if (typeof value === 'string') {
		out.push(value);
		return out;
	}
	if (value === null || typeof value !== 'object' || seen.has(value) || depth > 60) return out;
	seen.add(value);
	const keys =
		value instanceof Error
			? [...new Set([...Object.getOwnPropertyNames(value), 'message', 'description', 'stack'])]
			: Object.keys(value);
	for (const key of keys) {
		out.push(key);
		let entry: unknown;
		try {
			entry = (value as Record<string, unknown>)[key];
		} catch {
			continue;
		}
		strings(entry, out, seen, depth + 1);
	}
	return out;
}

const htmlEscaped = (text: string) =>
	text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A secret in every form an answer may echo it in. */
export function secretForms(secret: string): string[] {
	return [
		...new Set([
			secret,
			encodeURIComponent(secret),
			new URLSearchParams({ s: secret }).toString().slice(2),
			htmlEscaped(secret),
			JSON.stringify(secret).slice(1, -1),
			Buffer.from(secret, 'utf8').toString('base64'),
		]),
	].filter((form) => form.length >= 6);
}

function checkSecrets(record: WorldRecord, where: string, shown: unknown): void {
	const forms = record.api.secrets().flatMap(secretForms);
	for (const text of strings(shown)) {
		for (const form of forms) {
			if (text.includes(form))
				return fail(
					'W-secrets (no secret in outputs or errors)',
					`${where}: "${form.slice(0, 8)}…" appears`,
				);
		}
	}
}

/**
 * Whether the listing was created more often than the user asked: once, and once more after each Clear Sent
 * Listings History of its ID that did not delete it at the marketplace first (asked to send it again). Runs are
 * steps in order, but two overlapping runs: a Clear among them may fall before or after the other's send.
 */
function createdMoreThanAsked(
	scenario: WorldScenario,
	account: Account,
	id: number,
	arrivals: ListingArrival[],
): boolean {
	const created = arrivals.filter((arrival) => arrival.created);
	const forgets = scenario.steps.flatMap((step, index) =>
		step.kind === 'forget' &&
		step.account === account &&
		step.ids.includes(id) &&
		!step.deletedFirst
			? [index]
			: [],
	);
	if (forgets.length === 0) return created.length > 1;
	if (scenario.overlap && forgets.some((index) => index <= 1))
		return created.length > 1 + forgets.length;
	// Each stretch between two such Clears may create it once.
	const perStretch = new Map<number, number>();
	for (const arrival of created) {
		const step = Number(arrival.run.slice(1));
		const stretch = forgets.filter((index) => index < step).length;
		perStretch.set(stretch, (perStretch.get(stretch) ?? 0) + 1);
	}
	return [...perStretch.values()].some((count) => count > 1);
}

function textOf(attempt: Attempt): string {
	const thrown = attempt.thrown as (Error & { description?: string }) | undefined;
	return (
		JSON.stringify(attempt.output ?? null) +
		String(thrown?.message) +
		String(thrown?.description) +
		attempt.hints.map((hint) => hint.message).join('\n')
	);
}

/** The sheet row an item is paired with, and so its listing's ID. */
function idOfItem(step: CreateStep, item: INodeExecutionData): number | undefined {
	const paired = Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem;
	const index = typeof paired === 'number' ? paired : paired?.item;
	return index === undefined ? undefined : step.rows[index]?.id;
}

function listingsOf(step: CreateStep): number[] {
	return [...new Set(step.rows.flatMap((row) => (row.id === undefined ? [] : [row.id])))];
}

const sameListing = (account: Account, id: number) => (arrival: ListingArrival) =>
	arrival.account === account && arrival.id === id;

/** The gateway refused it (a spike arrest, the plan's quota) before the listing service saw it: nothing created. */
const gatewayRefused = (arrival: ListingArrival) =>
	arrival.gateway === 'spikeArrest' || arrival.gateway === 'quota';

/** A near-miss: a 500 of the listing service that merely mentions a limit. It may have created the listing. */
const nearMiss = (arrival: ListingArrival) => arrival.gateway === 'nearMiss';

function checkCreateAttempt(
	record: WorldRecord,
	result: StepResult & { step: CreateStep },
	attempt: Attempt,
	unknownBefore: Set<string>,
	namedForAll: Set<string> = new Set(),
	/** `account id` an earlier run's error named as now remembered as sent (the user was told to clear it again). */
	namedRemembered: Set<string> = new Set(),
): Map<number, Outcome> {
	const { api } = record;
	const { step, name } = result;
	const where = `step ${name} (${step.account}, node ${step.node}) try ${attempt.attempt}`;
	checkSecrets(record, where, {
		output: attempt.output,
		thrown: attempt.thrown,
		hints: attempt.hints,
	});
	const states = new Map<number, Outcome>();
	if (!attempt.output) {
		const error = attempt.thrown as Error & { description?: string };
		if (!(error instanceof NodeApiError || error instanceof NodeOperationError))
			fail('W-end (no bare exception)', `${where} threw ${error?.name}: ${error?.message}`);
		else if (
			!/created|nothing was sent|not sent|validation/i.test(`${error.message} ${error.description}`)
		)
			fail('W-end (a summary)', `${where}: ${error.message}`);
		if (step.onError !== 'stop' && !saysMemoryFailed(textOf(attempt)))
			fail('W-end (Continue ⇒ items)', `${where} threw: ${error?.message}`);
		return states;
	}
	const expected = step.output === 'row' ? step.rows.length : listingsOf(step).length;
	if (attempt.output.length !== expected)
		fail(
			'W-end (one outcome per listing)',
			`${where}: ${attempt.output.length} items, ${expected} expected`,
		);
	for (const item of attempt.output) {
		const id = idOfItem(step, item);
		if (id === undefined || states.has(id)) continue;
		states.set(id, readOutcome(item.json, step));
	}
	const mine = api.arrivals.filter(
		(arrival) => arrival.run === name && arrival.attempt <= attempt.attempt,
	);
	const thisTry = mine.filter((arrival) => arrival.attempt === attempt.attempt);
	const stoppedInFlight = attempt.cancelled && result.stoppedBeforeAnyToken !== true;
	const overlapping =
		record.scenario.overlap && ['S0', 'S1'].includes(name)
			? ['S0', 'S1'].filter((run) => run !== name)
			: [];
	const overlappingHeld = (id: number) =>
		overlapping.some((run) => {
			const other = record.results.find((candidate) => candidate.name === run)?.step;
			return (
				other?.kind === 'create' &&
				other.account === step.account &&
				other.rows.some((row) => row.id === id)
			);
		});
	// Clear Sent Listings History of the ID at the same moment: its look writes the key for a moment, and the docs
	// say a Create running then may see the ID as sent (the last of the two decides what stays remembered).
	const overlappingForget = (id: number) =>
		overlapping.some((run) => {
			const other = record.results.find((candidate) => candidate.name === run)?.step;
			return other?.kind === 'forget' && other.account === step.account && other.ids.includes(id);
		});
	const tokenRefused = api.tokenRequests.some(
		(request) =>
			request.run === name && ['refused', 'noAccessToken', 'serverError'].includes(request.answer),
	);
	// After as many logins as a run may make, a 401 ends the sending: a further login would not be one per expiry.
	const renewalsSpent =
		api.tokenRequests.filter(
			(request) =>
				request.run === name && request.attempt === attempt.attempt && request.answer === 'ok',
		).length >= MAX_RENEWALS_PER_RUN;
	for (const [id, state] of states) {
		const listing = `${where}, listing ${id}: ${state}`;
		const ofIt = sameListing(step.account, id);
		const everArrived = api.arrivals.filter(ofIt);
		if (state === 'created' && !mine.some((arrival) => ofIt(arrival) && arrival.created))
			fail('W-created ⇒ held', listing);
		if (state === 'alreadyListed' && !everArrived.some((arrival) => arrival.status === 409))
			fail('W-already listed ⇒ the API said so', listing);
		if (
			state === 'skipped' &&
			!everArrived.some((arrival) => arrival.evidence || arrival.status === 409) &&
			// An overlapping run may still have it in flight: "skipped, another run sends it" is all one can say.
			!everArrived.some((arrival) => overlapping.includes(arrival.run)) &&
			// An earlier run's error named it as possibly remembered for every account on this Base URL.
			!namedForAll.has(`${step.spelling} ${id}`) &&
			// An earlier Clear Sent Listings History that failed named it as now remembered as sent: the docs say to
			// clear it again, and until then a run skips it.
			!namedRemembered.has(`${step.account} ${id}`) &&
			!overlappingForget(id)
		)
			fail(
				'W-skipped ⇒ created with evidence (else "unknown")',
				`${listing}; the API answered ${everArrived.map((arrival) => arrival.status).join(', ') || 'nothing'}`,
			);
		if (
			state === 'unknown' &&
			everArrived.length === 0 &&
			!stoppedInFlight &&
			!unknownBefore.has(`${step.account} ${id}`) &&
			// An overlapping run of the account held it as sent, outcome unknown, while this run looked: that run
			// may have been about to send it (and was then stopped or refused before it left).
			!overlappingHeld(id)
		)
			fail('W-unknown ⇒ it may have left', `${listing}; never reached the API`);
		if (state === 'refused') {
			const answers = thisTry.filter(ofIt);
			const refusedByApi =
				answers.some(
					(arrival) =>
						DEFINITIVE_REFUSALS.has(arrival.status) ||
						arrival.status === 'resetBefore' ||
						gatewayRefused(arrival) ||
						// Rate-limited past the retries, or asked to wait longer than the cap: nothing was created.
						arrival.status === 429 ||
						// Unavailable (not handled, RFC 9110) past the retries: nothing was created.
						arrival.status === 503 ||
						arrival.persistent401 ||
						// A 401 to a token just issued: no renewal would help (the node cannot tell why it came).
						arrival.freshToken401 ||
						(arrival.status === 401 && renewalsSpent) ||
						// Stopped while renewing after a 401: that answer was a refusal, and nothing was sent again.
						(arrival.status === 401 && attempt.cancelled) ||
						// A 401 while the renewal it waited for had its new token refused: nothing was sent again.
						(arrival.status === 401 && thisTry.some((other) => other.freshToken401)) ||
						(typeof arrival.status === 'number' && arrival.status >= 300 && arrival.status < 400),
				) || answers.filter((arrival) => arrival.status === 401).length >= 2;
			if (!refusedByApi && !tokenRefused)
				fail(
					'W-refused ⇒ the API refused it',
					`${listing}; listing answers ${answers.map((arrival) => arrival.status).join(', ') || 'none'}, token answers ${api.tokenRequests
						.filter((request) => request.run === name)
						.map((request) => request.answer)
						.join(', ')}`,
				);
		}
		if (state === 'notSent' && thisTry.some(ofIt) && !attempt.cancelled)
			fail('W-not sent ⇒ never arrived', listing);
		const sent = thisTry.filter(ofIt).sort((a, b) => a.at - b.at);
		const answered = sent.map((arrival) => arrival.gateway ?? arrival.status).join(', ');
		// The gateway's refusals are definitive: never "outcome unknown" when nothing else answered it.
		if (
			state === 'unknown' &&
			!attempt.cancelled &&
			sent.length > 0 &&
			sent.every(
				(arrival) =>
					gatewayRefused(arrival) ||
					DEFINITIVE_REFUSALS.has(arrival.status) ||
					arrival.status === 503,
			)
		)
			fail('W-gateway fault ⇒ not created (never "unknown")', `${listing}; answered ${answered}`);
		// A spike arrest's listing goes again in the same run, unless the run stopped sending (Stop, the plan's quota,
		// a refused login or token) or the rate refusals ran out.
		const last = sent.at(-1);
		const rateRefusals = sent.filter(
			(arrival) => arrival.status === 429 || gatewayRefused(arrival),
		).length;
		if (
			last?.gateway === 'spikeArrest' &&
			!attempt.cancelled &&
			rateRefusals <= RETRY_POLICY.maxRateLimitRetries &&
			!thisTry.some((arrival) => arrival.gateway === 'quota' || arrival.status === 401) &&
			!tokenRefused
		)
			fail('W-spike arrest ⇒ sent again in the run', `${listing}; answered ${answered}`);
		// The plan's quota: no listing spends a second request on it.
		const quotaAt = sent.find((arrival) => arrival.gateway === 'quota')?.at;
		if (quotaAt !== undefined && sent.some((arrival) => arrival.at > quotaAt))
			fail(
				'W-quota stops the run (one request per listing on it)',
				`${listing}; answered ${answered}`,
			);
		// A near-miss may have created it: outcome unknown, and never sent again in the run.
		const missAt = mine.find((arrival) => ofIt(arrival) && nearMiss(arrival))?.at;
		if (missAt !== undefined) {
			if (mine.some((arrival) => ofIt(arrival) && arrival.at > missAt))
				fail(
					'W-near miss ⇒ never sent again',
					`${listing}; answered ${mine
						.filter(ofIt)
						.map((arrival) => arrival.gateway ?? arrival.status)
						.join(', ')}`,
				);
			else if (sent.some(nearMiss) && state !== 'unknown' && !attempt.cancelled)
				fail('W-near miss ⇒ outcome unknown', `${listing}; answered ${answered}`);
		}
	}
	// The plan's quota stops the sending: besides requests already in flight, nothing more leaves.
	const firstQuota = thisTry
		.filter((arrival) => arrival.gateway === 'quota')
		.sort((a, b) => a.answeredAt - b.answeredAt)[0];
	if (firstQuota) {
		const later = thisTry.filter((arrival) => arrival.at > firstQuota.answeredAt);
		if (later.length > step.concurrency)
			fail(
				'W-quota stops the run (the rest not sent)',
				`${where}: ${later.length} requests arrived after the quota's answer (listings ${later.map((arrival) => arrival.id).join(', ')})`,
			);
	}
	// One seat once per run and event, compared as a person reads it; and a listing carries every row of it.
	const created = thisTry.filter((arrival) => arrival.created);
	const seatsByEvent = new Map<number, string[]>();
	for (const arrival of created) {
		seatsByEvent.set(arrival.eventId, [
			...(seatsByEvent.get(arrival.eventId) ?? []),
			...arrival.seats,
		]);
		const rows = step.rows.filter((row) => row.id === arrival.id);
		const missing = rows.filter((row) => !arrival.seats.includes(seatKey(row.row, row.seat)));
		if (missing.length)
			fail(
				'W-listing carries every row (a row that cannot be read blocks its listing)',
				`${where}: listing ${arrival.id} created without ${missing.map((row) => JSON.stringify(`${row.row} ${row.seat}`)).join(', ')}`,
			);
	}
	for (const [eventId, seats] of seatsByEvent) {
		const twice = seats.filter((seat, index) => seats.indexOf(seat) !== index);
		if (twice.length)
			fail('W-one seat once (per run and event)', `${where}: event ${eventId}, seat ${twice[0]}`);
	}
	return states;
}

/** Every invariant the scenario broke (empty when all hold), each message naming its invariant. */
export function brokenInvariants(record: WorldRecord): string[] {
	broken = [];
	checkAll(record);
	return [...new Set(broken)];
}

/** Throws with every broken invariant, one a line. */
export function checkWorld(record: WorldRecord): void {
	const found = brokenInvariants(record);
	if (found.length) throw new Error(found.join('\n'));
}

function checkAll(record: WorldRecord): void {
	const { api, results, scenario } = record;
	for (const problem of api.oracleErrors) fail('W-oracle (the fake API was misused)', problem);
	if (api.afterEnd.length)
		fail('W-end (nothing sent after the run ended)', api.afterEnd.join('; '));
	if (api.elsewhere.length)
		fail('W-no request elsewhere (no redirect followed)', api.elsewhere.join(', '));
	for (const { ms, abortable } of record.waits) {
		if (ms > RETRY_POLICY.maxRetryAfterMs) fail('W-bounded waits', `waited ${ms} ms`);
		if (!abortable) fail('W-Stop ends every wait', `a wait of ${ms} ms without the cancel signal`);
	}

	const unknownBefore = new Set<string>();
	const namedForAll = new Set<string>();
	const namedRemembered = new Set<string>();
	const allText: string[] = [];
	for (const result of results) {
		const { step, name } = result;
		for (const attempt of result.attempts) {
			allText.push(textOf(attempt));
			if (step.kind === 'forget') {
				checkSecrets(record, `step ${name} (forget)`, attempt);
				for (const id of step.ids)
					if (namesAsRemembered(textOf(attempt), id)) namedRemembered.add(`${step.account} ${id}`);
				continue;
			}
			const states = checkCreateAttempt(
				record,
				{ ...result, step },
				attempt,
				unknownBefore,
				namedForAll,
				namedRemembered,
			);
			for (const [id, state] of states)
				if (state === 'unknown') unknownBefore.add(`${step.account} ${id}`);
			// A record that failed after writing: the error named these IDs as possibly remembered, with no way to
			// tell which were new, so a later attempt may rightly call them unknown.
			const said = (attempt.thrown as { description?: unknown } | undefined)?.description;
			if (typeof said === 'string' && said.includes('possibly remembered as sent'))
				for (const row of step.rows) {
					unknownBefore.add(`${step.account} ${row.id}`);
					// The error said the next run may skip them, and to clear those never sent.
					if (row.id !== undefined) namedRemembered.add(`${step.account} ${row.id}`);
					// ...for every account on that Base URL: the memory's look for an earlier version's entry (one
					// for all accounts) may have written too. The error said so.
					if (said.includes('every marketplace account on this Base URL'))
						namedForAll.add(`${step.spelling} ${row.id}`);
				}
		}
		// Logins: one per expiry (or revocation by another run), one more after a 401 that persists; refusals once.
		const tokens = api.tokenRequests.filter((request) => request.run === name);
		const issued = tokens.filter((request) => request.answer === 'ok').length;
		const persistent = api.arrivals.some(
			(arrival) => arrival.run === name && arrival.persistent401,
		);
		// A 429 or a 5xx before the 401 (the gateway may answer those before it reads the token) looks like a token
		// that worked and expired: the node renews, up to its bound per run, rather than blame a token too soon.
		const ambiguous = api.arrivals.some(
			(arrival) =>
				arrival.run === name &&
				typeof arrival.status === 'number' &&
				(arrival.status === 429 || arrival.status >= 500),
		);
		const allowed =
			1 +
			(api.expiries.get(name) ?? 0) +
			(api.revokedByOthers.get(name) ?? 0) +
			(persistent ? result.attempts.length * (ambiguous ? MAX_RENEWALS_PER_RUN : 1) : 0);
		if (issued > allowed)
			fail(
				'W-logins bounded (one renewal per expiry)',
				`step ${name}: ${issued} tokens, ${allowed} allowed`,
			);
		const refusals = tokens.filter((request) =>
			['refused', 'noAccessToken'].includes(request.answer),
		);
		if (refusals.length > result.attempts.length)
			fail(
				'W-logins bounded (a refused login once a run)',
				`step ${name}: ${refusals.length} refused logins`,
			);
		const transient = tokens.length - issued - refusals.length;
		if (transient > 8 * (issued + 1))
			fail('W-logins bounded (token retries)', `step ${name}: ${transient} token answers 429/5xx`);
	}

	// What the memory holds, per account, as the probe run shows it.
	for (const [account, ids] of record.probeIds) {
		const sent = record.probeSent.get(account) ?? new Set<number>();
		for (const id of ids) {
			const ofIt = sameListing(account, id);
			const deletedAt = Math.max(
				-1,
				...api.deletions
					.filter((deletion) => deletion.account === account && deletion.id === id)
					.map((d) => d.at),
			);
			const arrivals = api.arrivals.filter(ofIt);
			const sinceDeletion = arrivals.filter((arrival) => arrival.at > deletedAt);
			const createdTimes = sinceDeletion.filter((arrival) => arrival.created).length;
			if (createdMoreThanAsked(record.scenario, account, id, sinceDeletion))
				fail('W-no listing held twice', `${account} listing ${id} created ${createdTimes} times`);
			const held = (api.heldBy(account).get(id) ?? 0) > 0;
			const forgottenOnRequest = scenario.steps.some(
				(step) => step.kind === 'forget' && step.account === account && step.ids.includes(id),
			);
			const weSentIt = sinceDeletion.some((arrival) => arrival.created || arrival.status === 409);
			if (
				held &&
				weSentIt &&
				sent.has(id) &&
				!forgottenOnRequest &&
				!allText.some(saysMemoryFailed)
			)
				fail('W-held ⇒ remembered (a later run would send it again)', `${account} listing ${id}`);
			// A near-miss may have created it: remembered (as outcome unknown) until the user clears it.
			if (
				arrivals.some(nearMiss) &&
				sent.has(id) &&
				!forgottenOnRequest &&
				!allText.some(saysMemoryFailed)
			)
				fail('W-near miss ⇒ remembered', `${account} listing ${id}`);
			const provablyNotCreated = arrivals.every(
				(arrival) =>
					DEFINITIVE_REFUSALS.has(arrival.status) ||
					arrival.status === 503 ||
					arrival.status === 'resetBefore' ||
					gatewayRefused(arrival),
			);
			const stoppedInFlight = results.some(
				(result) =>
					result.step.account === account &&
					result.attempts.some((attempt) => attempt.cancelled) &&
					result.stoppedBeforeAnyToken !== true,
			);
			if (
				!held &&
				provablyNotCreated &&
				!stoppedInFlight &&
				!sent.has(id) &&
				!allText.some((text) => namesAsRemembered(text, id))
			)
				fail(
					'W-not sent or refused ⇒ not remembered',
					`${account} listing ${id} (API answers: ${arrivals.map((arrival) => arrival.status).join(', ') || 'none'}) is remembered`,
				);
		}
	}
}
