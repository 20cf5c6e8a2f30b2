/** What the field table gives the rest of Listing → Create: the panel's parameters, headers, labels, read order. */
import type { INodeProperties } from 'n8n-workflow';

import { properties } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/description';
import {
	labelOf,
	productLabel,
	seatRangeLabel,
	optionPaths,
	READ_ORDER,
	RECOGNISED_HEADERS,
} from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/fields';
import { FIELDS } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/fieldTable';

/** The parameters a node of this version shows: the main panel's, and those under Options. */
function parametersOf(version: 1 | 1.1): { main: string[]; options: string[] } {
	const shown = properties.filter((property) => {
		const versions = property.displayOptions?.show?.['@version'];
		return versions === undefined || (version === 1) === JSON.stringify(versions).includes('[1]');
	});
	const options = shown.find((property) => property.name === 'options');
	return {
		main: shown.map((property) => property.name),
		options: ((options?.options ?? []) as INodeProperties[]).map((option) => option.name),
	};
}

describe('the field table, as the rest of Listing → Create reads it', () => {
	it.each([1, 1.1] as const)('puts every field once in the panel of version %s', (version) => {
		const { main, options } = parametersOf(version);
		for (const field of FIELDS) {
			const count = [...main, ...options].filter((name) => name === field.parameter).length;
			expect([field.parameter, count]).toEqual([field.parameter, 1]);
		}
	});

	it('reads under Options exactly the fields the panel puts there', () => {
		expect(Object.keys(optionPaths(true))).toEqual(
			FIELDS.map((field) => field.parameter).filter((name) =>
				parametersOf(1).options.includes(name),
			),
		);
		expect(Object.keys(optionPaths(false))).toEqual(
			FIELDS.map((field) => field.parameter).filter((name) =>
				parametersOf(1.1).options.includes(name),
			),
		);
	});

	it('labels each field, product value and seat range value with its display name in the panel', () => {
		const shown = new Map<string, Set<string>>();
		const see = (path: string, label: string) =>
			shown.set(path, (shown.get(path) ?? new Set()).add(label));
		for (const property of properties) {
			see(property.name, property.displayName);
			for (const group of (property.options ?? []) as Array<{
				name: string;
				displayName: string;
				values?: INodeProperties[];
			}>) {
				if (group.values === undefined) continue;
				see(`${property.name}.${group.name}`, group.displayName);
				for (const value of group.values)
					see(`${property.name}.${group.name}.${value.name}`, value.displayName);
			}
		}
		const labels = [
			...FIELDS.map((field) => [field.parameter, labelOf(field.parameter)]),
			...['products', 'products.product', 'productsJson', 'seatRanges', 'seatRanges.range'].map(
				(path) => [path, labelOf(path)],
			),
			...['externalId', 'row', 'seat', 'ga', 'productType'].map((key) => [
				`products.product.${key}`,
				productLabel([key]),
			]),
			...['firstSeat', 'lastSeat', 'row', 'externalIdPattern', 'productType'].map((key) => [
				`seatRanges.range.${key}`,
				seatRangeLabel([key]),
			]),
		];
		for (const [path, label] of labels)
			expect([path, [...(shown.get(path) ?? [])]]).toEqual([path, [label]]);
	});

	it('reads the External Listing ID first, then the rest in table order', () => {
		expect(READ_ORDER.map((field) => field.parameter)).toEqual([
			'externalListingId',
			...FIELDS.map((field) => field.parameter).filter((name) => name !== 'externalListingId'),
		]);
	});

	it('recognises the headers of the table, required where the table says', () => {
		expect(RECOGNISED_HEADERS.externalListingId).toEqual({
			headers: ['listing_id', 'external_listing_id', 'listing'],
			required: true,
		});
		expect(Object.keys(RECOGNISED_HEADERS)).toEqual(
			READ_ORDER.filter((field) => field.headers).map((field) => field.parameter),
		);
	});
});
