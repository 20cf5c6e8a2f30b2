/** What became of each listing, in input order, and what a stopped run says (outcome names: answerTable.ts). */
import { errorText, listFirst } from '../../../helpers/errors';
import type { RequestResult } from '../../../transport';
import type { EarlierOutcome } from '../memory/runMemory';
import type { Failure, Listing, Outcome, ReadyListing } from './nouns';
import { groupBy } from './fields';
import { howMany, ids } from './output';

export function outcomeOfRequest(sent: RequestResult): Outcome {
	if (sent.kind === 'answered') return { kind: 'created', body: sent.body };
	if (sent.kind === 'notSent') return { kind: 'notSent' };
	return {
		// The transport answers what the table reads as created: a failure's effect is any other outcome, as is.
		kind: sent.effect as Failure['kind'],
		error: sent.error,
		...(sent.apiCode !== undefined && { apiCode: sent.apiCode }),
	};
}

const REMEMBERED: Partial<Record<Outcome['kind'], 'created' | 'unknown' | 'notCreated'>> = {
	created: 'created',
	alreadyListed: 'created',
	unknown: 'unknown',
	notCreated: 'notCreated',
	notSent: 'notCreated',
};

/** What the memory keeps of a listing sent: created (or held already), unknown, or nothing (forgotten). */
export const rememberedAs = (outcome: Outcome) => REMEMBERED[outcome.kind];

/** Every listing with what became of it, in input order: invalid, skipped as sent before, or what its request did. */
export function outcomesOf(
	listings: Listing[],
	alreadySent: Map<number, EarlierOutcome>,
	sent: Map<ReadyListing, Outcome>,
): Map<Listing, Outcome> {
	return new Map(
		listings.map((listing): [Listing, Outcome] => {
			if (listing.kind === 'invalid') return [listing, { kind: 'invalid' }];
			const earlier = alreadySent.get(listing.externalListingId);
			const outcome = earlier ? { kind: 'skipped' as const, earlier } : sent.get(listing);
			return [listing, outcome ?? { kind: 'notSent' }];
		}),
	);
}

/** The first failure that stops a run without Continue: any failed request but an already listed one. */
export function firstFailure<K>(outcomes: Map<K, Outcome>): [K, Failure] | undefined {
	for (const [key, outcome] of outcomes)
		if (outcome.kind === 'unknown' || outcome.kind === 'notCreated') return [key, outcome];
	return undefined;
}

/** Reasons of failure named in a stopped run's error; the listings of other reasons are put together. */
const MAX_REASONS_LISTED = 3;

/** A group of failed listings with why: one reason on the group's line, several on a line each, a few at most. */
function withReasons(heading: string, members: Array<[Listing, Outcome]>): string[] {
	const reasons = [
		...groupBy(members, ([, outcome]) => ('error' in outcome ? errorText(outcome.error) : '')),
	];
	if (reasons.length === 1)
		return [`${heading}: ${howMany(members)} (${idsOf(members)}): ${reasons[0][0]}.`];
	const lines = reasons
		.slice(0, MAX_REASONS_LISTED)
		.map(([reason, group]) => `  - ${reason}: ${idsOf(group)}`);
	const others = reasons.slice(MAX_REASONS_LISTED).flatMap(([, group]) => group);
	if (others.length) lines.push(`  - for other reasons: ${idsOf(others)}`);
	return [`${heading}: ${howMany(members)}:`, ...lines];
}

const idsOf = (members: Array<[Listing, Outcome]>) =>
	listFirst(ids(members.map(([listing]) => listing)));

const groupOf = (outcome: Outcome) =>
	outcome.kind === 'skipped' ? `skipped ${outcome.earlier}` : outcome.kind;

/** The groups listed after the created, not created and unknown ones, with what each says. */
const OTHER_GROUPS: Record<string, string> = {
	notSent: 'Not sent, the run stopped first',
	'skipped created': 'Skipped, already sent by this workflow',
	'skipped unknown':
		'Skipped, outcome unknown (sent by an earlier run, may have been created; look them up on the marketplace by External Listing ID)',
	alreadyListed:
		'Already listed (the API holds a listing with this External Listing ID), not created again',
};

/** A stopped run's error: each listing in one group, so none that may exist is re-sent; requests ran at once: no order. */
export function stopSummary(outcomes: Map<Listing, Outcome>, skipAlreadySent: boolean): string {
	const group = (key: string) => [...outcomes].filter(([, outcome]) => groupOf(outcome) === key);
	const listed = (members: Array<[Listing, Outcome]>) => `${howMany(members)} (${idsOf(members)})`;
	const [created, refused, unknown] = ['created', 'notCreated', 'unknown'].map(group);
	const lines: string[] = [
		created.length
			? `Created in this run: ${listed(created)}.`
			: 'No listing was created in this run.',
	];
	if (refused.length) lines.push(...withReasons('Not created', refused));
	if (unknown.length)
		lines.push(
			...withReasons('Outcome unknown, may have been created', unknown),
			'  Look these up on the marketplace by External Listing ID before sending them again.',
		);
	for (const [key, words] of Object.entries(OTHER_GROUPS)) {
		const members = group(key);
		if (members.length) lines.push(`${words}: ${listed(members)}.`);
	}
	if (skipAlreadySent)
		lines.push(
			'Skip Listings Already Sent is on: once the cause is fixed, run the workflow again; it sends only the listings not created and not sent, and skips the others.',
		);
	return lines.join('\n');
}
