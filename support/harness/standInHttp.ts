/** The HTTP plumbing of the harness's loopback stand-ins (the chat server and the OpenAI-compatible model). */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A request's body as text; throws once it grows past `maxBytes`. */
export async function readBody(request: IncomingMessage, maxBytes: number): Promise<string> {
	let size = 0;
	const chunks: Buffer[] = [];
	for await (const chunk of request) {
		size += (chunk as Buffer).length;
		if (size > maxBytes) throw new Error('body too large');
		chunks.push(chunk as Buffer);
	}
	return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
	response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Whether an Authorization header is exactly `Bearer <token>`, compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
	const expected = Buffer.from(`Bearer ${token}`);
	const given = Buffer.from(header ?? '');
	return given.length === expected.length && timingSafeEqual(given, expected);
}
