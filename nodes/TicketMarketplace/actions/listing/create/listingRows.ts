/** One input item read once into its fields by parameter name, unchecked (checkListing.ts), or found blank. */
import { errorText } from '../../../helpers/errors';
import { isBlank, positiveId } from '../../../schemas/listing';
import { fieldOf, isRowData, READ_ORDER } from './fields';
import type { ListingRow, RowFields } from './nouns';
import { unreadable } from './problems';
import type { ParameterSource } from './parameterSource';
import type { InputShape } from './settings';

/** The table's fields an item gives, in reading order: a listing's, and a ticket row's own. */
function readFields(
	params: ParameterSource,
	itemIndex: number,
	shape: InputShape,
	into: RowFields,
): RowFields {
	for (const field of READ_ORDER) {
		if (field.parameter in into || (field.per === 'ticket' && shape !== 'ticketPerItem')) continue;
		into[field.parameter] = params.get(field.parameter, itemIndex, field.default);
	}
	return into;
}

/** Blank: some field reads the row and every one that does is empty (a sheet export's trailing rows). */
export function isBlankRow(params: ParameterSource, fields: RowFields): boolean {
	let readsRow = false;
	for (const [name, value] of Object.entries(fields)) {
		if (!isRowData(name) || !params.readsItem(name)) continue;
		readsRow = true;
		if (!isBlank(value)) return false;
	}
	return readsRow;
}

/** The External Listing ID as grouping needs it: parsed once, here. */
function listingIdOf(raw: unknown): ListingRow['listingId'] {
	const parsed = positiveId.safeParse(raw);
	if (parsed.success) return { id: parsed.data, text: String(parsed.data) };
	return { text: isBlank(raw) ? '' : String(raw).trim() };
}

/** A listing per item's products, unexpanded: the source chosen, its value, the shared Product Type (from 1.1). */
function readProductFields(
	params: ParameterSource,
	itemIndex: number,
	sharedProductType: boolean,
	into: RowFields,
): RowFields {
	const source = params.get('productsSource', itemIndex, 'defined');
	into.productsSource = source;
	if (sharedProductType)
		into.productType = params.get('productType', itemIndex, fieldOf('productType').default);
	if (source === 'json') into.productsJson = params.get('productsJson', itemIndex, '[]');
	else if (source === 'seatRange') into.seatRanges = params.get('seatRanges', itemIndex, {});
	else into.products = params.get('products', itemIndex, {});
	return into;
}

/** Reads one item; undefined for a blank row. */
export function readListingRow(
	params: ParameterSource,
	itemIndex: number,
	shape: InputShape,
	sharedProductType = false,
): ListingRow | undefined {
	// Read first: a row whose other parameters fail still blocks its listing, which once sent could never get its seat.
	let rawListingId: unknown;
	let listingIdRead = false;
	try {
		rawListingId = params.get('externalListingId', itemIndex);
		listingIdRead = true;
		const fields = readFields(params, itemIndex, shape, { externalListingId: rawListingId });
		if (isBlankRow(params, fields)) return undefined;
		if (shape !== 'ticketPerItem') readProductFields(params, itemIndex, sharedProductType, fields);
		return { itemIndex, listingId: listingIdOf(rawListingId), fields, problems: [] };
	} catch (error) {
		return {
			itemIndex,
			listingId: listingIdOf(rawListingId),
			problems: [unreadable(error, itemIndex)],
			...(!listingIdRead &&
				shape === 'ticketPerItem' && {
					unknownListing: { error: errorText(error), eventId: readableEventId(params, itemIndex) },
				}),
		};
	}
}

/** The row's Event ID, when it can be read and is valid; undefined otherwise (its expression may fail too). */
function readableEventId(params: ParameterSource, itemIndex: number): number | undefined {
	try {
		const parsed = positiveId.safeParse(params.get('eventId', itemIndex));
		return parsed.success ? parsed.data : undefined;
	} catch {
		return undefined;
	}
}
