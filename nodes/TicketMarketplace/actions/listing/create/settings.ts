/** What the node's parameters say: the run's options, read once, and each field's value per item. */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	NodeParameterValueType,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { listFirst } from '../../../helpers/errors';
import { currencyCode, isBlank, positiveAmount, positiveId } from '../../../schemas/listing';
import type { PacingMode } from '../../../transport';
import { isRowData, labelOf, RECOGNISED_HEADERS, valueAt, type Reads } from './fields';

/** The most in flight by default; adaptive pacing finds the API's pace below it (bench/README.md). */
export const DEFAULT_CONCURRENCY = 48;
export const MAX_CONCURRENCY = 100;

/** The limits a seller sets on every listing: option name → label. */
export const LIMIT_OPTIONS = {
	minPricePerTicket: 'Minimum Price per Ticket',
	minPriceCurrency: 'Minimum Price Currency',
	maxTicketsPerListing: 'Maximum Tickets per Listing',
} as const;

export type InputShape = 'listingPerItem' | 'ticketPerItem';

export interface SendSettings {
	validateOnly: boolean;
	mode: PacingMode;
	maxConcurrency: number;
	skipAlreadySent: boolean;
	/** Opt-in: each listing's record for Pre-deliver takes about 180 entries of the memory instead of 1. */
	rememberForPreDeliver: boolean;
	perRow: boolean;
}

export function readSendSettings(context: IExecuteFunctions): SendSettings {
	const options = context.getNodeParameter('options', 0, {}) as IDataObject;
	const requested = Number(options.concurrency ?? DEFAULT_CONCURRENCY);
	return {
		validateOnly: options.validateOnly === true,
		mode: options.concurrencyMode === 'fixed' ? 'fixed' : 'adaptive',
		// A number with decimals (an expression's) is taken down to a whole one, never up.
		maxConcurrency: Number.isFinite(requested)
			? Math.min(Math.max(Math.floor(requested), 1), MAX_CONCURRENCY)
			: DEFAULT_CONCURRENCY,
		skipAlreadySent: options.skipAlreadySent !== false,
		rememberForPreDeliver: options.rememberForPreDeliver === true,
		perRow: options.output === 'row',
	};
}

/** What the seller allows one listing, whatever a sheet or an AI Agent passes; a minimum price has its currency. */
export interface ListingLimits {
	minPrice?: number;
	/** The only currency a listing may be priced in (upper case); set whenever minPrice is. */
	currency?: string;
	maxTickets?: number;
}

/** The limits as typed (empty or 0 sets none); one that cannot be used stops the run before anything is read. */
export function readListingLimits(context: IExecuteFunctions): ListingLimits {
	const options = context.getNodeParameter('options', 0, {}) as IDataObject;
	const stop = (message: string, description: string) =>
		new NodeOperationError(context.getNode(), message, { description, itemIndex: 0 });
	const parse = <T>(option: keyof typeof LIMIT_OPTIONS, schema: Reads<T>, then: string): T => {
		const parsed = schema.safeParse(options[option]);
		if (parsed.success) return parsed.data;
		const label = LIMIT_OPTIONS[option];
		const issue = parsed.error.issues[0]?.message;
		throw stop(`${label} under Options cannot be used`, `${label} ${issue}. ${then}`);
	};
	const limit = (option: 'minPricePerTicket' | 'maxTicketsPerListing', schema: Reads<number>) => {
		const value = options[option];
		if (isBlank(value) || value === 0 || value === '0') return undefined;
		return parse(option, schema, 'Set it to a number, or remove the option to set no limit.');
	};
	const minPrice = limit('minPricePerTicket', positiveAmount);
	const currency = isBlank(options.minPriceCurrency)
		? undefined
		: parse('minPriceCurrency', currencyCode, 'Nothing was sent.');
	if (currency === undefined && minPrice !== undefined)
		throw stop(
			`${LIMIT_OPTIONS.minPricePerTicket} under Options needs its currency`,
			`Add Options → ${LIMIT_OPTIONS.minPriceCurrency}, the three-letter code the minimum is in (such as EUR); listings priced in any other currency are then refused. Nothing was sent.`,
		);
	const maxTickets = limit('maxTicketsPerListing', positiveId);
	return { minPrice, currency, maxTickets };
}

