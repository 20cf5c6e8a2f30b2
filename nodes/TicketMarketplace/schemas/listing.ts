import { z } from 'zod';

import { integerCode, openEnumValue, requiredLabel } from './sheetValues';

export { isBlank, MAX_LABEL_LENGTH, positiveId } from './sheetValues';

/** Users never see "ga": the node calls it General Admission. */
export const SEAT_NEEDED =
	'is empty: a seated ticket needs a Row and a Seat. For standing tickets, switch on General Admission (or map it to a column, such as {{ $json.ga }})';

/**
 * Characters that show as nothing: Unicode's Default_Ignorable_Code_Point, which a font without a glyph for them
 * must not draw (zero-width space and joiners, direction marks, embeddings and isolates, byte-order mark, soft
 * hyphen, combining grapheme joiner, variation selectors, Hangul fillers, tags). The property rather than a list,
 * so that a blank spelling a list forgot (U+2066–U+2069 wrapped around mixed-direction text, U+3164 shown as
 * blank) does not make one seat two.
 */
const INVISIBLE_CHARACTERS = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * What a row or seat label names, for telling whether two products are one seat: invisible characters removed,
 * Unicode compatibility forms folded (NFKC: full-width "１２" is "12", a decomposed "é" is "é"), white space
 * trimmed and collapsed, and case ignored (row "a" and row "A" are one row on a ticket). Only for comparing: the
 * label is sent as written.
 */
export function labelIdentity(label: string): string {
	// Removed before folding, so that an invisible character does not keep a letter from composing with its accent
	// (no visible character folds into an invisible one, so once is enough).
	return label
		.replace(INVISIBLE_CHARACTERS, '')
		.normalize('NFKC')
		.replace(/\s+/g, ' ')
		.trim()
		.toUpperCase();
}

/** The seat a product sells, as labelIdentity compares it; none for General Admission or without row and seat. */
export function seatIdentity(product: {
	ga?: unknown;
	row?: string;
	seat?: string;
}): string | undefined {
	if (product.ga || product.row === undefined || product.seat === undefined) return undefined;
	return JSON.stringify([labelIdentity(product.row), labelIdentity(product.seat)]);
}

export const seatRangeSchema = z
	.object({
		row: requiredLabel('"A"'),
		firstSeat: integerCode,
		lastSeat: integerCode,
		externalIdPattern: requiredLabel('"{listing}-{row}-{seat}"'),
		productType: openEnumValue('TICKET'),
	})
	.superRefine((range, ctx) => {
		const issue = (message: string, field: 'lastSeat' | 'externalIdPattern') =>
			ctx.addIssue({ code: z.ZodIssueCode.custom, path: [field], message });
		if (range.lastSeat < range.firstSeat)
			issue(`must not be below First Seat (${range.firstSeat})`, 'lastSeat');
		else if (range.lastSeat - range.firstSeat + 1 > MAX_SEATS_PER_RANGE)
			issue(`gives more than ${MAX_SEATS_PER_RANGE} seats; split the range`, 'lastSeat');
		const placeholders: string[] = range.externalIdPattern.match(/\{[^{}]*\}/g) ?? [];
		const unknown = placeholders.filter(
			(placeholder) => !SEAT_PATTERN_PLACEHOLDERS.includes(placeholder),
		);
		if (unknown.length)
			issue(
				`has unknown placeholder ${unknown.join(', ')}; use ${SEAT_PATTERN_PLACEHOLDERS.join(', ')}`,
				'externalIdPattern',
			);
		if (!placeholders.includes('{seat}'))
			issue('must contain {seat} so that every product gets its own id', 'externalIdPattern');
	});

export type SeatRange = z.output<typeof seatRangeSchema>;

const MAX_SEATS_PER_RANGE = 1000;
const SEAT_PATTERN_PLACEHOLDERS = ['{listing}', '{event}', '{row}', '{seat}'];

/** A zod issue in the node's words: the field's label (from the issue's path) and what is wrong. */
interface LabelledIssue {
	field: string;
	text: string;
}

export type FieldLabeller = (path: Array<string | number>) => string;

/** `allowedKeys`: the keys an object with unknown ones may have, for the message that names them. */
export function labelIssues(
	error: z.ZodError,
	label: FieldLabeller,
	allowedKeys: string[] = [],
): LabelledIssue[] {
	return error.issues.map((issue) => {
		const field = label(issue.path);
		if (issue.code === z.ZodIssueCode.unrecognized_keys) {
			return {
				field,
				text: `has unknown field ${issue.keys.map((key) => `"${key}"`).join(', ')}; allowed are ${allowedKeys.join(', ')}`,
			};
		}
		if (issue.code === z.ZodIssueCode.invalid_type)
			return { field, text: `must be ${issue.expected} (got ${issue.received})` };
		return { field, text: issue.message };
	});
}

export function pathKey(path: Array<string | number>): string {
	return path.filter((segment) => typeof segment === 'string').join('.');
}
