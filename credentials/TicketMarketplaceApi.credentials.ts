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

import { headerValue, readBody } from '../nodes/shared/partnerApi/apiAnswers';
import {
	basicAuthorization,
	CREDENTIAL_ICON,
	loginValues,
	normalizeBaseUrl,
	REQUEST_TIMEOUTS,
	TRANSPORT_OPT_IN_FIELD,
} from '../nodes/shared/partnerApi/partnerApi';
import { PARTNER_API_PATHS } from '../nodes/shared/partnerApi/paths';
import {
	diagnoseTokenConnectionError,
	diagnoseTokenResponse,
	diagnoseUnusableToken,
} from '../nodes/shared/partnerApi/tokenDiagnosis';
import {
	carriedCancelSignal,
	failTokenExchange,
	forgetTokenExchange,
	keptRefreshToken,
	loginJustFailed,
	refreshTokenFieldAfter,
	renewalWanted,
	sentAsHanded,
	tokenForRequest,
} from '../nodes/shared/partnerApi/pastN8n';

/** What every request of one token exchange shares; `post` sends one to a path of the Base URL. */
interface TokenExchange {
	credentials: ICredentialDataDecryptedObject;
	baseUrl: string;
	authorization: string;
	post: (path: string, request: Partial<IHttpRequestOptions>) => Promise<IN8nHttpFullResponse>;
}

/** Printable ASCII, spaces only inside: Node refuses control characters, HTTP drops outer spaces. */
const isUsableAccessToken = (token: string) =>
	/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(token);

/** Both helpers' options that keep the token from following a redirect. */
const TOKEN_REDIRECT_OPTIONS = {
	disableFollowRedirect: true,
	followRedirect: false,
	followAllRedirects: false,
	sendCredentialsOnCrossOriginRedirect: false,
} as const;

/** A success's access token, and the hidden field that ties it (and a refresh token, else `keep`) to this login. */
function issued(
	credentials: ICredentialDataDecryptedObject,
	response: IN8nHttpFullResponse,
	keep: string | undefined,
) {
	const { json } = readBody(response.body);
	const accessToken = json?.access_token;
	if (response.statusCode < 200 || response.statusCode >= 300) return undefined;
	if (typeof accessToken !== 'string' || accessToken === '') return undefined;
	return { accessToken, refreshToken: refreshTokenFieldAfter(credentials, json, keep, Date.now()) };
}

function tokenHeaders(authorization: string, contentType: string) {
	return { Authorization: authorization, 'Content-Type': contentType, Accept: 'application/json' };
}

/** A new token for the refresh token kept for this login; undefined when there is none, or it is refused. */
async function refreshedToken({ credentials, authorization, post }: TokenExchange) {
	const refreshToken = keptRefreshToken(credentials);
	if (refreshToken === undefined) return undefined;
	const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken });
	const headers = tokenHeaders(authorization, 'application/x-www-form-urlencoded');
	const request = { headers, body: body.toString(), json: false };
	// No answer to a refresh: the login is tried, and says what is wrong if it fails too.
	const response = await post(PARTNER_API_PATHS.refresh, request).catch(() => undefined);
	const refreshed = response && issued(credentials, response, refreshToken);
	return refreshed && isUsableAccessToken(refreshed.accessToken) ? refreshed : undefined;
}

/** A token for the app's key and secret plus the marketplace login; a refusal is thrown, diagnosed. */
async function loggedIn(exchange: TokenExchange) {
	const { credentials, baseUrl, authorization, post } = exchange;
	const login = loginValues(credentials);
	const response = await post(PARTNER_API_PATHS.grant, {
		qs: { grant_type: 'client_credentials' },
		headers: tokenHeaders(authorization, 'application/json'),
		body: { username: login.email, password: login.password },
	}).catch((error: unknown) => {
		// A fresh error without the request's config, so the Basic header and the password go nowhere.
		throw failTokenExchange(credentials, diagnoseTokenConnectionError(baseUrl, error));
	});
	// The refresh token (if any) is the new answer's: one the refresh just refused is not kept.
	const token = issued(credentials, response, undefined);
	const status = response.statusCode;
	if (token) {
		if (isUsableAccessToken(token.accessToken)) return token;
		// Kept by no one: n8n stores only a returned token, and a refused one is not retried.
		throw failTokenExchange(credentials, diagnoseUnusableToken(baseUrl), { status });
	}
	throw failTokenExchange(credentials, diagnoseTokenResponse(baseUrl, response, credentials), {
		status,
		retryAfter: headerValue(response.headers as Record<string, unknown>, 'retry-after'),
	});
}

