/**
 * n8n's AI Agent uses the Ticket Marketplace node as a tool (`usableAsTool`), in the real n8n: the example
 * workflow (Chat Trigger → AI Agent with the OpenAI Chat Model and our node as a tool) runs against the
 * OpenAI-compatible stand-in, whose scripted model calls the tool with the values the chat message names. Asserted
 * on both sides: the tool schema n8n offered the model (read from the stand-in's records), the exact listing the
 * sandbox received, and the agent's answer in the chat.
 */
import type { RequestLogEntry, SandboxState } from '../../sandbox/index';
import { LISTING_ASSISTANT_CHAT_LOGIN } from '../../support/harness/harness';
import {
	receivedOpenAiRequests,
	type OfferedTool,
	type OpenAiRequest,
} from '../../support/harness/openAiStandIn';
import { nodeByType } from '../../support/harness/workflows';
import {
	describeOnN8n2,
	nextListingId,
	postJson,
	useE2e,
	waitForExecutions,
	type E2e,
} from '../../support/e2e/helpers';
import { suiteWorkflows } from '../../support/e2e/workflows';
import { listingBody } from '../../support/listingBody';
import { PARTNER_API_PATHS } from '../../nodes/shared/partnerApi/paths';

const e2e = useE2e();
const workflow = suiteWorkflows().aiAgent;
const TOOL_NODE_TYPE = 'n8n-nodes-ticket-marketplace.ticketMarketplaceTool';
const toolNode = nodeByType(workflow, TOOL_NODE_TYPE);

