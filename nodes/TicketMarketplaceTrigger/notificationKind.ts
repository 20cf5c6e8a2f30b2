import type { IDataObject } from 'n8n-workflow';

/**
 * The notification's kind, read defensively: the payload is undocumented and a dropped sale is lost for good. A kind
 * is told only when every field naming one agrees; otherwise it cannot be told and the notification starts.
 */

/** Top-level fields that may name the kind, in the order shown on the item. */
const KIND_FIELDS = 'eventType event_type notificationType notification_type kind type event'.split(
	' ',
);

/** One word or words joined by `_ . - : /`, all lower or all upper case: `listing.sold`, not "Concert". */
const KIND_SHAPE = /^(?:[a-z0-9]+(?:[._:/-][a-z0-9]+)*|[A-Z0-9]+(?:[._:/-][A-Z0-9]+)*)$/;
const MAX_KIND_LENGTH = 64;
/** `event` often holds the live event (its name or slug): only words joined by a sign other than `-` count there. */
const SEVERAL_WORDS = /[._:/]/;

/** Sale spellings (compared normalised); a provisional sale and a cancellation are other kinds. */
const SALE_SPELLINGS = (
	'listing_sale listing_sold sale sales sold sale_created sale_confirmed sale_completed ' +
	'sales_created sales_confirmed sales_completed'
).split(' ');
/** Words that make a told kind plainly another than a sale (a slug or a category may be no kind at all). */
const KIND_WORDS = new Set(
	'listing listings ticket tickets inventory payout refund shipment delivery webhook ping'.split(
		' ',
	),
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
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	if (!isKindShaped(text)) return undefined;
	if (field === 'event' && !SEVERAL_WORDS.test(text)) return undefined;
	return text;
}

/** One spelling of every kind: lower case, separators as `_`. */
function normalizeKind(kind: string): string {
	return kind.toLowerCase().replace(/[.:/-]/g, '_');
}

function isSaleKind(kind: string): boolean {
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
