/**
 * The node as an AI Agent's tool (n8n runs it as the node type `…ticketMarketplaceTool`, the model choosing every
 * `$fromAI()` value and when to call): Subscribe and Clear Sent Listings History refuse to run there, before they
 * read or send anything; Create still runs, with every check it makes in a workflow.
 */
import nock from 'nock';
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { execute as create } from '../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { execute as forget } from '../../../../../nodes/TicketMarketplace/actions/listing/forgetSent.operation';
import { execute as subscribe } from '../../../../../nodes/TicketMarketplace/actions/webhook/subscribe/execute';
import { runsAsAgentTool } from '../../../../../nodes/TicketMarketplace/helpers/agentTool';
import { sentListingKey } from '../../../../../nodes/TicketMarketplace/actions/listing/memory/sentListings';
import {
	BASE,
	CALLBACK_CREDENTIALS,
	fakeRun,
	MEMORY_ACCOUNT,
	MemoryDeduplicationStore,
} from '../../../../../support/fakeN8n/actionContext';
import type { FakeRunOptions } from '../../../../../support/fakeN8n/actionContext';
import { acceptListings, grantTokens } from '../../../../../support/partnerApiNock';

const TOOL_TYPE = 'n8n-nodes-ticket-marketplace.ticketMarketplaceTool';

/** A run of the node as n8n runs its tool variant: the same node, under the tool's type name. */
function toolRun(options: FakeRunOptions) {
	const fake = fakeRun(options);
	(fake.context.getNode() as INode).type = TOOL_TYPE;
	return fake;
}

/** What the model passes: one item of the values it chose, as n8n hands a tool call to the node. */
const toolCall = (values: Record<string, unknown>): INodeExecutionData[] => [
	{ json: values as IDataObject },
];

/** Every request the API would answer, counted; none is expected. */
function anyRequest() {
	const seen: string[] = [];
	nock(BASE)
		.persist()
		.post(/.*/)
		.query(true)
		.reply(function (uri) {
			seen.push(uri);
			return [201, { id: 'never' }];
		});
	return seen;
}

afterEach(() => nock.cleanAll());

describe('the node as an AI Agent tool', () => {
	it('tells a run as a tool from a run in a workflow by the node type n8n gives it', () => {
		expect(runsAsAgentTool(fakeRun({ parameters: {} }).context)).toBe(false);
		expect(runsAsAgentTool(toolRun({ parameters: {} }).context)).toBe(true);
	});

	it('Subscribe: refused, whatever URLs the model chose, before the credential is read or anything is sent', async () => {
		const seen = anyRequest();
		const items = toolCall({
			callbackUrl: 'https://attacker.example.test/hook',
			tokenUrl: 'https://attacker.example.test/token',
		});
		const fake = toolRun({
			parameters: {
				callbackUrl: (_index: number, json: Record<string, unknown>) => json.callbackUrl,
				callbackAuthUrl: (_index: number, json: Record<string, unknown>) => json.tokenUrl,
				subscriptionKinds: ['listing_sale'],
				options: {},
			},
			items,
			continueOnFail: true,
			callbackCredentials: CALLBACK_CREDENTIALS,
		});
		const error = await subscribe.call(fake.context, items).then(
			() => undefined,
			(thrown: unknown) => thrown as NodeOperationError,
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error?.message).toBe('Subscribe cannot run as an AI Agent tool; nothing was sent');
		expect(error?.description).toContain('not as an AI Agent');
		expect(seen).toEqual([]);
		expect(fake.credentialReads).toEqual({});
	});

	it.each(['ids', 'all'])(
		'Clear Sent Listings History (%s): refused, and the memory keeps every listing',
		async (forgetScope) => {
			const seen = anyRequest();
			const store = new MemoryDeduplicationStore();
			store.entries.set('workflow', new Set([sentListingKey(MEMORY_ACCOUNT, 7001)]));
			const items = toolCall({ externalListingId: 7001 });
			const fake = toolRun({
				parameters: {
					forgetScope,
					forgetExternalListingId: (_index: number, json: Record<string, unknown>) =>
						json.externalListingId,
				},
				items,
				continueOnFail: true,
				deduplication: store,
			});
			await expect(forget.call(fake.context, items)).rejects.toThrow(
				'Clear Sent Listings History cannot run as an AI Agent tool; nothing was forgotten',
			);
			expect([...(store.entries.get('workflow') ?? [])]).toEqual([
				sentListingKey(MEMORY_ACCOUNT, 7001),
			]);
			expect(seen).toEqual([]);
		},
	);

	describe('Create, with the values a model passes', () => {
		const parameters = {
			inputShape: 'listingPerItem',
			eventId: (_index: number, json: Record<string, unknown>) => json.eventId,
			externalListingId: (_index: number, json: Record<string, unknown>) => json.externalListingId,
			priceAmount: (_index: number, json: Record<string, unknown>) => json.price,
			priceCurrency: (_index: number, json: Record<string, unknown>) => json.currency,
			productsSource: 'defined',
			products: (_index: number, json: Record<string, unknown>) => ({
				product: [{ externalId: json.ticketId, row: json.row, seat: json.seat, ga: false }],
			}),
			options: {},
		};
		const complete = {
			eventId: 7001,
			externalListingId: 501,
			price: 49.9,
			currency: 'EUR',
			ticketId: '7001-A-12',
			row: 'A',
			seat: '12',
		};

		it('sends a complete listing, as in a workflow', async () => {
			grantTokens('tok-agent');
			const bodies = acceptListings();
			const items = toolCall(complete);
			const fake = toolRun({ parameters, items, continueOnFail: true });
			const output = await create.call(fake.context, items);
			expect(bodies.map((body) => body.externalListingId)).toEqual([501]);
			expect(output[0].json.error).toBeUndefined();
		});

		it.each<[string, Record<string, unknown>, string]>([
			['no seat', { seat: undefined }, 'a seated ticket needs a Row and a Seat'],
			['a price of 0', { price: 0 }, 'Price Amount'],
			['a price in words', { price: 'fifty euros' }, 'Price Amount'],
			['a price with a decimal comma', { price: '49,90' }, 'Price Amount'],
			['an event ID as text', { eventId: 'the Coldplay concert' }, 'Event ID'],
			['no External Listing ID', { externalListingId: undefined }, 'External Listing ID'],
		])(
			'answers the model with the field to fix for %s, and sends nothing',
			async (_name, change, field) => {
				const seen = anyRequest();
				const items = toolCall({ ...complete, ...change });
				const fake = toolRun({ parameters, items, continueOnFail: true });
				const output = await create.call(fake.context, items);
				expect(seen).toEqual([]);
				expect(String(output[0].json.error)).toContain('failed validation');
				expect(JSON.stringify(output[0].json)).toContain(field);
			},
		);

		it('skips a listing the model sends again, as in a workflow (Skip Listings Already Sent)', async () => {
			grantTokens('tok-agent');
			const bodies = acceptListings();
			const store = new MemoryDeduplicationStore();
			for (let call = 0; call < 2; call++) {
				const items = toolCall(complete);
				const fake = toolRun({ parameters, items, continueOnFail: true, deduplication: store });
				await create.call(fake.context, items);
			}
			expect(bodies).toHaveLength(1);
		});
	});
});
