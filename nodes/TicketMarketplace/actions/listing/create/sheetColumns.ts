import type { IExecuteFunctions, INodeExecutionData, NodeParameterValueType } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { headerList, RECOGNISED_HEADERS } from './fields';
import { fieldLabel } from './fieldLabels';
import { listFirst } from '../../../helpers/errors';
import { isBlank } from '../../../schemas/listing';

/** Reads a node parameter for an item: n8n's expression result, or a sheet cell the parameter stands for. */
export interface ParameterSource {
	get(name: string, itemIndex: number, fallback?: NodeParameterValueType): unknown;
	/** Whether the parameter's value can differ per item (a column or an expression), rather than one for the run. */
	readsItem(name: string): boolean;
	/** The sheet column the parameter reads directly, when it does. */
	columnOf(name: string): string | undefined;
}

export function normalizeHeader(header: string): string {
	return header
		.replace(/^\uFEFF/, '')
		.toLowerCase()
		.replace(/[^a-z0-9]/g, '');
}

/** Every column name the items have, in first-seen order. */
export function columnsOf(items: INodeExecutionData[]): string[] {
	const seen = new Set<string>();
	for (const item of items) {
		for (const key of Object.keys(item.json ?? {})) seen.add(key);
	}
	return [...seen];
}

export interface HeaderMatch {
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

/** Recognised columns are read from the item; every other parameter comes from the node as usual. */
export class RecognisedColumns implements ParameterSource {
	constructor(
		private readonly items: INodeExecutionData[],
		private readonly match: HeaderMatch,
		private readonly fallbackSource: ParameterSource,
	) {}

	get(name: string, itemIndex: number, fallback?: NodeParameterValueType): unknown {
		const column = this.match.columns.get(name);
		if (column === undefined) return this.fallbackSource.get(name, itemIndex, fallback);
		return this.items[itemIndex]?.json?.[column];
	}

	readsItem(name: string): boolean {
		return this.match.columns.has(name) || this.fallbackSource.readsItem(name);
	}

	columnOf(name: string): string | undefined {
		return this.match.columns.get(name) ?? this.fallbackSource.columnOf(name);
	}
}

/** "Map Automatically": every required field needs a column, or nothing is read at all. */
export function recognisedColumns(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	params: ParameterSource,
): ParameterSource {
	const columns = columnsOf(items);
	const match = recogniseHeaders(columns);
	if (match.missing.length > 0) {
		const wanted = match.missing.map(
			(parameter) => `${fieldLabel(parameter)} (${headerList(parameter)})`,
		);
		const fields =
			match.missing.length <= 2
				? listFirst(match.missing.map((parameter) => fieldLabel(parameter)))
				: `${match.missing.length} required fields`;
		throw new NodeOperationError(
			context.getNode(),
			`Map Automatically found no column for ${fields}; nothing was sent`,
			{
				description: `Rename the sheet's headers, or choose Columns → Map Each Column Manually. Headers looked for: ${wanted.join('; ')}. The rows have the columns: ${columns.length ? listFirst(columns.map(columnName), MAX_COLUMNS_LISTED) : '(none)'}.`,
				itemIndex: 0,
			},
		);
	}
	return new RecognisedColumns(items, match, params);
}

/** The columns of the rows a message names; the rest are counted. */
const MAX_COLUMNS_LISTED = 20;

/** How a column name reads in a message: an invisible byte-order mark before it is said, not hidden. */
function columnName(column: string): string {
	return column.startsWith('\uFEFF')
		? `"${column.slice(1)}" (preceded by an invisible byte-order mark)`
		: `"${column}"`;
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
			`${fieldLabel(parameter)} reads the column "${column}", which is ${field.required ? 'missing or empty' : 'missing'} in every row.`,
		);
	}
	if (lines.length) {
		const columns = columnsOf(rows);
		lines.push(
			`The rows have the columns: ${columns.length ? listFirst(columns.map(columnName), MAX_COLUMNS_LISTED) : '(none)'}. Check the header's spelling, or map the field to one of these columns.`,
		);
	}
	return lines;
}
