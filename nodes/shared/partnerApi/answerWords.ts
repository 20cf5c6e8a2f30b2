// Each row's words for a request made with the access token (the token URL's: tokenDiagnosis.ts): a title, then what
// to do, always saying whether anything was created (of an unknown outcome, the caller adds how to check).
import type { AnswerMeaning, RowName } from './answerTable';
import { isPreDeliverPath } from './partnerApi';
import { PARTNER_API_PATHS } from './paths';

/** What a message tells beside the row, in words, secrets redacted. */
export interface ApiWordsContext {
	path?: string;
	method?: string;
	/** 0: no answer. */
	status: number;
	/** Rate refusals (429, spike arrest) this request met, the last one included. */
	rateRefusals: number;
	lastWait?: string;
	/** `The API said: "…".` ('' when none). */
	apiSaid?: string;
	/** What n8n said of a failure that is no answer. */
	nodeSaid?: string;
	network?: string;
	baseUrl?: string;
	connectionRetries?: number;
	redirectTo?: string;
	bodyKind?: string;
	bodyShown?: string;
	/** A wait too long to take, the longest this node takes, and what asked for it. */
	wait?: string;
	longestWait?: string;
	waitFor?: string;
	diagnosis?: { title: string; description: string };
	renewals?: number;
}

/** A title, then the parts of the advice (the empty ones left out). */
type Say = (
	quoted: string,
	context: ApiWordsContext,
	subject: Subject,
) => [title: string, ...advice: Array<string | undefined>];

const times = (count: number) => `${count} time${count === 1 ? '' : 's'}`;
const lastWait = (c: ApiWordsContext) => c.lastWait && `It last asked to wait ${c.lastWait}.`;
const RATE_REFUSED =
	(title: (c: ApiWordsContext) => string): Say =>
	(q, c, s) => [
		title(c),
		q,
		lastWait(c),
		`Nothing was ${s.done} by these attempts. ${s.rateLimited}`,
	];
const ACCESS_REFUSED: Say = (q, c, s) => [
	`The Partner API refused access (HTTP ${c.status})`,
	q,
	`Nothing was ${s.done}. Check the Ticket Marketplace API credential: the consumer key and secret of your app, the e-mail and password of the marketplace account (not the developer-portal account), and that your app subscribes to the seller API products.`,
];
const REFUSED: Say = (q, c, s) => [
	`The Partner API refused ${s.what} (HTTP ${c.status})`,
	q || 'The API gave no reason.',
	`Nothing was ${s.done}. ${s.fix}`,
];
/** `processed`: the redirect may follow a request the API processed (the seeOther row). */
const redirected =
	(processed: boolean): Say =>
	(_q, c, s) => [
		`${processed ? 'Outcome unknown: the' : 'The'} Partner API answered with a redirect (HTTP ${c.status}), which is not followed`,
		`${c.method} ${c.path} was redirected${c.redirectTo ? ` to ${c.redirectTo}` : ''}. Requests to the API follow no redirect, so the access token goes nowhere else.`,
		processed
			? `A ${c.status} may follow a request the API processed.`
			: `Nothing was ${s.done}. Set the Base URL of the Ticket Marketplace API credential to the exact address the API answers on (often https:// instead of http://).`,
	];
/** The credential's diagnosis, when it fits a title; else what n8n kept of it. */
const TOKEN_EXCHANGE: Say = (_q, c, s) => {
	const { title = '', description = '' } = c.diagnosis ?? {};
	const fits = description && title.length <= 100 && !/\n/.test(title);
	return fits
		? [title, description, `${s.notDone}: it needs a login that works.`]
		: [
				'The Ticket Marketplace API credential could not log in',
				`It said: ${oneLine(c.nodeSaid ?? '', 500)}`,
				'Check the Base URL, the consumer key and secret, and the marketplace e-mail and password of the credential.',
				`${s.notDone}: it needs a login that works.`,
			];
};

