import { z } from 'zod';

/**
 * Sheets hand numbers over as text. Only plain decimal text is a number here: "12" and "12.5" are, while
 * "12abc", "1e3", "0x10" and "" are not (a sheet never writes exponents on purpose, so "1e3" is more likely a
 * mangled id than a thousand).
 */
const INTEGER_TEXT = /^-?\d+$/;
const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;
const DECIMAL_COMMA_TEXT = /^-?\d+,\d+$/;
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

function describe(value: unknown): string {
	if (value === undefined || value === null) return 'nothing';
	if (typeof value === 'string') return `"${value}"`;
	return JSON.stringify(value) ?? String(value);
}

function isEmpty(value: unknown): boolean {
	return (
		value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
	);
}

export const positiveId = z.unknown().transform((value, ctx) => {
	const text =
		typeof value === 'number'
			? String(value)
			: typeof value === 'string'
				? value.trim()
				: undefined;
	const parsed = text !== undefined && INTEGER_TEXT.test(text) ? Number(text) : Number.NaN;
	if (!Number.isSafeInteger(parsed) || parsed < 1) {
		ctx.addIssue({
			code: z.ZodIssueCode.custom,
			message: isEmpty(value)
				? 'is required (a whole number such as 123456)'
				: `must be a whole number greater than 0 (got ${describe(value)})`,
		});
		return z.NEVER;
	}
	return parsed;
});

const integerCode = z.unknown().transform((value, ctx) => {
	const text =
		typeof value === 'number'
			? String(value)
			: typeof value === 'string'
				? value.trim()
				: undefined;
	const parsed = text !== undefined && INTEGER_TEXT.test(text) ? Number(text) : Number.NaN;
	if (!Number.isSafeInteger(parsed)) {
		ctx.addIssue({
			code: z.ZodIssueCode.custom,
			message: `must be a whole number (got ${describe(value)})`,
		});
		return z.NEVER;
	}
	return parsed;
});

/** A price is in currency units with at most two decimals; more is almost surely a typo (49.999). */
const MAX_PRICE_DECIMALS = 2;

const positiveAmount = z.unknown().transform((value, ctx) => {
	const text =
		typeof value === 'number'
			? String(value)
			: typeof value === 'string'
				? value.trim()
				: undefined;
	if (typeof value === 'string' && text !== undefined && DECIMAL_COMMA_TEXT.test(text)) {
		ctx.addIssue({
			code: z.ZodIssueCode.custom,
			message: `${describe(value)} is not a number (a decimal comma): write ${text.replace(',', '.')}, or map {{ $json.price.replace(',', '.') }}`,
		});
		return z.NEVER;
	}
	const parsed =
		typeof value === 'number'
			? value
			: text !== undefined && DECIMAL_TEXT.test(text)
				? Number(text)
				: Number.NaN;
	if (!Number.isFinite(parsed) || parsed <= 0) {
		ctx.addIssue({
			code: z.ZodIssueCode.custom,
			message: isEmpty(value)
				? 'is required (a number such as 49.90)'
				: `must be a number greater than 0, such as 49.90 (got ${describe(value)})`,
		});
		return z.NEVER;
	}
	// A computed number may carry binary noise (54.890000000000004): that is still two decimals.
	const cents = parsed * 10 ** MAX_PRICE_DECIMALS;
	const decimals =
		typeof value === 'string'
			? (text?.split('.')[1]?.length ?? 0)
			: Math.abs(cents - Math.round(cents)) < 1e-6
				? 0
				: 3;
	if (decimals > MAX_PRICE_DECIMALS) {
		ctx.addIssue({
			code: z.ZodIssueCode.custom,
			message: `${describe(value)} has more than ${MAX_PRICE_DECIMALS} decimals: a price is in currency units and cents, such as ${(Math.round(cents) / 10 ** MAX_PRICE_DECIMALS).toFixed(MAX_PRICE_DECIMALS)}`,
		});
		return z.NEVER;
	}
	return typeof value === 'number' ? Math.round(cents) / 10 ** MAX_PRICE_DECIMALS : parsed;
});

