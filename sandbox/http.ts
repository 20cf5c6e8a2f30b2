/** HTTP plumbing the sandbox's routes share: reading a bounded body, JSON and error answers, Content-Type checks. */
import type http from 'node:http';

import { ERROR_CODE } from './choices';
import type { Problem } from './validation';

export interface BodyRead {
	buffer: Buffer;
	tooLarge: boolean;
	/** The client went away or sent far more than the limit; nothing more to do with this request. */
	abandoned: boolean;
}

/** A body this many times over the limit is cut off instead of drained, so a flood cannot tie the server up. */
const DRAIN_FACTOR = 16;

export function mediaType(header: string | undefined): string {
	return (header ?? '').split(';')[0].trim().toLowerCase();
}

export function parseJson(
	buffer: Buffer,
): { ok: true; value: unknown } | { ok: false; message: string } {
	const text = buffer.toString('utf8');
	if (text.trim() === '')
		return { ok: false, message: 'The body is empty; a JSON object is expected' };
	try {
		return { ok: true, value: JSON.parse(text) };
	} catch (error) {
		return { ok: false, message: `The body is not valid JSON: ${(error as Error).message}` };
	}
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads the body up to `maxBodyBytes`; past that it only counts, and past DRAIN_FACTOR times the limit it gives up. */
export function readBody(req: http.IncomingMessage, maxBodyBytes: number): Promise<BodyRead> {
	return new Promise((resolve) => {
		const chunks: Buffer[] = [];
		let bytes = 0;
		let done = false;
		const finish = (result: BodyRead) => {
			if (!done) {
				done = true;
				resolve(result);
			}
		};
		req.on('data', (chunk: Buffer) => {
			bytes += chunk.length;
			if (bytes <= maxBodyBytes) chunks.push(chunk);
			else if (bytes > maxBodyBytes * DRAIN_FACTOR)
				finish({ buffer: Buffer.alloc(0), tooLarge: true, abandoned: true });
		});
		req.on('end', () =>
			finish({ buffer: Buffer.concat(chunks), tooLarge: bytes > maxBodyBytes, abandoned: false }),
		);
		req.on('error', () => finish({ buffer: Buffer.alloc(0), tooLarge: false, abandoned: true }));
		req.on('close', () =>
			finish({
				buffer: Buffer.concat(chunks),
				tooLarge: bytes > maxBodyBytes,
				abandoned: !req.complete,
			}),
		);
	});
}

export function sendJson(
	res: http.ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	if (res.headersSent || res.destroyed) return;
	const text = JSON.stringify(body);
	res.writeHead(status, {
		'Content-Type': 'application/json; charset=utf-8',
		'Content-Length': Buffer.byteLength(text).toString(),
		...headers,
	});
	res.end(text);
}

/** The error body shape of every non-token 4xx/5xx (a sandbox choice). */
export function sendError(
	res: http.ServerResponse,
	status: number,
	error: string,
	message: string,
	details?: Problem[],
	headers: Record<string, string> = {},
): void {
	sendJson(
		res,
		status,
		details && details.length > 0 ? { error, message, details } : { error, message },
		headers,
	);
}

/** OAuth's error body (RFC 6749 5.2) for the token endpoint. */
export function sendOAuthError(
	res: http.ServerResponse,
	status: number,
	error: string,
	description: string,
	headers: Record<string, string> = {},
): void {
	sendJson(
		res,
		status,
		{ error, error_description: description },
		{ 'Cache-Control': 'no-store', Pragma: 'no-cache', ...headers },
	);
}

/** Answers 415 unless the body is declared JSON; returns whether it is. */
export function requireJsonContentType(
	req: http.IncomingMessage,
	res: http.ServerResponse,
): boolean {
	if (mediaType(req.headers['content-type']) === 'application/json') return true;
	sendError(
		res,
		415,
		ERROR_CODE.unsupportedMediaType,
		`Content-Type must be application/json, got ${req.headers['content-type'] ? `"${req.headers['content-type']}"` : 'none'}`,
	);
	return false;
}

/** Content-Type and JSON checks shared by the Bearer endpoints; answers the error itself and returns undefined. */
export function jsonBody(
	req: http.IncomingMessage,
	res: http.ServerResponse,
	buffer: Buffer,
): { value: unknown } | undefined {
	if (!requireJsonContentType(req, res)) return undefined;
	const parsed = parseJson(buffer);
	if (!parsed.ok) {
		sendError(res, 400, ERROR_CODE.malformedJson, parsed.message);
		return undefined;
	}
	return { value: parsed.value };
}