export type ParameterSource = Pick<ItemParameters, 'get' | 'readsItem' | 'columnOf'>;

/** Per-item expressions slowed large sheets (bench/README.md): a constant is read once, `{{ $json.x }}` from its cell. */
type Plan =
	| { kind: 'constant'; value: unknown }
	| { kind: 'column'; key: string }
	| { kind: 'expression' };

const BARE_COLUMN_REFERENCE =
	/^=\{\{\s*\$json(?:\.([A-Za-z_$][\w$]*)|\[\s*(?:"((?:[^"\\])*)"|'((?:[^'\\])*)')\s*\])\s*\}\}$/;

/** The column a raw parameter value reads, when it is nothing but `{{ $json.column }}`. */
export function bareColumnReference(raw: unknown): string | undefined {
	if (typeof raw !== 'string') return undefined;
	const match = BARE_COLUMN_REFERENCE.exec(raw);
	return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

function containsExpression(raw: unknown): boolean {
	if (typeof raw === 'string') return raw.startsWith('=');
	if (Array.isArray(raw)) return raw.some(containsExpression);
	if (raw !== null && typeof raw === 'object') return Object.values(raw).some(containsExpression);
	return false;
}

/** Reads a node parameter for an item: n8n's expression result, or a sheet cell the parameter stands for. */
export class ItemParameters {
	private readonly plans = new Map<string, Plan>();

	/** `paths`: where a field under Options is (`options.stockType`); `recognised`: Map Automatically's columns. */
	constructor(
		private readonly context: IExecuteFunctions,
		private readonly items: INodeExecutionData[],
		private readonly paths: Record<string, string> = {},
		private readonly recognised = new Map<string, string>(),
	) {}

	get(name: string, itemIndex: number, fallback?: NodeParameterValueType): unknown {
		let plan = this.plans.get(name);
		if (plan === undefined) this.plans.set(name, (plan = this.planFor(name, fallback)));
		if (plan.kind === 'constant') return plan.value;
		if (plan.kind === 'column') {
			const json = this.items[itemIndex]?.json;
			return json && Object.hasOwn(json, plan.key) ? json[plan.key] : undefined;
		}
		return this.fromNode(name, itemIndex, fallback);
	}

	columnOf(name: string): string | undefined {
		return this.recognised.get(name) ?? bareColumnReference(this.raw(name));
	}

	/** A column or an expression: the value can differ per item. */
	readsItem(name: string): boolean {
		const plan = this.plans.get(name);
		if (plan) return plan.kind !== 'constant';
		return this.columnOf(name) !== undefined || containsExpression(this.raw(name));
	}

	private fromNode(name: string, itemIndex: number, fallback?: NodeParameterValueType): unknown {
		return this.context.getNodeParameter(this.paths[name] ?? name, itemIndex, fallback);
	}

	/** The parameter as typed, at a path such as `options.stockType`. */
	private raw(name: string): unknown {
		return valueAt(this.context.getNode().parameters as IDataObject, this.paths[name] ?? name);
	}

	private planFor(name: string, fallback: NodeParameterValueType | undefined): Plan {
		const column = this.columnOf(name);
		if (column !== undefined) return { kind: 'column', key: column };
		if (containsExpression(this.raw(name))) return { kind: 'expression' };
		return { kind: 'constant', value: this.fromNode(name, 0, fallback) };
	}
}

export const normalizeHeader = (header: string) =>
	header
		.replace(/^\uFEFF/, '')
		.toLowerCase()
		.replace(/[^a-z0-9]/g, '');

function columnsOf(items: INodeExecutionData[]): string[] {
	return [...new Set(items.flatMap((item) => Object.keys(item.json ?? {})))];
}

export function recogniseHeaders(columns: string[]) {
	const normalised = columns.map(normalizeHeader);
	const matched = new Map<string, string>();
	const missing: string[] = [];
	for (const [parameter, field] of Object.entries(RECOGNISED_HEADERS)) {
		// The first column of the first header that has one.
		const at = field.headers
			.map((header) => normalised.indexOf(normalizeHeader(header)))
			.find((index) => index >= 0);
		if (at !== undefined) matched.set(parameter, columns[at]);
		else if (field.required) missing.push(parameter);
	}
	return { columns: matched, missing };
}

/** The columns the rows have (20 named, the rest counted); a byte-order mark before a name is said, not hidden. */
function columnsLine(rows: INodeExecutionData[]): string {
	const names = columnsOf(rows).map((column) =>
		column.startsWith('\uFEFF')
			? `"${column.slice(1)}" (preceded by an invisible byte-order mark)`
			: `"${column}"`,
	);
	return `The rows have the columns: ${names.length ? listFirst(names, 20) : '(none)'}.`;
}

/** Fields mapped to a column empty in every row (missing or misnamed): said once, with the columns there are. */
export function missingColumns(
	items: INodeExecutionData[],
	source: ParameterSource,
	blank: Set<number>,
): string[] {
	const rows = items.filter((_, index) => !blank.has(index));
	if (rows.length === 0) return [];
	const lines: string[] = [];
	for (const [parameter, field] of Object.entries(RECOGNISED_HEADERS)) {
		const column = source.columnOf(parameter);
		if (column === undefined) continue;
		// An optional column may be empty throughout (Row and Seat of a standing-only sheet); it must exist, though.
		const present = field.required
			? rows.some((item) => !isBlank(item.json?.[column]))
			: rows.some((item) => item.json !== undefined && Object.hasOwn(item.json, column));
		if (present) continue;
		lines.push(
			`${labelOf(parameter)} reads the column "${column}", which is ${field.required ? 'missing or empty' : 'missing'} in every row.`,
		);
	}
	if (lines.length)
		lines.push(
			`${columnsLine(rows)} Check the header's spelling, or map the field to one of these columns.`,
		);
	return lines;
}

/** `paths`: where this version keeps the fields that are not top-level parameters of their own name. */
export function parameterSource(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	shape: InputShape,
	paths: Record<string, string>,
): ParameterSource {
	const auto =
		shape === 'ticketPerItem' &&
		context.getNodeParameter('columnMapping', 0, 'manual') === 'auto' &&
		items.length > 0;
	if (!auto) return new ItemParameters(context, items, paths);
	// Map Automatically: every required field needs a column, or nothing is read at all.
	const { columns, missing } = recogniseHeaders(columnsOf(items));
	if (missing.length === 0) return new ItemParameters(context, items, paths, columns);
	const wanted = missing.map(
		(parameter) => `${labelOf(parameter)} (${RECOGNISED_HEADERS[parameter].headers.join(', ')})`,
	);
	const fields =
		missing.length <= 2 ? listFirst(missing.map(labelOf)) : `${missing.length} required fields`;
	throw new NodeOperationError(
		context.getNode(),
		`Map Automatically found no column for ${fields}; nothing was sent`,
		{
			description: `Rename the sheet's headers, or choose Columns → Map Each Column Manually. Headers looked for: ${wanted.join('; ')}. ${columnsLine(items)}`,
			itemIndex: 0,
		},
	);
}

/** Blank: some field reads the row and every one that does is empty (a sheet export's trailing rows). */
export function isBlankRow(params: ParameterSource, fields: Record<string, unknown>): boolean {
	const read = Object.entries(fields).filter(([name]) => isRowData(name) && params.readsItem(name));
	return read.length > 0 && read.every(([, value]) => isBlank(value));
}
