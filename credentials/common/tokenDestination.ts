import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { normalizeBaseUrl } from './partnerApi';

/**
 * Where the seller's access token may go: the Base URL's origin (scheme, host and port) and nowhere else.
 *
 * A request is read every way n8n's helpers could read it, and it may carry the token only when all of them land on
 * that origin: `url` or, in the legacy request helper (HTTP Request node v3 and later), `uri`; each joined to a
 * `baseURL` option as axios joins them and as the URL standard resolves them. Origins are compared as the URL
 * standard serialises them, so letter case, IDNA, default ports and user-info tricks cannot pass for the Base URL.
 *
 * The way there counts too: through a proxy, or with certificates unchecked, the token goes only to an https Base URL
 * and only when the credential says so (an http one would hand it to the proxy, or to anyone on the way, in clear).
 */

/** axios's test for an absolute URL: a scheme, or a scheme-relative `//host`, then the host. */
const AXIOS_ABSOLUTE = /^([a-z][a-z\d+\-.]*:)?\/\//i;

function originOf(address: string, base?: string): string | undefined {
	try {
		const url = base === undefined ? new URL(address) : new URL(address, base);
		return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
	} catch {
		return undefined;
	}
}

function textOf(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	return value instanceof URL ? value.href : String(value);
}

/** axios's buildFullPath: a relative address is appended to the base, an absolute one replaces it. */
function axiosFullPath(address: string | undefined, base: string | undefined): string {
	if (base && (address === undefined || !AXIOS_ABSOLUTE.test(address))) {
		return address ? `${base.replace(/\/?\/$/, '')}/${address.replace(/^\/+/, '')}` : base;
	}
	return address ?? '';
}

/**
 * Every origin the request could reach (undefined for an address that is no http(s) URL). `httpRequest*` requests
 * `url` joined to `baseURL` (`baseURL` alone when there is no `url`); the legacy request helper requests `uri`, else
 * `url`, joined the same way. The node that built the options may be read by either, so both readings must pass.
 */
export function requestOrigins(options: object): Array<string | undefined> {
	const { url, uri, baseURL } = options as Record<string, unknown>;
	const base = textOf(baseURL);
	const modern = textOf(url);
	const legacy = textOf(uri) ?? modern;
	const readings: string[] = [];
	if (modern !== undefined || base !== undefined) readings.push(axiosFullPath(modern, base));
	if (legacy !== undefined) readings.push(axiosFullPath(legacy, base));
	if (readings.length === 0) readings.push('');
	const origins = readings.map((reading) => originOf(reading));
	for (const address of [modern, textOf(uri)]) {
		if (address !== undefined)
			origins.push(base === undefined ? originOf(address) : originOf(address, base));
	}
	return origins;
}

/** The Base URL's origin, or undefined when the Base URL is no http(s) URL. */
export function baseUrlOrigin(baseUrl: unknown): string | undefined {
	return originOf(normalizeBaseUrl(baseUrl));
}

/** The credential's option that lets the token go with the HTTP Request node's Proxy or Ignore SSL Issues option. */
export const TRANSPORT_OPT_IN_FIELD = 'allowProxyOrIgnoredSsl';

/**
 * The request's own option, by its name in the HTTP Request node, that takes the token off a plain verified
 * connection to the Base URL: a proxy (`proxy`, in either helper), or certificates left unchecked
 * (`rejectUnauthorized: false` in the legacy helper, `skipSslCertificateValidation` in the newer one).
 */
function transportOption(options: object): string | undefined {
	const { proxy, rejectUnauthorized, skipSslCertificateValidation, agentOptions } =
		options as Record<string, unknown>;
	if (proxy !== undefined && proxy !== null && proxy !== '' && proxy !== false) return 'Proxy';
	const agentChecks = (agentOptions as { rejectUnauthorized?: unknown } | undefined)
		?.rejectUnauthorized;
	if (
		rejectUnauthorized === false ||
		agentChecks === false ||
		skipSslCertificateValidation === true
	)
		return 'Ignore SSL Issues (Insecure)';
	return undefined;
}

/**
 * Why the request may not carry the token (undefined when it may): it could go anywhere but the Base URL's origin,
 * or it goes through a proxy or without certificate checks, unless the Base URL is https and the credential allows
 * it. The text names origins only: no path, query or user-info, where a secret could sit.
 */
export function tokenDestinationRefusal(
	credentials: ICredentialDataDecryptedObject,
	options: object,
): string | undefined {
	const allowed = baseUrlOrigin(credentials.baseUrl);
	if (allowed === undefined) {
		return "This credential sends its token only to its Base URL, and its Base URL is not a web address (https://…): fix the credential's Base URL. Nothing was sent.";
	}
	const origins = requestOrigins(options);
	if (!origins.every((origin) => origin === allowed)) {
		const elsewhere = origins.find((origin) => origin !== allowed && origin !== undefined);
		const where = elsewhere === undefined ? 'an address that is not a full web address' : elsewhere;
		return `This credential only sends its token to ${allowed}, its Base URL; this request goes to ${where}, so it was not sent. Use a URL that starts with ${allowed}, or another credential for other sites.`;
	}
	const option = transportOption(options);
	if (option === undefined) return undefined;
	if (!allowed.startsWith('https:')) {
		return `This request's ${option} option is set, and this credential's Base URL is not https://, so its token could be read on the way: it was not sent. Turn the ${option} option off.`;
	}
	if (credentials[TRANSPORT_OPT_IN_FIELD] !== true) {
		return `This request's ${option} option is set, so it was not sent: this credential sends its token that way only when its "Allow Proxy or Ignored SSL Issues" option is on. Turn the ${option} option off, or turn that credential option on.`;
	}
	return undefined;
}

/**
 * n8n's options that keep a request from following a redirect: `disableFollowRedirect` for `httpRequest*`,
 * `followRedirect`/`followAllRedirects` for the legacy request helper, and, should a node turn following back on,
 * `sendCredentialsOnCrossOriginRedirect` so that n8n itself does not copy the header to another origin.
 */
export const TOKEN_REDIRECT_OPTIONS = {
	disableFollowRedirect: true,
	followRedirect: false,
	followAllRedirects: false,
	sendCredentialsOnCrossOriginRedirect: false,
} as const;
