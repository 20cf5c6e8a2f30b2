/**
 * Field labels in errors are the editor's own display names, read from the properties: a label renamed in the
 * editor is renamed in every message.
 */
import type { INodeProperties, INodePropertyCollection } from 'n8n-workflow';

import { pathKey } from '../../../schemas/listing';
import type { FieldLabeller } from '../../../schemas/listing';
import { properties } from './description';

function findProperty(list: readonly INodeProperties[], name: string): INodeProperties | undefined {
	return list.find((property) => property.name === name);
}

/**
 * The display name of a top-level parameter, of a fixed collection's group (`products.product`), or of a value
 * inside one (`products.product.row`). A parameter described once per node version has the same labels in each;
 * a value that only one version has (Product Type per range, in version 1) is found in that one.
 */
export function fieldLabel(path: string): string {
	const [name, group, value] = path.split('.');
	const candidates = properties.filter((property) => property.name === name);
	if (candidates.length === 0) throw new Error(`No parameter named ${name}`);
	if (group === undefined) return candidates[0].displayName;
	for (const property of candidates) {
		const option = (property.options as INodePropertyCollection[] | undefined)?.find(
			(entry) => entry.name === group,
		);
		if (option && value === undefined) return option.displayName;
		const field = option && findProperty(option.values, value);
		if (field) return field.displayName;
	}
	throw new Error(`No field ${path}`);
}

/** A labeller for zod paths, from a table of zod path → parameter path. */
function labeller(table: Record<string, string>): FieldLabeller {
	const labels = Object.fromEntries(
		Object.entries(table).map(([key, parameter]) => [key, fieldLabel(parameter)]),
	);
	return (path) => labels[pathKey(path)] ?? pathKey(path);
}

/** A product of Products → Product. */
export const productLabel = labeller({
	externalId: 'products.product.externalId',
	row: 'products.product.row',
	seat: 'products.product.seat',
	ga: 'products.product.ga',
	productType: 'products.product.productType',
});

/** A range of Seat Ranges → Range. */
export const seatRangeLabel = labeller({
	row: 'seatRanges.range.row',
	firstSeat: 'seatRanges.range.firstSeat',
	lastSeat: 'seatRanges.range.lastSeat',
	externalIdPattern: 'seatRanges.range.externalIdPattern',
	productType: 'seatRanges.range.productType',
});
