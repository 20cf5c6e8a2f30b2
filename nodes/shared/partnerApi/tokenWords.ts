/** The words for every row of the answer table at the token URL (a refused login, a quota, a failure), by its row. */
import type { AnswerMeaning, RowName } from './answerTable';
import { joined, PLAN_QUOTA_ADVICE, quoteApi, type AnswerWords } from './answerSubjects';

/** Where the marketplace login goes wrong most: the developer-portal login typed instead. */
const MARKETPLACE_LOGIN_HINT =
	'Check Marketplace Account E-Mail and Password in the credential: they are the login of your marketplace account (where tickets are bought and sold), not your developer-portal login.';
const APP_KEYS_HINT =
	"Copy Consumer Key and Consumer Secret again from your app's page on the developer portal.";

export const BASE_URL_HINT =
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

export function tokenWords(
	meaning: AnswerMeaning,
	status: number,
	where: string,
	redirectTo = '',
): AnswerWords {
	const [title, advice, unquoted] = (WORDS[meaning.row] ?? FAILED)(status, where, redirectTo);
	return { title, advice: unquoted ? advice : joined(quoteApi(meaning), advice) };
}
