/** What the node's parameters say for the whole run: where fields are read from, and how listings are sent. */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { PacingMode } from '../../../transport';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './description';
import { ItemParameters } from './itemParameters';
import type { InputShape } from './listingInput';
import { recognisedColumns } from './sheetColumns';
import type { ParameterSource } from './sheetColumns';
import { versionReading } from './versionReading';

export interface SendSettings {
	validateOnly: boolean;
	mode: PacingMode;
	maxConcurrency: number;
	skipAlreadySent: boolean;
	perRow: boolean;
}

export function readSendSettings(context: IExecuteFunctions): SendSettings {
	const options = context.getNodeParameter('options', 0, {}) as IDataObject;
	const requested = Number(options.concurrency ?? DEFAULT_CONCURRENCY);
	return {
		validateOnly: options.validateOnly === true,
		mode: options.concurrencyMode === 'fixed' ? 'fixed' : 'adaptive',
		maxConcurrency: Number.isInteger(requested)
			? Math.min(Math.max(requested, 1), MAX_CONCURRENCY)
			: DEFAULT_CONCURRENCY,
		skipAlreadySent: options.skipAlreadySent !== false,
		perRow: options.output === 'row',
	};
}

/** Where each field's value comes from: the node's parameters, or the sheet's recognised headers. */
export function parameterSource(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	shape: InputShape,
): ParameterSource {
	const params = new ItemParameters(context, items, versionReading(context).paths);
	const auto =
		shape === 'ticketPerItem' &&
		context.getNodeParameter('columnMapping', 0, 'manual') === 'auto' &&
		items.length > 0;
	return auto ? recognisedColumns(context, items, params) : params;
}
