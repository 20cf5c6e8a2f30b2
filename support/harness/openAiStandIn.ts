/**
 * A stand-in for an OpenAI-compatible chat model on loopback: just enough of the API (v1) for n8n's OpenAI Chat
 * Model node, under an AI Agent, to call our node as a tool. `POST /v1/chat/completions` follows a script of two
 * steps, the way a model would:
 *
 * 1. No tool result yet in the conversation: it answers with one call of the tool the request offers, its arguments
 *    read from the user's message, which names them as `key=value` pairs (`eventId=7001, price=49.90, ...`). Only
 *    the keys of the tool's own JSON schema are sent, each converted to the type the schema asks for; nothing is
 *    guessed, so a key the schema lacks is left out and n8n's own validation of the call decides.
 * 2. A tool result after the last user message: a final text that quotes the result, so a test can see that the
 *    tool's output went back to the model.
 *
 * `GET /v1/models` lists one model (the editor's model list and the credential test call it). It records every
 * request, so that a test can assert what tool schema n8n offered; the records are readable over HTTP
 * (`GET /_stand-in/requests`) because jest runs in another process than the harness.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';

import { listenOnLoopback } from './processes';
import { bearerMatches, readBody, sendJson } from './standInHttp';

/** The API key the harness stores in n8n's OpenAI credential; not a secret of anything real. */
export const OPENAI_STAND_IN_KEY = 'stand-in-openai-key-not-a-secret';
/** The one model the stand-in lists and answers as. */
export const OPENAI_STAND_IN_MODEL = 'stand-in-tool-caller';

/** What the stand-in answered to a request. */
export type OpenAiAnswer = 'toolCall' | 'finalText' | 'models' | 'refused';

export interface OpenAiRequest {
	method: string;
	path: string;
	/** Whether it carried the stand-in's API key as a Bearer token (the key itself is not recorded). */
	authorized: boolean;
	/** The JSON body as received (undefined for a request without one). */
	body: unknown;
	answer: OpenAiAnswer;
	/** For a refusal: why (also sent to n8n in OpenAI's error shape). */
	reason?: string;
	receivedAt: string;
}

export interface OpenAiStandIn {
	/** The base URL to store in n8n's OpenAI credential (`…/v1`). */
	baseUrl: string;
	/** The server itself (where `/_stand-in/requests` is). */
	url: string;
	requests(): OpenAiRequest[];
	stop(): Promise<void>;
}

/** One entry of a chat completion request's `tools` (OpenAI's function tool). */
export interface OfferedTool {
	type: string;
	function?: {
		name?: string;
		description?: string;
		parameters?: { type?: string; properties?: Record<string, JsonSchema>; required?: string[] };
	};
}

interface JsonSchema {
	type?: string | string[];
	anyOf?: JsonSchema[];
	description?: string;
}

interface ChatMessage {
	role?: string;
	content?: unknown;
	tool_call_id?: string;
	tool_calls?: Array<{ id?: string; function?: { name?: string } }>;
}

interface CompletionRequest {
	model?: unknown;
	messages?: unknown;
	tools?: unknown;
	stream?: unknown;
}

const MAX_BODY = 1024 * 1024;

/** OpenAI's error shape; n8n shows `error.message`. */
function openAiError(message: string, type = 'invalid_request_error') {
	return { error: { message, type, param: null, code: null } };
}

/** A message's text: a string, or the text parts of a content array. */
function textOf(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content))
		return content
			.map((part) =>
				part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string'
					? (part as { text: string }).text
					: '',
			)
			.join('\n');
	return '';
}

/** The `key=value` pairs of a message (a value may be quoted; a trailing full stop is not part of it). */
export function namedValues(message: string): Map<string, string> {
	const values = new Map<string, string>();
	for (const match of message.matchAll(/([A-Za-z][A-Za-z0-9_-]*)=("([^"]*)"|[^\s,;]+)/g)) {
		values.set(match[1], match[3] ?? match[2].replace(/\.$/, ''));
	}
	return values;
}

