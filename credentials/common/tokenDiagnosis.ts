/**
 * What the credential says when it cannot get an access token: which part of it is wrong, in words, never with a
 * secret. What the token URL's answers mean (Apigee's OAuth errors, OAuth's own vocabulary, a quota) is the answer
 * table's (answerTable.ts); this module adds what is not an answer of the API (a redirect, a page, no connection).
 */
import type { IN8nHttpFullResponse } from 'n8n-workflow';
import { UserError } from 'n8n-workflow';

import { headerValue, networkFailureInWords, readBody, redactSecrets } from './apiAnswers';
import type { ReadBody } from './apiAnswers';
import { meaningOf, readAnswer, tokenWords } from './answerTable';
import type { AnswerMeaning } from './answerTable';
import { PARTNER_API_PATHS } from './partnerApi';

const BASE_URL_HINT =
	"Set the credential's Base URL to the API's address, without a path (for example https://api.example.com).";

/**
 * What went wrong, in two parts as n8n shows an error: the title says what happened in one line (no text from the
 * answer, no address: nothing that could make it long), the description what to do.
 */
export interface TokenDiagnosis {
	title: string;
	description: string;
}

/**
 * The diagnosis as one text, as the credential's error carries it (n8n keeps only an error's words when it wraps
 * it): the title, then the description. A title never holds ". ", so readDiagnosis can part them again.
 */
export function diagnosisText(diagnosis: TokenDiagnosis): string {
	return `${diagnosis.title}. ${diagnosis.description}`;
}

/** The title and the description of a diagnosis's text. */
export function readDiagnosis(text: string): TokenDiagnosis {
	const cut = text.indexOf('. ');
	return cut < 0
		? { title: text, description: '' }
		: { title: text.slice(0, cut), description: text.slice(cut + 2) };
}

export { readBody } from './apiAnswers';
export type { ReadBody } from './apiAnswers';

const BODY_SHAPE_WORDS: Record<Exclude<ReadBody['shape'], 'object'>, string> = {
	empty: 'an empty body',
	html: 'an HTML page',
	'json-not-object': 'JSON that is not an object',
	'not-json': 'a body that is not JSON',
};

/**
 * Where a redirect points, as origin and path only (its query is the server's, and may be long), with every secret
 * redacted: a path or host may carry one too. Redacted before parsing (which changes the spelling) and after.
 */
function describeRedirect(from: string, location: string, secrets: string[]): string {
	if (location === '') return '';
	try {
		const target = new URL(redactSecrets(location, secrets), from);
		return ` to ${redactSecrets(`${target.origin}${target.pathname}`, secrets).slice(0, 200)}`;
	} catch {
		return '';
	}
}

/** Turns the token endpoint's answer into a diagnosis that says which part of the credential is wrong. */
export function diagnoseTokenResponse(
	baseUrl: string,
	response: IN8nHttpFullResponse,
	secrets: string[] = [],
): TokenDiagnosis {
	const status = response.statusCode;
	const headers = response.headers as Record<string, unknown> | undefined;
	const { json, shape } = readBody(response.body, headerValue(headers, 'content-type'));
	const where = `${baseUrl}${PARTNER_API_PATHS.grant}`;

	if (status >= 300 && status < 400) {
		return {
			title: `The token request was redirected (HTTP ${status})`,
			description: `The Base URL answered with a redirect${describeRedirect(where, headerValue(headers, 'location'), secrets)}. The credential follows no redirect, so that the consumer secret and the password go to the Base URL only. Set the Base URL to the exact address the API answers on (often https:// instead of http://).`,
		};
	}
	if (!json || shape !== 'object') {
		const body = shape === 'object' ? BODY_SHAPE_WORDS['not-json'] : BODY_SHAPE_WORDS[shape];
		return {
			title: `The Base URL does not answer like the Partner API (HTTP ${status}, ${body})`,
			description: `${where} returned ${body}, not the API's answer. ${BASE_URL_HINT}`,
		};
	}
	if (status === 404 || status === 405) {
		return {
			title: `The Base URL does not answer like the Partner API (HTTP ${status})`,
			description: `${where} does not exist there. ${BASE_URL_HINT}`,
		};
	}

	const meaning = tokenAnswerMeaning(response, secrets);
	const words = tokenWords(meaning, status, where);
	return { title: words.title, description: words.advice };
}

