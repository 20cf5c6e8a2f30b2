/**
 * The field table as a newcomer extends it: an optional listing field added as one entry, and nothing else, is
 * shown under Options in both node versions, read, checked in the node's words, agreed on by a listing's rows, and
 * sent where its API path says.
 */
import type { INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { Field } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/fieldTable';
import { optionalLabel } from '../../../../../../../nodes/TicketMarketplace/schemas/listing';
import type { ParameterValue } from '../../../../../../../support/fakeN8n/actionContext';
import {
	EXAMPLE_SHEET_PARAMETERS,
	fakeRun,
	sheetRows,
} from '../../../../../../../support/fakeN8n/actionContext';

const CREATE = '../../../../../../../nodes/TicketMarketplace/actions/listing/create';
const TABLE = `${CREATE}/fieldTable`;

/** The field a newcomer adds: a seller's note on the listing, sent in the body as `note`. */
const NOTE: Field = {
	parameter: 'sellerNote',
	per: 'listing',
	api: 'note',
	schema: optionalLabel,
	default: '',
	place: 'options',
	panel: {
		displayName: 'Seller Note',
		type: 'string',
		description: 'A note the marketplace shows with the listing',
	},
};

interface CreateModule {
	execute: (this: unknown, items: INodeExecutionData[]) => Promise<INodeExecutionData[]>;
	description: INodeProperties[];
}

/** Listing → Create loaded afresh, with the table holding one more entry. */
function createWithNote(): CreateModule {
	let create: CreateModule | undefined;
	jest.isolateModules(() => {
		jest.doMock(TABLE, () => {
			const actual = jest.requireActual(TABLE) as { FIELDS: Field[] };
			return { ...actual, FIELDS: [...actual.FIELDS, NOTE] };
		});
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		create = require(`${CREATE}.operation`) as CreateModule;
	});
	return create!;
}

const ROWS = sheetRows([
	{
		listing_id: '7001',
		event_id: '123',
		price: '10',
		currency: 'EUR',
		ticket_id: 'T1',
		row: 'A',
		seat: '1',
	},
	{
		listing_id: '7001',
		event_id: '123',
		price: '10',
		currency: 'EUR',
		ticket_id: 'T2',
		row: 'A',
		seat: '2',
	},
]);

async function validateOnly(create: CreateModule, note: ParameterValue, typeVersion = 1.1) {
	const parameters = {
		...EXAMPLE_SHEET_PARAMETERS,
		options: { validateOnly: true, sellerNote: note },
	} as Record<string, ParameterValue>;
	const fake = fakeRun({ parameters, items: ROWS, typeVersion });
	return await create.execute.call(fake.context, ROWS);
}

describe('an optional listing field added to the field table', () => {
	const create = createWithNote();

	it('is shown under Options in both node versions, and nowhere else', () => {
		const options = create.description.filter((property) => property.name === 'options');
		expect(options).toHaveLength(2);
		for (const collection of options) {
			expect(
				(collection.options as INodeProperties[]).filter((option) => option.name === 'sellerNote'),
			).toEqual([
				{
					displayName: 'Seller Note',
					name: 'sellerNote',
					type: 'string',
					default: '',
					description: 'A note the marketplace shows with the listing',
				},
			]);
		}
		expect(create.description.filter((property) => property.name === 'sellerNote')).toEqual([]);
	});

	it.each([1, 1.1])(
		'is read from Options and sent at its API path (node version %s)',
		async (version) => {
			const [item] = await validateOnly(create, 'Aisle seats', version);
			expect(item.json).toMatchObject({ validateOnly: true, body: { note: 'Aisle seats' } });
		},
	);

	it('is left out of the request when it is not set', async () => {
		const [item] = await validateOnly(create, '');
		expect(item.json.body).not.toHaveProperty('note');
	});

	it("is checked by its schema, and a problem names it by the panel's label", async () => {
		await expect(validateOnly(create, 'x'.repeat(300))).rejects.toThrow(
			expect.objectContaining({
				description: expect.stringContaining('Seller Note is 300 characters long'),
			}),
		);
	});

	it('must be the same in every row of one listing', async () => {
		const rows = ROWS.map((row, index) => ({ json: { ...row.json, note: `note ${index + 1}` } }));
		const fake = fakeRun({
			parameters: {
				...EXAMPLE_SHEET_PARAMETERS,
				options: { validateOnly: true, sellerNote: '={{ $json.note }}' },
			} as Record<string, ParameterValue>,
			items: rows,
			typeVersion: 1.1,
		});
		await expect(create.execute.call(fake.context, rows)).rejects.toThrow(
			expect.objectContaining({
				description: expect.stringContaining(
					'Seller Note differs between the rows of one listing: "note 1" in row 1; "note 2" in row 2',
				),
			}),
		);
	});
});