function schemaTypes(schema: JsonSchema): string[] {
	if (schema.anyOf) return schema.anyOf.flatMap(schemaTypes);
	if (Array.isArray(schema.type)) return schema.type;
	return schema.type ? [schema.type] : [];
}

/** A value from the message in the type the tool's schema asks for; left as text when it does not convert. */
function asSchemaType(text: string, schema: JsonSchema): unknown {
	const types = schemaTypes(schema);
	if (types.includes('number') || types.includes('integer')) {
		const number = Number(text);
		if (text.trim() !== '' && Number.isFinite(number)) return number;
	}
	if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
	if (types.includes('object') || types.includes('array')) {
		try {
			return JSON.parse(text) as unknown;
		} catch {
			// Not JSON: sent as typed, n8n's validation of the call decides.
		}
	}
	return text;
}

type ScriptStep =
	| { kind: 'toolCall'; name: string; arguments: Record<string, unknown> }
	| { kind: 'finalText'; text: string }
	| { kind: 'refused'; reason: string };

/** The script: a tool call for the last user message, then a final text once the tool's result is there. */
export function nextStep(body: CompletionRequest): ScriptStep {
	if (!Array.isArray(body.messages))
		return { kind: 'refused', reason: 'messages must be an array' };
	const messages = body.messages as ChatMessage[];
	const lastUser = messages.map((message) => message.role).lastIndexOf('user');
	if (lastUser < 0) return { kind: 'refused', reason: 'the conversation has no user message' };
	const toolResults = messages.slice(lastUser + 1).filter((message) => message.role === 'tool');
	if (toolResults.length > 0) {
		const calledNames = new Map(
			messages
				.flatMap((message) => message.tool_calls ?? [])
				.map((call) => [call.id, call.function?.name] as const),
		);
		const quoted = toolResults
			.map(
				(result) =>
					`${calledNames.get(result.tool_call_id) ?? 'the tool'} answered: ${textOf(result.content)}`,
			)
			.join('\n');
		return { kind: 'finalText', text: `Done. ${quoted}` };
	}
	const given = namedValues(textOf(messages[lastUser].content));
	const tools = (Array.isArray(body.tools) ? (body.tools as OfferedTool[]) : []).filter(
		(tool) => tool.type === 'function' && typeof tool.function?.name === 'string',
	);
	// The tool whose parameters the message names most; none named, or a tie, is refused rather than guessed.
	const scored = tools
		.map((tool) => {
			const properties = tool.function?.parameters?.properties ?? {};
			return { tool, properties, named: Object.keys(properties).filter((key) => given.has(key)) };
		})
		.sort((a, b) => b.named.length - a.named.length);
	if (scored.length === 0 || scored[0].named.length === 0)
		return {
			kind: 'refused',
			reason: `no offered tool takes any of the values the message names (${[...given.keys()].join(', ') || 'none'}); tools offered: ${tools.map((tool) => tool.function?.name).join(', ') || 'none'}`,
		};
	if (scored.length > 1 && scored[1].named.length === scored[0].named.length)
		return {
			kind: 'refused',
			reason: `the message fits the tools ${scored[0].tool.function?.name} and ${scored[1].tool.function?.name} equally`,
		};
	const { tool, properties, named } = scored[0];
	return {
		kind: 'toolCall',
		name: tool.function?.name as string,
		arguments: Object.fromEntries(
			named.map((key) => [key, asSchemaType(given.get(key) as string, properties[key])]),
		),
	};
}

