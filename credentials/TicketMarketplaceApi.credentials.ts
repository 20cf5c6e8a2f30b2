import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { headerValue } from './common/apiAnswers';
import {
	basicAuthorization,
	CREDENTIAL_ICON,
	isUsableAccessToken,
	loginValues,
	normalizeBaseUrl,
	PARTNER_API_PATHS,
	REQUEST_TIMEOUTS,
} from './common/partnerApi';
import {
	diagnoseTokenConnectionError,
	diagnoseTokenResponse,
	diagnoseUnusableToken,
	readBody,
	tokenAnswerMeaning,
} from './common/tokenDiagnosis';
import {
	carriedCancelSignal,
	failTokenExchange,
	forgetTokenExchange,
	loginJustFailed,
	renewalWanted,
	tokenForRequest,
} from './common/pastN8n';
import { TOKEN_REDIRECT_OPTIONS } from './common/tokenDestination';
import { API_CREDENTIAL_PROPERTIES } from './common/apiCredentialProperties';
import {
	anyKeptRefreshToken,
	keptRefreshToken,
	refreshRequestBody,
	refreshTokenFieldAfter,
} from './common/tokenRefresh';

/** What every request of one token exchange shares. */
interface TokenExchange {
	helper: IHttpRequestHelper;
	credentials: ICredentialDataDecryptedObject;
	baseUrl: string;
	authorization: string;
	common: Partial<IHttpRequestOptions>;
}

/** What the token exchange saves into the credential. */
type IssuedTokens = {
	accessToken: string;
	refreshToken: string;
};

function tokenRequestOptions(
	credentials: ICredentialDataDecryptedObject,
): Partial<IHttpRequestOptions> {
	return {
		method: 'POST',
		json: true,
		// The raw text, parsed here: n8n's own parsing would make the JSON text "" look like an empty body.
		encoding: 'text',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// n8n follows redirects and, by default, re-sends the Authorization header to any host (and a 307/308
		// re-sends the password too): a redirect is diagnosed instead of followed.
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
		// n8n does not hand the run's cancel signal to a token exchange: without these, Stop would wait for it.
		timeout: REQUEST_TIMEOUTS.tokenMs,
		abortSignal: carriedCancelSignal(credentials),
	};
}

/** The token answer's JSON and access token, when it is a success that carries one. */
function issued(response: IN8nHttpFullResponse) {
	const { json } = readBody(response.body);
	const accessToken = json?.access_token;
	const ok =
		response.statusCode >= 200 &&
		response.statusCode < 300 &&
		typeof accessToken === 'string' &&
		accessToken !== '';
	return ok ? { json, accessToken } : undefined;
}

/** A new token for the refresh token kept for this login; undefined when there is none, or it is refused. */
async function refreshedToken(exchange: TokenExchange): Promise<IssuedTokens | undefined> {
	const { helper, credentials, baseUrl, authorization, common } = exchange;
	const refreshToken = keptRefreshToken(credentials);
	if (refreshToken === undefined) return undefined;
	const refreshed = await helper.helpers
		.httpRequest({
			...common,
			url: `${baseUrl}${PARTNER_API_PATHS.refresh}`,
			headers: {
				Authorization: authorization,
				'Content-Type': 'application/x-www-form-urlencoded',
				Accept: 'application/json',
			},
			body: refreshRequestBody(refreshToken),
			json: false,
		} as IHttpRequestOptions)
		.then(
			(response) => issued(response as IN8nHttpFullResponse),
			// No answer: the login is tried, and says what is wrong if it fails too.
			() => undefined,
		);
	if (!refreshed || !isUsableAccessToken(refreshed.accessToken)) return undefined;
	return {
		accessToken: refreshed.accessToken,
		refreshToken: refreshTokenFieldAfter(credentials, refreshed.json, refreshToken, Date.now()),
	};
}