const WORDS: Partial<Record<RowName, Say>> = {
	unreadableFile: (_q, c) => [
		'A ticket file could not be read, so its upload was not sent',
		`n8n said: ${oneLine(c.nodeSaid ?? '')}.`,
		"Nothing was delivered for this listing. Check that the previous node's file is still in n8n's binary data (the filesystem or S3 folder n8n keeps it in), then run the workflow again.",
	],
	tokenExchange: TOKEN_EXCHANGE,
	connectionRefused: (_q, c) => [
		`Could not connect to the Partner API (${c.network})`,
		`Tried ${c.baseUrl || '(an empty Base URL)'} ${(c.connectionRetries ?? 0) + 1} times. Nothing was sent. Check the Base URL of the Ticket Marketplace API credential, and that this n8n can reach it.`,
	],
	requestNotBuilt: (_q, c) => [
		`The request to the Partner API could not be built (${c.network})`,
		'Nothing was sent. A value in it (often the access token the token endpoint gave) holds characters a request cannot carry.',
	],
	connectionLost: (_q, c) => [
		`Outcome unknown: no answer from the Partner API (${c.network})`,
		'The connection ended before an answer arrived.',
	],
	failedAfterHanding: (_q, c) => [
		'Outcome unknown: the request to the Partner API failed after it was handed on to be sent',
		`n8n said: ${oneLine(c.nodeSaid ?? '')}.`,
	],
	notSent: (_q, c) => [
		'The request to the Partner API could not be sent',
		`n8n said: ${oneLine(c.nodeSaid ?? '')}.`,
		'Nothing was sent. Run the workflow again; if it fails the same way, check the Base URL of the Ticket Marketplace API credential.',
	],
	unconfirmed: (_q, c, s) => [
		`Outcome unknown: the Partner API answered ${c.status} with ${c.bodyKind}`,
		`That answer does not show that ${s.what} was created.`,
		c.bodyShown && `It answered: ${c.bodyShown}`,
	],
	seeOther: redirected(true),
	redirected: redirected(false),
	unexpected: (_q, c) => [`The Partner API answered HTTP ${c.status}`, c.apiSaid],
	waitTooLong: (_q, c, s) => [
		`The Partner API asked to wait ${c.wait} (${c.waitFor}), longer than this node waits`,
		`Nothing was ${s.done} by this request. Run the workflow again in ${c.wait} or later; this node waits at most ${c.longestWait}.`,
	],
	spikeTooSlow: (_q, c, s) => [
		`The Partner API's spike arrest admits one request every ${c.wait} (rate limit), longer than this node waits`,
		c.apiSaid,
		`Nothing was ${s.done} by this request, and nothing more is sent in this run: at that rate a sheet would take hours. Ask the marketplace to raise your app's rate, or send fewer listings per run and run the workflow again later; this node waits at most ${c.longestWait} between requests.`,
	],
	freshTokenRefused: (_q, c) => [
		`The Partner API refused an access token it had just issued (HTTP ${c.status})`,
		c.apiSaid,
		'The login works (consumer key and secret, e-mail and password), so your app may not make this request: on the developer portal, add the API product it needs to your app (for listings, the seller listing API). Another workflow or n8n renewing the same credential at the same moment can cause it too: run them apart. Nothing more was sent.',
	],
	renewalsExhausted: (_q, c) => [
		`The access token kept expiring (renewed ${times(c.renewals ?? 0)} in this run)`,
		'Each renewal is a login, and this node renews at most that often in one run; the API refused the token again. The login works. Likely cause: another workflow or n8n using the same credential at the same time, if the API revokes a token when it issues a new one; or tokens that expire within moments. Run the workflow again for the listings not created, or give this workflow a credential of its own. Nothing more was sent.',
	],
	quota: (q, c, s) => [
		`Quota used up: the Partner API refused the request because your plan's quota is used up (HTTP ${c.status})`,
		q,
		`Nothing was ${s.done} by this request, and the run sent nothing more: the listings left are not ${s.done}, and the next run sends them.`,
		PLAN_QUOTA_ADVICE,
	],
	spikeArrest: RATE_REFUSED(
		(c) =>
			`Rate limit: the Partner API's spike arrest refused the request ${times(c.rateRefusals)} (HTTP ${c.status})`,
	),
	tooManyRequests: RATE_REFUSED(
		(c) => `Rate limit: the Partner API answered "too many requests" ${times(c.rateRefusals)}`,
	),
	unavailable: (q, c, s) => [
		`Unavailable: the Partner API answered "service unavailable" ${times(c.rateRefusals)} (HTTP ${c.status})`,
		q,
		lastWait(c),
		`The marketplace did not handle these attempts (down or under maintenance): nothing was ${s.done}. Run the workflow again later.`,
	],
	noApiProduct: (q, c, s) => [
		`Your app on the developer portal lacks the API product for this request (HTTP ${c.status})`,
		q,
		`Nothing was ${s.done}. The login works, but your app is not subscribed to ${s.product}: on the developer portal, add that API product to your app, then run the workflow again.`,
	],
	tokenRefused: ACCESS_REFUSED,
	forbidden: ACCESS_REFUSED,
	alreadyListed: (q, c) => [
		`Already listed: the API holds a listing with this External Listing ID (HTTP ${c.status})`,
		q,
		'Nothing new was created. For a new listing, give it a new External Listing ID.',
	],
	conflict: (q, _c, s) =>
		s.what === 'the listing'
			? [
					'Conflict: the Partner API refused the listing (HTTP 409)',
					q,
					'The answer does not name the External Listing ID, so it is not read as "already listed": nothing was created. Check the listing on the marketplace by its External Listing ID before listing these seats under another ID.',
				]
			: [
					'Conflict: the Partner API already holds what this request would create (HTTP 409)',
					q,
					`Nothing new was created. ${s.howToCheck}`,
				],
	uploadConflict: (q, _c, s) => [
		'Outcome unknown: the Partner API answered the upload with a conflict (HTTP 409)',
		q,
		`The tickets may have their PDFs already. ${s.howToCheck}`,
	],
	tooLarge: (q, c, s) => [
		`The Partner API refused ${s.what} as too large (HTTP ${c.status})`,
		q,
		isPreDeliverPath(c.path)
			? "Nothing was delivered. Send this listing's tickets in smaller groups, one run each (filter the items), or smaller PDFs: the marketplace marks a listing pre-delivered once every ticket has its PDF."
			: `Nothing was created: the request was larger than the Partner API takes. ${s.fix}`,
	],
	notFound: (_q, c, s) => [
		`The Partner API has no such address (HTTP ${c.status})`,
		`Nothing was ${s.done}. Check the Base URL of the Ticket Marketplace API credential: the API's address, without a path.`,
	],
	serverError: (q, c) => [
		`Outcome unknown: the Partner API failed with a server error (HTTP ${c.status})`,
		q,
	],
};

