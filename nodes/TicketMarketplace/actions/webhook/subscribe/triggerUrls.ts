/** Whether Subscribe's two URLs can be the trigger's (a subscription takes days and cannot be undone). Only URLs
 * in n8n's own shape are judged: what a proxy forwards to cannot be seen from here. */
import { TRIGGER_PATHS } from '../../../../shared/callbackCredential';

const NOTIFICATIONS = TRIGGER_PATHS.notifications.toLowerCase();
const TOKEN = TRIGGER_PATHS.token.toLowerCase();
/** The segment of the editor's test URLs (production ones have /webhook/). */
const TEST_SEGMENT = 'webhook-test';

/** Where the two URLs are in the subscription body (as zod names the fields). */
const CALLBACK_URL = ['callback', 'url'];
const TOKEN_URL = ['callback', 'auth', 'tokenEndPoint'];
const FIELDS = [CALLBACK_URL, TOKEN_URL];
type UrlProblem = { path: string[]; text: string };

/** `…/webhook/<webhookId>/<path>` or `…/webhook/<workflowId>/<node>/<path>` (or /webhook-test/), the path one of the
 * trigger's two: which trigger (compared without case), which path, and whether a test URL. */
function triggerUrlOf(url: string) {
	const segments = new URL(url).pathname.toLowerCase().split('/').filter(Boolean);
	const path = segments.pop();
	if (path !== NOTIFICATIONS && path !== TOKEN) return undefined;
	// The webhook ID form first: a base path that itself ends in /webhook must not be read as a workflow ID.
	const at = [segments.length - 2, segments.length - 3].find((index) =>
		['webhook', TEST_SEGMENT].includes(segments[index]),
	);
	if (at === undefined) return undefined;
	return { trigger: segments.slice(at + 1).join('/'), path, test: segments[at] === TEST_SEGMENT };
}

/** What keeps the two URLs (absolute, as checked) from being one trigger's notifications and token URLs. */
export function triggerUrlProblems(callbackUrl: string, tokenUrl: string): UrlProblem[] {
	if (callbackUrl === tokenUrl) {
		const text = `is the same as Callback URL: the trigger has two URLs, one ending in /${TOKEN} and one in /${NOTIFICATIONS}`;
		return [{ path: TOKEN_URL, text }];
	}
	const [callback, token] = [triggerUrlOf(callbackUrl), triggerUrlOf(tokenUrl)];
	const swapped = callback?.path === TOKEN && token?.path === NOTIFICATIONS;
	const misplaced = (path: string[], end: string, what: string, want: string) => ({
		path,
		text: `ends in /${end}: that is the trigger's ${what}; use its URL that ends in /${want}${swapped ? ' (the two URLs are swapped)' : ''}`,
	});
	const problems: UrlProblem[] = [];
	if (callback?.path === TOKEN)
		problems.push(misplaced(CALLBACK_URL, TOKEN, 'Token URL', NOTIFICATIONS));
	if (token?.path === NOTIFICATIONS)
		problems.push(misplaced(TOKEN_URL, NOTIFICATIONS, 'notifications URL', TOKEN));
	[callback, token].forEach((url, index) => {
		const text = `is a Test URL (/${TEST_SEGMENT}/), which answers only while the editor listens for a test event: copy the trigger's Production URL (…/webhook/…) and publish its workflow`;
		if (url?.test) problems.push({ path: FIELDS[index], text });
	});
	if (callback && token && callback.trigger !== token.trigger)
		problems.push({
			path: TOKEN_URL,
			text: `belongs to another trigger than Callback URL (${token.trigger} and ${callback.trigger}): copy both URLs from the one Ticket Marketplace Trigger that should receive the sales`,
		});
	return problems;
}

/** Hosts of this machine: the sandbox runs there, the marketplace never does. */
export function isLoopbackUrl(url: string): boolean {
	if (!URL.canParse(url)) return false;
	const host = new URL(url).hostname.toLowerCase();
	return host === 'localhost' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/** The Token URL gets the client secret: https, on the callback's own server (plain http for a local sandbox). */
export function urlOriginProblems(
	callbackUrl: string,
	tokenUrl: string,
	plainHttpAllowed: boolean,
): UrlProblem[] {
	const [callback, token] = [new URL(callbackUrl), new URL(tokenUrl)];
	const problems: UrlProblem[] = [];
	[callback, token].forEach((url, index) => {
		const text = `starts with ${url.protocol}// and the marketplace would send the callback client secret there unencrypted: use the trigger's https:// Production URL (set n8n's public address, WEBHOOK_URL, to https://…); plain http:// is only for the sandbox on this machine`;
		if (!plainHttpAllowed && url.protocol !== 'https:')
			problems.push({ path: FIELDS[index], text });
	});
	if (callback.origin !== token.origin)
		problems.push({
			path: TOKEN_URL,
			text: `is on another server (${token.origin}) than Callback URL (${callback.origin}): the marketplace sends the callback client secret to the Token URL, so both must be the trigger's URLs on the same n8n; copy both from the one trigger`,
		});
	return problems;
}