/** The `$fromAI()` keys of the tool node, with their descriptions and types, as the example file writes them. */
function fromAiArguments(): Map<string, { description: string; type: string }> {
	const found = new Map<string, { description: string; type: string }>();
	const text = JSON.stringify(toolNode.parameters);
	for (const match of text.matchAll(/\$fromAI\('([^']+)', '([^']+)', '([^']+)'\)/g))
		found.set(match[1], { description: match[2], type: match[3] });
	return found;
}

/**
 * One listing of one ticket, as the chat asks for it. Its events (71xx) are this file's own: the sandbox, shared by
 * every e2e file, refuses a seat that an earlier listing of the event holds, and the scenarios list 7001's seats.
 */
interface Listing {
	eventId: number;
	externalListingId: number;
	price: string;
	currency: string;
	ticketId: string;
	row: string;
	seat: string;
}

/** What a seller types: the values as `key=value`, the way the stand-in's model reads them. */
function chatMessage(listing: Listing): string {
	return `Please put this ticket on sale: eventId=${listing.eventId}, externalListingId=${listing.externalListingId}, price=${listing.price}, currency=${listing.currency}, ticketId=${listing.ticketId}, row=${listing.row}, seat=${listing.seat}`;
}

/** Spec 2.4's body for one listing of one ticket (the node's default stock and payment types). */
function expectedBody(listing: Listing) {
	return listingBody({
		eventId: listing.eventId,
		amount: Number(listing.price),
		currency: listing.currency,
		externalListingId: listing.externalListingId,
		products: [{ externalId: listing.ticketId, row: listing.row, seat: listing.seat }],
	});
}

function listingRequests(state: SandboxState): RequestLogEntry[] {
	return state.requests.filter((request) => request.endpoint === 'listings');
}

/** Sends one chat message to the workflow's public chat (Basic Auth), as the hosted chat page does. */
async function chat(harness: E2e, message: string, sessionId: string) {
	const { user, password } = LISTING_ASSISTANT_CHAT_LOGIN;
	return await postJson(
		`${harness.context.n8nUrl}/webhook/${toolChatWebhookId()}/chat`,
		{ action: 'sendMessage', sessionId, chatInput: message },
		{ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
	);
}

function toolChatWebhookId(): string {
	const trigger = nodeByType(workflow, '@n8n/n8n-nodes-langchain.chatTrigger');
	if (!trigger.webhookId) throw new Error('the chat trigger of the AI example has no webhookId');
	return trigger.webhookId;
}

/** One chat message's round: what the sandbox and the model stand-in received meanwhile, and the chat's answer. */
async function chatRound(harness: E2e, message: string, sessionId: string) {
	const sandboxBefore = listingRequests(await harness.sandbox.state()).length;
	const modelBefore = (await receivedOpenAiRequests(harness.context.openAiUrl)).length;
	const executionsBefore = (await harness.n8n.executions(workflow.id)).length;
	const answer = await chat(harness, message, sessionId);
	const sandboxState = await harness.sandbox.state();
	const [execution] = await waitForExecutions(harness, workflow.id, executionsBefore + 1);
	return {
		answer,
		execution,
		sandboxState,
		listingRequests: listingRequests(sandboxState).slice(sandboxBefore),
		modelRequests: (await receivedOpenAiRequests(harness.context.openAiUrl)).slice(modelBefore),
	};
}

function offeredTools(request: OpenAiRequest): OfferedTool[] {
	return ((request.body as { tools?: OfferedTool[] }).tools ?? []).filter(
		(tool) => tool.type === 'function',
	);
}

function messagesOf(
	request: OpenAiRequest,
): Array<{ role: string; content?: unknown; tool_calls?: unknown[] }> {
	return (request.body as { messages: Array<{ role: string; content?: unknown }> }).messages;
}

function answerText(body: unknown): string {
	return typeof body === 'object' && body !== null && 'output' in body
		? String((body as { output: unknown }).output)
		: JSON.stringify(body);
}

describeOnN8n2(
	'an AI Agent creates a listing with the Ticket Marketplace node as its tool',
	'the AI example uses AI Agent 3.1 and Chat Trigger 1.4',
	() => {
		it('n8n offers the node as a tool whose parameters are exactly the $fromAI() fields, with their descriptions', async () => {
			const harness = e2e();
			const listing: Listing = {
				eventId: 7101,
				externalListingId: nextListingId(7000),
				price: '49.90',
				currency: 'EUR',
				ticketId: '7101-A-12',
				row: 'A',
				seat: '12',
			};
			const round = await chatRound(harness, chatMessage(listing), 'ai-agent-schema');

			expect(round.modelRequests.map((request) => [request.path, request.answer])).toEqual([
				['/v1/chat/completions', 'toolCall'],
				['/v1/chat/completions', 'finalText'],
			]);
			expect(round.modelRequests.every((request) => request.authorized)).toBe(true);
			const tools = offeredTools(round.modelRequests[0]);
			expect(tools.map((tool) => tool.function?.name)).toEqual(['Create_listing']);
			const offered = tools[0].function;
			expect(offered?.description).toBe(toolNode.parameters.toolDescription);
			const expected = fromAiArguments();
			expect([...expected.keys()].sort()).toEqual(
				// The currency is fixed in the example, not the model's to choose.
				['eventId', 'externalListingId', 'price', 'row', 'seat', 'ticketId'].sort(),
			);
			expect(offered?.parameters?.type).toBe('object');
			expect(Object.keys(offered?.parameters?.properties ?? {}).sort()).toEqual(
				[...expected.keys()].sort(),
			);
			expect([...(offered?.parameters?.required ?? [])].sort()).toEqual(
				[...expected.keys()].sort(),
			);
			for (const [key, { description, type }] of expected)
				expect({ key, ...offered?.parameters?.properties?.[key] }).toMatchObject({
					key,
					type,
					description,
				});
		});

		it('the agent creates exactly the listing the chat asked for, and its answer comes back in the chat', async () => {
			const harness = e2e();
			const listing: Listing = {
				eventId: 7102,
				externalListingId: nextListingId(7000),
				price: '129.50',
				currency: 'EUR',
				ticketId: '7102-C-4',
				row: 'C',
				seat: '4',
			};
			const round = await chatRound(harness, chatMessage(listing), 'ai-agent-create');

			// The sandbox: exactly one listing request, exactly spec 2.4's body for the values in the message.
			expect(round.listingRequests).toHaveLength(1);
			const [sent] = round.listingRequests;
			expect(sent).toMatchObject({
				method: 'POST',
				path: PARTNER_API_PATHS.listings,
				status: 200,
			});
			expect(sent.body).toEqual(expectedBody(listing));
			const created = round.sandboxState.listings.filter(
				(candidate) => Number(candidate.externalListingId) === listing.externalListingId,
			);
			expect(created.map((candidate) => candidate.body)).toEqual([expectedBody(listing)]);

			// The model: the tool's result (our node's output, with the marketplace's id) went back to it.
			const [, second] = round.modelRequests;
			const toolResults = messagesOf(second).filter((message) => message.role === 'tool');
			expect(toolResults).toHaveLength(1);
			expect(JSON.stringify(toolResults[0].content)).toContain(created[0].id);

			// The chat: the agent's final answer, quoting the listing the marketplace created.
			expect(round.answer.status).toBe(200);
			const text = answerText(round.answer.body);
			expect(text).toMatch(/^Done\. Create_listing answered: /);
			expect(text).toContain(created[0].id);
			expect(round.execution.status).toBe('success');
		});

		it('a value the node refuses (price 0): nothing is sent, and the refusal goes back to the model and the chat', async () => {
			const harness = e2e();
			const listing: Listing = {
				eventId: 7103,
				externalListingId: nextListingId(7000),
				price: '0',
				currency: 'EUR',
				ticketId: '7103-B-1',
				row: 'B',
				seat: '1',
			};
			const round = await chatRound(harness, chatMessage(listing), 'ai-agent-refused');

			expect(round.listingRequests).toEqual([]);
			expect(round.modelRequests.map((request) => request.answer)).toEqual([
				'toolCall',
				'finalText',
			]);
			const toolResults = messagesOf(round.modelRequests[1]).filter(
				(message) => message.role === 'tool',
			);
			expect(toolResults).toHaveLength(1);
			expect(JSON.stringify(toolResults[0].content)).toMatch(/Price Amount/);
			expect(round.answer.status).toBe(200);
			expect(answerText(round.answer.body)).toMatch(/Price Amount/);
			// The example's tool node continues on error, so a refusal is an answer to the model, not a failed run.
			expect(round.execution.status).toBe('success');
		});
	},
);
