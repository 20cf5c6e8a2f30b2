import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';

type NodeError = NodeApiError | NodeOperationError;

/** Errors leave the node as n8n's own types; ours already are, anything else is wrapped with its item. */
export function asNodeError(node: INode, error: unknown, itemIndex: number): NodeError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error instanceof Error ? error : String(error), {
		itemIndex,
	});
}

/** The error with lines added to its description, rebuilt whole: an error is never patched after it is thrown. */
export function withMoreDescription(
	node: INode,
	error: NodeError,
	lines: Array<string | undefined>,
	itemIndex: number,
): NodeError {
	const description = [error.description, ...lines].filter(Boolean).join('\n');
	// Anything not an API error (another copy of n8n-workflow's, say) is rebuilt as the plainer kind.
	if (!(error instanceof NodeApiError))
		return new NodeOperationError(node, error.message, { description, itemIndex });
	return new NodeApiError(node, error.errorResponse ?? {}, {
		message: error.message,
		description,
		httpCode: error.httpCode ?? undefined,
		itemIndex,
	});
}

export const errorText = (error: unknown): string =>
	error instanceof Error ? error.message : String(error);

/** How many entries a list in a message names; the rest are counted ("and 390 more"). */
export const LISTED_IN_MESSAGES = 10;

/** "1, 2 and 3"; past `shown` entries, the first ones and a count: "1, 2, …, 10 and 390 more". */
export function listFirst(entries: Array<string | number>, shown = LISTED_IN_MESSAGES): string {
	const texts = entries.map(String);
	if (texts.length > shown)
		return `${texts.slice(0, shown).join(', ')} and ${texts.length - shown} more`;
	if (texts.length <= 1) return texts.join('');
	return `${texts.slice(0, -1).join(', ')} and ${texts[texts.length - 1]}`;
}
