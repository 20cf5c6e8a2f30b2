/**
 * Whether Subscribe's two URLs can be the trigger's (a subscription takes days and cannot be undone). Only URLs in
 * n8n's own shape are judged by it: what a proxy forwards to cannot be seen from here.
 */
import {
	NOTIFICATION_WEBHOOK,
	TOKEN_WEBHOOK,
} from '../../../../TicketMarketplaceTrigger/options';

const NOTIFICATIONS = NOTIFICATION_WEBHOOK.path.toLowerCase();
const TOKEN = TOKEN_WEBHOOK.path.toLowerCase();

/** n8n's webhook segments: production, and the editor's test URLs. */
const PRODUCTION_SEGMENT = 'webhook';
const TEST_SEGMENT = 'webhook-test';

/**
 * `…/webhook/<webhookId>/<path>` or `…/webhook/<workflowId>/<node>/<path>` (or /webhook-test/), the path one of the
 * trigger's two: which trigger (compared without case), which path, and whether a test URL.
 */
function triggerUrlOf(url: string): { trigger: string; path: string; test: boolean } | undefined {
	let pathname: string;
	try {
		pathname = new URL(url).pathname;
	} catch {
		return undefined;
	}
	const segments = pathname
		.split('/')
		.filter(Boolean)
		.map((segment) => segment.toLowerCase());
	const path = segments[segments.length - 1];
	if (path !== NOTIFICATIONS && path !== TOKEN) return undefined;
	// The webhook ID form first: a base path that itself ends in /webhook must not be read as a workflow ID.
	for (const idSegments of [1, 2]) {
		const at = segments.length - 2 - idSegments;
		if (at < 0) continue;
		const segment = segments[at];
		if (segment !== PRODUCTION_SEGMENT && segment !== TEST_SEGMENT) continue;
		return {
			trigger: segments.slice(at + 1, segments.length - 1).join('/'),
			path,
			test: segment === TEST_SEGMENT,
		};
	}
	return undefined;
}

/** Where the two URLs are in the subscription body. */
const CALLBACK_URL = ['callback', 'url'];
const TOKEN_URL = ['callback', 'auth', 'tokenEndPoint'];

/** A field's path in the subscription body (as zod names it), and what is wrong with it. */
type UrlProblem = { path: string[]; text: string };

const PRODUCTION_HINT = "copy the trigger's Production URL (…/webhook/…) and publish its workflow";

/** What keeps the two URLs from being one trigger's notifications and token URLs, each naming its field. */
export function triggerUrlProblems(callbackUrl: string, tokenUrl: string): UrlProblem[] {
	if (callbackUrl === tokenUrl) {
		return [
			{
				path: TOKEN_URL,
				text: `is the same as Callback URL: the trigger has two URLs, one ending in /${TOKEN} and one in /${NOTIFICATIONS}`,
			},
		];
	}
	const callback = triggerUrlOf(callbackUrl);
	const token = triggerUrlOf(tokenUrl);
	const problems: UrlProblem[] = [];
	const swapped = callback?.path === TOKEN && token?.path === NOTIFICATIONS;
	if (callback?.path === TOKEN)
		problems.push({
			path: CALLBACK_URL,
			text: `ends in /${TOKEN}: that is the trigger's Token URL; use its URL that ends in /${NOTIFICATIONS}${swapped ? ' (the two URLs are swapped)' : ''}`,
		});
	if (token?.path === NOTIFICATIONS)
		problems.push({
			path: TOKEN_URL,
			text: `ends in /${NOTIFICATIONS}: that is the trigger's notifications URL; use its URL that ends in /${TOKEN}${swapped ? ' (the two URLs are swapped)' : ''}`,
		});
	for (const [path, url] of [
		[CALLBACK_URL, callback],
		[TOKEN_URL, token],
	] as const) {
		if (url?.test)
			problems.push({
				path,
				text: `is a Test URL (/${TEST_SEGMENT}/), which answers only while the editor listens for a test event: ${PRODUCTION_HINT}`,
			});
	}
	if (callback && token && callback.trigger !== token.trigger)
		problems.push({
			path: TOKEN_URL,
			text: `belongs to another trigger than Callback URL (${token.trigger} and ${callback.trigger}): copy both URLs from the one Ticket Marketplace Trigger that should receive the sales`,
		});
	return problems;
}

/** Hosts of this machine: the sandbox runs there, the marketplace never does. */
export function isLoopbackUrl(url: string): boolean {
	try {
		const host = new URL(url).hostname.toLowerCase();
		return host === 'localhost' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
	} catch {
		return false;
	}
}

/** The Token URL gets the client secret: https, on the callback's own server (plain http for a local sandbox). */
export function urlOriginProblems(
	callbackUrl: string,
	tokenUrl: string,
	plainHttpAllowed: boolean,
): UrlProblem[] {
	const problems: UrlProblem[] = [];
	const callback = new URL(callbackUrl);
	const token = new URL(tokenUrl);
	if (!plainHttpAllowed) {
		for (const [path, url] of [
			[CALLBACK_URL, callback],
			[TOKEN_URL, token],
		] as const) {
			if (url.protocol !== 'https:')
				problems.push({
					path: [...path],
					text: `starts with ${url.protocol}// and the marketplace would send the callback client secret there unencrypted: use the trigger's https:// Production URL (set n8n's public address, WEBHOOK_URL, to https://…); plain http:// is only for the sandbox on this machine`,
				});
		}
	}
	if (callback.origin !== token.origin)
		problems.push({
			path: TOKEN_URL,
			text: `is on another server (${token.origin}) than Callback URL (${callback.origin}): the marketplace sends the callback client secret to the Token URL, so both must be the trigger's URLs on the same n8n; copy both from the one trigger`,
		});
	return problems;
}