/** ISO 4217 codes are three letters; lower case from a sheet is accepted and sent upper case. */
const currencyCode = z.unknown().transform((value, ctx) => {
	const text = typeof value === 'string' ? value.trim() : '';
	if (!/^[A-Za-z]{3}$/.test(text)) {
		ctx.addIssue({
			code: z.ZodIssueCode.custom,
			message: `must be a three-letter currency code such as EUR (got ${describe(value)})`,
		});
		return z.NEVER;
	}
	return text.toUpperCase();
});

const languageTag = z.unknown().transform((value, ctx) => {
	const text = typeof value === 'string' ? value.trim() : '';
	if (!LANGUAGE_TAG.test(text)) {
		ctx.addIssue({
			code: z.ZodIssueCode.custom,
			message: `must be a language tag such as en-US (got ${describe(value)})`,
		});
		return z.NEVER;
	}
	return text;
});

/**
 * Our choice (the spec shows no limit): a product id, row or seat longer than this is a cell or a file pasted by
 * mistake, not a label, and is refused rather than sent.
 */
export const MAX_LABEL_LENGTH = 255;

/** Labels and ids: numbers from a sheet become text; blank counts as absent. */
const optionalLabel = z.unknown().transform((value, ctx) => {
	if (isEmpty(value)) return undefined;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	if (typeof value === 'string' && value.trim().length > MAX_LABEL_LENGTH) {
		ctx.addIssue({
			code: z.ZodIssueCode.custom,
			message: `is ${value.trim().length} characters long; at most ${MAX_LABEL_LENGTH} are accepted (was a whole cell or a file pasted here?)`,
		});
		return z.NEVER;
	}
	if (typeof value === 'string') return value.trim();
	ctx.addIssue({ code: z.ZodIssueCode.custom, message: `must be text (got ${describe(value)})` });
	return z.NEVER;
});

const requiredLabel = (example: string) =>
	optionalLabel.transform((value, ctx) => {
		if (value === undefined) {
			ctx.addIssue({
				code: z.ZodIssueCode.custom,
				message: `is required (text such as ${example})`,
			});
			return z.NEVER;
		}
		return value;
	});

const sheetBoolean = z.unknown().transform((value, ctx) => {
	if (isEmpty(value)) return false;
	if (typeof value === 'boolean') return value;
	const text = String(value).trim().toLowerCase();
	if (text === 'true' || text === '1') return true;
	if (text === 'false' || text === '0') return false;
	ctx.addIssue({
		code: z.ZodIssueCode.custom,
		message: `must be true or false (got ${describe(value)})`,
	});
	return z.NEVER;
});

/** The spec shows one value of each enumeration and not the whole list: any non-empty text is accepted. */
const openEnumValue = (fallback: string) => optionalLabel.transform((value) => value ?? fallback);

const stockTypeList = z.unknown().transform((value, ctx) => {
	const entries = Array.isArray(value)
		? value
		: typeof value === 'string'
			? value.split(',')
			: [value];
	const cleaned = entries
		.map((entry) => (typeof entry === 'string' ? entry.trim() : entry))
		.filter((entry) => !isEmpty(entry));
	if (cleaned.length === 0 || cleaned.some((entry) => typeof entry !== 'string')) {
		ctx.addIssue({
			code: z.ZodIssueCode.custom,
			message: `must be one or more stock types such as PDF (got ${describe(value)})`,
		});
		return z.NEVER;
	}
	return cleaned as string[];
});

/** Users never see "ga": the node calls it General Admission. */
export const SEAT_NEEDED =
	'is empty: a seated ticket needs a Row and a Seat. For standing tickets, switch on General Admission (or map it to a column, such as {{ $json.ga }})';

export const productSchema = z
	.object({
		externalId: requiredLabel('"7001-A-12"'),
		row: optionalLabel,
		seat: optionalLabel,
		productType: openEnumValue('TICKET'),
		ga: sheetBoolean,
	})
	.superRefine((product, ctx) => {
		if (product.ga) return;
		for (const field of ['row', 'seat'] as const) {
			if (product[field] === undefined) {
				ctx.addIssue({ code: z.ZodIssueCode.custom, path: [field], message: SEAT_NEEDED });
			}
		}
	});

/** Products typed as JSON are checked for unknown keys: a typo such as "Seat" would otherwise drop data silently. */
export const jsonProductSchema = z
	.object({
		externalId: z.unknown(),
		row: z.unknown(),
		seat: z.unknown(),
		productType: z.unknown(),
		ga: z.unknown(),
	})
	.strict()
	.pipe(productSchema);

