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

/** Where the marketplace login goes wrong most: the developer-portal login typed instead. */
const MARKETPLACE_LOGIN_HINT =
	'Check Marketplace Account E-Mail and Password in the credential: they are the login of your marketplace account (where tickets are bought and sold), not your developer-portal login.';
const APP_KEYS_HINT =
	"Copy Consumer Key and Consumer Secret again from your app's page on the developer portal.";
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

	const code = typeof json.error === 'string' ? json.error : '';
	const said = (extractApiMessage(json, secrets) ?? '').replace(/\s+/g, ' ').slice(0, MAX_QUOTED);
	const theApiSaid = said ? `The API said: "${said}". ` : '';
	const wwwAuthenticate = headerValue(headers, 'www-authenticate');

	if (code === 'invalid_client' || (status === 401 && /^basic/i.test(wwwAuthenticate))) {
		return {
			title: `Login refused: the token endpoint refused the consumer key and secret (HTTP ${status})`,
			description: `${theApiSaid}${APP_KEYS_HINT}`,
		};
	}
	if (code === 'invalid_grant' || /developer[- ]portal/i.test(said)) {
		return {
			title: `Login refused: the token endpoint refused the marketplace e-mail and password (HTTP ${status})`,
			description: `${theApiSaid}${MARKETPLACE_LOGIN_HINT}`,
		};
	}
	if (status >= 200 && status < 300) {
		return {
			title: `The token endpoint answered without an access token (HTTP ${status})`,
			description: `${theApiSaid}Check the Base URL (${where} answered), and that your app on the developer portal subscribes to the seller API products.`,
		};
	}
	if (status === 401 || status === 403) {
		return {
			title: `Login refused by the token endpoint (HTTP ${status})`,
			description: `${theApiSaid}The API did not say which login it refused. ${APP_KEYS_HINT} Then ${MARKETPLACE_LOGIN_HINT.charAt(0).toLowerCase()}${MARKETPLACE_LOGIN_HINT.slice(1)}`,
		};
	}
	if (status === 429) {
		return {
			title: 'The token endpoint asked to wait (HTTP 429, too many requests)',
			description: `${theApiSaid}Run the workflow again in a few minutes; if other workflows use the same credential at the same time, start them further apart.`,
		};
	}
	return {
		title: `The token endpoint failed (HTTP ${status})`,
		description: `${theApiSaid}${
			status >= 500
				? 'The API could not log in for now. Run the workflow again in a few minutes.'
				: `The token request was not accepted. Check the credential's Base URL, Consumer Key and Consumer Secret, and the marketplace e-mail and password.`
		}`,
	};
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