/** What the token URL's answer means, by the answer table. */
export function tokenAnswerMeaning(
	response: IN8nHttpFullResponse,
	secrets: readonly string[] = [],
): AnswerMeaning {
	const facts = readAnswer(
		response.statusCode,
		response.headers as Record<string, unknown> | undefined,
		response.body,
		secrets,
	);
	// Every status has a row at the token URL (the last one takes any answer).
	return meaningOf(facts, { endpoint: 'token' })!;
}

/** A token answer whose access_token cannot be sent (see isUsableAccessToken); the token itself is never quoted. */
export function diagnoseUnusableToken(baseUrl: string): TokenDiagnosis {
	return {
		title: 'The token endpoint answered with an access token that cannot be used',
		description: `${baseUrl}${PARTNER_API_PATHS.grant} gave a token holding characters a request cannot carry (such as a line break). Nothing was sent with it. Check the Base URL, or ask the API's support.`,
	};
}

/** Marks errors of the token exchange, so that a request that never left is not reported as sent. */
const TOKEN_EXCHANGE_FAILURE = 'ticketMarketplaceTokenExchange';

export function tokenExchangeError(diagnosis: TokenDiagnosis): UserError {
	const error = new UserError(diagnosisText(diagnosis));
	Object.assign(error, { [TOKEN_EXCHANGE_FAILURE]: true });
	return error;
}

/** What the token endpoint last answered: a 429 or a 5xx is worth a later retry, a refused login is not. */
export interface TokenEndpointAnswer {
	status?: number;
	/** The Retry-After header as sent, for the caller to read. */
	retryAfter?: string;
	/** The answer is final whatever its status (the plan's quota is used up): no later login would pass. */
	final?: boolean;
}

const TOKEN_ENDPOINT_ANSWER = Symbol.for('n8n-nodes-ticket-marketplace.tokenEndpointAnswer');

/**
 * Notes the token endpoint's answer on the decrypted credential object, where the node that handed it to n8n reads
 * it: n8n's wrapping of the credential's error keeps only its words. Not enumerable: never copied or saved.
 */
export function noteTokenEndpointAnswer(credential: object, answer: TokenEndpointAnswer): void {
	Object.defineProperty(credential, TOKEN_ENDPOINT_ANSWER, {
		value: answer,
		enumerable: false,
		configurable: true,
		writable: true,
	});
}

export function lastTokenEndpointAnswer(credential: object): TokenEndpointAnswer {
	const answer = (credential as Record<symbol, unknown>)[TOKEN_ENDPOINT_ANSWER];
	return answer !== null && typeof answer === 'object' ? (answer as TokenEndpointAnswer) : {};
}

/**
 * How every diagnosis above begins. n8n wraps the credential's error in a NodeApiError that keeps only its
 * message (in `messages`), not the error or its marker, so the words are what reaches the node.
 */
const DIAGNOSIS_OPENINGS = [
	'The token request was redirected',
	'The token endpoint ',
	'The Base URL does not answer like the Partner API',
	'The Base URL could not be reached',
	'Login refused',
];

/**
 * True for the credential's own token-exchange errors: marked ones (as thrown, or kept as `cause`), and n8n's
 * wrapping of them, recognised by the diagnosis it carries.
 */
export function isTokenExchangeFailure(error: unknown): boolean {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
		const record = current as Record<string, unknown>;
		if (record[TOKEN_EXCHANGE_FAILURE] === true) return true;
		const messages = Array.isArray(record.messages) ? record.messages : [record.message];
		const said = messages.filter((text): text is string => typeof text === 'string');
		if (said.some((text) => DIAGNOSIS_OPENINGS.some((opening) => text.startsWith(opening))))
			return true;
		current = record.cause;
	}
	return false;
}

/** A connection that never produced an HTTP answer: unreachable host, refused port, TLS or timeout. */
export function diagnoseTokenConnectionError(baseUrl: string, error: unknown): TokenDiagnosis {
	const code =
		(error as { code?: unknown; cause?: { code?: unknown } })?.code ??
		(error as { cause?: { code?: unknown } })?.cause?.code;
	return {
		title: `The Base URL could not be reached (${networkFailureInWords(code)})`,
		description: `This n8n could not reach ${baseUrl || '(an empty Base URL)'}. Check the Base URL of the Ticket Marketplace API credential, and that this n8n can reach it (network, firewall, proxy).`,
	};
}
