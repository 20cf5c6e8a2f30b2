import type { INodeProperties } from 'n8n-workflow';

/** n8n's "Options" collection of less common settings, holding these options. */
export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		description: 'Less common settings',
		options,
	};
}
