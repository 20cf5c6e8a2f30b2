/** Validation problems in a sheet user's words: rows counted from 1, one problem of many rows said once. */
import { errorText } from '../../../helpers/errors';
import type { Problem } from './nouns';

export const ROWS_CONVENTION = 'Rows are counted from 1, in the order the items reach this node.';

/** How many rows or ranges of rows a message names; the rest are counted. */
const MAX_RANGES_LISTED = 20;

/** "row 3", "rows 1–2000", "rows 1, 4 and 7–9"; past 20 ranges, "rows 1, 3, …, 39 and 180 more". */
export function rowsText(itemIndexes: number[]): string {
	const rows = [...new Set(itemIndexes)].sort((a, b) => a - b).map((index) => index + 1);
	const ranges: number[][] = [];
	for (let start = 0; start < rows.length; ) {
		let end = start;
		while (end + 1 < rows.length && rows[end + 1] === rows[end] + 1) end++;
		if (end - start >= 2) ranges.push(rows.slice(start, end + 1));
		else for (let index = start; index <= end; index++) ranges.push([rows[index]]);
		start = end + 1;
	}
	const written = ranges.map((range) =>
		range.length > 1 ? `${range[0]}–${range[range.length - 1]}` : String(range[0]),
	);
	const shown = written.slice(0, MAX_RANGES_LISTED);
	const more = ranges.slice(MAX_RANGES_LISTED).reduce((count, range) => count + range.length, 0);
	const list = more
		? `${shown.join(', ')} and ${more} more`
		: shown.length > 1
			? `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`
			: (shown[0] ?? '');
	return rows.length === 1 ? `row ${list}` : `rows ${list}`;
}

/** `Price Amount "49,90" is not a number ... (rows 1–2000)`. */
export function problemLine(problem: Problem): string {
	const subject = problem.field ? `${problem.field} ${problem.text}` : problem.text;
	return `${subject} (${rowsText(problem.itemIndexes)})`;
}

/** Identical problems (same field, same words) of many rows become one, in the order of their first row. */
export function mergeProblems(problems: Problem[]): Problem[] {
	const merged = new Map<string, Problem>();
	for (const problem of problems) {
		const key = `${problem.field}\u0000${problem.text}`;
		const existing = merged.get(key);
		if (existing) existing.itemIndexes.push(...problem.itemIndexes);
		else merged.set(key, { ...problem, itemIndexes: [...problem.itemIndexes] });
	}
	return [...merged.values()].sort((a, b) => firstRow(a) - firstRow(b));
}

function firstRow(problem: Problem): number {
	return problem.itemIndexes.reduce((lowest, index) => Math.min(lowest, index), Infinity);
}

/** That the parameters of an item could not be read: the whole of what is known about the row. */
export function unreadable(error: unknown, itemIndex: number): Problem {
	return {
		field: '',
		text: `could not read the parameters: ${errorText(error)}`,
		itemIndexes: [itemIndex],
	};
}

/** What n8n 2.x calls the setting that turns a node's errors into error items. */
export const CONTINUE_SETTING = 'Settings → On Error → Continue (using error output)';
