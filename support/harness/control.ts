/**
 * Lets e2e tests, which jest runs in another process, stop and start the harness's n8n (for outage tests): a small
 * HTTP server on loopback, `POST /n8n/stop` and `POST /n8n/start`, each answering once the step is done.
 */
import { createServer } from 'node:http';

import type { Harness } from './harness';
import { listenOnLoopback } from './processes';

export interface HarnessControl {
	url: string;
	stop(): Promise<void>;
}

export async function serveHarnessControl(
	harness: Pick<Harness, 'stopN8n' | 'startN8n'>,
): Promise<HarnessControl> {
	const actions: Record<string, () => Promise<void>> = {
		'/n8n/stop': () => harness.stopN8n(),
		'/n8n/start': () => harness.startN8n(),
	};
	// One step at a time: a start must not overlap a stop.
	let queue: Promise<unknown> = Promise.resolve();
	const server = createServer((request, response) => {
		const action = request.method === 'POST' ? actions[request.url ?? ''] : undefined;
		if (!action) {
			response.writeHead(404).end();
			return;
		}
		const run = queue.then(action);
		queue = run.catch(() => undefined);
		run.then(
			() => response.writeHead(204).end(),
			(error: unknown) =>
				response
					.writeHead(500, { 'content-type': 'text/plain' })
					.end(error instanceof Error ? error.message : String(error)),
		);
	});
	const { url } = await listenOnLoopback(server);
	return {
		url,
		stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** The client side, for the test process. */
export async function callHarnessControl(
	controlUrl: string,
	action: 'stop' | 'start',
): Promise<void> {
	const response = await fetch(`${controlUrl}/n8n/${action}`, {
		method: 'POST',
		signal: AbortSignal.timeout(240_000),
	});
	if (response.status !== 204)
		throw new Error(
			`harness control ${action} failed: ${response.status} ${await response.text()}`,
		);
}
