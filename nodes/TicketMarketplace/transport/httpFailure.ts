/** The one place a failure becomes a NodeApiError: its row's words and what they tell, secrets redacted. */
import { NodeApiError, type INode, type JsonObject } from 'n8n-workflow';

import type { Outcome } from '../../shared/partnerApi/answerTable';
import { apiWords, oneLine, subjectOf } from '../../shared/partnerApi/answerWords';
import {
	extractApiMessage,
	headerValue,
	isJsonMediaType,
	networkFailureInWords,
} from '../../shared/partnerApi/apiAnswers';
import { redactSecrets, redirectTarget } from '../../shared/partnerApi/redaction';
import { meaningOfFailure } from './attempt';
import type { HttpFailure, MeaningContext, RetryCounts } from './attempt';
import { RETRY_POLICY } from './retryAfter';

/** What a failure's words tell beside it: the request, and how often it was refused and retried. */
export interface FailureContext extends MeaningContext, Omit<RetryCounts, 'rateLimitRetries'> {
	method: string;
	path: string;
	baseUrl: string;
	itemIndex: number;
}

/** The failure in words as n8n's error, and its row's outcome for the item. */
export function classifyFailure(
	node: INode,
	failure: HttpFailure,
	context: FailureContext,
): { error: NodeApiError; effect: Outcome; apiCode?: string } {
	const { secrets } = context;
	const apiMessage = extractApiMessage(failure.body, secrets);
	const meaning = failure.meaning ?? meaningOfFailure(failure, context);
	const apiSaid = apiMessage ? `The API said: "${oneLine(apiMessage)}".` : '';
	const words = apiWords(meaning, { ...wordsContext(failure, context), apiSaid });
	const subject = subjectOf(context.path);
	const details = [
		words.advice,
		meaning.outcome === 'unknown' &&
			`The request may have reached the API: ${subject.what} may or may not have been ${subject.done}. It was not sent again, so nothing was ${subject.done} twice. ${subject.howToCheck}`,
		failure.code && `Network error code: ${failure.code}.`,
	];
	const safeBody = redactSecrets(failure.body, secrets);
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
	const apiCode = meaning.code;
	return { error, effect: meaning.outcome, ...(apiCode !== undefined && { apiCode }) };
}

function wordsContext(failure: HttpFailure, context: FailureContext) {
	const { secrets, baseUrl } = context;
	const location = headerValue(failure.headers, 'location');
	const diagnosis = failure.tokenExchange;
	return {
		path: context.path,
		method: context.method,
		status: failure.status ?? 0,
		rateRefusals: context.rateLimitAnswers,
		lastWait: inWords(context.lastRetryAfterMs),
		nodeSaid: redactSecrets(failure.message, secrets),
		network: networkFailureInWords(failure.code),
		baseUrl,
		connectionRetries: context.connectionRetries,
		redirectTo: location
			? (redirectTarget(location, baseUrl, secrets) ?? '(an address that is not a URL)')
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

/** A wait in words: "45 s", "10 min", "24 h". */
function inWords(ms: number | undefined): string | undefined {
	if (ms === undefined) return undefined;
	const seconds = Math.ceil(ms / 1000);
	if (seconds < 120) return `${seconds} s`;
	const minutes = Math.ceil(seconds / 60);
	return minutes < 120 ? `${minutes} min` : `${Math.ceil(minutes / 60)} h`;
}

/** What kind of body a 2xx came with, in words. */
function bodyInWords(body: unknown, contentType: string): string {
	if (body === undefined || body === null || (typeof body === 'string' && body.trim() === ''))
		return 'an empty body';
	if (/html/i.test(contentType)) return 'an HTML page';
	if (typeof body === 'string') return 'a text body';
	if (Array.isArray(body)) return 'a JSON array';
	if (typeof body === 'object')
		return isJsonMediaType(contentType) ? 'a JSON object' : 'a JSON object not marked as JSON';
	return 'a bare JSON value';
}

const MAX_BODY_SHOWN = 300;

/** The body as text, redacted before it is cut (a cut must not leave part of a secret). */
function bodyShown(body: unknown, secrets: readonly string[] | undefined): string {
	let text: string;
	try {
		text = typeof body === 'string' ? body : (JSON.stringify(body) ?? '');
	} catch {
		return '(a body too deeply nested to show)';
	}
	text = redactSecrets(text, secrets).replace(/\s+/g, ' ').trim();
	return text.length > MAX_BODY_SHOWN ? `${text.slice(0, MAX_BODY_SHOWN)}…` : text;
}