export class TicketMarketplaceApi implements ICredentialType {
	name = 'ticketMarketplaceApi';
	displayName = 'Ticket Marketplace API';
	icon: Icon = CREDENTIAL_ICON;
	documentationUrl =
		'https://github.com/n8n-nodes-ticket-marketplace/n8n-nodes-ticket-marketplace#credentials';
	properties: INodeProperties[] = [
		{
			displayName:
				'Two logins are needed: your app on the developer portal (key and secret), and your marketplace account where tickets are sold (e-mail and password).',
			name: 'notice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://api.example.com',
			description:
				"The marketplace API's address, without a path; for the sandbox, the one it prints",
		},
		{
			displayName: 'Consumer Key',
			name: 'consumerKey',
			type: 'string',
			default: '',
			required: true,
			description: "Shown on your app's page of the developer portal",
		},
		{
			displayName: 'Consumer Secret',
			name: 'consumerSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: "Shown on your app's page of the developer portal, next to the consumer key",
		},
		{
			displayName: 'Marketplace Account E-Mail',
			name: 'email',
			type: 'string',
			placeholder: 'name@email.com',
			default: '',
			required: true,
			description:
				'E-mail of your marketplace account (where tickets are bought and sold), not of your developer-portal account',
		},
		{
			displayName: 'Marketplace Account Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Password of your marketplace account, exactly as you type it to log in',
		},
		{
			displayName: 'Allow Proxy or Ignored SSL Issues',
			name: TRANSPORT_OPT_IN_FIELD,
			type: 'boolean',
			default: false,
			description:
				"Whether to send the token when the request node's Proxy or Ignore SSL Issues (Insecure) option is set; https:// only",
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
		{
			displayName: 'Refresh Token',
			name: 'refreshToken',
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		},
	];

	// A Bearer token with the kept refresh token, else (or when refused) with the key, secret and login (spec 4.1 and
	// 5). Returning nothing keeps the token, and n8n passes the request's own failure on (see renewalWanted).
	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const failed = loginJustFailed(credentials);
		if (failed !== undefined) throw failed;
		if (!renewalWanted(credentials)) return {};
		forgetTokenExchange(credentials);
		const baseUrl = normalizeBaseUrl(credentials.baseUrl);
		const authorization = basicAuthorization(credentials.consumerKey, credentials.consumerSecret);
		const post: TokenExchange['post'] = async (path, request) =>
			(await this.helpers.httpRequest({
				method: 'POST',
				url: `${baseUrl}${path}`,
				json: true,
				// The raw text, parsed here: n8n's own parsing would make the JSON text "" look like an empty body.
				encoding: 'text',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				// A redirect is diagnosed, not followed: n8n would re-send the Authorization header (and the password).
				disableFollowRedirect: true,
				sendCredentialsOnCrossOriginRedirect: false,
				// n8n does not hand the run's cancel signal to a token exchange: without these, Stop would wait for it.
				timeout: REQUEST_TIMEOUTS.tokenMs,
				abortSignal: carriedCancelSignal(credentials),
				...request,
			} as IHttpRequestOptions)) as IN8nHttpFullResponse;
		const exchange: TokenExchange = { credentials, baseUrl, authorization, post };
		return (await refreshedToken(exchange)) ?? (await loggedIn(exchange));
	}

	// The Bearer token on every call but the Basic token exchange, to the Base URL's origin only and following no
	// redirect. An own property, not a method: the HTTP Request node offers the type only when n8n's copy has it.
	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const headers = { ...(requestOptions.headers ?? {}) };
		const existing = headers.Authorization ?? headers.authorization;
		if (typeof existing === 'string' && existing.startsWith('Basic ')) {
			sentAsHanded(credentials, requestOptions);
			return { ...requestOptions, headers };
		}
		const token = tokenForRequest(credentials, requestOptions);
		delete headers.authorization;
		if (token !== '') headers.Authorization = `Bearer ${token}`;
		else delete headers.Authorization;
		return { ...requestOptions, headers, ...TOKEN_REDIRECT_OPTIONS };
	};

	// n8n runs preAuthentication (the exchange, diagnosed) first; this confirms it, as the API has no read-only call.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl }}',
			url: PARTNER_API_PATHS.grant,
			method: 'POST',
			qs: { grant_type: 'client_credentials' },
			headers: tokenHeaders(
				'={{ "Basic " + (String($credentials.consumerKey).trim() + ":" + String($credentials.consumerSecret).trim()).base64Encode() }}',
				'application/json',
			),
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