export function apiWords(meaning: AnswerMeaning, context: ApiWordsContext) {
	const say = WORDS[meaning.row] ?? REFUSED;
	const [title, ...advice] = say(quoteApi(meaning), context, subjectOf(context.path));
	return { title, advice: joined(...advice) };
}

const LOWER_CONCURRENCY = 'Lower Options → Max Listings at Once, or run the workflow later.';

/** What a request was for, in the words its messages use: what it does when it goes through ("Nothing was
 * delivered"), how to find out whether it was done, what to do after "too many requests", the API product it needs
 * (as the developer portal names it). */
const SUBJECTS = {
	preDeliver: {
		what: "the tickets' upload",
		done: 'delivered',
		notDone: "This listing's tickets were not delivered",
		howToCheck:
			'Open the listing on the marketplace and check whether its tickets show as delivered before uploading them again.',
		fix: "Check the Listing ID (the marketplace's ID that Create outputs), each ticket's row and seat, and its PDF, then run the workflow again.",
		rateLimited: LOWER_CONCURRENCY,
		product: 'the seller listing API',
	},
	listings: {
		what: 'the listing',
		done: 'created',
		notDone: 'This listing was not created',
		howToCheck:
			'Look the listing up on the marketplace by its External Listing ID before sending it again.',
		fix: "Correct what the API names in the sheet or the node's fields, then run the workflow again.",
		rateLimited: LOWER_CONCURRENCY,
		product: 'the seller listing API',
	},
	webhooks: {
		what: 'the subscription',
		done: 'created',
		notDone: 'The subscription was not created',
		howToCheck:
			"Ask the marketplace's API support whether the subscription exists before subscribing again.",
		fix: "Correct what the API names in the node's fields, then run it again.",
		rateLimited: 'Run the workflow again later.',
		product: 'the webhook API',
	},
	other: {
		what: 'the request',
		done: 'created',
		notDone: 'The request was not sent',
		howToCheck: 'Find out on the marketplace whether it was done before running it again.',
		fix: 'Correct what the API names, then run the workflow again.',
		rateLimited: 'Run the workflow again later.',
		product: 'the API product this request needs',
	},
};

type Subject = typeof SUBJECTS.other;

export function subjectOf(path: string | undefined): Subject {
	if (isPreDeliverPath(path)) return SUBJECTS.preDeliver;
	if (path === PARTNER_API_PATHS.listings) return SUBJECTS.listings;
	return path === PARTNER_API_PATHS.webhooks ? SUBJECTS.webhooks : SUBJECTS.other;
}

/** `The API said: "…" (code …).` */
export function quoteApi({ code, words }: { code?: string; words?: string }): string {
	if (words && code) return `The API said: "${words}" (code ${code}).`;
	if (words) return `The API said: "${words}".`;
	if (code) return `The API answered with the code ${code}.`;
	return '';
}

export const joined = (...parts: Array<string | undefined>) => parts.filter(Boolean).join(' ');

export const PLAN_QUOTA_ADVICE =
	"The quota counts requests per day (some plans per hour): run the workflow again once it has reset, or raise it by upgrading your app's plan in the Account section of the developer portal. Lowering Max Listings at Once does not help against it.";

/** Text from elsewhere as part of one line: whitespace folded, bounded. */
export function oneLine(text: string, max = 300): string {
	const folded = text.replace(/\s+/g, ' ').trim();
	return folded.length > max ? `${folded.slice(0, max - 1)}…` : folded;
}
