/**
 * The panel as a user meets it, in both node versions: what each version fills in by default (version 1 exactly as
 * it always did, so its workflows read as before), what 1.1 shows and hides, and the words of every label, tooltip,
 * hint, option and notice of the Ticket Marketplace node, the Ticket Marketplace Trigger and both credentials: no API
 * field names, no HTTP terms, one plain sentence per tooltip, at most one short notice per panel.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { NodeHelpers } from 'n8n-workflow';
import type {
	ICredentialType,
	INode,
	INodeParameters,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
} from 'n8n-workflow';

import { TicketMarketplaceApi } from '../../../credentials/TicketMarketplaceApi.credentials';
import { TicketMarketplaceCallbackApi } from '../../../credentials/TicketMarketplaceCallbackApi.credentials';
import { RECOGNISED_HEADERS } from '../../../nodes/TicketMarketplace/actions/listing/create/fields';
import { TicketMarketplace } from '../../../nodes/TicketMarketplace/TicketMarketplace.node';
import { TicketMarketplaceTrigger } from '../../../nodes/TicketMarketplaceTrigger/TicketMarketplaceTrigger.node';
import { EXAMPLE_FILES, loadExample } from '../../../support/harness/workflows';

const { description } = new TicketMarketplace();
/** The node as n8n offers it to an AI Agent: its own type, named with "Tool" appended. */
const asTool = { ...description, name: `${description.name}Tool` };
const trigger = new TicketMarketplaceTrigger().description;
const CREATE = { resource: 'listing', operation: 'create' };
const CLEAR = { resource: 'listing', operation: 'forgetSent' };
const SUBSCRIBE = { resource: 'webhook', operation: 'subscribe' };

function nodeAt(typeVersion: number, parameters: INodeParameters = {}): INode {
	return {
		id: 'node-1',
		name: 'Ticket Marketplace',
		type: 'n8n-nodes-ticket-marketplace.ticketMarketplace',
		typeVersion,
		position: [0, 0],
		parameters,
	};
}

/** The parameters n8n keeps for a node of this version: shown ones only, defaults filled in. */
function resolved(typeVersion: number, parameters: INodeParameters): INodeParameters {
	return (
		NodeHelpers.getNodeParameters(
			description.properties,
			parameters,
			true,
			false,
			nodeAt(typeVersion, parameters),
			description,
		) ?? {}
	);
}

/** The top-level parameters n8n shows for these values (in the node, or in its tool variant). */
function shown(
	typeVersion: number,
	parameters: INodeParameters,
	node: typeof description = description,
): INodeProperties[] {
	const values = resolved(typeVersion, parameters);
	return description.properties.filter((property) =>
		NodeHelpers.displayParameter(values, property, nodeAt(typeVersion, values), node),
	);
}

describe('version 1 reads exactly as before', () => {
	it('Create: one listing per item, 0 in the number fields, and the listing values in the main panel', () => {
		expect(resolved(1, CREATE)).toMatchObject({
			inputShape: 'listingPerItem',
			eventId: 0,
			externalListingId: 0,
			priceAmount: 0,
			priceCurrency: '',
			productsSource: 'defined',
			stockType: 'PDF',
			paymentType: 1,
			acceptLanguage: 'en-US',
			options: {},
		});
		expect(resolved(1, { ...CREATE, inputShape: 'ticketPerItem' })).toMatchObject({
			productType: 'TICKET',
			productRow: '',
			productSeat: '',
			productGa: false,
		});
	});

	it('keeps stored values where version 1 keeps them, Row and Seat with General Admission on too', () => {
		const stored = {
			...CREATE,
			inputShape: 'ticketPerItem',
			productGa: true,
			productRow: 'A',
			productSeat: '1',
			stockType: 'PDF,PAPER',
			acceptLanguage: 'de-DE',
			products: { product: [{ externalId: 'T', ga: true, row: 'A', productType: 'VIP' }] },
			options: { concurrency: 4 },
		};
		expect(resolved(1, stored)).toMatchObject({
			productGa: true,
			productRow: 'A',
			productSeat: '1',
			stockType: 'PDF,PAPER',
			acceptLanguage: 'de-DE',
			options: { concurrency: 4 },
		});
		const perItem = resolved(1, { ...stored, inputShape: 'listingPerItem' });
		expect(perItem.products).toEqual({
			product: [{ externalId: 'T', ga: true, row: 'A', productType: 'VIP', seat: '' }],
		});
	});

	it('Clear Sent Listings History and Subscribe keep their version 1 defaults and fields', () => {
		expect(resolved(1, CLEAR)).toMatchObject({ forgetScope: 'ids', forgetExternalListingId: 0 });
		const subscribe = resolved(1, {
			...SUBSCRIBE,
			options: { authType: 'oauth2', grantType: 'password' },
		});
		expect(subscribe).toMatchObject({
			subscriptionKinds: ['listing_sale'],
			options: { authType: 'oauth2', grantType: 'password' },
		});
	});
});