export const listingLevelSchema = z.object({
	eventId: positiveId,
	pricePerProduct: z.object({ amount: positiveAmount, currency: currencyCode }),
	externalListingId: positiveId,
	stockType: stockTypeList,
	paymentType: integerCode,
	acceptLanguage: languageTag,
});

export type ListingLevel = z.output<typeof listingLevelSchema>;
export type Product = z.output<typeof productSchema>;

export const seatRangeSchema = z
	.object({
		row: requiredLabel('"A"'),
		firstSeat: integerCode,
		lastSeat: integerCode,
		externalIdPattern: requiredLabel('"{listing}-{row}-{seat}"'),
		productType: openEnumValue('TICKET'),
	})
	.superRefine((range, ctx) => {
		if (range.lastSeat < range.firstSeat) {
			ctx.addIssue({
				code: z.ZodIssueCode.custom,
				path: ['lastSeat'],
				message: `must not be below First Seat (${range.firstSeat})`,
			});
		} else if (range.lastSeat - range.firstSeat + 1 > MAX_SEATS_PER_RANGE) {
			ctx.addIssue({
				code: z.ZodIssueCode.custom,
				path: ['lastSeat'],
				message: `gives more than ${MAX_SEATS_PER_RANGE} seats; split the range`,
			});
		}
		const placeholders: string[] = range.externalIdPattern.match(/\{[^{}]*\}/g) ?? [];
		const unknown = placeholders.filter(
			(placeholder) => !SEAT_PATTERN_PLACEHOLDERS.includes(placeholder),
		);
		if (unknown.length) {
			ctx.addIssue({
				code: z.ZodIssueCode.custom,
				path: ['externalIdPattern'],
				message: `has unknown placeholder ${unknown.join(', ')}; use ${SEAT_PATTERN_PLACEHOLDERS.join(', ')}`,
			});
		}
		if (!placeholders.includes('{seat}')) {
			ctx.addIssue({
				code: z.ZodIssueCode.custom,
				path: ['externalIdPattern'],
				message: 'must contain {seat} so that every product gets its own id',
			});
		}
	});

export type SeatRange = z.output<typeof seatRangeSchema>;

export const MAX_SEATS_PER_RANGE = 1000;
export const SEAT_PATTERN_PLACEHOLDERS = ['{listing}', '{event}', '{row}', '{seat}'];

/** A zod issue in the node's words: the field's label (from the issue's path) and what is wrong. */
export interface LabelledIssue {
	field: string;
	text: string;
}

export type FieldLabeller = (path: Array<string | number>) => string;

export function labelIssues(error: z.ZodError, label: FieldLabeller): LabelledIssue[] {
	return error.issues.map((issue) => {
		const field = label(issue.path);
		if (issue.code === z.ZodIssueCode.unrecognized_keys) {
			return {
				field,
				text: `has unknown field ${issue.keys.map((key) => `"${key}"`).join(', ')}; allowed are externalId, row, seat, productType, ga`,
			};
		}
		if (issue.code === z.ZodIssueCode.invalid_type)
			return { field, text: `must be ${issue.expected} (got ${issue.received})` };
		return { field, text: issue.message };
	});
}

/** The node's labels for the listing-level fields (the zod paths of listingLevelSchema). */
export const LEVEL_LABELS: Record<string, string> = {
	eventId: 'Event ID',
	externalListingId: 'External Listing ID',
	'pricePerProduct.amount': 'Price Amount',
	'pricePerProduct.currency': 'Currency',
	stockType: 'Stock Type',
	paymentType: 'Payment Type',
	acceptLanguage: 'Accept-Language',
};

export const PRODUCT_LABELS: Record<string, string> = {
	externalId: 'External ID',
	row: 'Row',
	seat: 'Seat',
	ga: 'General Admission',
	productType: 'Product Type',
};

export const SEAT_RANGE_LABELS: Record<string, string> = {
	row: 'Row',
	firstSeat: 'First Seat',
	lastSeat: 'Last Seat',
	externalIdPattern: 'External ID Pattern',
	productType: 'Product Type',
};

export function pathKey(path: Array<string | number>): string {
	return path.filter((segment) => typeof segment === 'string').join('.');
}
