/**
 * The example workflows are safe to publish as shipped: every start a stranger could reach asks for a login, and no
 * caller chooses where a request goes, where the marketplace sends its callback secret, or which file is read.
 */
import { EXAMPLE_FILES, loadExample } from '../../../support/harness/workflows';

const examples = Object.values(EXAMPLE_FILES).map((file) => ({
	file,
	workflow: loadExample(file),
}));

/** Parameters that choose an address or a file, by node type. */
const DESTINATIONS: Record<string, string[]> = {
	'n8n-nodes-base.httpRequest': ['url'],
	'n8n-nodes-ticket-marketplace.ticketMarketplace': ['callbackUrl', 'callbackAuthUrl'],
	'n8n-nodes-base.readWriteFile': ['fileSelector'],
};

/** Starts anyone who knows the address reaches: each must ask for a login. */
const PUBLIC_STARTS = [
	'n8n-nodes-base.webhook',
	'@n8n/n8n-nodes-langchain.chatTrigger',
	'n8n-nodes-base.formTrigger',
];
/** Starts that serve no page or webhook of their own, or check the caller themselves (the trigger's token). */
const OTHER_STARTS = [
	'n8n-nodes-base.manualTrigger',
	'n8n-nodes-ticket-marketplace.ticketMarketplaceTrigger',
];

describe.each(examples)('$file', ({ workflow }) => {
	it('every Webhook, chat or form start asks for a login (Header Auth or Basic Auth) with its credential', () => {
		const starts = workflow.nodes.filter((node) => PUBLIC_STARTS.includes(node.type));
		for (const node of starts) {
			const authentication = node.parameters.authentication;
			expect({ node: node.name, authentication }).toEqual({
				node: node.name,
				authentication: expect.stringMatching(/^(headerAuth|basicAuth)$/),
			});
			const credentialType = authentication === 'headerAuth' ? 'httpHeaderAuth' : 'httpBasicAuth';
			expect(node.credentials?.[credentialType]).toBeDefined();
		}
	});

	it('has no start this check does not know (a new kind of trigger must be added above)', () => {
		const unknown = workflow.nodes
			.filter((node) => /trigger$|\.webhook$/i.test(node.type))
			.filter((node) => ![...PUBLIC_STARTS, ...OTHER_STARTS].includes(node.type))
			.map((node) => `${node.name} (${node.type})`);
		expect(unknown).toEqual([]);
	});

	it('no address, token URL or file path comes from the caller', () => {
		for (const node of workflow.nodes) {
			for (const name of DESTINATIONS[node.type] ?? []) {
				const value = String(node.parameters[name] ?? '');
				// A fixed value: no expression at all, so nothing a caller sends can reach it.
				expect({ node: node.name, name, value }).toEqual({
					node: node.name,
					name,
					value: expect.not.stringMatching(/^=|\{\{/),
				});
			}
		}
	});
});

describe('the AI Agent example', () => {
	const tools = examples.flatMap(({ workflow }) =>
		workflow.nodes.filter(
			(node) => node.type === 'n8n-nodes-ticket-marketplace.ticketMarketplaceTool',
		),
	);

	it('ships with both limits set and the currency fixed, not the model to choose', () => {
		expect(tools.length).toBeGreaterThan(0);
		for (const tool of tools) {
			const options = tool.parameters.options as Record<string, unknown>;
			expect({
				priceCurrency: tool.parameters.priceCurrency,
				minPriceCurrency: options.minPriceCurrency,
			}).toEqual({ priceCurrency: 'EUR', minPriceCurrency: 'EUR' });
			expect(options.minPricePerTicket).toEqual(expect.any(Number));
			expect(options.maxTicketsPerListing).toEqual(expect.any(Number));
		}
	});
});
