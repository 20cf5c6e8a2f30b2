import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { oneLine } from '../../../../shared/partnerApi/answerWords';
import { errorText, listFirst } from '../../../helpers/errors';
import type { MemoryFailure } from './memoryFailure';
import { SENT_LISTINGS_CAP } from './verifiedStore';

/** The memory's failures in the user's words: what happened, was done, why, what to do (never: turn the memory off). */
export class SentListingsStoreError extends NodeOperationError {}

const TITLE = "n8n's memory of listings already sent could not be used";
const CLEAR = 'Listing → Clear Sent Listings History';
const KEEP_IT_ON =
	'Keep Skip Listings Already Sent on: without it, a run sends again every listing earlier runs created.';
const CHECK_DATABASE = `Check that n8n can write to its database. If a Remove Duplicates node of this workflow uses the scope "Workflow", give it the scope "Node": the two share one memory. ${KEEP_IT_ON}`;
const DONE = {
	before: 'Nothing was sent.',
	after: 'The listings below were sent before this happened.',
	forget: 'Nothing was forgotten.',
} as const;

function wordsFor(failure: MemoryFailure): [title: string, cause: string, todo: string] {
	switch (failure.kind) {
		case 'storeFailed':
			return ['', `n8n said: ${oneLine(errorText(failure.error))}.`, CHECK_DATABASE];
		case 'contended':
			return [
				': other runs kept changing it',
				'',
				`Runs of one workflow that overlap share its memory: start them further apart (a longer schedule interval). ${KEEP_IT_ON}`,
			];
		case 'unconfirmed':
			return ['', "n8n's database did not confirm the change.", CHECK_DATABASE];
		case 'full':
			return [
				': it is full',
				`It holds ${failure.held} entries and this run needs room for ${failure.needed} more, beyond the ${SENT_LISTINGS_CAP} that n8n keeps.`,
				`Clear the IDs you no longer list (${CLEAR}), or move old sheets to another workflow, then run it again.`,
			];
	}
}

/** The memory's failure; a step adds a line before (`lead`) and lines after (false, 0 or undefined: none). */
export function memoryError(
	context: IExecuteFunctions,
	failure: MemoryFailure,
	stage: keyof typeof DONE,
	{ lead, lines = [] }: { lead?: string; lines?: Array<string | false | 0 | undefined> } = {},
): SentListingsStoreError {
	const [title, cause, todo] = wordsFor(failure);
	const said = [DONE[stage], cause, todo].filter(Boolean).join(' ');
	const description = [lead ? `${lead} ${said}` : said, ...lines]
		.filter((line): line is string => typeof line === 'string')
		.join('\n');
	return new SentListingsStoreError(context.getNode(), `${TITLE}${title}`, { description });
}

const stillRemembered = (what: string, ids: Array<string | number>) =>
	`${what}, but still remembered as sent (the next run would skip them): ${listFirst(ids)}. Forget them with ${CLEAR} before running again.`;

/** Nothing was sent: the failure, and IDs the memory may now hold wrongly (`ids`, `stillRemembered`) or have lost. */
export function beforeSendingError(
	context: IExecuteFunctions,
	failure: MemoryFailure,
	left: { ids: number[]; forgottenAlthoughSent?: number[]; stillRemembered: number[] },
): SentListingsStoreError {
	const { ids, forgottenAlthoughSent: forgotten, stillRemembered: still } = left;
	const possibly = failure.kind === 'storeFailed' && failure.possiblyWritten ? ids : undefined;
	const error = memoryError(context, failure, 'before', {
		lead:
			forgotten &&
			`Sent by earlier runs, but forgotten while the memory marked them as recently sent (the next run would send them again): ${listFirst(forgotten)}. Take them out of the input before running again.`,
		lines: [
			possibly &&
				`Not sent, but possibly remembered as sent (the next run may skip them): ${listFirst(possibly)}. Forget those this workflow never sent before with ${CLEAR} before running again.`,
			still.length && stillRemembered('Not sent', still),
		],
	});
	if (forgotten) error.context.forgottenAlthoughSent = forgotten;
	if (possibly) error.context.possiblyRememberedAsSent = possibly;
	if (still.length) error.context.rememberedAsSent = still;
	return error;
}

/** Said when the memory could not forget listings the API did not create: without this, they are skipped unseen. */
export const notCreatedStillRememberedLine = (ids: Array<string | number>) =>
	stillRemembered('Not created', ids);

/** A failed forget: `left`, IDs whose keys may remain (not `held`: the look wrote them; held: an old key's). */
export function forgetError(
	context: IExecuteFunctions,
	failure: MemoryFailure,
	looked: boolean,
	left: number[],
	held: Set<number>,
): SentListingsStoreError {
	const added = left.filter((id) => !held.has(id));
	const alsoOld = left.filter((id) => held.has(id));
	const error = memoryError(context, failure, 'forget', {
		lines: [
			added.length &&
				`${looked ? 'Now' : 'Possibly'} remembered as sent, though this workflow had not remembered them (checking for them had to write them, and they could not be removed): ${listFirst(added)}.`,
			alsoOld.length &&
				`Checking for them left an entry that could not be removed: ${listFirst(alsoOld)} may now be skipped for other marketplace accounts on this Base URL too.`,
			left.length &&
				"Run Clear Sent Listings History for these IDs again once n8n's database works.",
		],
	});
	if (added.length) error.context.rememberedAsSent = added;
	return error;
}

/** Forget Sent Listings forgot every ID, but the store never said which it held. */
export const forgetUnansweredError = (context: IExecuteFunctions, ids: number[]) =>
	new SentListingsStoreError(context.getNode(), TITLE, {
		description: `None of these IDs is remembered now: each was forgotten if it was held (${listFirst(ids)}). Only which ones were held could not be told. You can send them again with Listing → Create.`,
	});

/** The notice once the memory holds most of what n8n keeps (`nearCap` says when). */
export const nearCapWords = (count: number) =>
	`n8n remembers ${count} sent listing IDs for this workflow, of at most ${SENT_LISTINGS_CAP}: beyond that it forgets the IDs least recently sent or skipped first, and a forgotten ID would be sent again. Forget IDs you no longer list (${CLEAR}), or move old sheets to another workflow.`;
