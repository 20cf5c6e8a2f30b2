import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { authenticateClient, issueAccessToken, matchesAny, readAudience } from './accessToken';
import {
	REALM,
	answerJson,
	answerUnexpected,
	firstLineOf,
	hasSeveralAuthorizations,
	isPlainObject,
	mediaType,
	warnOwner,
} from './httpAnswer';
import { readTokenLifetime } from './options';

/** RFC 6749 5.1: token responses, and (by good practice) their errors, must not be cached. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** The known token parameters, each with the name Subscribe registers (`oauthRequest`), also accepted. */
const TOKEN_PARAMETERS = {
	grant_type: 'grantType',
	client_id: 'clientId',
	client_secret: 'clientSecret',
	scope: undefined,
} as const;
type TokenParameters = Partial<Record<keyof typeof TOKEN_PARAMETERS, string>>;

/** Each as raw text and, per RFC 6749 2.3.1, its form-urlencoding-decoded reading (Basic only). */
type PresentedClient = { ids: string[]; secrets: string[] };

/** A refused token request: RFC 6749 5.2's code (invalid_client answered 401, the others 400) and description. */
class TokenRequestError {
	constructor(
		readonly error: 'invalid_request' | 'invalid_client' | 'unsupported_grant_type',
		readonly description: string,
	) {}
}
const invalidRequest = (text: string) => new TokenRequestError('invalid_request', text);
const invalidClient = (text: string) => new TokenRequestError('invalid_client', text);

const isAbsent = (value: unknown) => value === undefined || value === null || value === '';

/** One value said in two places: either will do, but they must agree. */
function agreed(first: string | undefined, second: string | undefined, differ: string) {
	if (first !== undefined && second !== undefined && first !== second) throw invalidRequest(differ);
	return first ?? second;
}

/** One spelling of a parameter: undefined when absent; JSON null counts as absent, as many clients write it. */
function readParameterValue(source: IDataObject, name: string | undefined): string | undefined {
	const value = name === undefined ? undefined : source[name];
	if (value === undefined || value === null) return undefined;
	if (Array.isArray(value)) throw invalidRequest(`The parameter ${name} is repeated`);
	if (typeof value !== 'string') throw invalidRequest(`The parameter ${name} must be a string`);
	return value;
}

/** The known token parameters of a parsed body or query, in either spelling (which must agree); others ignored. */
function readTokenParameters(source: unknown, where: string): TokenParameters {
	if (isAbsent(source)) return {};
	if (!isPlainObject(source))
		throw invalidRequest(`The ${where} must hold form-encoded or JSON parameters`);
	const parameters: TokenParameters = {};
	for (const [name, otherName] of Object.entries(TOKEN_PARAMETERS)) {
		const [value, otherValue] = [name, otherName].map((key) => readParameterValue(source, key));
		const either = agreed(value, otherValue, `The parameters ${name} and ${otherName} differ`);
		if (either !== undefined) parameters[name as keyof TokenParameters] = either;
	}
	return parameters;
}

/** The parsed body, when its media type may carry parameters (n8n also parses XML and multipart into objects). */
function tokenRequestBody(context: IWebhookFunctions): unknown {
	const body = context.getBodyData() as unknown;
	const empty = isPlainObject(body) ? Object.keys(body).length === 0 : isAbsent(body);
	const type = mediaType(context.getHeaderData()['content-type']);
	if (empty || ['application/x-www-form-urlencoded', 'application/json'].includes(type))
		return body;
	throw invalidRequest('The body must be form-encoded (application/x-www-form-urlencoded) or JSON');
}

function readings(text: string): string[] {
	try {
		const decoded = decodeURIComponent(text.replace(/\+/g, ' '));
		return decoded === text ? [text] : [text, decoded];
	} catch {
		return [text];
	}
}

