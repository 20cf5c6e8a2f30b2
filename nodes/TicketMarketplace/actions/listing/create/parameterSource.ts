/**
 * Where each field's value comes from, per item: the node's parameters (read at the cost of a sheet, not of an
 * expression engine), or the sheet's recognised headers (Map Automatically).
 */
import type { IExecuteFunctions, INodeExecutionData, NodeParameterValueType } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { listFirst } from '../../../helpers/errors';
import { isBlank } from '../../../schemas/listing';
import { labelOf, RECOGNISED_HEADERS } from './fields';
import type { InputShape } from './settings';

/** Reads a node parameter for an item: n8n's expression result, or a sheet cell the parameter stands for. */
export interface ParameterSource {
	get(name: string, itemIndex: number, fallback?: NodeParameterValueType): unknown;
	/** Whether the parameter's value can differ per item (a column or an expression), rather than one for the run. */
	readsItem(name: string): boolean;
	/** The sheet column the parameter reads directly, when it does. */
	columnOf(name: string): string | undefined;
}

/**
 * Per-item parameters at the cost of a sheet, not of an expression engine. n8n evaluates every parameter of every
 * item through its expression engine, which dominated large sheets (bench/README.md). Two
 * shapes cover almost every sheet workflow and need no engine at all:
 * - a parameter without any expression has the same value for every item: it is read once;
 * - a parameter that is exactly `{{ $json.column }}` (or `{{ $json["Column Name"] }}`) is that item's cell, which
 *   is what n8n's engine returns for it: the value is read from the item directly.
 * Anything else (a longer expression, a reference to another node, a function call) goes through n8n per item, so
 * what an expression means never changes.
 */
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
	if (!match) return undefined;
	return match[1] ?? match[2] ?? match[3];
}

function containsExpression(raw: unknown): boolean {
	if (typeof raw === 'string') return raw.startsWith('=');
	if (Array.isArray(raw)) return raw.some(containsExpression);
	if (raw !== null && typeof raw === 'object') return Object.values(raw).some(containsExpression);
	return false;
}

/** A parameter's raw value at a path such as `options.stockType`. */
function rawAt(parameters: unknown, path: string): unknown {
	let value = parameters;
	for (const key of path.split('.')) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as Record<string, unknown>)[key];
	}
	return value;
}

export class ItemParameters implements ParameterSource {
	private readonly plans = new Map<string, Plan>();

	/**
	 * `paths` says where a field lives when it is not a top-level parameter of its own name (from 1.1, Stock Type
	 * and the other listing values with a default are under Options: `stockType` is `options.stockType`).
	 * `recognised`: the sheet columns that stand for parameters under Map Automatically.
	 */
	constructor(
		private readonly context: IExecuteFunctions,
		private readonly items: INodeExecutionData[],
		private readonly paths: Record<string, string> = {},
		private readonly recognised = new Map<string, string>(),
	) {}

	get(name: string, itemIndex: number, fallback?: NodeParameterValueType): unknown {
		let plan = this.plans.get(name);
		if (plan === undefined) {
			plan = this.planFor(name, fallback);
			this.plans.set(name, plan);
		}
		if (plan.kind === 'constant') return plan.value;
		if (plan.kind === 'column') {
			const json = this.items[itemIndex]?.json;
			return json && Object.prototype.hasOwnProperty.call(json, plan.key)
				? json[plan.key]
				: undefined;
		}
		return this.fromNode(name, itemIndex, fallback);
	}

	/** The column a parameter reads directly, if it does (for messages that name the sheet's own column). */
	columnOf(name: string): string | undefined {
		return this.recognised.get(name) ?? bareColumnReference(this.raw(name));
	}

	readsItem(name: string): boolean {
		const plan = this.plans.get(name);
		if (plan) return plan.kind !== 'constant';
		return this.columnOf(name) !== undefined || containsExpression(this.raw(name));
	}

	private fromNode(name: string, itemIndex: number, fallback?: NodeParameterValueType): unknown {
		const path = this.paths[name] ?? name;
		return fallback === undefined
			? this.context.getNodeParameter(path, itemIndex)
			: this.context.getNodeParameter(path, itemIndex, fallback);
	}

