import type { ICredentialDataDecryptedObject, Icon } from 'n8n-workflow';

import { PARTNER_API_PATHS } from './paths';

export function isPreDeliverPath(path: string | undefined): boolean {
	return path?.startsWith(`${PARTNER_API_PATHS.preDeliver}/`) === true;
}

export const CREDENTIAL_ICON: Icon = {
	light: 'file:../icons/ticketMarketplaceApi.svg',
	dark: 'file:../icons/ticketMarketplaceApi.dark.svg',
};

// A paste often adds spaces around a field.
const trimmedField = (value: unknown) => String(value ?? '').trim();

export function normalizeBaseUrl(baseUrl: unknown): string {
	return trimmedField(baseUrl).replace(/\/+$/, '');
}

/** The login as the token request sends it: trimmed, but the password exactly as typed (spaces may belong to it). */
export function loginValues(credentials: Record<string, unknown>) {
	return {
		consumerKey: trimmedField(credentials.consumerKey),
		consumerSecret: trimmedField(credentials.consumerSecret),
		email: trimmedField(credentials.email),
		password: String(credentials.password ?? ''),
	};
}

export function basicAuthorization(consumerKey: unknown, consumerSecret: unknown): string {
	return `Basic ${Buffer.from(`${trimmedField(consumerKey)}:${trimmedField(consumerSecret)}`, 'utf8').toString('base64')}`;
}

/** Generous, never forever (an object so tests can shorten them); an API time-out leaves the outcome unknown. */
export const REQUEST_TIMEOUTS = { apiMs: 120_000, tokenMs: 30_000 };

// Where the seller's token may go: the Base URL's origin only, however n8n's helpers read the request; through a
// proxy or with certificates unchecked, only to https and when the credential allows it.

/** axios's test for an absolute URL. */
const AXIOS_ABSOLUTE = /^([a-z][a-z\d+\-.]*:)?\/\//i;

function originOf(address: string, base?: string): string | undefined {
	try {
		const url = new URL(address, base);
		return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
	} catch {
		return undefined;
	}
}

const textOf = (value: unknown) =>
	value === undefined || value === null ? undefined : String(value);

/** axios's buildFullPath. */
function axiosFullPath(address: string | undefined, base: string | undefined): string {
	if (base && (address === undefined || !AXIOS_ABSOLUTE.test(address)))
		return address ? `${base.replace(/\/?\/$/, '')}/${address.replace(/^\/+/, '')}` : base;
	return address ?? '';
}

/** Every origin the request could reach (undefined: no http(s) URL), as either helper and axios or URL read it. */
function requestOrigins(options: object): Array<string | undefined> {
	const { url, uri, baseURL } = options as Record<string, unknown>;
	const base = textOf(baseURL);
	const modern = textOf(url);
	const legacy = textOf(uri) ?? modern;
	const readings: string[] = [];
	if (modern !== undefined || base !== undefined) readings.push(axiosFullPath(modern, base));
	if (legacy !== undefined) readings.push(axiosFullPath(legacy, base));
	if (readings.length === 0) readings.push('');
	const origins = readings.map((reading) => originOf(reading));
	for (const address of [modern, textOf(uri)])
		if (address !== undefined) origins.push(originOf(address, base));
	return origins;
}

export function baseUrlOrigin(baseUrl: unknown): string | undefined {
	return originOf(normalizeBaseUrl(baseUrl));
}

/** The credential's opt-in to the HTTP Request node's Proxy or Ignore SSL Issues option. */
export const TRANSPORT_OPT_IN_FIELD = 'allowProxyOrIgnoredSsl';

/** The request's option (as the HTTP Request node names it) that takes the token off a verified connection. */
function transportOption(options: object): string | undefined {
	const { proxy, rejectUnauthorized, skipSslCertificateValidation, agentOptions } =
		options as Record<string, unknown>;
	if (proxy !== undefined && proxy !== null && proxy !== '' && proxy !== false) return 'Proxy';
	const agentChecks = (agentOptions as { rejectUnauthorized?: unknown } | undefined)
		?.rejectUnauthorized;
	if ([rejectUnauthorized, agentChecks].includes(false) || skipSslCertificateValidation === true)
		return 'Ignore SSL Issues (Insecure)';
	return undefined;
}

/** Why the request may not carry the token, naming origins only (no path or user-info); undefined when it may. */
export function tokenDestinationRefusal(
	credentials: ICredentialDataDecryptedObject,
	options: object,
): string | undefined {
	const allowed = baseUrlOrigin(credentials.baseUrl);
	if (allowed === undefined)
		return "This credential sends its token only to its Base URL, and its Base URL is not a web address (https://…): fix the credential's Base URL. Nothing was sent.";
	const strays = requestOrigins(options).filter((origin) => origin !== allowed);
	if (strays.length > 0) {
		const where =
			strays.find((origin) => origin !== undefined) ?? 'an address that is not a full web address';
		return `This credential only sends its token to ${allowed}, its Base URL; this request goes to ${where}, so it was not sent. Use a URL that starts with ${allowed}, or another credential for other sites.`;
	}
	const option = transportOption(options);
	if (option === undefined) return undefined;
	if (!allowed.startsWith('https:'))
		return `This request's ${option} option is set, and this credential's Base URL is not https://, so its token could be read on the way: it was not sent. Turn the ${option} option off.`;
	if (credentials[TRANSPORT_OPT_IN_FIELD] !== true)
		return `This request's ${option} option is set, so it was not sent: this credential sends its token that way only when its "Allow Proxy or Ignored SSL Issues" option is on. Turn the ${option} option off, or turn that credential option on.`;
	return undefined;
}
