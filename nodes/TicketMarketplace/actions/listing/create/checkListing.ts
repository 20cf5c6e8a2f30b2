/** Listings checked: each from its rows, then against each other, in one run and across runs. */
import type { IExecuteFunctions } from 'n8n-workflow';

import { seatIdentity } from '../../../schemas/listing';
import { failureOf } from '../memory/memoryFailure';
import { beforeSendingError } from '../memory/memoryMessages';
import type { HeldTicket, TicketMemory } from '../memory/ticketMemory';
import {
	groupBy,
	issuesOf,
	jsonProductSchema,
	labelOf,
	LISTING_FIELDS,
	productLabel,
	productSchema,
	rowsText,
	valueAt,
} from './fields';
import type {
	InvalidListing,
	ListedProduct,
	Listing,
	ListingLevel,
	ListingRow,
	Problem,
	Product,
	ReadyListing,
} from './nouns';
import { LIMIT_OPTIONS, type InputShape, type ListingLimits } from './settings';

/** Products of one listing that repeat an External ID or a seat: by row for ticket rows, else by place. */
function repeatedProducts(entries: ListedProduct[], shape: InputShape): Problem[] {
	const byRow = shape === 'ticketPerItem';
	const repeats = (
		key: (product: Product) => string | undefined,
		field: string,
		says: (product: Product, where: string) => string,
	): Problem[] =>
		[...groupBy(entries, (entry) => key(entry.product))].flatMap(([value, repeated]) => {
			if (value === undefined || repeated.length < 2) return [];
			const rows = repeated.map((entry) => entry.itemIndex);
			const where = byRow
				? rowsText(rows)
				: `products ${repeated.map((entry) => entry.index + 1).join(' and ')}`;
			const itemIndexes = byRow ? rows : [entries[0].itemIndex];
			return [{ field, text: says(repeated[0].product, where), itemIndexes }];
		});
	return [
		...repeats(
			(product) => product.externalId,
			byRow
				? labelOf('productExternalId')
				: entries[0].fromJson
					? `${labelOf('productsJson')} externalId`
					: `${labelOf('products')} → ${productLabel(['externalId'])}`,
			(product, where) =>
				`"${product.externalId}" is used more than once in one listing (${where}); each product needs its own`,
		),
		...repeats(
			seatIdentity,
			productLabel(['seat']),
			(product, where) =>
				`row "${String(product.row)}" seat "${String(product.seat)}" is listed twice in one listing (${where}): a seat can be sold only once`,
		),
	];
}

/** The products of a listing's rows, checked; problems name each product as its source does. */
function checkProducts(
	entries: Array<ListedProduct<unknown>>,
	rows: number[],
	shape: InputShape,
	problems: Problem[],
): ListedProduct[] {
	const parsed: ListedProduct[] = [];
	const found: Problem[] = entries.length
		? []
		: [{ field: labelOf('products'), text: 'must hold at least one product', itemIndexes: rows }];
	for (const entry of entries) {
		const result = (entry.fromJson ? jsonProductSchema : productSchema).safeParse(entry.product);
		if (result.success) parsed.push({ ...entry, product: result.data });
		else found.push(...issuesOf(result.error, entry.label, [entry.itemIndex]));
	}
	if (found.length === 0) found.push(...repeatedProducts(parsed, shape));
	problems.push(...found);
	return found.length ? [] : parsed;
}

/** What every row of one listing must agree on: its own fields but the External Listing ID that groups them. */
const SHARED_FIELDS = LISTING_FIELDS.filter((field) => field.parameter !== 'externalListingId');

/** A field's values its rows disagree on, five named and the rest counted. */
function disagreements(rows: ListingRow[]): Problem[] {
	if (rows.length < 2 || !rows.every((row) => row.level !== undefined)) return [];
	const itemIndexes = rows.map((row) => row.itemIndex);
	return SHARED_FIELDS.flatMap((field) => {
		const byValue = groupBy(rows, (row) => JSON.stringify(valueAt(row.level!, field.api)));
		if (byValue.size < 2) return [];
		const variants = [...byValue].map(
			([value, group]) => `${value} in ${rowsText(group.map((row) => row.itemIndex))}`,
		);
		const shown = variants.slice(0, 5);
		if (variants.length > shown.length)
			shown.push(`and ${variants.length - shown.length} more values`);
		const text = `differs between the rows of one listing: ${shown.join('; ')}`;
		return [{ field: field.panel.displayName, text, itemIndexes }];
	});
}

