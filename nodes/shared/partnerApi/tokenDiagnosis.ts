/**
 * What the credential says when it cannot get a token: which part is wrong, never with a secret. The answers' meaning
 * is the answer table's; this adds what is no answer of the API (a page, no connection).
 */
import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { headerValue, networkFailureInWords, readBody, redirectTarget } from './apiAnswers';
import type { ReadBody } from './apiAnswers';
import { meaningOf, readAnswer } from './answerTable';
import type { AnswerMeaning } from './answerTable';
import { BASE_URL_HINT, tokenWords } from './tokenWords';
import { PARTNER_API_PATHS } from './partnerApi';
import type { TokenDiagnosis } from './pastN8n';

export { readBody } from './apiAnswers';
export type { ReadBody } from './apiAnswers';

const BODY_SHAPE_WORDS: Record<Exclude<ReadBody['shape'], 'object'>, string> = {
	empty: 'an empty body',
	html: 'an HTML page',
	'json-not-object': 'JSON that is not an object',
	'not-json': 'a body that is not JSON',
};

/** With its row: the run's token renewal reads there whether a later login may pass. */
export interface AnswerDiagnosis extends TokenDiagnosis {
	meaning: AnswerMeaning;
}

export function meaningOfDiagnosis(diagnosis: TokenDiagnosis): AnswerMeaning | undefined {
	return (diagnosis as Partial<AnswerDiagnosis>).meaning;
}

export function diagnoseTokenResponse(
	baseUrl: string,
	response: IN8nHttpFullResponse,
	secrets: string[] = [],
	/** The credential's fields as typed, for what the message says of spaces around them. */
	typed: Record<string, unknown> = {},
): AnswerDiagnosis {
	const status = response.statusCode;
	const headers = response.headers as Record<string, unknown> | undefined;
	const meaning = meaningOf(readAnswer(status, headers, response.body, secrets), {
		endpoint: 'token',
	});
	const { json, shape } = readBody(response.body, headerValue(headers, 'content-type'));
	const where = `${baseUrl}${PARTNER_API_PATHS.grant}`;
	if (meaning.row !== 'tokenRedirected' && (!json || shape !== 'object')) {
		const body = shape === 'object' ? BODY_SHAPE_WORDS['not-json'] : BODY_SHAPE_WORDS[shape];
		return {
			title: `The Base URL does not answer like the Partner API (HTTP ${status}, ${body})`,
			description: `${where} returned ${body}, not the API's answer. ${BASE_URL_HINT}`,
			meaning,
		};
	}
	const target = redirectTarget(headerValue(headers, 'location'), where, secrets);
	const words = tokenWords(meaning, status, where, target ? ` to ${target}` : '');
	return {
		title: words.title,
		description: `${words.advice}${pastedSpacesHint(meaning.row, typed)}`,
		meaning,
	};
}

function hasSpacesAround(value: unknown): boolean {
	return typeof value === 'string' && value !== value.trim();
}

const LABELS = Object.entries({
	consumerKey: 'Consumer Key',
	consumerSecret: 'Consumer Secret',
	email: 'e-mail',
});

/** Spaces typed around a refused login's fields: removed from key, secret and e-mail, kept in the password. */
function pastedSpacesHint(row: string, typed: Record<string, unknown>): string {
	const login = row === 'invalidGrant' || row === 'loginRefused';
	const fields = row === 'invalidClient' ? LABELS.slice(0, 2) : login ? LABELS.slice(2) : [];
	const trimmed = fields.filter(([name]) => hasSpacesAround(typed[name])).map(([, label]) => label);
	let hint = trimmed.length
		? ` The spaces or line breaks around the ${trimmed.join(' and ')} were removed before sending, so they are not the cause.`
		: '';
	if (login && hasSpacesAround(typed.password))
		hint +=
			' The password starts or ends with a space or line break and is sent exactly as typed: remove it if it is not part of the password.';
	return hint;
}

/** A token that cannot be sent (isUsableAccessToken); never quoted. */
export function diagnoseUnusableToken(baseUrl: string): TokenDiagnosis {
	return {
		title: 'The token endpoint answered with an access token that cannot be used',
		description: `${baseUrl}${PARTNER_API_PATHS.grant} gave a token holding characters a request cannot carry (such as a line break). Nothing was sent with it. Check the Base URL, or ask the API's support.`,
	};
}

/** No HTTP answer: unreachable host, refused port, TLS or timeout. */
export function diagnoseTokenConnectionError(baseUrl: string, error: unknown): TokenDiagnosis {
	const code =
		(error as { code?: unknown; cause?: { code?: unknown } })?.code ??
		(error as { cause?: { code?: unknown } })?.cause?.code;
	return {
		title: `The Base URL could not be reached (${networkFailureInWords(code)})`,
		description: `This n8n could not reach ${baseUrl || '(an empty Base URL)'}. Check the Base URL of the Ticket Marketplace API credential, and that this n8n can reach it (network, firewall, proxy).`,
	};
}