/** A token for the app's key and secret plus the marketplace login; a refusal is thrown, diagnosed. */
async function loggedIn(exchange: TokenExchange): Promise<IssuedTokens> {
	const { helper, credentials, baseUrl, authorization, common } = exchange;
	let response: IN8nHttpFullResponse;
	try {
		response = (await helper.helpers.httpRequest({
			...common,
			url: `${baseUrl}${PARTNER_API_PATHS.grant}`,
			qs: { grant_type: 'client_credentials' },
			headers: {
				Authorization: authorization,
				'Content-Type': 'application/json',
				Accept: 'application/json',
			},
			body: {
				username: loginValues(credentials).email,
				password: loginValues(credentials).password,
			},
		} as IHttpRequestOptions)) as IN8nHttpFullResponse;
	} catch (error) {
		// A fresh error without the request's config, so the Basic header and the password go nowhere.
		throw failTokenExchange(credentials, diagnoseTokenConnectionError(baseUrl, error));
	}

	const login = issued(response);
	if (login) {
		// The refresh token (if any) is the new answer's: one the refresh just refused is not kept.
		if (isUsableAccessToken(login.accessToken))
			return {
				accessToken: login.accessToken,
				refreshToken: refreshTokenFieldAfter(credentials, login.json, undefined, Date.now()),
			};
		// Kept by no one: n8n stores only a returned token, and a refused one is not retried.
		throw failTokenExchange(credentials, diagnoseUnusableToken(baseUrl), {
			status: response.statusCode,
		});
	}
	// What the API could echo: the secrets as sent and as typed, and the Basic credentials they were sent in.
	const secrets = [
		authorization.slice('Basic '.length),
		...Object.values(loginValues(credentials)),
		credentials.consumerKey,
		credentials.consumerSecret,
		credentials.email,
		...anyKeptRefreshToken(credentials),
	].filter((value): value is string => typeof value === 'string' && value !== '');
	const diagnosis = diagnoseTokenResponse(baseUrl, response, secrets, credentials);
	throw failTokenExchange(credentials, diagnosis, {
		status: response.statusCode,
		retryAfter: headerValue(response.headers as Record<string, unknown>, 'retry-after'),
		final: tokenAnswerMeaning(response, secrets).stopsRun,
	});
}

export class TicketMarketplaceApi implements ICredentialType {
	name = 'ticketMarketplaceApi';

	displayName = 'Ticket Marketplace API';

	icon: Icon = CREDENTIAL_ICON;

	documentationUrl =
		'https://github.com/n8n-nodes-ticket-marketplace/n8n-nodes-ticket-marketplace#credentials';

	properties: INodeProperties[] = API_CREDENTIAL_PROPERTIES;

	/**
	 * Gets a Bearer token: with the refresh token the last token answer carried, when there is one for this login
	 * (as the service recommends), else by exchanging the app's key and secret plus the marketplace login
	 * (spec 4.1 and 5). A refused refresh falls back to the login. n8n saves what this returns into the credential.
	 */
	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		// n8n also calls this after a request failed, whatever the failure: see renewalWanted. Nothing returned,
		// n8n keeps the token and passes the request's own failure on, without sending it again.
		const failed = loginJustFailed(credentials);
		if (failed !== undefined) throw failed;
		if (!renewalWanted(credentials)) return {};
		forgetTokenExchange(credentials);
		const exchange: TokenExchange = {
			helper: this,
			credentials,
			baseUrl: normalizeBaseUrl(credentials.baseUrl),
			authorization: basicAuthorization(
				loginValues(credentials).consumerKey,
				loginValues(credentials).consumerSecret,
			),
			common: tokenRequestOptions(credentials),
		};
		return (await refreshedToken(exchange)) ?? (await loggedIn(exchange));
	}

	/**
	 * Every API call carries the Bearer token, except the token exchange itself, which the credential test repeats
	 * and which authenticates with the app's Basic key:secret. An own property, not a method: n8n describes
	 * credential types to its editor by copying their own properties, and the HTTP Request node offers a type under
	 * "Predefined Credential Type" only when that copy has `authenticate`.
	 *
	 * The token goes to the Base URL's origin only: a request elsewhere is refused before it is sent, and a request
	 * that carries the token follows no redirect, since n8n re-sends the header on redirects (and its redirect library
	 * keeps it for a subdomain, whatever n8n's own option says). A token that did not come from this very login (the
	 * credential was edited since; n8n keeps the hidden token fields) is not sent at all: the API answers 401, and
	 * n8n logs in again with the credential as it is now (see tokenForRequest for the HTTP Request node).
	 */
	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const headers = { ...(requestOptions.headers ?? {}) };
		const existing = headers.Authorization ?? headers.authorization;
		if (typeof existing === 'string' && existing.startsWith('Basic ')) {
			return { ...requestOptions, headers };
		}
		const token = tokenForRequest(credentials, requestOptions);
		delete headers.authorization;
		if (token !== '') headers.Authorization = `Bearer ${token}`;
		else delete headers.Authorization;
		return {
			...requestOptions,
			headers,
			...TOKEN_REDIRECT_OPTIONS,
		};
	};

	// n8n runs preAuthentication (the full token exchange, with its diagnosis) before this request whenever a
	// credential is tested; the request then confirms the exchange once more, since the API has no read-only call.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl }}',
			url: PARTNER_API_PATHS.grant,
			method: 'POST',
			qs: { grant_type: 'client_credentials' },
			headers: {
				Authorization:
					'={{ "Basic " + (String($credentials.consumerKey).trim() + ":" + String($credentials.consumerSecret).trim()).base64Encode() }}',
				'Content-Type': 'application/json',
				Accept: 'application/json',
			},
			body: {
				username: '={{ String($credentials.email).trim() }}',
				password: '={{ $credentials.password }}',
			},
			json: true,
			// As in preAuthentication: a redirect would carry the consumer secret and the password elsewhere.
			disableFollowRedirect: true,
		},
	};
}
