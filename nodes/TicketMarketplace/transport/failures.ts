/**
 * The one place that turns any failure into a NodeApiError: its meaning and words are its row's; this gathers what
 * the words tell beside it (the request, the attempts, a redirect's target, a body), secrets redacted.
 */
import { NodeApiError, type INode, type JsonObject } from 'n8n-workflow';

import { apiWords, oneLine, subjectOf } from '../../shared/partnerApi/answerWords';
import {
	extractApiMessage,
	headerValue,
	networkFailureInWords,
	redactSecrets,
	redirectTarget,
} from '../../shared/partnerApi/apiAnswers';
import type { ApiWordsContext } from '../../shared/partnerApi/answerWords';
import { bodyInWords, bodyShown, meaningOfFailure } from './httpFailure';
import type { Effect, HttpFailure } from './httpFailure';
import { RETRY_POLICY } from './retryAfter';

export interface FailureContext {
	method: string;
	path: string;
	baseUrl: string;
	itemIndex: number;
	secrets?: string[];
	/** Rate refusals (429, spike arrest) this request met. */
	rateLimitAnswers: number;
	createsId?: string | number;
	connectionRetries: number;
	lastRetryAfterMs?: number;
}

export interface ClassifiedFailure {
	error: NodeApiError;
	effect: Effect;
	apiCode?: string;
}

/** A wait in words: "45 s", "10 min", "24 h". */
function inWords(ms: number | undefined): string | undefined {
	if (ms === undefined) return undefined;
	const seconds = Math.ceil(ms / 1000);
	if (seconds < 120) return `${seconds} s`;
	const minutes = Math.ceil(seconds / 60);
	return minutes < 120 ? `${minutes} min` : `${Math.ceil(minutes / 60)} h`;
}

function wordsContext(
	failure: HttpFailure,
	context: FailureContext,
	apiSaid: string,
): ApiWordsContext {
	const { secrets } = context;
	const location = headerValue(failure.headers, 'location');
	const diagnosis = failure.tokenExchange;
	return {
		path: context.path,
		method: context.method,
		status: failure.status ?? 0,
		rateRefusals: context.rateLimitAnswers,
		lastWait: inWords(context.lastRetryAfterMs),
		apiSaid,
		nodeSaid: redactSecrets(failure.message, secrets),
		network: networkFailureInWords(failure.code),
		baseUrl: context.baseUrl,
		connectionRetries: context.connectionRetries,
		redirectTo: location
			? (redirectTarget(location, context.baseUrl, secrets) ?? '(an address that is not a URL)')
			: undefined,
		bodyKind: bodyInWords(failure.body, headerValue(failure.headers, 'content-type')),
		bodyShown: bodyShown(failure.body, secrets),
		wait: inWords(failure.spikeIntervalMs ?? failure.retryAfterMs),
		longestWait: inWords(
			failure.spikeIntervalMs !== undefined ? RETRY_POLICY.maxWaitMs : RETRY_POLICY.maxRetryAfterMs,
		),
		waitFor: failure.refusal?.row === 'unavailable' ? 'service unavailable' : 'rate limit',
		diagnosis: diagnosis && {
			title: redactSecrets(diagnosis.title, secrets),
			description: redactSecrets(diagnosis.description, secrets),
		},
		renewals: failure.renewalsExhausted,
	};
}

/** The failure in words as n8n's error, and its row's outcome for the item. */
export function classifyFailure(
	node: INode,
	failure: HttpFailure,
	context: FailureContext,
): ClassifiedFailure {
	const apiMessage = extractApiMessage(failure.body, context.secrets);
	const meaning = failure.meaning ?? meaningOfFailure(failure, context);
	const apiSaid = apiMessage ? `The API said: "${oneLine(apiMessage)}".` : '';
	const words = apiWords(meaning, wordsContext(failure, context, apiSaid));
	const details = [words.advice];
	if (meaning.outcome === 'unknown') {
		const subject = subjectOf(context.path);
		details.push(
			`The request may have reached the API: ${subject.what} may or may not have been created. It was not sent again, so nothing was created twice. ${subject.howToCheck}`,
		);
	}
	if (failure.code) details.push(`Network error code: ${failure.code}.`);

	const safeBody = redactSecrets(failure.body, context.secrets);
	const error = new NodeApiError(
		node,
		{ httpCode: failure.status ?? null, body: (safeBody ?? null) as JsonObject } as JsonObject,
		{
			message: words.title,
			description: details.filter(Boolean).join(' ') || apiMessage,
			httpCode: failure.status !== undefined ? String(failure.status) : undefined,
			itemIndex: context.itemIndex,
		},
	);
	return {
		error,
		effect: meaning.outcome,
		...(meaning.code !== undefined && { apiCode: meaning.code }),
	};
}
