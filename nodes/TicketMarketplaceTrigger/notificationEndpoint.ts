import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { refusedAccess } from './accessToken';
import { answerJson, firstLineOf, isPlainObject, mediaType, warnOwner } from './httpAnswer';
import { isKindShaped, readAcceptedKinds, readIncludeHeaders } from './options';

/** The `default` webhook: listing notifications, each carrying a token we issued. */
export async function answerNotification(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const headers = this.getHeaderData();
	const refusal = await refusedAccess(this, headers.authorization);
	if (refusal !== undefined) return refusal;
	// n8n parses only application/json bodies as JSON; a form body would also arrive here as an object.
	const body: unknown = this.getBodyData();
	if (mediaType(headers['content-type']) !== 'application/json' || !isPlainObject(body))
		return answerJson(this, 400, { message: 'The notification body must be a JSON object' });
	let acceptedKinds: string[];
	let includeHeaders: boolean;
	try {
		acceptedKinds = readAcceptedKinds(this);
		includeHeaders = readIncludeHeaders(this);
	} catch (error) {
		const answered =
			'Notifications with a valid token are answered 503 and start nothing until this is fixed.';
		warnOwner(this, firstLineOf(error), answered);
		const message = 'The trigger cannot take notifications now; send it again later';
		return answerJson(this, 503, { message });
	}
	const kind = readNotificationKind(body);
	// Only a kind told plainly is skipped: answered 200 so the marketplace does not send it again.
	if (kind.sale !== null && kind.kind !== null && !isAcceptedKind(kind.kind, acceptedKinds)) {
		return answerJson(this, 200, {
			received: true,
			started: false,
			message: `Not started: kind "${kind.kind}" (from ${kind.field}) is not among this trigger's Accepted Kinds (${acceptedKinds.join(', ')}). The marketplace will not send it again.`,
		});
	}
	return {
		workflowData: [[{ json: notificationItem(body, kind, includeHeaders ? headers : undefined) }]],
		webhookResponse: { received: true },
	};
}

/** The notification unchanged, and beside it the kind read (a body with its own notificationKind keeps it). */
function notificationItem(
	body: IDataObject,
	notificationKind: NotificationKind,
	headers?: Record<string, unknown>,
) {
	if (!headers) return 'notificationKind' in body ? body : { ...body, notificationKind };
	// No header that carries the access token: any `…Authorization` (a gateway in front hands the caller's on as
	// X-Forwarded-Authorization), nor any other holding it.
	const token = String(headers.authorization ?? '')
		.replace(/^\s*bearer\s+/i, '')
		.trim();
	const shown: IDataObject = {};
	for (const [name, value] of Object.entries(headers))
		if (!/authorization$/i.test(name) && !(token && String(value).includes(token)))
			shown[name] = value as IDataObject[string];
	return { headers: shown, body, notificationKind };
}

const words = (text: string) => text.split(' ');

/** Top-level fields that may name the kind, in the order shown on the item. */
const KIND_FIELDS = words(
	'eventType event_type notificationType notification_type kind type event',
);
/** `event` often holds the live event (its name or slug): only words joined by a sign other than `-` count there. */
const SEVERAL_WORDS = /[._:/]/;

/** Sale spellings (compared normalised); a provisional sale and a cancellation are other kinds. */
const SALE_SPELLINGS = words(
	'listing_sale listing_sold sale sales sold sale_created sale_confirmed sale_completed sales_created sales_confirmed sales_completed',
);
/** Words that make a told kind plainly another than a sale (a slug or a category may be no kind at all). */
const KIND_WORDS = words(
	'listing listings ticket tickets inventory payout refund shipment delivery webhook ping',
);
const SALE_WORDS = ['sale', 'sales', 'sold'];
/** What makes a kind that names a sale another kind: the provisional sale and the cancellation. */
const NOT_A_SALE_WORDS = ['provisional', 'cancel', 'cancelled', 'canceled', 'cancellation'];

/** The kind as sent (topic and action joined by a dot), where it was read (else why it cannot be told), whether it
 * is a sale spelling; null when it cannot be told, and `sale` null too when it does not plainly say (`sale.updated`). */
type NotificationKind = { kind: string | null; field: string | null; sale: boolean | null };

function kindText(value: unknown, field: string): string | undefined {
	const text = typeof value === 'string' ? value.trim() : '';
	if (!isKindShaped(text)) return undefined;
	return field === 'event' && !SEVERAL_WORDS.test(text) ? undefined : text;
}

const normalizeKind = (kind: string) => kind.toLowerCase().replace(/[.:/-]/g, '_');
const isSaleKind = (kind: string) => SALE_SPELLINGS.includes(normalizeKind(kind));
/** Sale spellings are one kind; any other kind is itself. */
const kindClass = (kind: string) => (isSaleKind(kind) ? 'listing_sale' : normalizeKind(kind));

/** true for a sale spelling, false for a kind plainly another, null when the kind does not plainly say. */
function saleOf(kind: string): boolean | null {
	if (isSaleKind(kind)) return true;
	const parts = normalizeKind(kind).split('_');
	const says = (wordList: string[]) => parts.some((part) => wordList.includes(part));
	const plainlyAnother = says(SALE_WORDS) ? says(NOT_A_SALE_WORDS) : says(KIND_WORDS);
	return plainlyAnother ? false : null;
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

/** The notification's kind, read defensively (the payload is undocumented and a dropped sale is lost for good): told
 * only when every field naming one agrees; otherwise it cannot be told and the notification starts. */
function readNotificationKind(body: IDataObject): NotificationKind {
	const candidates = kindCandidates(body);
	if (candidates.length === 0) return { kind: null, field: null, sale: null };
	if (new Set(candidates.map((candidate) => kindClass(candidate.kind))).size > 1) {
		const fields = candidates.map((candidate) => candidate.field).join(', ');
		return { kind: null, field: `${fields} disagree`, sale: null };
	}
	const [{ kind, field }] = candidates;
	return { kind, field, sale: saleOf(kind) };
}

/** Whether Accepted Kinds (lower case, as read; empty takes all) takes a told kind: a sale spelling takes every sale. */
const isAcceptedKind = (kind: string, acceptedKinds: string[]) =>
	acceptedKinds.length === 0 || acceptedKinds.map(kindClass).includes(kindClass(kind));
