import type { IExecuteFunctions, INodeExecutionData, NodeParameterValueType } from 'n8n-workflow';

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

export class ItemParameters {
	private readonly plans = new Map<string, Plan>();

	/**
	 * `paths` says where a field lives when it is not a top-level parameter of its own name (from 1.1, Stock Type
	 * and the other listing values with a default are under Options: `stockType` is `options.stockType`).
	 */
	constructor(
		private readonly context: IExecuteFunctions,
		private readonly items: INodeExecutionData[],
		private readonly paths: Record<string, string> = {},
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
		return fallback === undefined
			? this.context.getNodeParameter(this.pathOf(name), itemIndex)
			: this.context.getNodeParameter(this.pathOf(name), itemIndex, fallback);
	}

	/** The column a parameter reads directly, if it does (for messages that name the sheet's own column). */
	columnOf(name: string): string | undefined {
		return bareColumnReference(this.raw(name));
	}

	readsItem(name: string): boolean {
		const plan = this.plans.get(name);
		if (plan) return plan.kind !== 'constant';
		const raw = this.raw(name);
		return bareColumnReference(raw) !== undefined || containsExpression(raw);
	}

	private pathOf(name: string): string {
		return this.paths[name] ?? name;
	}

	private raw(name: string): unknown {
		return rawAt(this.context.getNode().parameters, this.pathOf(name));
	}

	private planFor(name: string, fallback: NodeParameterValueType | undefined): Plan {
		const raw = this.raw(name);
		const column = bareColumnReference(raw);
		if (column !== undefined) return { kind: 'column', key: column };
		if (containsExpression(raw)) return { kind: 'expression' };
		const value =
			fallback === undefined
				? this.context.getNodeParameter(this.pathOf(name), 0)
				: this.context.getNodeParameter(this.pathOf(name), 0, fallback);
		return { kind: 'constant', value };
	}
}