/** A valid listing against the seller's limits (Options): currency, minimum price, most tickets. */
function beyondLimits(
	level: ListingLevel,
	tickets: number,
	rows: number[],
	limits: ListingLimits,
): Problem[] {
	const problems: Problem[] = [];
	const { amount, currency } = level.pricePerProduct as { amount: number; currency: string };
	const problem = (parameter: string, text: string) =>
		problems.push({ field: parameter && labelOf(parameter), text, itemIndexes: rows });
	if (limits.currency !== undefined && currency !== limits.currency)
		problem(
			'priceCurrency',
			`${currency} is not ${limits.currency}, the ${LIMIT_OPTIONS.minPriceCurrency} set under Options: only listings priced in ${limits.currency} are sent`,
		);
	else if (limits.minPrice !== undefined && amount < limits.minPrice)
		problem(
			'priceAmount',
			`${amount} ${currency} is below the ${LIMIT_OPTIONS.minPricePerTicket} set under Options (${limits.minPrice} ${limits.currency}): correct the price, or lower the minimum`,
		);
	if (limits.maxTickets !== undefined && tickets > limits.maxTickets)
		problem(
			'',
			`${tickets} tickets in one listing are more than the ${LIMIT_OPTIONS.maxTicketsPerListing} set under Options (${limits.maxTickets}): split them into several listings, or raise the maximum`,
		);
	return problems;
}

/** The rows of one listing validated into a listing named `label`: ready, or invalid with every problem. */
export function validateListing(
	rows: ListingRow[],
	label: string,
	shape: InputShape,
	limits: ListingLimits,
): Listing {
	const problems = rows.flatMap((row) => row.problems);
	const level = rows[0].level;
	// Ticket rows share the id they are grouped by; a listing per item is known by its own, when it is valid.
	const sharedId = rows[0].listingId.id;
	const byRow = shape === 'ticketPerItem';
	const base = {
		rows: rows.map((row) => row.itemIndex),
		label,
		externalListingId: byRow ? sharedId : level?.externalListingId,
	};
	// Ticket rows gathered only because none has a usable id are not checked against each other.
	if (byRow && sharedId === undefined) return { kind: 'invalid', ...base, problems };
	problems.push(...disagreements(rows));
	const lists = rows.map((row) => row.products);
	const products = lists.every((list) => list !== undefined)
		? checkProducts(lists.flat(), base.rows, shape, problems)
		: [];
	if (problems.length > 0 || !level) return { kind: 'invalid', ...base, problems };
	const beyond = beyondLimits(level, products.length, base.rows, limits);
	if (beyond.length > 0) return { kind: 'invalid', ...base, problems: beyond };
	return { kind: 'ready', ...base, externalListingId: level.externalListingId, level, products };
}

function refused(listing: Listing, problems: Problem[]): InvalidListing {
	const { rows, label, externalListingId } = listing;
	return { kind: 'invalid', rows, label, externalListingId, problems };
}

/** A row whose External Listing ID cannot be read may belong to any listing of its event (of the run, without an
 * Event ID): each is held back, naming the row, since it could never get that seat added later. */
export function holdBackForUnknownRows(listings: Listing[], rows: ListingRow[]): Listing[] {
	const unknown = rows.filter((row) => row.unknownListing !== undefined);
	return listings.map((listing) => {
		if (listing.kind !== 'ready') return listing;
		const problems = unknown.flatMap(({ unknownListing, itemIndex }): Problem[] => {
			const { error, eventId } = unknownListing ?? { error: '' };
			if (eventId !== undefined && eventId !== listing.level.eventId) return [];
			const text =
				eventId !== undefined
					? `could not be read (${error}): the row may belong to any listing of event ${eventId}, and none is sent without it`
					: `could not be read (${error}), and the row has no usable Event ID either: it may belong to any listing of this run, and none is sent without it`;
			return [{ field: labelOf('externalListingId'), text, itemIndexes: [itemIndex] }];
		});
		return problems.length === 0 ? listing : refused(listing, problems);
	});
}

/** "listing 7001 (rows 1–2)", also for a listing per item ("row 3" alone does not name its ID). */
function listingName(listing: Listing): string {
	return listing.label.startsWith('listing ') || listing.externalListingId === undefined
		? listing.label
		: `listing ${listing.externalListingId} (${listing.label})`;
}

