/** The field table (fieldTable.ts) as Listing → Create reads it: labels, schemas, and the request it sends. */
import type { IDataObject } from 'n8n-workflow';
import { z, type ZodError } from 'zod';

import { listFirst } from '../../../helpers/errors';
import { buildRequest, type ApiRequest } from '../../../transport';
import { PARTNER_API_PATHS } from '../../../../shared/partnerApi/paths';
import { labelIssues, pathKey, SEAT_NEEDED, type FieldLabeller } from '../../../schemas/listing';
import { FIELDS, SEAT_RANGE_FIELDS, SOURCE_LABELS, type Field } from './fieldTable';
import type { ListingLevel, Problem, Product, ReadyListing } from './nouns';

export const LISTING_FIELDS = FIELDS.filter((field) => field.per === 'listing');
export const TICKET_FIELDS = FIELDS.filter((field) => field.per === 'ticket');

export function fieldOf(parameter: string): Field {
	const field = FIELDS.find((entry) => entry.parameter === parameter);
	if (field === undefined) throw new Error(`No field ${parameter}`);
	return field;
}

/** A field's label (or a product source's: `products.product`), as the panel shows it and messages name it. */
export function labelOf(name: string): string {
	return SOURCE_LABELS[name] ?? fieldOf(name).panel.displayName;
}

/** The order fields are read from an item: the External Listing ID first (it names the row's listing). */
export const READ_ORDER: Field[] = [
	fieldOf('externalListingId'),
	...FIELDS.filter((field) => field.parameter !== 'externalListingId'),
];

/** Map Automatically's headers, in reading order; a field without a default needs its column. */
export const RECOGNISED_HEADERS: Record<string, { headers: string[]; required: boolean }> =
	Object.fromEntries(
		READ_ORDER.flatMap(({ parameter, headers, default: value }) =>
			headers ? [[parameter, { headers, required: value === undefined }]] : [],
		),
	);

/** Choices under Options, not the row's data: they never make a row blank or not. */
const NOT_ROW_DATA = new Set(FIELDS.filter((f) => f.place !== 'main').map((f) => f.parameter));
export const isRowData = (parameter: string) => !NOT_ROW_DATA.has(parameter);

export function isUnderOptions(field: Field, readsAsV1: boolean): boolean {
	return field.place === 'options' || (field.place === 'optionsFromV1_1' && !readsAsV1);
}

/** Where the fields under Options are read (ItemParameters' paths): `stockType` is `options.stockType`. */
export function optionPaths(readsAsV1: boolean): Record<string, string> {
	const under = FIELDS.filter((field) => isUnderOptions(field, readsAsV1));
	return Object.fromEntries(under.map(({ parameter }) => [parameter, `options.${parameter}`]));
}

/** A zod object of the fields, nested by their dotted API paths, in table order. */
function schemaOf(fields: Field[]): z.AnyZodObject {
	const shape = inApiShape(fields, (field) => field.schema);
	const nested = fields.filter((field) => field.api.includes('.'));
	for (const outer of new Set(nested.map((field) => field.api.split('.')[0])))
		shape[outer] = z.object(shape[outer] as z.ZodRawShape);
	return z.object(shape as z.ZodRawShape);
}

export type Reads<T> = z.ZodType<T, z.ZodTypeDef, unknown>;

export const listingLevelSchema = schemaOf(LISTING_FIELDS) as unknown as Reads<ListingLevel>;

export const productSchema = schemaOf(TICKET_FIELDS).superRefine((product, ctx) => {
	for (const field of product.ga ? [] : (['row', 'seat'] as const))
		if (product[field] === undefined)
			ctx.addIssue({ code: z.ZodIssueCode.custom, path: [field], message: SEAT_NEEDED });
}) as unknown as Reads<Product>;

export const PRODUCT_KEYS = TICKET_FIELDS.map((field) => field.api);

/** A JSON product's unknown key is refused: a typo such as "Seat" would otherwise drop data silently. */
export const jsonProductSchema = z
	.object(Object.fromEntries(PRODUCT_KEYS.map((key) => [key, z.unknown()])))
	.strict()
	.pipe(productSchema);

export function issuesOf(error: ZodError, label: FieldLabeller, itemIndexes: number[]): Problem[] {
	return labelIssues(error, label, PRODUCT_KEYS).map((issue) => ({ ...issue, itemIndexes }));
}

function labeller(labels: Array<[string, string]>): FieldLabeller {
	const byKey = Object.fromEntries(labels);
	return (path) => byKey[pathKey(path)] ?? pathKey(path);
}

/** The listing's own fields, and the product of a ticket row ("Each Item Is a Ticket"). */
export const fieldLabel = labeller(FIELDS.map((f) => [f.api, f.panel.displayName]));

export const productLabel = labeller(
	TICKET_FIELDS.map((f) => [f.api, f.product?.displayName ?? f.panel.displayName]),
);