describe('version 1.1 defaults', () => {
	it('Create: sheet rows, required fields empty until set, listing values under Options', () => {
		const values = resolved(1.1, CREATE);
		expect(values).toMatchObject({
			inputShape: 'ticketPerItem',
			columnMapping: 'manual',
			eventId: '',
			externalListingId: '',
			priceAmount: '',
			productExternalId: '',
			productGa: false,
			options: {},
		});
		for (const name of ['stockType', 'paymentType', 'acceptLanguage', 'productType'])
			expect({ name, inMainPanel: name in values }).toEqual({ name, inMainPanel: false });
		const options = description.properties.find(
			(property) =>
				property.name === 'options' &&
				NodeHelpers.displayParameter(values, property, nodeAt(1.1), description),
		);
		expect(
			(options?.options as INodeProperties[]).map((option) => [option.name, option.default]),
		).toEqual(
			expect.arrayContaining([
				['stockType', 'PDF'],
				['paymentType', 1],
				['acceptLanguage', 'en-US'],
				['productType', 'TICKET'],
			]),
		);
	});

	it("starts required numbers empty, as n8n's own nodes do, so that their placeholder shows", () => {
		const numbers = [...shown(1.1, CREATE), ...shown(1.1, CLEAR)].filter(
			(property) => property.type === 'number' && property.required === true,
		);
		expect(numbers.map((property) => property.name)).toEqual([
			'eventId',
			'externalListingId',
			'priceAmount',
			'forgetExternalListingId',
		]);
		for (const property of numbers)
			expect({
				name: property.name,
				default: property.default,
				placeholder: property.placeholder,
			}).toEqual({
				name: property.name,
				default: '',
				placeholder: expect.stringMatching(/^e\.g\. /),
			});
	});

	it('n8n marks the empty required text fields until they are set, and not once they are', () => {
		const issues = (parameters: INodeParameters) =>
			Object.keys(
				NodeHelpers.getNodeParametersIssues(
					description.properties,
					nodeAt(1.1, resolved(1.1, parameters)),
					description,
				)?.parameters ?? {},
			).sort();
		expect(issues(CREATE)).toEqual(['priceCurrency', 'productExternalId']);
		expect(
			issues({
				...CREATE,
				eventId: '={{ $json.event_id }}',
				externalListingId: 7001,
				priceAmount: 49.9,
				priceCurrency: 'EUR',
				productExternalId: '={{ $json.ticket_id }}',
			}),
		).toEqual([]);
	});

	it('hides Row and Seat while General Admission is on, but not when it reads a column', () => {
		const names = (parameters: INodeParameters) =>
			shown(1.1, { ...CREATE, ...parameters }).map((property) => property.name);
		expect(names({ productGa: false })).toEqual(
			expect.arrayContaining(['productRow', 'productSeat']),
		);
		expect(names({ productGa: true })).not.toEqual(expect.arrayContaining(['productRow']));
		expect(names({ productGa: true })).not.toContain('productSeat');
		expect(names({ productGa: '={{ $json.ga }}' })).toEqual(
			expect.arrayContaining(['productRow', 'productSeat']),
		);
		const products = resolved(1.1, {
			...CREATE,
			inputShape: 'listingPerItem',
			products: {
				product: [
					{ externalId: 'GA-1', ga: true, row: 'A', seat: '1' },
					{ externalId: 'A-1', ga: false, row: 'A', seat: '1' },
				],
			},
		}).products;
		expect(products).toEqual({
			product: [
				{ externalId: 'GA-1', ga: true },
				{ externalId: 'A-1', ga: false, row: 'A', seat: '1' },
			],
		});
	});

	it('orders a seat range first seat, last seat, row, then the ID pattern', () => {
		const ranges = shown(1.1, {
			...CREATE,
			inputShape: 'listingPerItem',
			productsSource: 'seatRange',
		}).find((property) => property.name === 'seatRanges');
		const [range] = ranges?.options as INodePropertyCollection[];
		expect(range.values.map((value) => value.displayName)).toEqual([
			'First Seat',
			'Last Seat',
			'Row',
			'External ID Pattern',
		]);
	});

	it('Subscribe shows no Auth Type or Grant Type, and has Subscription Kinds under Options', () => {
		const values = resolved(1.1, {
			...SUBSCRIBE,
			subscriptionKinds: ['listing_sale'],
			options: { authType: 'oauth2', subscriptionKinds: ['listing_sale', 'listing_update'] },
		});
		expect(values).not.toHaveProperty('subscriptionKinds');
		expect(values.options).toEqual({ subscriptionKinds: ['listing_sale', 'listing_update'] });
		const callback = shown(1.1, SUBSCRIBE).find((property) => property.name === 'callbackUrl');
		expect(callback?.placeholder).toMatch(/\/notifications$/);
	});
});

