import { Container } from '@n8n/di';
import { DataDeduplicationService, ExecuteContext, InstanceSettings } from 'n8n-core';
// Not exported by n8n-core's index; ExecuteContext takes it from the container.
import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';
import nock from 'nock';
import { NodeHelpers, NodeOperationError, Workflow } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICheckProcessedContextData,
	IDataDeduplicator,
	IExecuteData,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeTypes,
	IRunExecutionData,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { TicketMarketplaceApi } from '../../../../credentials/TicketMarketplaceApi.credentials';
import { TicketMarketplace } from '../../../../nodes/TicketMarketplace/TicketMarketplace.node';
import {
	ACTION_NODE,
	API_CREDENTIALS,
	BASE,
	CALLBACK_CREDENTIALS,
	recordValues,
} from '../../../../support/fakeN8n/actionContext';
import { listingBody } from '../../../../support/listingBody';
import { withTokenIssued } from '../../../../support/fakeN8n/issuedToken';
import { useRealSleeps } from '../../../setup/sleeps';
import { PARTNER_API_PATHS } from '../../../../nodes/shared/partnerApi/paths';

// n8n's own sleeps (the run memory's settle pauses among them), as in a real run.
useRealSleeps();

// n8n-core's contexts read instance settings from the DI container; nothing here needs real ones.
Container.set(InstanceSettings, {} as InstanceSettings);
// Its real one starts a cleanup interval at construction; the node never opens SSH tunnels.
Container.set(SSHClientsManager, {} as SSHClientsManager);

/** n8n's deduplication store as n8n keeps it (per workflow id and scope), in memory instead of a database. */
const remembered = new Map<string, Set<string>>();
const storeFor = (scope: string, context: ICheckProcessedContextData) => {
	const key = `${String(context.workflow.id)}/${scope === 'node' ? String(context.node?.id) : ''}`;
	const existing = remembered.get(key) ?? new Set<string>();
	remembered.set(key, existing);
	return existing;
};
const memoryDeduplicator: IDataDeduplicator = {
	async checkProcessedAndRecord(values, scope, context) {
		return recordValues(values, storeFor(scope, context));
	},
	async removeProcessed(values, scope, context) {
		for (const value of values) storeFor(scope, context).delete(String(value));
	},
	async clearAllProcessedItems(scope, context) {
		storeFor(scope, context).clear();
	},
	async getProcessedDataCount(scope, context) {
		return storeFor(scope, context).size;
	},
};
void DataDeduplicationService.init(memoryDeduplicator);

const nodeType = new TicketMarketplace();
const nodeTypes = {
	getByName: () => nodeType,
	getByNameAndVersion: () => nodeType,
	getKnownTypes: () => ({}),
} as unknown as INodeTypes;

/**
 * Runs the node inside n8n-core's real ExecuteContext: parameters are completed with the description's defaults
 * and expressions resolved as n8n does, and credentials pass n8n's own displayOptions check.
 */
async function runInN8n(parameters: INodeParameters, items: INodeExecutionData[], typeVersion = 1) {
	const bare: INode = { ...ACTION_NODE, typeVersion };
	const node: INode = {
		...bare,
		// With the node, as n8n passes it: the description's parts for other versions are left out.
		parameters:
			NodeHelpers.getNodeParameters(
				nodeType.description.properties,
				parameters,
				true,
				false,
				bare,
				nodeType.description,
			) ?? {},
		credentials: {
			ticketMarketplaceApi: { id: '1', name: 'Partner API' },
			ticketMarketplaceCallbackApi: { id: '2', name: 'Callback' },
		},
	};
	const workflow = new Workflow({
		id: 'wf-1',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
		settings: {},
	});
	const stored: Record<string, ICredentialDataDecryptedObject> = {
		ticketMarketplaceApi: withTokenIssued(API_CREDENTIALS, 'tok-real'),
		ticketMarketplaceCallbackApi: { ...CALLBACK_CREDENTIALS },
	};
	const apiCredential = new TicketMarketplaceApi();
	const additionalData = {
		credentialsHelper: {
			getParentTypes: () => [],
			getDecrypted: async (_data: unknown, _node: unknown, type: string) => ({ ...stored[type] }),
			preAuthentication: async () => undefined,
			authenticate: async (
				credentials: ICredentialDataDecryptedObject,
				_type: string,
				request: IHttpRequestOptions,
			) => await apiCredential.authenticate(credentials, request),
		},
		hooks: undefined,
	} as unknown as IWorkflowExecuteAdditionalData;
	const runExecutionData = { resultData: { runData: {} } } as unknown as IRunExecutionData;
	const inputData = { main: [items] };
	const executeData: IExecuteData = { node, data: inputData, source: null };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'manual',
		runExecutionData,
		0,
		items,
		inputData,
		executeData,
		[],
	);
	return await nodeType.execute.call(context);
}

