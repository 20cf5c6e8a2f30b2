import type { INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** Errors leave the node as n8n's own types; ours already are, anything else is wrapped with its item. */
export function asNodeError(
	node: INode,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error instanceof Error ? error : String(error), {
		itemIndex,
	});
}

/** The message of anything thrown. */
export function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