function completion(model: string, message: Record<string, unknown>, finishReason: string) {
	return {
		id: `chatcmpl-${randomUUID()}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model,
		choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
		usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
	};
}

/** The same answer as server-sent events, for a client that asks for `stream: true`. */
function sendStream(
	response: ServerResponse,
	model: string,
	delta: Record<string, unknown>,
	finishReason: string,
): void {
	const id = `chatcmpl-${randomUUID()}`;
	const created = Math.floor(Date.now() / 1000);
	const chunk = (choiceDelta: Record<string, unknown>, finish: string | null) =>
		`data: ${JSON.stringify({
			id,
			object: 'chat.completion.chunk',
			created,
			model,
			choices: [{ index: 0, delta: choiceDelta, logprobs: null, finish_reason: finish }],
		})}\n\n`;
	response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	response.write(chunk({ role: 'assistant', ...delta }, null));
	response.write(chunk({}, finishReason));
	response.end('data: [DONE]\n\n');
}

export async function startOpenAiStandIn(): Promise<OpenAiStandIn> {
	const requests: OpenAiRequest[] = [];
	const server = createServer((request, response) => {
		void (async () => {
			const path = (request.url ?? '').split('?')[0];
			const method = request.method ?? 'GET';
			if (method === 'GET' && path === '/_stand-in/requests')
				return sendJson(response, 200, requests);
			const text = await readBody(request, MAX_BODY);
			let body: unknown;
			try {
				body = text === '' ? undefined : (JSON.parse(text) as unknown);
			} catch {
				body = text;
			}
			const record = (answer: OpenAiAnswer, reason?: string) =>
				requests.push({
					method,
					path,
					authorized: bearerMatches(request.headers.authorization, OPENAI_STAND_IN_KEY),
					body,
					answer,
					...(reason === undefined ? {} : { reason }),
					receivedAt: new Date().toISOString(),
				});
			const refuse = (status: number, reason: string, type?: string) => {
				record('refused', reason);
				sendJson(response, status, openAiError(reason, type));
			};
			if (!bearerMatches(request.headers.authorization, OPENAI_STAND_IN_KEY))
				return refuse(401, 'Incorrect API key provided (stand-in)', 'invalid_api_key');
			if (method === 'GET' && path === '/v1/models') {
				record('models');
				return sendJson(response, 200, {
					object: 'list',
					data: [{ id: OPENAI_STAND_IN_MODEL, object: 'model', created: 0, owned_by: 'stand-in' }],
				});
			}
			if (method !== 'POST' || path !== '/v1/chat/completions')
				return refuse(
					404,
					`the stand-in answers POST /v1/chat/completions and GET /v1/models only, not ${method} ${path} (turn off "Use Responses API" in the OpenAI Chat Model node)`,
				);
			if (!body || typeof body !== 'object') return refuse(400, 'the body must be a JSON object');
			const completionRequest = body as CompletionRequest;
			const model =
				typeof completionRequest.model === 'string'
					? completionRequest.model
					: OPENAI_STAND_IN_MODEL;
			const step = nextStep(completionRequest);
			if (step.kind === 'refused') return refuse(400, step.reason);
			record(step.kind);
			const message =
				step.kind === 'toolCall'
					? {
							role: 'assistant',
							content: null,
							tool_calls: [
								{
									id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
									type: 'function',
									function: { name: step.name, arguments: JSON.stringify(step.arguments) },
								},
							],
						}
					: { role: 'assistant', content: step.text };
			const finishReason = step.kind === 'toolCall' ? 'tool_calls' : 'stop';
			if (completionRequest.stream === true) {
				const delta =
					step.kind === 'toolCall'
						? {
								tool_calls: (message.tool_calls as Array<Record<string, unknown>>).map(
									(call, index) => ({ index, ...call }),
								),
							}
						: { content: message.content };
				return sendStream(response, model, delta, finishReason);
			}
			return sendJson(response, 200, completion(model, message, finishReason));
		})().catch(() => sendJson(response, 400, openAiError('bad request')));
	});
	const { url } = await listenOnLoopback(server);
	return {
		baseUrl: `${url}/v1`,
		url,
		requests: () => [...requests],
		stop: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** The client side, for a test process: every request the stand-in received so far. */
export async function receivedOpenAiRequests(standInUrl: string): Promise<OpenAiRequest[]> {
	const response = await fetch(`${standInUrl}/_stand-in/requests`, {
		signal: AbortSignal.timeout(10_000),
	});
	return (await response.json()) as OpenAiRequest[];
}
