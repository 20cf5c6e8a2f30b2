/** How Listing → Create reads its parameters in the node's version (see ../../versions.ts). */
import type { INode } from 'n8n-workflow';

import { readsAsV1 } from '../../versions';
import type { InputShape } from './listingRows';
import type { ParameterLayout } from './rowProducts';
import { V1_1_LAYOUT, V1_LAYOUT } from './rowProducts';
import { optionPaths } from './fields';

export interface VersionReading {
	/** The Input Shape when none is stored: the parameter's default in this version. */
	defaultShape: InputShape;
	/** Where fields live that are not top-level parameters of their own name. */
	paths: Record<string, string>;
	layout: ParameterLayout;
}

export function versionReading(context: { getNode(): INode }): VersionReading {
	return readsAsV1(context)
		? { defaultShape: 'listingPerItem', paths: optionPaths(true), layout: V1_LAYOUT }
		: { defaultShape: 'ticketPerItem', paths: optionPaths(false), layout: V1_1_LAYOUT };
}
