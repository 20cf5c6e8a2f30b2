/** Where each field's value comes from, per item: the node's parameters, or the sheet's recognised headers. */
import type { IExecuteFunctions, INodeExecutionData, NodeParameterValueType } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { listFirst } from '../../../helpers/errors';
import { isBlank } from '../../../schemas/listing';
import { labelOf, RECOGNISED_HEADERS } from './fields';
import type { InputShape } from './settings';

/** Reads a node parameter for an item: n8n's expression result, or a sheet cell the parameter stands for. */
export interface ParameterSource {
	get(name: string, itemIndex: number, fallback?: NodeParameterValueType): unknown;
	/** Whether the value can differ per item (a column or an expression). */
	readsItem(name: string): boolean;
	/** The sheet column the parameter reads directly, when it does. */
	columnOf(name: string): string | undefined;
}

/**
 * n8n's expression engine per item dominated large sheets (bench/README.md), so a parameter without an expression
 * is read once, and one that is exactly `{{ $json.column }}` is read from the item's cell, as the engine would.
 * Anything else goes through n8n per item, so what an expression means never changes.
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
	return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
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
	return [...new Set(items.flatMap((item) => Object.keys(item.json ?? {})))];
}

/** Each parameter's column (`columns`), and the required fields no column stands for (`missing`). */
export function recogniseHeaders(columns: string[]) {
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
	const recognised = auto ? recognisedColumns(context, items) : undefined;
	return new ItemParameters(context, items, paths, recognised);
}
