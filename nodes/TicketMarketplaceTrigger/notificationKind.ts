import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from './httpAnswer';

/**
 * The notification's kind, read defensively: the payload is undocumented and a dropped sale is lost for good. A kind
 * is told only when every field naming one agrees; otherwise it cannot be told and the notification starts.
 */

const words = (text: string) => text.split(' ');

/** Top-level fields that may name the kind, in the order shown on the item. */
const KIND_FIELDS = words(
	'eventType event_type notificationType notification_type kind type event',
);

/** One word or words joined by `_ . - : /`, all lower or all upper case: `listing.sold`, not "Concert". */
const KIND_SHAPE = /^(?:[a-z0-9]+(?:[._:/-][a-z0-9]+)*|[A-Z0-9]+(?:[._:/-][A-Z0-9]+)*)$/;
const MAX_KIND_LENGTH = 64;
/** `event` often holds the live event (its name or slug): only words joined by a sign other than `-` count there. */
const SEVERAL_WORDS = /[._:/]/;

/** Sale spellings (compared normalised); a provisional sale and a cancellation are other kinds. */
const SALE_SPELLINGS = words(
	'listing_sale listing_sold sale sales sold sale_created sale_confirmed sale_completed sales_created sales_confirmed sales_completed',
);
/** Words that make a told kind plainly another than a sale (a slug or a category may be no kind at all). */
const KIND_WORDS = new Set(
	words('listing listings ticket tickets inventory payout refund shipment delivery webhook ping'),
);
const SALE_WORDS = ['sale', 'sales', 'sold'];
/** What makes a kind that names a sale another kind: the provisional sale and the cancellation. */
const NOT_A_SALE_WORDS = ['provisional', 'cancel', 'cancelled', 'canceled', 'cancellation'];

export interface NotificationKind {
	/** The kind as sent (topic and action joined by a dot), or null when it cannot be told. */
	kind: string | null;
	/** Where it was read: a field name, `topic + action`, `meta.type`; or why it cannot be told. */
	field: string | null;
	/** Whether it is a sale spelling; null when it cannot be told or does not plainly say (`sale.updated`). */
	sale: boolean | null;
}

/** Whether a text can be a kind: what Accepted Kinds must hold, lest a typo drop every sale for good. */
export function isKindShaped(text: string): boolean {
	return text.length <= MAX_KIND_LENGTH && KIND_SHAPE.test(text);
}

function kindText(value: unknown, field: string): string | undefined {
	const text = typeof value === 'string' ? value.trim() : '';
	if (!isKindShaped(text)) return undefined;
	return field === 'event' && !SEVERAL_WORDS.test(text) ? undefined : text;
}

/** One spelling of every kind: lower case, separators as `_`. */
const normalizeKind = (kind: string) => kind.toLowerCase().replace(/[.:/-]/g, '_');
const isSaleKind = (kind: string) => SALE_SPELLINGS.includes(normalizeKind(kind));
/** Sale spellings are one kind; any other kind is itself. */
const kindClass = (kind: string) => (isSaleKind(kind) ? 'listing_sale' : normalizeKind(kind));

/** true for a sale spelling, false for a kind plainly another, null when the kind does not plainly say. */
function saleOf(kind: string): boolean | null {
	if (isSaleKind(kind)) return true;
	const parts = normalizeKind(kind).split('_');
	if (parts.some((part) => SALE_WORDS.includes(part)))
		return parts.some((part) => NOT_A_SALE_WORDS.includes(part)) ? false : null;
	return parts.some((part) => KIND_WORDS.has(part)) ? false : null;
}

type Candidate = { kind: string; field: string };

/** Every field that names a kind, in order: the top-level ones, then topic with action, then meta.type. */
function kindCandidates(body: IDataObject): Candidate[] {
	const found = KIND_FIELDS.map((field) => ({ kind: kindText(body[field], field), field }));
	const topic = kindText(body.topic, 'topic');
	const action = topic === undefined ? undefined : kindText(body.action, 'action');
	// An action alone ("created") says nothing of what was created.
	if (action === undefined) found.push({ kind: topic, field: 'topic' });
	else found.push({ kind: `${topic}.${action}`, field: 'topic + action' });
	const metaType = isPlainObject(body.meta) ? body.meta.type : undefined;
	found.push({ kind: kindText(metaType, 'meta.type'), field: 'meta.type' });
	return found.filter((candidate): candidate is Candidate => candidate.kind !== undefined);
}

export function readNotificationKind(body: IDataObject): NotificationKind {
	const candidates = kindCandidates(body);
	if (candidates.length === 0) return { kind: null, field: null, sale: null };
	const classes = new Set(candidates.map((candidate) => kindClass(candidate.kind)));
	if (classes.size > 1) {
		const fields = candidates.map((candidate) => candidate.field).join(', ');
		return { kind: null, field: `${fields} disagree`, sale: null };
	}
	const [{ kind, field }] = candidates;
	return { kind, field, sale: saleOf(kind) };
}

/** Whether a told kind is among Accepted Kinds (lower case, as read): a sale spelling there accepts every sale. */
export function isAcceptedKind(kind: string, acceptedKinds: string[]): boolean {
	const wanted = kindClass(kind);
	return acceptedKinds.some((accepted) => kindClass(accepted) === wanted);
}
