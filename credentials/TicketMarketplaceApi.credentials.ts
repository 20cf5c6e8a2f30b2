import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	Icon,
	INodeProperties,
} from 'n8n-workflow';
import { UserError } from 'n8n-workflow';

export const GRANT_PATH = '/sellers/oauth/accesstoken';

const DEVELOPER_PORTAL_HINT =
	'Use the e-mail and password of your account on the consumer marketplace (where tickets are bought and sold), not your developer-portal login.';

/** The base URL as typed, without trailing slashes, so that paths can be appended. */
export function normalizeBaseUrl(baseUrl: unknown): string {
	return String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
}

export function basicAuthorization(consumerKey: unknown, consumerSecret: unknown): string {
	return `Basic ${Buffer.from(`${String(consumerKey ?? '')}:${String(consumerSecret ?? '')}`, 'utf8').toString('base64')}`;
}

interface ReadBody {
	/** The body when it is a JSON object (the only shape the API answers with). */
	json?: IDataObject;
	text: string;
	/** What the body is, in words, when it is not a JSON object. */
	shape: 'object' | 'empty' | 'html' | 'json-not-object' | 'not-json';
}

function readBody(body: unknown, contentType = ''): ReadBody {
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

/** Replaces every occurrence of the credential's secrets in text the API chose (it may echo what it was sent). */
function withoutSecrets(text: string, secrets: string[]): string {
	let clean = text;
	for (const secret of secrets) {
		if (secret !== '') clean = clean.split(secret).join('[redacted]');
	}
	return clean;
}

/** The API's own words, when its (unspecified) error body carries any, cut short and never echoing a secret. */
function apiMessage(json: IDataObject | undefined, secrets: string[]): string {
	if (!json) return '';
	for (const key of ['error_description', 'message', 'error']) {
		const value = json[key];
		// Redacted before it is cut, so that a cut cannot leave part of a secret behind.
		if (typeof value === 'string' && value.trim() !== '')
			return withoutSecrets(value.trim(), secrets).slice(0, 300);
	}
	return '';
}

function headerValue(headers: IN8nHttpFullResponse['headers'], name: string): string {
	const value = headers?.[name] ?? headers?.[name.toLowerCase()];
	return Array.isArray(value) ? value.join(', ') : String(value ?? '');
}

/** Where a redirect points, as origin and path only (its query is the server's, and may be long). */
function describeRedirect(from: string, location: string): string {
	if (location === '') return '';
	try {
		const target = new URL(location, from);
		return ` to ${`${target.origin}${target.pathname}`.slice(0, 200)}`;
	} catch {
		return '';
	}
}

/**
 * Turns the token endpoint's answer into a message that says which part of the credential is wrong. The real
 * service's error bodies are not documented, so the diagnosis reads standard OAuth vocabulary where present
 * (invalid_client = the app's key/secret, invalid_grant = the marketplace login) and otherwise names both.
 */
export function diagnoseTokenResponse(
	baseUrl: string,
	response: IN8nHttpFullResponse,
	secrets: string[] = [],
): string {
	const status = response.statusCode;
	const contentType = headerValue(response.headers, 'content-type');
	const { json, shape } = readBody(response.body, contentType);
	const where = `${baseUrl}${GRANT_PATH}`;

	if (status >= 300 && status < 400) {
		return `The token request was redirected (HTTP ${status}${describeRedirect(where, headerValue(response.headers, 'location'))}). The credential does not follow redirects, so that the consumer secret and the password go to the Base URL only. Set the Base URL to the address the API answers on (for example with https://).`;
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
	const said = apiMessage(json, secrets);
	const theApiSaid = said ? ` The API said: "${said}".` : '';
	const wwwAuthenticate = headerValue(response.headers, 'www-authenticate');

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

/**
 * Network failures in plain words. n8n replaces any error message that contains a raw code such as ECONNREFUSED
 * or ENOTFOUND with a generic text of its own that names neither the credential nor the address, so messages
 * carry these words instead of the code.
 */
const NETWORK_FAILURES: Record<string, string> = {
	ECONNREFUSED: 'connection refused',
	ENOTFOUND: 'host name not found',
	EAI_AGAIN: 'host name lookup failed',
	ETIMEDOUT: 'timed out',
	ECONNABORTED: 'timed out',
	ECONNRESET: 'connection closed unexpectedly',
	EPIPE: 'connection closed unexpectedly',
	EHOSTUNREACH: 'host unreachable',
	ENETUNREACH: 'network unreachable',
	EADDRNOTAVAIL: 'address not available',
	ERR_INVALID_URL: 'not a valid URL',
	CERT_HAS_EXPIRED: 'TLS certificate expired',
	DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
	SELF_SIGNED_CERT_IN_CHAIN: 'self-signed TLS certificate',
	UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
	ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host name',
};

export function networkFailureInWords(code: unknown): string {
	if (typeof code !== 'string' || code === '') return 'no answer';
	return NETWORK_FAILURES[code] ?? 'network error';
}

/** Marks errors of the token exchange, so that a request that never left is not reported as sent. */
const TOKEN_EXCHANGE_FAILURE = 'ticketMarketplaceTokenExchange';

function tokenExchangeError(message: string): UserError {
	const error = new UserError(message);
	Object.assign(error, { [TOKEN_EXCHANGE_FAILURE]: true });
	return error;
}

/** True for the credential's own token-exchange errors, also once n8n has wrapped them (as `cause`). */
export function isTokenExchangeFailure(error: unknown): boolean {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
		if ((current as Record<string, unknown>)[TOKEN_EXCHANGE_FAILURE] === true) return true;
		current = (current as { cause?: unknown }).cause;
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

export class TicketMarketplaceApi implements ICredentialType {
	name = 'ticketMarketplaceApi';

	displayName = 'Ticket Marketplace API';

	icon: Icon = {
		light: 'file:../icons/ticketMarketplaceApi.svg',
		dark: 'file:../icons/ticketMarketplaceApi.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-ticket-marketplace/n8n-nodes-ticket-marketplace#credentials';

	properties: INodeProperties[] = [
		{
			displayName:
				'Two logins are needed. The consumer key and secret come from your app on the developer portal. The e-mail and password are those of your consumer marketplace account (where tickets are bought and sold), not your developer-portal account. The access token is obtained and renewed automatically.',
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
			placeholder: 'https://api.example.com',
			description:
				'Address of the Partner API, without a path. For the local sandbox, the URL that `npm run sandbox` prints.',
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
				'E-mail of your consumer marketplace account, not of your developer-portal account',
		},
		{
			displayName: 'Marketplace Account Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Password of your consumer marketplace account',
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
	];

	/** Exchanges the app's key and secret plus the marketplace login for a Bearer token (spec 4.1 and 5). */
	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const baseUrl = normalizeBaseUrl(credentials.baseUrl);
		let response: IN8nHttpFullResponse;
		try {
			response = (await this.helpers.httpRequest({
				method: 'POST',
				url: `${baseUrl}${GRANT_PATH}`,
				qs: { grant_type: 'client_credentials' },
				headers: {
					Authorization: basicAuthorization(credentials.consumerKey, credentials.consumerSecret),
					'Content-Type': 'application/json',
					Accept: 'application/json',
				},
				body: { username: credentials.email, password: credentials.password },
				json: true,
				// The raw text, parsed here: n8n's own parsing would make the JSON text "" look like an empty body.
				encoding: 'text',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				// n8n follows redirects and, by default, re-sends the Authorization header to any host (and a 307/308
				// re-sends the password too): a redirect is diagnosed instead of followed.
				disableFollowRedirect: true,
				sendCredentialsOnCrossOriginRedirect: false,
			})) as IN8nHttpFullResponse;
		} catch (error) {
			// A fresh error without the request's config, so the Basic header and the password go nowhere.
			throw tokenExchangeError(diagnoseTokenConnectionError(baseUrl, error));
		}

		const { json } = readBody(response.body);
		const accessToken = json?.access_token;
		if (
			response.statusCode >= 200 &&
			response.statusCode < 300 &&
			typeof accessToken === 'string' &&
			accessToken !== ''
		) {
			return { accessToken };
		}
		// What the API could echo: the secrets as typed and the Basic credentials they were sent in.
		const secrets = [
			basicAuthorization(credentials.consumerKey, credentials.consumerSecret).slice(
				'Basic '.length,
			),
			credentials.consumerSecret,
			credentials.password,
		].filter((value): value is string => typeof value === 'string');
		throw tokenExchangeError(diagnoseTokenResponse(baseUrl, response, secrets));
	}

	/**
	 * Every API call carries the Bearer token, except the token exchange itself, which the credential test repeats
	 * and which authenticates with the app's Basic key:secret. An own property, not a method: n8n describes
	 * credential types to its editor by copying their own properties, and the HTTP Request node offers a type under
	 * "Predefined Credential Type" only when that copy has `authenticate`.
	 */
	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const headers = { ...(requestOptions.headers ?? {}) };
		const existing = headers.Authorization ?? headers.authorization;
		if (!(typeof existing === 'string' && existing.startsWith('Basic '))) {
			headers.Authorization = `Bearer ${String(credentials.accessToken ?? '')}`;
		}
		return { ...requestOptions, headers };
	};

	// n8n runs preAuthentication (the full token exchange, with its diagnosis) before this request whenever a
	// credential is tested; the request then confirms the exchange once more, since the API has no read-only call.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl }}',
			url: GRANT_PATH,
			method: 'POST',
			qs: { grant_type: 'client_credentials' },
			headers: {
				Authorization:
					'={{ "Basic " + ($credentials.consumerKey + ":" + $credentials.consumerSecret).base64Encode() }}',
				'Content-Type': 'application/json',
				Accept: 'application/json',
			},
			body: {
				username: '={{ $credentials.email }}',
				password: '={{ $credentials.password }}',
			},
			json: true,
		},
	};
}