	private raw(name: string): unknown {
		return rawAt(this.context.getNode().parameters, this.paths[name] ?? name);
	}

	private planFor(name: string, fallback: NodeParameterValueType | undefined): Plan {
		const column = this.columnOf(name);
		if (column !== undefined) return { kind: 'column', key: column };
		if (containsExpression(this.raw(name))) return { kind: 'expression' };
		return { kind: 'constant', value: this.fromNode(name, 0, fallback) };
	}
}

export function normalizeHeader(header: string): string {
	return header
		.replace(/^\uFEFF/, '')
		.toLowerCase()
		.replace(/[^a-z0-9]/g, '');
}

/** Every column name the items have, in first-seen order. */
function columnsOf(items: INodeExecutionData[]): string[] {
	const seen = new Set<string>();
	for (const item of items) {
		for (const key of Object.keys(item.json ?? {})) seen.add(key);
	}
	return [...seen];
}

interface HeaderMatch {
	/** Parameter name -> the sheet's column that stands for it. */
	columns: Map<string, string>;
	/** Required fields no column stands for. */
	missing: string[];
}

export function recogniseHeaders(columns: string[]): HeaderMatch {
	const byNormalised = new Map<string, string>();
	for (const column of columns) {
		const key = normalizeHeader(column);
		if (!byNormalised.has(key)) byNormalised.set(key, column);
	}
	const matched = new Map<string, string>();
	const missing: string[] = [];
	for (const [parameter, field] of Object.entries(RECOGNISED_HEADERS)) {
		const column = field.headers
			.map((header) => byNormalised.get(normalizeHeader(header)))
			.find((found) => found !== undefined);
		if (column !== undefined) matched.set(parameter, column);
		else if (field.required) missing.push(parameter);
	}
	return { columns: matched, missing };
}

/** "Map Automatically": every required field needs a column, or nothing is read at all. */
function recognisedColumns(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
): Map<string, string> {
	const match = recogniseHeaders(columnsOf(items));
	if (match.missing.length === 0) return match.columns;
	const wanted = match.missing.map(
		(parameter) => `${labelOf(parameter)} (${RECOGNISED_HEADERS[parameter].headers.join(', ')})`,
	);
	const fields =
		match.missing.length <= 2
			? listFirst(match.missing.map(labelOf))
			: `${match.missing.length} required fields`;
	throw new NodeOperationError(
		context.getNode(),
		`Map Automatically found no column for ${fields}; nothing was sent`,
		{
			description: `Rename the sheet's headers, or choose Columns → Map Each Column Manually. Headers looked for: ${wanted.join('; ')}. ${columnsLine(items)}`,
			itemIndex: 0,
		},
	);
}

/** The columns of the rows a message names; the rest are counted. */
const MAX_COLUMNS_LISTED = 20;

/** The columns the rows have; an invisible byte-order mark before a name is said, not hidden. */
function columnsLine(rows: INodeExecutionData[]): string {
	const names = columnsOf(rows).map((column) =>
		column.startsWith('\uFEFF')
			? `"${column.slice(1)}" (preceded by an invisible byte-order mark)`
			: `"${column}"`,
	);
	return `The rows have the columns: ${names.length ? listFirst(names, MAX_COLUMNS_LISTED) : '(none)'}.`;
}

/**
 * Fields mapped to a column that is empty in every row: the column is missing or misnamed (a typo, a byte-order
 * mark from Excel, another sheet). Said once, with the columns the rows do have, instead of once per row.
 */
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
			: rows.some(
					(item) =>
						item.json !== undefined && Object.prototype.hasOwnProperty.call(item.json, column),
				);
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

/**
 * Where each field's value comes from: the node's parameters, or the sheet's recognised headers. `paths`: where
 * this version of the node keeps the fields that are not top-level parameters of their own name.
 */
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
	const recognised = auto ? recognisedColumns(context, items) : undefined;
	return new ItemParameters(context, items, paths, recognised);
}
