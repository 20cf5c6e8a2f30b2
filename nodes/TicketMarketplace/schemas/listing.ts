/** What a sheet cell or a listing's value may be: zod schemas whose messages say what to write instead. */
import { z } from 'zod';

/** Only plain decimal text is a number: not "12abc", "0x10", "" or "1e3" (more likely a mangled id). */
const INTEGER_TEXT = /^-?\d+$/;
const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;
const DECIMAL_COMMA_TEXT = /^-?\d+,\d+$/;
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/** A value refused, with what to write instead; zod's way to end a transform. */
function refuse(ctx: z.RefinementCtx, message: string): never {
	ctx.addIssue({ code: z.ZodIssueCode.custom, message });
	return z.NEVER;
}

function describe(value: unknown): string {
	if (value === undefined || value === null) return 'nothing';
	if (typeof value === 'string') return `"${value}"`;
	return JSON.stringify(value) ?? String(value);
}

/** Nothing there: absent, null, or only white space (a sheet's empty cell). */
export function isBlank(value: unknown): boolean {
	return (
		value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
	);
}

/** A whole number beyond ±2^53 − 1 cannot be sent exactly: refused as too large, not as "not whole". */
function beyondExactRange(value: unknown, text: string | undefined): boolean {
	if (typeof value === 'number') return Number.isInteger(value) && !Number.isSafeInteger(value);
	return text !== undefined && INTEGER_TEXT.test(text) && !Number.isSafeInteger(Number(text));
}

/** A number or a sheet's text as the text it reads as; anything else has none. */
function numberText(value: unknown): string | undefined {
	if (typeof value === 'number') return String(value);
	return typeof value === 'string' ? value.trim() : undefined;
}

export const positiveId = z.unknown().transform((value, ctx) => {
	const text = numberText(value);
	if (beyondExactRange(value, text) && !text?.startsWith('-'))
		return refuse(
			ctx,
			`is too large: whole numbers up to ${Number.MAX_SAFE_INTEGER} can be sent exactly (got ${describe(value)})`,
		);
	const parsed = text !== undefined && INTEGER_TEXT.test(text) ? Number(text) : Number.NaN;
	if (!Number.isSafeInteger(parsed) || parsed < 1)
		return refuse(
			ctx,
			isBlank(value)
				? 'is required (a whole number such as 123456)'
				: `must be a whole number greater than 0 (got ${describe(value)})`,
		);
	return parsed;
});

export const integerCode = z.unknown().transform((value, ctx) => {
	const text = numberText(value);
	if (beyondExactRange(value, text))
		return refuse(
			ctx,
			`is out of range: whole numbers from ${Number.MIN_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER} can be sent exactly (got ${describe(value)})`,
		);
	const parsed = text !== undefined && INTEGER_TEXT.test(text) ? Number(text) : Number.NaN;
	if (!Number.isSafeInteger(parsed))
		return refuse(ctx, `must be a whole number (got ${describe(value)})`);
	return parsed;
});

/** A price is in currency units with at most two decimals; more is almost surely a typo (49.999). */
const MAX_PRICE_DECIMALS = 2;
const SMALLEST_PRICE = (1 / 10 ** MAX_PRICE_DECIMALS).toFixed(MAX_PRICE_DECIMALS);
/** A JSON number carries 15 significant digits exactly: 13 before the point, two after (more is a pasted id). */
const LARGEST_PRICE = '9999999999999.99';

export const positiveAmount = z.unknown().transform((value, ctx) => {
	const text = numberText(value);
	if (typeof value === 'string' && text !== undefined && DECIMAL_COMMA_TEXT.test(text))
		return refuse(
			ctx,
			`${describe(value)} is not a number (a decimal comma): write ${text.replace(',', '.')}, or map {{ $json.price.replace(',', '.') }}`,
		);
	const parsed =
		typeof value === 'number'
			? value
			: text !== undefined && DECIMAL_TEXT.test(text)
				? Number(text)
				: Number.NaN;
	if (!Number.isFinite(parsed) || parsed <= 0)
		return refuse(
			ctx,
			isBlank(value)
				? 'is required (a number such as 49.90)'
				: `must be a number greater than 0, such as 49.90 (got ${describe(value)})`,
		);
	if (parsed > Number(LARGEST_PRICE))
		return refuse(
			ctx,
			`${describe(value)} is too large: prices up to ${LARGEST_PRICE} can be sent exactly (a price is in currency units and cents)`,
		);
	// A computed number may carry binary noise (54.890000000000004): that is still two decimals.
	const cents = parsed * 10 ** MAX_PRICE_DECIMALS;
	const tooPrecise =
		typeof value === 'string'
			? (text?.split('.')[1]?.length ?? 0) > MAX_PRICE_DECIMALS
			: Math.abs(cents - Math.round(cents)) >= 1e-6;
	if (tooPrecise)
		return refuse(
			ctx,
			`${describe(value)} has more than ${MAX_PRICE_DECIMALS} decimals: a price is in currency units and cents, such as ${(Math.round(cents) / 10 ** MAX_PRICE_DECIMALS).toFixed(MAX_PRICE_DECIMALS)}`,
		);
	// A number too small to have a cent passes "> 0" yet would be sent as 0.
	if (Math.round(cents) < 1)
		return refuse(
			ctx,
			`${describe(value)} is below ${SMALLEST_PRICE}, the smallest price (a price is in currency units and cents)`,
		);
	return typeof value === 'number' ? Math.round(cents) / 10 ** MAX_PRICE_DECIMALS : parsed;
});

