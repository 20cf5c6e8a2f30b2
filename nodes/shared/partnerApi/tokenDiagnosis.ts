// What the credential says when it cannot get a token, never with a secret: the token URL's words by the answer
// table's row, and for what is no answer of the API (a page, no connection).
import type { ICredentialDataDecryptedObject, IN8nHttpFullResponse } from 'n8n-workflow';

import {
	headerValue,
	networkFailureInWords,
	readAnswer,
	readBody,
	type ReadBody,
} from './apiAnswers';
import { redirectTarget } from './redaction';
import { meaningOf, type AnswerMeaning, type RowName } from './answerTable';
import { joined, PLAN_QUOTA_ADVICE, quoteApi } from './answerWords';
import { basicAuthorization, loginValues } from './partnerApi';
import { PARTNER_API_PATHS } from './paths';
import { anyKeptRefreshToken, type TokenDiagnosis } from './pastN8n';

// The developer-portal login typed instead is the most common mistake.
const MARKETPLACE_LOGIN_HINT =
	'Check Marketplace Account E-Mail and Password in the credential: they are the login of your marketplace account (where tickets are bought and sold), not your developer-portal login.';
const APP_KEYS_HINT =
	"Copy Consumer Key and Consumer Secret again from your app's page on the developer portal.";
const BASE_URL_HINT =
	"Set the credential's Base URL to the API's address, without a path (for example https://api.example.com).";

/** Title, advice (after the API's own words unless `unquoted`); `redirectTo` is " to <where>" or ''. */
type Say = (
	status: number,
	where: string,
	redirectTo: string,
) => [title: string, advice: string, unquoted?: true];

const WAIT: Say = (status) => [
	`The token endpoint asked to wait (HTTP ${status}, too many requests)`,
	'Run the workflow again in a few minutes; if other workflows use the same credential at the same time, start them further apart.',
];
const FAILED: Say = (status) => [
	`The token endpoint failed (HTTP ${status})`,
	"The token request was not accepted. Check the credential's Base URL, Consumer Key and Consumer Secret, and the marketplace e-mail and password.",
];

const WORDS: Partial<Record<RowName, Say>> = {
	tokenRedirected: (status, _where, redirectTo) => [
		`The token request was redirected (HTTP ${status})`,
		`The Base URL answered with a redirect${redirectTo}. The credential follows no redirect, so that the consumer secret and the password go to the Base URL only. Set the Base URL to the exact address the API answers on (often https:// instead of http://).`,
		true,
	],
	tokenUrlNotFound: (status, where) => [
		`The Base URL does not answer like the Partner API (HTTP ${status})`,
		`${where} does not exist there. ${BASE_URL_HINT}`,
		true,
	],
	quota: (status) => [
		`Quota used up: the token endpoint refused the login because your plan's quota is used up (HTTP ${status})`,
		joined('Nothing was sent with this credential.', PLAN_QUOTA_ADVICE),
	],
	spikeArrest: WAIT,
	tooManyRequests: WAIT,
	invalidClient: (status) => [
		`Login refused: the token endpoint refused the consumer key and secret (HTTP ${status})`,
		joined(
			"The consumer key (the app's client ID) or the consumer secret is not one the developer portal issued.",
			APP_KEYS_HINT,
		),
	],
	invalidGrant: (status) => [
		`Login refused: the token endpoint refused the marketplace e-mail and password (HTTP ${status})`,
		MARKETPLACE_LOGIN_HINT,
	],
	unsupportedGrantType: (status, where) => [
		`The token endpoint refused the kind of login this credential asks for (HTTP ${status})`,
		`${where} does not take the grant type the Partner API documents. Check that the Base URL is the Partner API's address, without a path.`,
	],
	noApiProduct: (status) => [
		`Your app on the developer portal lacks the API product for the login (HTTP ${status})`,
		'On the developer portal, add the seller API products to your app, then test the credential again.',
	],
	tokenMissing: (status, where) => [
		`The token endpoint answered without an access token (HTTP ${status})`,
		`Check the Base URL (${where} answered), and that your app on the developer portal subscribes to the seller API products.`,
	],
	loginRefused: (status) => [
		`Login refused by the token endpoint (HTTP ${status})`,
		`The API did not say which login it refused. ${APP_KEYS_HINT} Then ${MARKETPLACE_LOGIN_HINT.charAt(0).toLowerCase()}${MARKETPLACE_LOGIN_HINT.slice(1)}`,
	],
	tokenEndpointFailed: (status) => [
		`The token endpoint failed (HTTP ${status})`,
		'The API could not log in for now. Run the workflow again in a few minutes.',
	],
};

export function tokenWords(meaning: AnswerMeaning, status: number, where: string, redirectTo = '') {
	const [title, advice, unquoted] = (WORDS[meaning.row] ?? FAILED)(status, where, redirectTo);
	return { title, advice: unquoted ? advice : joined(quoteApi(meaning), advice) };
}

const BODY_SHAPE_WORDS: Record<Exclude<ReadBody['shape'], 'object'>, string> = {
	empty: 'an empty body',
	html: 'an HTML page',
	'json-not-object': 'JSON that is not an object',
	'not-json': 'a body that is not JSON',
};

/** The run's token renewal reads in the row whether a later login may pass. */
export const meaningOfDiagnosis = (diagnosis: TokenDiagnosis) => diagnosis.meaning;

export function diagnoseTokenResponse(
	baseUrl: string,
	response: IN8nHttpFullResponse,
	credentials: ICredentialDataDecryptedObject = {},
): TokenDiagnosis {
	// What the API could echo: the secrets as sent and as typed, and the Basic credentials they were sent in.
	const secrets = [
		basicAuthorization(credentials.consumerKey, credentials.consumerSecret).slice('Basic '.length),
		...Object.values(loginValues(credentials)),
		...['consumerKey', 'consumerSecret', 'email'].map((field) => credentials[field]),
		...anyKeptRefreshToken(credentials),
	].filter((value): value is string => typeof value === 'string' && value !== '');
	const status = response.statusCode;
	const headers = response.headers as Record<string, unknown> | undefined;
	const facts = readAnswer(status, headers, response.body, secrets);
	const meaning = meaningOf(facts, { endpoint: 'token' });
	const { shape } = readBody(response.body, headerValue(headers, 'content-type'));
	const where = `${baseUrl}${PARTNER_API_PATHS.grant}`;
	if (meaning.row !== 'tokenRedirected' && shape !== 'object') {
		const body = BODY_SHAPE_WORDS[shape];
		return {
			title: `The Base URL does not answer like the Partner API (HTTP ${status}, ${body})`,
			description: `${where} returned ${body}, not the API's answer. ${BASE_URL_HINT}`,
			meaning,
		};
	}
	const target = redirectTarget(headerValue(headers, 'location'), where, secrets);
	const { title, advice } = tokenWords(meaning, status, where, target ? ` to ${target}` : '');
	return { title, description: `${advice}${pastedSpacesHint(meaning.row, credentials)}`, meaning };
}

const hasSpacesAround = (value: unknown) => typeof value === 'string' && value !== value.trim();
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
	const failed = error as { code?: unknown; cause?: { code?: unknown } } | undefined;
	return {
		title: `The Base URL could not be reached (${networkFailureInWords(failed?.code ?? failed?.cause?.code)})`,
		description: `This n8n could not reach ${baseUrl || '(an empty Base URL)'}. Check the Base URL of the Ticket Marketplace API credential, and that this n8n can reach it (network, firewall, proxy).`,
	};
}
