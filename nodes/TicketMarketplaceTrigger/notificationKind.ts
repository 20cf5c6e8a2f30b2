import type { IDataObject } from 'n8n-workflow';

/**
 * What kind of notification arrived, read defensively: the payload shape is not documented, and a sale dropped on a
 * guess is lost for good (the drop is answered 200). A kind is told only by a value that can be a kind, and only
 * when every field that names one agrees; otherwise the kind cannot be told and the notification starts the workflow.
 */

/** Top-level fields that may name the kind, in the order shown on the item. */
const KIND_FIELDS = [
	'eventType',
	'event_type',
	'notificationType',
	'notification_type',
	'kind',
	'type',
	'event',
];

/**
 * A kind is one word or words joined by `_ . - : /`, all in lower case or all in upper case: `listing_sale`,
 * `LISTING_SALE`, `listing.sold`. A name ("Coldplay – Wembley", "Concert") is not.
 */
const KIND_SHAPE = /^(?:[a-z0-9]+(?:[._:/-][a-z0-9]+)*|[A-Z0-9]+(?:[._:/-][A-Z0-9]+)*)$/;
const MAX_KIND_LENGTH = 64;

/**
 * `event` often holds the live event itself (its name, or its slug `coldplay-wembley-2026`): only a kind of several
 * words joined by a sign other than `-` counts there.
 */
const SEVERAL_WORDS = /[._:/]/;

/**
 * The spellings that count as a sale, written in Accepted Kinds or sent by the marketplace (compared without case,
 * `.`, `-`, `:` and `/` read as `_`). A provisional sale and a cancellation are other kinds.
 */
export const SALE_SPELLINGS = [
	'listing_sale',
	'listing_sold',
	'sale',
	'sales',
	'sold',
	'sale_created',
	'sale_confirmed',
	'sale_completed',
	'sales_created',
	'sales_confirmed',
	'sales_completed',
];

/**
 * A told kind is plainly another kind than a sale only when a word of it is one of these: a slug or a category in
 * a kind field (`coldplay-wembley`, `concert`) may be no kind at all.
 */
const KIND_WORDS = new Set([
	'listing',
	'listings',
	'ticket',
	'tickets',
	'inventory',
	'payout',
	'refund',
	'shipment',
	'delivery',
	'webhook',
	'ping',
]);
const SALE_WORDS = ['sale', 'sales', 'sold'];
/** What makes a kind that names a sale another kind: the provisional sale and the cancellation. */
const NOT_A_SALE_WORDS = ['provisional', 'cancel', 'cancelled', 'canceled', 'cancellation'];

export interface NotificationKind {
	/** The kind as sent (topic and action joined by a dot), or null when it cannot be told. */
	kind: string | null;
	/** Where it was read: a field name, `topic + action`, `meta.type`; or why it cannot be told. */
	field: string | null;
	/**
	 * Whether the kind is one of the sale spellings; null when the kind cannot be told, or does not plainly say
	 * whether it is a sale (`sale.updated`, `tickets_sold`, `concert`).
	 */
	sale: boolean | null;
}

/** Whether a text can be a kind: what Accepted Kinds must hold, lest a typo drop every sale for good. */
export function isKindShaped(text: string): boolean {
	return text.length <= MAX_KIND_LENGTH && KIND_SHAPE.test(text);
}

function kindText(value: unknown, field: string): string | undefined {
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	if (!isKindShaped(text)) return undefined;
	if (field === 'event' && !SEVERAL_WORDS.test(text)) return undefined;
	return text;
}

/** One spelling of every kind: lower case, separators as `_`. */
export function normalizeKind(kind: string): string {
	return kind.toLowerCase().replace(/[.:/-]/g, '_');
}

export function isSaleKind(kind: string): boolean {
	return SALE_SPELLINGS.includes(normalizeKind(kind));
}

/** true for a sale spelling, false for a kind plainly another, null when the kind does not plainly say. */
function saleOf(kind: string): boolean | null {
	if (isSaleKind(kind)) return true;
	const words = normalizeKind(kind).split('_');
	if (words.some((word) => SALE_WORDS.includes(word)))
		return words.some((word) => NOT_A_SALE_WORDS.includes(word)) ? false : null;
	return words.some((word) => KIND_WORDS.has(word)) ? false : null;
}

/** Every field that names a kind, in order: the top-level ones, then topic with action, then meta.type. */
function kindCandidates(body: IDataObject): Array<{ kind: string; field: string }> {
	const found: Array<{ kind: string; field: string }> = [];
	for (const field of KIND_FIELDS) {
		const kind = kindText(body[field], field);
		if (kind !== undefined) found.push({ kind, field });
	}
	const topic = kindText(body.topic, 'topic');
	const action = kindText(body.action, 'action');
	// An action alone ("created") says nothing of what was created.
	if (topic !== undefined)
		found.push(
			action === undefined
				? { kind: topic, field: 'topic' }
				: { kind: `${topic}.${action}`, field: 'topic + action' },
		);
	const meta = body.meta;
	if (typeof meta === 'object' && meta !== null && !Array.isArray(meta)) {
		const kind = kindText((meta as IDataObject).type, 'meta.type');
		if (kind !== undefined) found.push({ kind, field: 'meta.type' });
	}
	return found;
}

/** Sale spellings are one kind; any other kind is itself. */
function kindClass(kind: string): string {
	return isSaleKind(kind) ? 'listing_sale' : normalizeKind(kind);
}

export function readNotificationKind(body: IDataObject): NotificationKind {
	const candidates = kindCandidates(body);
	if (candidates.length === 0) return { kind: null, field: null, sale: null };
	const classes = new Set(candidates.map((candidate) => kindClass(candidate.kind)));
	if (classes.size > 1) {
		return {
			kind: null,
			field: `${candidates.map((candidate) => candidate.field).join(', ')} disagree`,
			sale: null,
		};
	}
	const [{ kind, field }] = candidates;
	return { kind, field, sale: saleOf(kind) };
}

/** Whether a told kind is among Accepted Kinds (lower case, as read): a sale spelling there accepts every sale. */
export function isAcceptedKind(kind: string, acceptedKinds: string[]): boolean {
	const wanted = kindClass(kind);
	return acceptedKinds.some((accepted) => kindClass(accepted) === wanted);
}