/** ISO 4217 codes are three letters; lower case from a sheet is accepted and sent upper case. */
export const currencyCode = z.unknown().transform((value, ctx) => {
	const text = typeof value === 'string' ? value.trim() : '';
	if (!/^[A-Za-z]{3}$/.test(text))
		return refuse(ctx, `must be a three-letter currency code such as EUR (got ${describe(value)})`);
	return text.toUpperCase();
});

export const languageTag = z.unknown().transform((value, ctx) => {
	const text = typeof value === 'string' ? value.trim() : '';
	if (!LANGUAGE_TAG.test(text))
		return refuse(ctx, `must be a language tag such as en-US (got ${describe(value)})`);
	return text;
});

/** Our choice (the spec has none): a longer id, row or seat is a cell or a file pasted by mistake. */
const MAX_LABEL_LENGTH = 255;

/** Labels and ids: numbers from a sheet become text; blank counts as absent. */
export const optionalLabel = z.unknown().transform((value, ctx) => {
	if (isBlank(value)) return undefined;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	if (typeof value === 'string' && value.trim().length > MAX_LABEL_LENGTH)
		return refuse(
			ctx,
			`is ${value.trim().length} characters long; at most ${MAX_LABEL_LENGTH} are accepted (was a whole cell or a file pasted here?)`,
		);
	if (typeof value === 'string') return value.trim();
	return refuse(ctx, `must be text (got ${describe(value)})`);
});

export const requiredLabel = (example: string) =>
	optionalLabel.transform(
		(value, ctx) => value ?? refuse(ctx, `is required (text such as ${example})`),
	);

export const sheetBoolean = z.unknown().transform((value, ctx) => {
	if (isBlank(value)) return false;
	if (typeof value === 'boolean') return value;
	const text = String(value).trim().toLowerCase();
	if (text === 'true' || text === '1') return true;
	if (text === 'false' || text === '0') return false;
	return refuse(ctx, `must be true or false (got ${describe(value)})`);
});

/** The spec shows one value of each enumeration and not the whole list: any non-empty text is accepted. */
export const openEnumValue = (fallback: string) =>
	optionalLabel.transform((value) => value ?? fallback);

export const stockTypeList = z.unknown().transform((value, ctx) => {
	const entries = Array.isArray(value)
		? value
		: typeof value === 'string'
			? value.split(',')
			: [value];
	const cleaned = entries
		.map((entry) => (typeof entry === 'string' ? entry.trim() : entry))
		.filter((entry) => !isBlank(entry));
	if (cleaned.length === 0 || cleaned.some((entry) => typeof entry !== 'string'))
		return refuse(ctx, `must be one or more stock types such as PDF (got ${describe(value)})`);
	return cleaned as string[];
});

/** Users never see "ga": the node calls it General Admission. */
export const SEAT_NEEDED =
	'is empty: a seated ticket needs a Row and a Seat. For standing tickets, switch on General Admission (or map it to a column, such as {{ $json.ga }})';

/** Characters that show as nothing: the Unicode property, so no invisible spelling a list forgot makes one seat two. */
const INVISIBLE_CHARACTERS = /\p{Default_Ignorable_Code_Point}/gu;

/** A row or seat label as compared (sent as written); invisibles go first, so none keeps a letter from its accent. */
export function labelIdentity(label: string): string {
	return label
		.replace(INVISIBLE_CHARACTERS, '')
		.normalize('NFKC')
		.replace(/\s+/g, ' ')
		.trim()
		.toUpperCase();
}

/** The seat a product sells, as labelIdentity compares it; none for General Admission or without row and seat. */
export function seatIdentity(product: { ga?: unknown; row?: string; seat?: string }) {
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