/** A ticket across listings: its seat, or a General Admission ticket's External ID; under another event, another. */
function ticketIdentity(eventId: unknown, product: Product): string {
	const seat = seatIdentity(product);
	const ticket = seat !== undefined ? `seat\u0000${seat}` : `id\u0000${product.externalId}`;
	return `${String(eventId)}\u0000${ticket}`;
}

/** The listing's tickets another listing has already, as its problems: `whereHeld` says which, if one does. */
function ticketsTaken(
	listing: ReadyListing,
	whereHeld: (ticket: string) => string | undefined,
): Problem[] {
	return ticketsOf([listing]).flatMap(({ ticket }, index): Problem[] => {
		const where = whereHeld(ticket);
		if (where === undefined) return [];
		const { product, itemIndex, label } = listing.products[index];
		const seated = seatIdentity(product) !== undefined;
		const text = seated
			? `row "${String(product.row)}" seat "${String(product.seat)}" is ${where}: a seat can be sold only once`
			: `"${product.externalId}" (General Admission) is ${where}: a ticket can be sold only once`;
		return [{ field: label([seated ? 'seat' : 'externalId']), text, itemIndexes: [itemIndex] }];
	});
}

/** A ticket in two listings of one event could be sold twice: the later one is refused, naming the earlier. */
export function refuseTicketsListedBefore(listings: Listing[]): Listing[] {
	const firstListing = new Map<string, Listing>();
	return listings.map((listing) => {
		if (listing.kind !== 'ready') return listing;
		const problems = ticketsTaken(listing, (ticket) => {
			const earlier = firstListing.get(ticket);
			return earlier && `also in ${listingName(earlier)} of event ${listing.level.eventId}`;
		});
		if (problems.length > 0) return refused(listing, problems);
		for (const { ticket } of ticketsOf([listing])) firstListing.set(ticket, listing);
		return listing;
	});
}

/** Two items with one External Listing ID would create the listing twice (or be refused the second time). */
export function refuseRepeatedIds(listings: Listing[]): Listing[] {
	const firstRowById = new Map<number, number>();
	return listings.map((listing) => {
		const id = listing.externalListingId;
		if (id === undefined) return listing;
		const first = firstRowById.get(id);
		if (first === undefined) {
			firstRowById.set(id, listing.rows[0]);
			return listing;
		}
		const problem: Problem = {
			field: labelOf('externalListingId'),
			text: `${id} is already used by ${rowsText([first])}; to combine rows into one listing, choose Input Shape → Each Item Is a Ticket`,
			itemIndexes: listing.rows,
		};
		const earlier = listing.kind === 'invalid' ? listing.problems : [];
		return refused(listing, [...earlier, problem]);
	});
}

/** An AI Agent's tool runs once per call: the memory holds the tickets of earlier calls' listings. */
export function ticketsOf(listings: ReadyListing[]): HeldTicket[] {
	return listings.flatMap((listing) =>
		listing.products.map(({ product }) => ({
			ticket: ticketIdentity(listing.level.eventId, product),
			listingId: listing.externalListingId,
		})),
	);
}

/** Refuses a listing with a ticket another listing of an earlier run holds; nothing is sent if that is unknown. */
export async function refuseTicketsOfEarlierRuns(
	context: IExecuteFunctions,
	memory: TicketMemory,
	listings: Listing[],
): Promise<Listing[]> {
	const ready = listings.filter((listing): listing is ReadyListing => listing.kind === 'ready');
	const tickets = [...new Set(ticketsOf(ready).map((held) => held.ticket))];
	const holders = await memory.listedBefore(tickets).catch((error: unknown) => {
		const ids = ready.map((listing) => listing.externalListingId);
		throw beforeSendingError(context, failureOf(error), { ids, stillRemembered: [] });
	});
	return listings.map((listing) => {
		if (listing.kind !== 'ready') return listing;
		const problems = ticketsTaken(listing, (ticket) => {
			const holder = holders.get(ticket);
			if (holder === undefined || holder === listing.externalListingId) return undefined;
			return `already in listing ${holder} of event ${String(listing.level.eventId)}, which this workflow listed in an earlier run`;
		});
		return problems.length > 0 ? refused(listing, problems) : listing;
	});
}