describe("the seller's limits on Create", () => {
	it.each([1, 1.1])(
		'Create (version %s): the limits a seller sets are under Options, empty (no limit) until set',
		(version) => {
			const options = shown(version, CREATE).find((property) => property.name === 'options');
			const limits = (options?.options as INodeProperties[])
				.filter((option) => ['minPricePerTicket', 'maxTicketsPerListing'].includes(option.name))
				.map((option) => [option.displayName, option.type, option.default]);
			expect(limits).toEqual([
				['Maximum Tickets per Listing', 'number', ''],
				['Minimum Price per Ticket', 'number', ''],
			]);
		},
	);

	it.each([1, 1.1])(
		'Create (version %s): only the tool variant recommends the limits, in a notice',
		(version) => {
			const notice = (node: typeof description, parameters = {}) =>
				shown(version, { ...CREATE, ...parameters }, node)
					.filter((property) => property.name === 'agentLimitsNotice')
					.map((property) => property.displayName);
			expect(notice(description)).toEqual([]);
			expect(notice(asTool)).toEqual([
				expect.stringMatching(/Minimum Price per Ticket and Maximum Tickets per Listing/),
			]);
			// Map Automatically shows its own notice instead.
			expect(notice(asTool, { inputShape: 'ticketPerItem', columnMapping: 'auto' })).toEqual([]);
		},
	);
});

/** One text the user can read, and where it is. */
interface PanelText {
	where: string;
	field: 'displayName' | 'description' | 'hint' | 'placeholder' | 'notice' | 'option' | 'action';
	text: string;
}

/** The JSON products field shows the keys a user types into it: its example is exempt from the API-name rule. */
const TYPED_KEYS_SHOWN = new Set(['Products (JSON).hint', 'Products (JSON).placeholder']);

function textsOf(properties: INodeProperties[], where: string): PanelText[] {
	return properties.flatMap((property): PanelText[] => {
		const at = `${where}${property.displayName}`;
		if (property.type === 'notice')
			return [{ where: at, field: 'notice', text: property.displayName }];
		const own: PanelText[] = [
			{ where: at, field: 'displayName', text: property.displayName },
			...(['description', 'hint', 'placeholder'] as const)
				.filter((field) => typeof property[field] === 'string' && property[field] !== '')
				.map((field) => ({ where: at, field, text: property[field] as string })),
		];
		const nested = (property.options ?? []).flatMap((option): PanelText[] => {
			if ('values' in option)
				return [
					{ where: at, field: 'displayName', text: option.displayName },
					...textsOf((option as INodePropertyCollection).values, `${at} → `),
				];
			if ('type' in option) return textsOf([option as INodeProperties], `${at} → `);
			const choice = option as INodePropertyOptions;
			return [
				{ where: `${at} → ${choice.name}`, field: 'option', text: choice.name },
				...(choice.description
					? [
							{
								where: `${at} → ${choice.name}`,
								field: 'description' as const,
								text: choice.description,
							},
						]
					: []),
				...(choice.action
					? [{ where: `${at} → ${choice.name}`, field: 'action' as const, text: choice.action }]
					: []),
			];
		});
		return [...own, ...nested];
	});
}

function credentialTexts(credential: ICredentialType): PanelText[] {
	return [
		{ where: credential.displayName, field: 'displayName', text: credential.displayName },
		...textsOf(credential.properties, `${credential.displayName}: `),
	];
}

