/**
 * What the credential says when it cannot get an access token: which part of it is wrong, in words, never with a
 * secret. The real service's error bodies are not documented, so the diagnosis reads standard OAuth vocabulary
 * where present (invalid_client = the app's key/secret, invalid_grant = the marketplace login) and otherwise names
 * both.
 */
import type { IDataObject, IN8nHttpFullResponse } from 'n8n-workflow';
import { UserError } from 'n8n-workflow';

import { extractApiMessage, headerValue, networkFailureInWords, redactSecrets } from './apiAnswers';
import { PARTNER_API_PATHS } from './partnerApi';

const DEVELOPER_PORTAL_HINT =
	'Use the e-mail and password of your account on the consumer marketplace (where tickets are bought and sold), not your developer-portal login.';

/** The longest part of the API's words quoted in a credential message. */
const MAX_QUOTED = 300;

export interface ReadBody {
	/** The body when it is a JSON object (the only shape the API answers with). */
	json?: IDataObject;
	text: string;
	/** What the body is, in words, when it is not a JSON object. */
	shape: 'object' | 'empty' | 'html' | 'json-not-object' | 'not-json';
}

export function readBody(body: unknown, contentType = ''): ReadBody {
	// n8n parses a JSON answer itself; a literal `null` arrives as null (an empty body arrives as '').
	if (body === null) return { text: 'null', shape: 'json-not-object' };
	if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body)) {
		return Array.isArray(body)
			? { text: '', shape: 'json-not-object' }
			: { json: body as IDataObject, text: '', shape: 'object' };
	}
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : String(body ?? '');
	if (text.trim() === '') return { text, shape: 'empty' };
	try {
		const parsed: unknown = JSON.parse(text);
		if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
			return { json: parsed as IDataObject, text, shape: 'object' };
		}
		return { text, shape: 'json-not-object' };
	} catch {
		// Not JSON: the caller reports the body as "not the API".
	}
	return { text, shape: /html/i.test(contentType) || /^\s*</.test(text) ? 'html' : 'not-json' };
}

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

/** Turns the token endpoint's answer into a message that says which part of the credential is wrong. */
export function diagnoseTokenResponse(
	baseUrl: string,
	response: IN8nHttpFullResponse,
	secrets: string[] = [],
): string {
	const status = response.statusCode;
	const headers = response.headers as Record<string, unknown> | undefined;
	const { json, shape } = readBody(response.body, headerValue(headers, 'content-type'));
	const where = `${baseUrl}${PARTNER_API_PATHS.grant}`;

	if (status >= 300 && status < 400) {
		return `The token request was redirected (HTTP ${status}${describeRedirect(where, headerValue(headers, 'location'), secrets)}). The credential does not follow redirects, so that the consumer secret and the password go to the Base URL only. Set the Base URL to the address the API answers on (for example with https://).`;
	}
	if (!json || shape !== 'object') {
		return `The Base URL does not answer like the Partner API: ${where} returned HTTP ${status} with ${
			shape === 'object' ? BODY_SHAPE_WORDS['not-json'] : BODY_SHAPE_WORDS[shape]
		}. Check the Base URL: it is the API's address (for example https://api.example.com), without a path.`;
	}
	if (status === 404 || status === 405) {
		return `The Base URL does not answer like the Partner API: ${where} returned HTTP ${status}. Check the Base URL: it is the API's address, without a path.`;
	}

	const code = typeof json.error === 'string' ? json.error : '';
	const said = (extractApiMessage(json, secrets) ?? '').slice(0, MAX_QUOTED);
	const theApiSaid = said ? ` The API said: "${said}".` : '';
	const wwwAuthenticate = headerValue(headers, 'www-authenticate');

	if (code === 'invalid_client' || (status === 401 && /^basic/i.test(wwwAuthenticate))) {
		return `The consumer key or consumer secret was refused (HTTP ${status}).${theApiSaid} Copy both again from your app's page on the developer portal.`;
	}
	if (code === 'invalid_grant' || /developer[- ]portal/i.test(said)) {
		return `The marketplace login was refused (HTTP ${status}).${theApiSaid} ${DEVELOPER_PORTAL_HINT}`;
	}
	if (status >= 200 && status < 300) {
		return `The token response from ${where} has no access_token.${theApiSaid} Check the Base URL and that your app subscribes to the seller API products.`;
	}
	if (status === 401 || status === 403) {
		return `The token request was refused (HTTP ${status}).${theApiSaid} Check the consumer key and secret (developer portal, app page) and the marketplace login. ${DEVELOPER_PORTAL_HINT}`;
	}
	return `The token request failed (HTTP ${status}).${theApiSaid}`;
}

/** A token answer whose access_token cannot be sent (see isUsableAccessToken); the token itself is never quoted. */
export function diagnoseUnusableToken(baseUrl: string): string {
	return `The token request to ${baseUrl}${PARTNER_API_PATHS.grant} was answered with an access token that cannot be used: it holds characters an HTTP header cannot carry (such as a line break). Nothing was sent with it. The API answered wrongly: check the Base URL, or ask the API's support.`;
}

/** Marks errors of the token exchange, so that a request that never left is not reported as sent. */
const TOKEN_EXCHANGE_FAILURE = 'ticketMarketplaceTokenExchange';

export function tokenExchangeError(message: string): UserError {
	const error = new UserError(message);
	Object.assign(error, { [TOKEN_EXCHANGE_FAILURE]: true });
	return error;
}

/** What the token endpoint last answered: a 429 or a 5xx is worth a later retry, a refused login is not. */
export interface TokenEndpointAnswer {
	status?: number;
	/** The Retry-After header as sent, for the caller to read. */
	retryAfter?: string;
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
	'The token request ',
	'The token response from ',
	'The Base URL does not answer like the Partner API',
	'The Base URL of the Ticket Marketplace API credential',
	'The consumer key or consumer secret was refused',
	'The marketplace login was refused',
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
export function diagnoseTokenConnectionError(baseUrl: string, error: unknown): string {
	const code =
		(error as { code?: unknown; cause?: { code?: unknown } })?.code ??
		(error as { cause?: { code?: unknown } })?.cause?.code;
	return `The Base URL of the Ticket Marketplace API credential, ${baseUrl || '(empty)'}, could not be reached: ${networkFailureInWords(code)}. Check the Base URL and that this n8n can reach it.`;
}
