/** What a request was for, in the words its messages use, and how every message quotes the API. */
import { isPreDeliverPath, PARTNER_API_PATHS } from './partnerApi';

export interface Subject {
	what: string;
	/** How to find out whether a request of unknown outcome was done. */
	howToCheck: string;
	fix: string;
	/** After the API kept answering "too many requests". */
	rateLimited: string;
	/** The API product it needs, as the developer portal names it. */
	product: string;
}

const LOWER_CONCURRENCY = 'Lower Options → Max Listings at Once, or run the workflow later.';

const SUBJECTS: Record<'preDeliver' | 'listings' | 'webhooks' | 'other', Subject> = {
	preDeliver: {
		what: "the tickets' upload",
		howToCheck:
			'Open the listing on the marketplace and check whether its tickets show as delivered before uploading them again.',
		fix: "Check the Listing ID (the marketplace's ID that Create outputs), each ticket's row and seat, and its PDF, then run the workflow again.",
		rateLimited: LOWER_CONCURRENCY,
		product: 'the seller listing API',
	},
	listings: {
		what: 'the listing',
		howToCheck:
			'Look the listing up on the marketplace by its External Listing ID before sending it again.',
		fix: "Correct what the API names in the sheet or the node's fields, then run the workflow again.",
		rateLimited: LOWER_CONCURRENCY,
		product: 'the seller listing API',
	},
	webhooks: {
		what: 'the subscription',
		howToCheck:
			"Ask the marketplace's API support whether the subscription exists before subscribing again.",
		fix: "Correct what the API names in the node's fields, then run it again.",
		rateLimited: 'Run the workflow again later.',
		product: 'the webhook API',
	},
	other: {
		what: 'the request',
		howToCheck: 'Find out on the marketplace whether it was done before running it again.',
		fix: 'Correct what the API names, then run the workflow again.',
		rateLimited: 'Run the workflow again later.',
		product: 'the API product this request needs',
	},
};

export function subjectOf(path: string | undefined): Subject {
	if (isPreDeliverPath(path)) return SUBJECTS.preDeliver;
	if (path === PARTNER_API_PATHS.listings) return SUBJECTS.listings;
	return path === PARTNER_API_PATHS.webhooks ? SUBJECTS.webhooks : SUBJECTS.other;
}

/** `The API said: "…" (code …).` */
export function quoteApi(meaning: { code?: string; words?: string }): string {
	const { code, words } = meaning;
	if (words && code) return `The API said: "${words}" (code ${code}).`;
	if (words) return `The API said: "${words}".`;
	if (code) return `The API answered with the code ${code}.`;
	return '';
}

export interface AnswerWords {
	title: string;
	advice: string;
}

export const joined = (...parts: Array<string | undefined>) => parts.filter(Boolean).join(' ');

export const PLAN_QUOTA_ADVICE =
	"The quota counts requests per day (some plans per hour): run the workflow again once it has reset, or raise it by upgrading your app's plan in the Account section of the developer portal. Lowering Max Listings at Once does not help against it.";

/** Text from elsewhere as part of one line: whitespace folded, bounded. */
export function oneLine(text: string, max = 300): string {
	const folded = text.replace(/\s+/g, ' ').trim();
	return folded.length > max ? `${folded.slice(0, max - 1)}…` : folded;
}
