/**
 * The node's versions (n8n's light versioning); a workflow keeps the version it was built with. 1: the first panel
 * as it was. 1.1: sheet rows as the default input, required fields empty until set, optional values under Options,
 * Row and Seat hidden for General Admission, Subscribe's fixed values no longer shown.
 */
import type { INode, INodeProperties } from 'n8n-workflow';

/** Whether a node reads its parameters as version 1 did. */
export const readsAsV1 = (context: { getNode(): INode }): boolean =>
	context.getNode().typeVersion < 1.1;

function shownFor(property: INodeProperties, condition: object): INodeProperties {
	const displayOptions = property.displayOptions ?? {};
	return {
		...property,
		displayOptions: { ...displayOptions, show: { ...displayOptions.show, ...condition } },
	};
}

export const v1Only = (property: INodeProperties) => shownFor(property, { '@version': [1] });
export const fromV1_1 = (property: INodeProperties) =>
	shownFor(property, { '@version': [{ _cnd: { gte: 1.1 } }] });

/** One parameter in two versions under one name (stored workflows keep their values), each with its changes. */
export const perVersion = (
	property: INodeProperties,
	changes: { v1?: Partial<INodeProperties>; latest?: Partial<INodeProperties> },
): INodeProperties[] => [
	v1Only({ ...property, ...changes.v1 } as INodeProperties),
	fromV1_1({ ...property, ...changes.latest } as INodeProperties),
];
