/**
 * The node's versions (n8n's light versioning). A workflow keeps the version it was built with; new nodes get the
 * newest.
 * - 1: the first panel. Its defaults and where its values live stay as they were, so its workflows read as before.
 * - 1.1: sheet rows as the default input, required fields empty until set, optional values with defaults under
 *   Options, Row and Seat hidden for General Admission, and Subscribe's fixed values no longer shown.
 */
import type { INode, INodeProperties } from 'n8n-workflow';

/** The node's versions, as its description lists them (a literal there, for tools that read the source). */
export const NODE_VERSIONS = [1, 1.1];
export const LATEST_VERSION = 1.1;

/** displayOptions.show conditions: the first panel only, or 1.1 and later. */
export const ONLY_V1 = { '@version': [1] };
export const FROM_V1_1 = { '@version': [{ _cnd: { gte: 1.1 } }] };

/** Whether a node reads its parameters as version 1 did. */
export function readsAsV1(context: { getNode(): INode }): boolean {
	return context.getNode().typeVersion < 1.1;
}

function shownFor(
	property: INodeProperties,
	condition: typeof ONLY_V1 | typeof FROM_V1_1,
): INodeProperties {
	const displayOptions = property.displayOptions ?? {};
	return {
		...property,
		displayOptions: { ...displayOptions, show: { ...displayOptions.show, ...condition } },
	};
}

/**
 * One parameter in two versions: the same name, so stored workflows keep their values, with what differs for
 * version 1 (kept as it was) and for 1.1. n8n shows, fills in and reads only the one that matches the node.
 */
export function perVersion(
	property: INodeProperties,
	changes: { v1?: Partial<INodeProperties>; latest?: Partial<INodeProperties> },
): INodeProperties[] {
	return [
		shownFor({ ...property, ...changes.v1 } as INodeProperties, ONLY_V1),
		shownFor({ ...property, ...changes.latest } as INodeProperties, FROM_V1_1),
	];
}

/** A parameter that exists in version 1 only. */
export function v1Only(property: INodeProperties): INodeProperties {
	return shownFor(property, ONLY_V1);
}

/** A parameter that exists from version 1.1 on. */
export function fromV1_1(property: INodeProperties): INodeProperties {
	return shownFor(property, FROM_V1_1);
}