/** undefined when there is no Authorization header; the presented client for a well-formed Basic header. */
function readBasicClient(authorization: string | undefined): PresentedClient | undefined {
	if (authorization === undefined || authorization.trim() === '') return undefined;
	const match = /^basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(authorization.trim());
	if (match === null) throw invalidClient('The Authorization header must use the Basic scheme');
	const decoded = Buffer.from(match[1], 'base64').toString('utf8');
	const colon = decoded.indexOf(':');
	if (colon < 0) throw invalidClient('The Basic credentials must be client_id:client_secret');
	return { ids: readings(decoded.slice(0, colon)), secrets: readings(decoded.slice(colon + 1)) };
}

/** The trigger's own configuration cannot be used: the owner is told, the caller gets RFC 6749 4.1.2.1's code. */
function unavailable(context: IWebhookFunctions, problem: string): IWebhookResponseData {
	warnOwner(context, problem, 'Token requests are answered 503 until this is fixed.');
	const description = 'The trigger cannot issue access tokens now';
	const body = { error: 'temporarily_unavailable', error_description: description };
	return answerJson(context, 503, body, NO_STORE);
}

/** The `setup` webhook: the OAuth 2.0 client-credentials token endpoint. */
export async function answerTokenRequest(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	try {
		const presented = readTokenRequest(this);
		const client = await authenticateClient(this, presented.ids, presented.secrets);
		if (typeof client === 'string') return unavailable(this, client);
		if (client === false) throw invalidClient('Client authentication failed');
		if (presented.grantType !== 'client_credentials')
			throw new TokenRequestError('unsupported_grant_type', 'Only client_credentials is supported');
		let lifetime: number;
		try {
			lifetime = readTokenLifetime(this);
		} catch (error) {
			return unavailable(this, firstLineOf(error));
		}
		const accessToken = issueAccessToken({ audience: readAudience(this), ...client }, lifetime);
		const body = { access_token: accessToken, token_type: 'Bearer', expires_in: lifetime };
		return answerJson(this, 200, body, NO_STORE);
	} catch (error) {
		if (!(error instanceof TokenRequestError)) return answerUnexpected(this, error);
		const body = { error: error.error, error_description: error.description };
		if (error.error !== 'invalid_client') return answerJson(this, 400, body, NO_STORE);
		// RFC 6749 5.2: an invalid_client answer names the Basic scheme.
		const challenge = { 'WWW-Authenticate': `Basic realm="${REALM}"` };
		return answerJson(this, 401, body, { ...NO_STORE, ...challenge });
	}
}

/** The client a token request presents, and its grant type; refused (TokenRequestError) when malformed. */
function readTokenRequest(context: IWebhookFunctions): PresentedClient & { grantType: string } {
	// RFC 6749 2.3: one authentication method per request; two Authorization headers are two (Node keeps one).
	if (hasSeveralAuthorizations(context))
		throw invalidRequest('The request has more than one Authorization header');
	const body = readTokenParameters(tokenRequestBody(context), 'body');
	const query = readTokenParameters(context.getQueryData(), 'URL query');
	if (query.client_id !== undefined || query.client_secret !== undefined)
		throw invalidRequest('Client credentials must not be sent in the URL');
	const basicClient = readBasicClient(context.getHeaderData().authorization);
	if (basicClient !== undefined && body.client_secret !== undefined)
		throw invalidRequest(
			'Use one client authentication method: HTTP Basic or client_id/client_secret in the body, not both',
		);
	// RFC 6749 3.2.1 lets a client that authenticates with Basic also name itself with client_id in the body.
	if (basicClient && body.client_id !== undefined && !matchesAny(basicClient.ids, body.client_id))
		throw invalidRequest(
			'client_id in the body differs from the client authenticated with HTTP Basic',
		);
	// RFC 6749 puts grant_type in the body; the marketplace's own token API takes it in the query.
	const differ = 'grant_type differs between the body and the URL';
	const grantType = agreed(body.grant_type, query.grant_type, differ);
	if (!grantType) throw invalidRequest('grant_type is required');
	if (basicClient) return { ...basicClient, grantType };
	const { client_id: id, client_secret: secret } = body;
	if (id === undefined || secret === undefined)
		throw invalidClient('Client authentication is required');
	return { ids: [id], secrets: [secret], grantType };
}