const PANEL_TEXTS: PanelText[] = [
	{ where: 'node', field: 'description', text: description.description },
	...(description.credentials ?? []).map((credential) => ({
		where: `credential ${credential.name}`,
		field: 'displayName' as const,
		text: credential.displayName ?? '',
	})),
	...textsOf(description.properties, ''),
	{ where: 'trigger', field: 'description', text: trigger.description },
	...(trigger.credentials ?? []).map((credential) => ({
		where: `trigger credential ${credential.name}`,
		field: 'displayName' as const,
		text: credential.displayName ?? '',
	})),
	...textsOf(trigger.properties, 'Trigger: '),
	...credentialTexts(new TicketMarketplaceApi()),
	...credentialTexts(new TicketMarketplaceCallbackApi()),
];

/** Words a user of the panel should not have to know. Each is a pattern that fails the scan. */
const FORBIDDEN: Array<[string, RegExp]> = [
	[
		'API field names',
		/\b(eventId|externalListingId|pricePerProduct|stockType|paymentType|productType|acceptLanguage|externalId|tokenEndPoint|authType|grantType|oauthRequest|listingStatus|listingResponse|listingError|eventType|notificationType|event_type|notification_type)\b/,
	],
	['output keys', /\{\s*headers\b/],
	['API field paths', /\b(callback|subscription|pricePerProduct|products)\.[a-z]/],
	['the API\'s "ga"', /\bga\b/],
	['HTTP status codes', /\b(200|201|202|204|30[1-8]|40[0-9]|409|422|429|5\d\d|[45]xx)\b/],
	[
		'HTTP terms',
		/Retry-After|Accept-Language|Authorization|\bHTTP\b|status code|Bearer|endpoint|end point/i,
	],
	['pacing jargon', /in flight|round trip|concurren|throttl|backoff/i],
];

function forbiddenIn(texts: PanelText[], pattern: RegExp): string[] {
	return texts
		.filter((entry) => !TYPED_KEYS_SHOWN.has(`${entry.where}.${entry.field}`))
		.filter((entry) => pattern.test(entry.text))
		.map((entry) => `${entry.where} (${entry.field}): ${entry.text}`);
}

describe('the words of the panel', () => {
	it.each(FORBIDDEN)('no label, tooltip, hint, option or notice has %s', (_kind, pattern) => {
		expect(forbiddenIn(PANEL_TEXTS, pattern)).toEqual([]);
	});

	it('the scan itself catches an API field name and an HTTP status in any of those places', () => {
		const planted: PanelText[] = [
			{ where: 'Event ID', field: 'description', text: 'Identifier of the event (eventId)' },
			{ where: 'Pace', field: 'option', text: 'Slower on 429' },
			{ where: 'General Admission', field: 'hint', text: 'Sent as ga' },
			{ where: 'Options', field: 'notice', text: 'Waits for the Retry-After' },
			{ where: 'Trigger: Respond', field: 'description', text: 'Answer 500 when it fails' },
			{ where: 'Trigger: Accepted Kinds', field: 'description', text: 'Read from eventType' },
			{ where: 'Trigger: Include', field: 'description', text: 'Outputs { headers, body }' },
			{ where: 'Trigger: Include', field: 'hint', text: 'Without the Authorization header' },
		];
		expect(FORBIDDEN.flatMap(([, pattern]) => forbiddenIn(planted, pattern))).toHaveLength(8);
	});

	it('every tooltip and hint is one sentence, and short', () => {
		const long = PANEL_TEXTS.filter(
			(entry) => entry.field === 'description' || entry.field === 'hint',
		).filter(
			(entry) => entry.text.length > 130 || /[.!?]\s+\S/.test(entry.text.replace(/\be\.g\. /g, '')),
		);
		expect(long.map((entry) => `${entry.where} (${entry.text.length}): ${entry.text}`)).toEqual([]);
	});

	it('every notice is short', () => {
		const notices = PANEL_TEXTS.filter((entry) => entry.field === 'notice');
		expect(notices.length).toBeGreaterThan(0);
		expect(notices.filter((entry) => entry.text.length > 200).map((entry) => entry.text)).toEqual(
			[],
		);
	});

	const panels = [1, 1.1].flatMap((version) => [
		...['ticketPerItem', 'listingPerItem'].flatMap((inputShape) =>
			['manual', 'auto'].flatMap((columnMapping) =>
				['defined', 'json', 'seatRange'].map(
					(productsSource) =>
						[
							`${version} Create ${inputShape} ${columnMapping} ${productsSource}`,
							version,
							{ ...CREATE, inputShape, columnMapping, productsSource },
						] as const,
				),
			),
		),
		...['ids', 'all'].map(
			(forgetScope) =>
				[`${version} Clear ${forgetScope}`, version, { ...CLEAR, forgetScope }] as const,
		),
		[`${version} Subscribe`, version, SUBSCRIBE] as const,
	]);

	it.each(panels)('%s shows at most one notice', (_name, version, parameters) => {
		for (const node of [description, asTool]) {
			const notices = shown(version, parameters, node).filter(
				(property) => property.type === 'notice',
			);
			expect({ node: node.name, notices: notices.length }).toEqual({
				node: node.name,
				notices: Math.min(notices.length, 1),
			});
		}
	});

	it.each([1, 1.1])('the trigger (version %s) shows at most one notice', (version) => {
		const node: INode = {
			...nodeAt(version),
			name: 'Ticket Marketplace Trigger',
			type: 'n8n-nodes-ticket-marketplace.ticketMarketplaceTrigger',
		};
		const values =
			NodeHelpers.getNodeParameters(trigger.properties, {}, true, false, node, trigger) ?? {};
		const notices = trigger.properties.filter(
			(property) =>
				property.type === 'notice' && NodeHelpers.displayParameter(values, property, node, trigger),
		);
		expect(notices.length).toBeLessThanOrEqual(1);
	});

	it.each([new TicketMarketplaceApi(), new TicketMarketplaceCallbackApi()])(
		'$displayName shows at most one notice',
		(credential) => {
			expect(
				credential.properties.filter((property) => property.type === 'notice').length,
			).toBeLessThanOrEqual(1);
		},
	);

	it('names the callback credential one way: its type, in the node and in the credential list', () => {
		const callback = description.credentials?.find(
			(credential) => credential.name === 'ticketMarketplaceCallbackApi',
		);
		expect(callback?.displayName).toBe(new TicketMarketplaceCallbackApi().displayName);
		expect(
			trigger.credentials?.find((credential) => credential.name === 'ticketMarketplaceCallbackApi')
				?.displayName,
		).toBe(new TicketMarketplaceCallbackApi().displayName);
		const api = description.credentials?.find(
			(credential) => credential.name === 'ticketMarketplaceApi',
		);
		expect(api?.displayName).toBe(new TicketMarketplaceApi().displayName);
	});
});

describe('what moved from the panel to the docs', () => {
	it('docs/listing-create.md lists every header that Map Automatically recognises', () => {
		const page = readFileSync(
			join(__dirname, '..', '..', '..', 'docs', 'listing-create.md'),
			'utf8',
		);
		const missing = Object.values(RECOGNISED_HEADERS)
			.flatMap((field) => field.headers)
			.filter((header) => !page.includes(`\`${header}\``));
		expect(missing).toEqual([]);
	});
});

describe('the example workflows load in the version they name', () => {
	const ours = Object.values(EXAMPLE_FILES).flatMap((file) =>
		loadExample(file)
			.nodes.filter((node) => /\.ticketMarketplace(Tool)?$/.test(node.type))
			.map((node) => [`${file}: ${node.name}`, node] as const),
	);

	it.each(ours)(
		'%s: latest version, every parameter shown, nothing required missing',
		(_name, node) => {
			expect(description.version).toContain(node.typeVersion);
			expect(node.typeVersion).toBe(1.1);
			// n8n adds these two to the tool variant of the node (Ticket Marketplace Tool).
			const toolOnly = ['descriptionType', 'toolDescription'];
			const parameters = node.parameters as INodeParameters;
			const values = resolved(node.typeVersion, parameters);
			expect(
				Object.keys(parameters).filter((name) => !toolOnly.includes(name) && !(name in values)),
			).toEqual([]);
			const issues = NodeHelpers.getNodeParametersIssues(
				description.properties,
				nodeAt(node.typeVersion, values),
				description,
			);
			expect(
				Object.keys(issues?.parameters ?? {}).filter((name) => !toolOnly.includes(name)),
			).toEqual([]);
		},
	);
});
