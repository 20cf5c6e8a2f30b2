import nock from 'nock';
import type { INodeProperties } from 'n8n-workflow';

import codex from '../../../../nodes/TicketMarketplace/TicketMarketplace.node.json';
import { TicketMarketplace } from '../../../../nodes/TicketMarketplace/TicketMarketplace.node';
import { OPERATIONS } from '../../../../nodes/TicketMarketplace/actions/router';
import packageJson from '../../../../package.json';
import { BASE, CALLBACK_CREDENTIALS, fakeRun } from '../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../nodes/shared/partnerApi/paths';

const { description } = new TicketMarketplace();

function allProperties(properties: INodeProperties[]): INodeProperties[] {
	return properties.flatMap((property) => {
		const nested = (property.options ?? []).flatMap((option) => {
			if ('values' in option) return allProperties(option.values);
			if ('type' in option) return allProperties([option as INodeProperties]);
			return [];
		});
		return [property, ...nested];
	});
}

afterEach(() => {
	nock.cleanAll();
});

describe('Ticket Marketplace node description', () => {
	it('is a tool-usable action node with a themed icon and subtitle', () => {
		expect(description.name).toBe('ticketMarketplace');
		expect(description.usableAsTool).toBe(true);
		expect(description.icon).toEqual({
			light: 'file:../../icons/ticketMarketplace.svg',
			dark: 'file:../../icons/ticketMarketplace.dark.svg',
		});
		expect(description.subtitle).toContain('$parameter["operation"]');
	});

	it("requires the API credential always and the callback credential for Subscribe, each labelled with its type's name", () => {
		expect(description.credentials).toEqual([
			{ name: 'ticketMarketplaceApi', required: true, displayName: 'Ticket Marketplace API' },
			{
				name: 'ticketMarketplaceCallbackApi',
				required: true,
				displayName: 'Ticket Marketplace Callback API',
				testedBy: 'ticketMarketplaceCallbackApiTest',
				displayOptions: { show: { resource: ['webhook'] } },
			},
		]);
	});

	it("gives n8n's editor no field to mistake for an authentication switch (it would mix both credential lists)", () => {
		// The editor's rule (n8n 2.8 findAlternativeAuthField): a field named in a credential's displayOptions.show whose
		// every option value is listed there becomes the "authentication" field, and each required credential's list
		// then offers the credentials of every type that depends on it.
		for (const credential of description.credentials ?? []) {
			for (const [field, shown] of Object.entries(credential.displayOptions?.show ?? {})) {
				for (const property of description.properties.filter(
					(candidate) => candidate.name === field,
				)) {
					const values = (property.options ?? []).map((option) =>
						'value' in option ? String(option.value) : '',
					);
					expect({
						field,
						notShown: values.filter((value) => !(shown ?? []).map(String).includes(value)),
					}).toEqual({
						field,
						notShown: expect.arrayContaining([expect.any(String)]),
					});
				}
			}
		}
	});

	it('tests the callback credential with the same local check as the trigger', async () => {
		const node = new TicketMarketplace();
		const test = node.methods.credentialTest.ticketMarketplaceCallbackApiTest;
		const withSecret = async (clientSecret: string) =>
			await test.call({} as never, {
				id: '1',
				name: 'c',
				type: 'ticketMarketplaceCallbackApi',
				data: { clientId: 'id', clientSecret },
			});
		expect((await withSecret('short')).status).toBe('Error');
		expect((await withSecret('a-long-enough-client-secret')).status).toBe('OK');
	});

	it('describes every field (notices aside)', () => {
		const undescribed = allProperties(description.properties)
			.filter(
				(property) =>
					property.type !== 'notice' &&
					property.name !== 'resource' &&
					property.name !== 'operation',
			)
			.filter((property) => !property.description)
			.map((property) => property.name);
		expect(undescribed).toEqual([]);
	});

	it('explains webhook activation in a notice shown with Subscribe', () => {
		const notice = description.properties.find((property) => property.name === 'activationNotice');
		expect(notice?.type).toBe('notice');
		expect(notice?.displayName).toContain('24 to 48 hours');
		expect(notice?.displayOptions?.show).toEqual({
			resource: ['webhook'],
			operation: ['subscribe'],
		});
	});

	it('has a codex file naming the node as the package publishes it', () => {
		expect(codex.node).toBe(`${packageJson.name}.${description.name}`);
		expect(packageJson.n8n.nodes).toContain(
			'dist/nodes/TicketMarketplace/TicketMarketplace.node.js',
		);
	});

	it('routes to the chosen operation and returns one output', async () => {
		nock(BASE).post(PARTNER_API_PATHS.grant).query(true).reply(200, { access_token: 't' });
		const api = nock(BASE).post(PARTNER_API_PATHS.webhooks).reply(201, { id: 's-1' });
		const fake = fakeRun({
			parameters: {
				resource: 'webhook',
				operation: 'subscribe',
				callbackUrl: 'https://n.example.test/cb',
				callbackAuthUrl: 'https://n.example.test/token',
				options: {},
			},
			callbackCredentials: CALLBACK_CREDENTIALS,
		});
		const output = await new TicketMarketplace().execute.call(fake.context);
		expect(api.isDone()).toBe(true);
		expect(output).toHaveLength(1);
		expect(output[0][0].json.subscriptionId).toBe('s-1');
	});

	it.each([
		['listing', 'delete'],
		['listing', 'toString'],
		['__proto__', 'create'],
		['webhook', 'create'],
	])('refuses %s → %s without sending anything', async (resource, operation) => {
		const fake = fakeRun({ parameters: { resource, operation } });
		await expect(new TicketMarketplace().execute.call(fake.context)).rejects.toThrow(
			`The operation "${operation}" of "${resource}" is not supported`,
		);
	});

	it('routes exactly the resources and operations its panel offers', () => {
		const values = (name: string, resource?: string) =>
			description.properties
				.filter(
					(property) =>
						property.name === name &&
						(resource === undefined || property.displayOptions?.show?.resource?.includes(resource)),
				)
				.flatMap((property) =>
					(property.options ?? []).map((option) => (option as { value: string }).value),
				)
				.sort();
		expect(values('resource')).toEqual(Object.keys(OPERATIONS).sort());
		for (const [resource, operations] of Object.entries(OPERATIONS))
			expect(values('operation', resource)).toEqual(Object.keys(operations).sort());
	});
});
