import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorText, listFirst, oneLine } from '../../../helpers/errors';
import { failureOf } from './memoryFailure';
import type { MemoryFailure } from './memoryFailure';

/**
 * The user's words for the memory of sent listings, all in one place: each kind of failure says what happened (the
 * title), what was done, why and what to do (the description), and the errors of each step add what they left
 * behind. Never advises turning the memory off: that would relist earlier runs' work.
 */
export class SentListingsStoreError extends NodeOperationError {}

/** Where the run was: before sending, after sending, or forgetting on request. */
export type MemoryStage = 'before' | 'after' | 'forget';

const CLEAR = 'Listing → Clear Sent Listings History';
const KEEP_IT_ON =
	'Keep Skip Listings Already Sent on: without it, a run sends again every listing earlier runs created.';
const CHECK_DATABASE = `Check that n8n can write to its database. If a Remove Duplicates node of this workflow uses the scope "Workflow", give it the scope "Node": the two share one memory. ${KEEP_IT_ON}`;

/** One failure in words: the end of the title, the cause, and what to do. */
interface Words {
	title: string;
	cause: string;
	todo: string;
}

function storeFailedWords(error: unknown): Words {
	return { title: '', cause: `n8n said: ${oneLine(errorText(error))}.`, todo: CHECK_DATABASE };
}

function contendedWords(): Words {
	return {
		title: ': other runs kept changing it',
		cause: '',
		todo: `Runs of one workflow that overlap share its memory: start them further apart (a longer schedule interval). ${KEEP_IT_ON}`,
	};
}

function unconfirmedWords(): Words {
	return { title: '', cause: "n8n's database did not confirm the change.", todo: CHECK_DATABASE };
}

function fullWords(held: number, needed: number, cap: number): Words {
	return {
		title: ': it is full',
		cause: `It holds ${held} entries and this run needs room for ${needed} more, beyond the ${cap} that n8n keeps.`,
		todo: `Clear the IDs you no longer list (${CLEAR}), or move old sheets to another workflow, then run it again.`,
	};
}

function wordsFor(failure: MemoryFailure): Words {
	switch (failure.kind) {
		case 'storeFailed':
			return storeFailedWords(failure.error);
		case 'contended':
			return contendedWords();
		case 'unconfirmed':
			return unconfirmedWords();
		case 'full':
			return fullWords(failure.held, failure.needed, failure.cap);
	}
}

const DONE: Record<MemoryStage, string> = {
	before: 'Nothing was sent.',
	after: 'The listings below were sent before this happened.',
	forget: 'Nothing was forgotten.',
};

const TITLE = "n8n's memory of listings already sent could not be used";

/** Lines a step adds to its failure: one said before it, and lines after (false, 0 or undefined: none). */
interface Around {
	lead?: string;
	lines?: Array<string | false | 0 | undefined>;
}

/** The memory's failure: what happened in the title, what was done and what to do in the description. */
export function memoryError(
	context: IExecuteFunctions,
	failure: MemoryFailure,
	stage: MemoryStage,
	{ lead, lines = [] }: Around = {},
): SentListingsStoreError {
	const { title, cause, todo } = wordsFor(failure);
	const said = [DONE[stage], cause, todo].filter(Boolean).join(' ');
	const description = [lead ? `${lead} ${said}` : said, ...lines]
		.filter((line): line is string => typeof line === 'string')
		.join('\n');
	return new SentListingsStoreError(context.getNode(), `${TITLE}${title}`, { description });
}

/** The same, for code that only has what was thrown. */
export function storeError(
	context: IExecuteFunctions,
	error: unknown,
	stage: MemoryStage,
): SentListingsStoreError {
	return memoryError(context, failureOf(error), stage);
}

/** What a failure before sending left in the memory, besides the failure itself. */
export interface LeftBeforeSending {
	/** The run's IDs, which a write that failed may have recorded all the same. */
	ids: number[];
	/** IDs sent by earlier runs that the memory forgot while marking them as recent. */
	forgottenAlthoughSent?: number[];
	/** IDs the run recorded and could not forget again. */
	stillRemembered: number[];
}

/** Nothing was sent: the failure, and every ID the memory may now hold wrongly or have lost. */
export function beforeSendingError(
	context: IExecuteFunctions,
	failure: MemoryFailure,
	left: LeftBeforeSending,
): SentListingsStoreError {
	const forgotten = left.forgottenAlthoughSent;
	const possibly = failure.kind === 'storeFailed' && failure.possiblyWritten ? left.ids : undefined;
	const still = left.stillRemembered;
	const error = memoryError(context, failure, 'before', {
		lead:
			forgotten &&
			`Sent by earlier runs, but forgotten while the memory marked them as recently sent (the next run would send them again): ${listFirst(forgotten)}. Take them out of the input before running again.`,
		lines: [
			possibly &&
				`Not sent, but possibly remembered as sent (the next run may skip them): ${listFirst(possibly)}. Forget those this workflow never sent before with ${CLEAR} before running again.`,
			still.length &&
				`Not sent, but still remembered as sent (the next run would skip them): ${listFirst(still)}. Forget them with ${CLEAR} before running again.`,
		],
	});
	if (forgotten) error.context.forgottenAlthoughSent = forgotten;
	if (possibly) error.context.possiblyRememberedAsSent = possibly;
	if (still.length) error.context.rememberedAsSent = still;
	return error;
}

/** Said when the memory could not forget listings the API did not create: without this, they are skipped unseen. */
export function notCreatedStillRememberedLine(ids: Array<string | number>): string {
	return `Not created, but still remembered as sent (the next run would skip them): ${listFirst(ids)}. Forget them with ${CLEAR} before running again.`;
}

/** What a forget on request left, when its removal failed. */
export interface LeftByForget {
	/** Whether the look said which IDs were held. */
	looked: boolean;
	/** IDs the look wrote that were not held before. */
	added: number[];
	/** IDs held only under an earlier version's key, whose look left an entry for every account. */
	alsoOld: number[];
	/** Every ID whose keys may still be there. */
	left: number[];
}

/** Forget Sent Listings could not verify its removal: what it may have left in the memory. */
export function forgetError(
	context: IExecuteFunctions,
	failure: MemoryFailure,
	{ looked, added, alsoOld, left }: LeftByForget,
): SentListingsStoreError {
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
export function forgetUnansweredError(
	context: IExecuteFunctions,
	ids: number[],
): SentListingsStoreError {
	return new SentListingsStoreError(context.getNode(), TITLE, {
		description: `None of these IDs is remembered now: each was forgotten if it was held (${listFirst(ids)}). Only which ones were held could not be told. You can send them again with Listing → Create.`,
	});
}

/** The notice once the memory holds most of what n8n keeps. */
export function nearCapWords(count: number, cap: number): string {
	return `n8n remembers ${count} sent listing IDs for this workflow, of at most ${cap}: beyond that it forgets the IDs least recently sent or skipped first, and a forgotten ID would be sent again. Forget IDs you no longer list (${CLEAR}), or move old sheets to another workflow.`;
}