export const seatRangeLabel = labeller(SEAT_RANGE_FIELDS.map((f) => [f.name, f.displayName]));

/** The value at a path of one or two keys, such as `pricePerProduct.amount`. */
export function valueAt(values: IDataObject, path: string): unknown {
	const [outer, inner] = path.split('.');
	return inner === undefined ? values[outer] : (values[outer] as IDataObject | undefined)?.[inner];
}

/** The listing's own fields of a row in the API's shape, for their schema; inApiShape nests dotted paths. */
export function levelOf(fields: Record<string, unknown>): Record<string, unknown> {
	return inApiShape(LISTING_FIELDS, (field) => fields[field.parameter]);
}

export function inApiShape(
	fields: Field[],
	valueOf: (field: Field) => unknown,
): Record<string, unknown> {
	const shaped: Record<string, unknown> = {};
	for (const field of fields) {
		const [outer, inner] = field.api.split('.');
		if (inner === undefined) shaped[outer] = valueOf(field);
		else ((shaped[outer] ??= {}) as IDataObject)[inner] = valueOf(field) as IDataObject[string];
	}
	return shaped;
}

/** These fields' values in the API's shape, those without a value left out: a fresh copy for the body. */
function bodyOf(fields: Field[], values: IDataObject): IDataObject {
	const given = fields.filter((field) => valueAt(values, field.api) !== undefined);
	return inApiShape(given, (field) => valueAt(values, field.api)) as IDataObject;
}

/** The listing's fields in the body: the required ones come before the products, those with a default after. */
const IN_BODY = LISTING_FIELDS.filter((field) => field.header === undefined);
const BEFORE_PRODUCTS = IN_BODY.filter((field) => field.default === undefined);
const AFTER_PRODUCTS = IN_BODY.filter((field) => field.default !== undefined);
const IN_HEADERS = LISTING_FIELDS.filter((field) => field.header !== undefined);

export function listingRequest({ level, products }: ReadyListing): ApiRequest {
	const body = {
		...bodyOf(BEFORE_PRODUCTS, level),
		products: products.map(({ product }) => bodyOf(TICKET_FIELDS, product)),
		...bodyOf(AFTER_PRODUCTS, level),
	};
	const headers: Record<string, string> = {};
	for (const field of IN_HEADERS) headers[field.header!] = String(valueAt(level, field.api));
	return buildRequest('POST', PARTNER_API_PATHS.listings, body, headers);
}

export const ROWS_CONVENTION = 'Rows are counted from 1, in the order the items reach this node.';

/** "row 3", "rows 1–2000", "rows 1, 4 and 7–9"; past 20 ranges, "rows 1, 3, …, 39 and 180 more". */
export function rowsText(itemIndexes: number[]): string {
	const rows = [...new Set(itemIndexes)].sort((a, b) => a - b).map((index) => index + 1);
	const runs: number[][] = [];
	for (const row of rows) {
		const run = runs.at(-1);
		if (run?.at(-1) === row - 1) run.push(row);
		else runs.push([row]);
	}
	const ranges = runs.flatMap((run) => (run.length >= 3 ? [run] : run.map((row) => [row])));
	const written = ranges.map((range) =>
		range.length > 1 ? `${range[0]}–${range.at(-1)}` : String(range[0]),
	);
	const more = ranges.slice(20).reduce((count, range) => count + range.length, 0);
	const list = more
		? `${written.slice(0, 20).join(', ')} and ${more} more`
		: listFirst(written, 20);
	return rows.length === 1 ? `row ${list}` : `rows ${list}`;
}

/** `Price Amount "49,90" is not a number ... (rows 1–2000)`. */
export function problemLine(problem: Problem): string {
	const subject = problem.field ? `${problem.field} ${problem.text}` : problem.text;
	return `${subject} (${rowsText(problem.itemIndexes)})`;
}

/** Items grouped by key, in order of first appearance. */
export function groupBy<T, K>(items: T[], keyOf: (item: T) => K): Map<K, T[]> {
	const groups = new Map<K, T[]>();
	for (const item of items) {
		const key = keyOf(item);
		const group = groups.get(key);
		if (group) group.push(item);
		else groups.set(key, [item]);
	}
	return groups;
}

/** Identical problems (same field, same words) of many rows become one, in the order of their first row. */
export function mergeProblems(problems: Problem[]): Problem[] {
	const same = groupBy(problems, (problem) => `${problem.field}\u0000${problem.text}`);
	const merged = [...same.values()].map((group) => ({
		...group[0],
		itemIndexes: group.flatMap((problem) => problem.itemIndexes),
	}));
	const firstRow = (problem: Problem) =>
		problem.itemIndexes.reduce((lowest, index) => Math.min(lowest, index), Infinity);
	return merged.sort((a, b) => firstRow(a) - firstRow(b));
}
