/**
 * A stand-in for a self-hosted Mattermost server on loopback: just enough of its HTTP API (v4) for n8n's own
 * Mattermost node to post a message (`POST /api/v4/posts` with a Bearer token) and for the editor to list channels.
 * It records what it received, so that the demo can print the alert and the tests can assert on it; the records
 * are readable over HTTP (`GET /_stand-in/posts`) because jest runs in another process than the harness.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

import { listenOnLoopback } from './processes';
import { bearerMatches, readBody, sendJson } from './standInHttp';

/** The token the harness stores in n8n's Mattermost credential; not a secret of anything real. */
export const CHAT_STAND_IN_TOKEN = 'stand-in-mattermost-token-not-a-secret';
export const CHAT_CHANNEL_ID = 'ticket-sales';

export interface ChatPost {
	id: string;
	channelId: string;
	message: string;
	receivedAt: string;
}

export interface ChatStandIn {
	url: string;
	posts(): ChatPost[];
	stop(): Promise<void>;
}

const MAX_BODY = 256 * 1024;

export async function startChatStandIn(): Promise<ChatStandIn> {
	const posts: ChatPost[] = [];
	// The chat being down: the next `failing` posts are answered 503, as Mattermost behind a restarting proxy is.
	let failing = 0;
	const server = createServer((request, response) => {
		void (async () => {
			const path = (request.url ?? '').split('?')[0];
			if (request.method === 'GET' && path === '/_stand-in/posts')
				return sendJson(response, 200, posts);
			if (request.method === 'POST' && path === '/_stand-in/outage') {
				const { posts: count } = JSON.parse(await readBody(request, MAX_BODY)) as {
					posts?: unknown;
				};
				failing = typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : 0;
				return sendJson(response, 200, { failing });
			}
			if (!path.startsWith('/api/v4/')) return sendJson(response, 404, { message: 'not found' });
			if (!bearerMatches(request.headers.authorization, CHAT_STAND_IN_TOKEN)) {
				return sendJson(response, 401, {
					id: 'api.context.session_expired.app_error',
					message: 'Invalid or expired session',
					status_code: 401,
				});
			}
			if (request.method === 'POST' && path === '/api/v4/posts') {
				if (failing > 0) {
					failing--;
					return sendJson(response, 503, {
						message: 'Mattermost is unavailable (stand-in outage)',
						status_code: 503,
					});
				}
				const body = JSON.parse(await readBody(request, MAX_BODY)) as {
					channel_id?: unknown;
					message?: unknown;
				};
				if (
					typeof body.channel_id !== 'string' ||
					typeof body.message !== 'string' ||
					body.message === ''
				) {
					return sendJson(response, 400, {
						message: 'channel_id and message are required',
						status_code: 400,
					});
				}
				const post: ChatPost = {
					id: randomUUID().replace(/-/g, '').slice(0, 26),
					channelId: body.channel_id,
					message: body.message,
					receivedAt: new Date().toISOString(),
				};
				posts.push(post);
				return sendJson(response, 201, {
					id: post.id,
					channel_id: post.channelId,
					message: post.message,
					create_at: Date.now(),
				});
			}
			// What the editor asks while a user picks a channel (teams, then channels): one team, one channel.
			if (request.method === 'GET' && /\/teams$/.test(path))
				return sendJson(response, 200, [{ id: 'sales-team', display_name: 'Sales' }]);
			if (request.method === 'GET' && /\/channels$/.test(path)) {
				return sendJson(response, 200, [
					{ id: CHAT_CHANNEL_ID, name: CHAT_CHANNEL_ID, display_name: 'Ticket sales', type: 'O' },
				]);
			}
			return sendJson(response, 200, []);
		})().catch(() => sendJson(response, 400, { message: 'bad request' }));
	});
	const { url } = await listenOnLoopback(server);
	return {
		url,
		posts: () => [...posts],
		stop: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** The client side, for a test process: the next `posts` posts fail with 503. */
export async function failNextChatPosts(chatUrl: string, posts: number): Promise<void> {
	await fetch(`${chatUrl}/_stand-in/outage`, {
		method: 'POST',
		body: JSON.stringify({ posts }),
		signal: AbortSignal.timeout(10_000),
	});
}

/** The client side, for a test process: what the stand-in received so far. */
export async function receivedChatPosts(chatUrl: string): Promise<ChatPost[]> {
	const response = await fetch(`${chatUrl}/_stand-in/posts`, {
		signal: AbortSignal.timeout(10_000),
	});
	return (await response.json()) as ChatPost[];
}