afterEach(() => {
	nock.cleanAll();
	remembered.clear();
});

describe("inside n8n-core's real ExecuteContext", () => {
	const sheet = [
		{ listing: '7001', seat: '1', price: '10.5' },
		{ listing: '7001', seat: '2', price: '10.50' },
		{ listing: '7002', seat: '9', price: '12' },
	].map((json) => ({ json }));

	const grouped: INodeParameters = {
		resource: 'listing',
		operation: 'create',
		inputShape: 'ticketPerItem',
		eventId: 555,
		externalListingId: '={{ $json.listing }}',
		priceAmount: '={{ $json.price }}',
		priceCurrency: 'eur',
		productExternalId: '={{ $json.listing }}-A-{{ $json.seat }}',
		productRow: 'A',
		productSeat: '={{ $json.seat }}',
	};

	it("groups sheet rows resolved from expressions, with the description's defaults, and pairs the output", async () => {
		const seen: unknown[] = [];
		nock(BASE)
			.post(PARTNER_API_PATHS.listings)
			.times(2)
			.matchHeader('authorization', 'Bearer tok-real')
			.matchHeader('accept-language', 'en-US')
			.reply(201, (_uri, body) => {
				seen.push(body);
				return { ok: (body as { externalListingId: number }).externalListingId };
			});

		const [output] = await runInN8n(grouped, sheet);

		expect(seen).toEqual([
			listingBody({
				eventId: 555,
				amount: 10.5,
				currency: 'EUR',
				externalListingId: 7001,
				products: [
					{ externalId: '7001-A-1', row: 'A', seat: '1' },
					{ externalId: '7001-A-2', row: 'A', seat: '2' },
				],
			}),
			listingBody({
				eventId: 555,
				amount: 12,
				currency: 'EUR',
				externalListingId: 7002,
				products: [{ externalId: '7002-A-9', row: 'A', seat: '9' }],
			}),
		]);
		expect(output).toEqual([
			{ json: { ok: 7001 }, pairedItem: [{ item: 0 }, { item: 1 }] },
			{ json: { ok: 7002 }, pairedItem: [{ item: 2 }] },
		]);
	});

	it("reports a sheet value that is not an exact number with our own message, not n8n's", async () => {
		const bad = sheet.map((item, index) =>
			index === 2 ? { json: { ...item.json, listing: '7002x' } } : item,
		);
		const api = nock(BASE).post(PARTNER_API_PATHS.listings).reply(201, {});
		await expect(runInN8n(grouped, bad)).rejects.toThrow(NodeOperationError);
		try {
			await runInN8n(grouped, bad);
		} catch (error) {
			expect(String((error as NodeOperationError).description).split('\n')[0]).toBe(
				'External Listing ID must be a whole number greater than 0 (got "7002x") (row 3)',
			);
		}
		expect(api.isDone()).toBe(false);
	});

	it('reads the callback credential that Subscribe shows by default', async () => {
		let sent: { callback: { auth: { oauthRequest: unknown } } } | undefined;
		nock(BASE)
			.post(PARTNER_API_PATHS.webhooks)
			.reply(201, (_uri, body) => {
				sent = body as typeof sent;
				return { subscriptionId: 'sub-real' };
			});
		const [output] = await runInN8n(
			{
				resource: 'webhook',
				operation: 'subscribe',
				callbackUrl: 'https://n8n.example.test/webhook/x/notification',
				callbackAuthUrl: 'https://n8n.example.test/webhook/x/token',
			},
			[{ json: {} }],
		);
		expect(sent?.callback.auth.oauthRequest).toEqual({
			...CALLBACK_CREDENTIALS,
			grantType: 'client_credentials',
		});
		expect(output[0].json).toMatchObject({
			subscriptionId: 'sub-real',
			subscriptionIdField: 'subscriptionId',
		});
		expect(output[0].pairedItem).toEqual({ item: 0 });
	});
});
