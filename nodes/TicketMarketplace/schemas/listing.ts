import { z } from 'zod';

import { integerCode, openEnumValue, requiredLabel } from './sheetValues';

export { isBlank, positiveId } from './sheetValues';

/** Users never see "ga": the node calls it General Admission. */
export const SEAT_NEEDED =
	'is empty: a seated ticket needs a Row and a Seat. For standing tickets, switch on General Admission (or map it to a column, such as {{ $json.ga }})';

/** Characters that show as nothing: the Unicode property, so no invisible spelling a list forgot makes one seat two. */
const INVISIBLE_CHARACTERS = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * A row or seat label as compared (sent as written): invisible characters removed, NFKC-folded (full-width "１２" is
 * "12"), white space collapsed, case ignored. Invisibles go first, so none keeps a letter from its accent.
 */
export function labelIdentity(label: string): string {
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
		const unknown = placeholders.filter((found) => !SEAT_PATTERN_PLACEHOLDERS.includes(found));
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
/** What an External ID Pattern may hold, in the order they are filled: listing, event, row, seat. */
export const SEAT_PATTERN_PLACEHOLDERS = ['{listing}', '{event}', '{row}', '{seat}'];

export type FieldLabeller = (path: Array<string | number>) => string;

/** `allowedKeys`: the keys an object with unknown ones may have, for the message that names them. */
export function labelIssues(
	error: z.ZodError,
	label: FieldLabeller,
	allowedKeys: string[] = [],
): Array<{ field: string; text: string }> {
	return error.issues.map((issue) => {
		const field = label(issue.path);
		if (issue.code === z.ZodIssueCode.unrecognized_keys) {
			const keys = issue.keys.map((key) => `"${key}"`).join(', ');
			return { field, text: `has unknown field ${keys}; allowed are ${allowedKeys.join(', ')}` };
		}
		if (issue.code === z.ZodIssueCode.invalid_type)
			return { field, text: `must be ${issue.expected} (got ${issue.received})` };
		return { field, text: issue.message };
	});
}

export function pathKey(path: Array<string | number>): string {
	return path.filter((segment) => typeof segment === 'string').join('.');
}
