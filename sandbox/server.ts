/**
 * The marketplace sandbox: a local simulator of the Partner API (spec sections 2, 4, 5) that can also play the
 * marketplace's side of a sale (section 6). Node's own `http` only; binds 127.0.0.1 only.
 *
 * This file routes: it reads the body, logs the request, applies faults (requestFaults.ts) and hands the request to
 * its resource (partner/tokens, partner/refreshToken, partner/webhooks, partner/listings, partner/pdfs) or to the
 * admin API. State lives in the store (store.ts).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import { PARTNER_API_PATHS } from '../nodes/shared/partnerApi/paths';
import { handleAdmin, isAdminPath } from './admin';
import { admitLimits } from './admission';
import { ERROR_CODE, ID_PREFIX } from './choices';
import { parseFaultRule } from './faults';
import type { PartnerEndpoint } from './faults';
import { parseQuotaLimit, parseSpikeArrestLimit } from './gatewayLimits';
import { mediaType, parseJson, readBody, sendError } from './http';
import { parseInFlightLimit } from './inFlight';
import { handleListing } from './partner/listings';
import { handlePdfUpload, PDF_MAX_BODY_BYTES, PDF_PATH_PREFIX } from './partner/pdfs';
import { handleRefresh } from './partner/refreshToken';
import { expireTokens, revokeTokens } from './partner/tokenAdmin';
import { handleToken } from './partner/tokens';
import { activateSubscription, handleWebhook } from './partner/webhooks';
import { parsePerSecondLimit } from './perSecond';
import { newId } from './records';
import { redactHeaders, redactJson, redactQuery } from './redact';
import { applyFaults } from './requestFaults';
import { sell } from './sales';
import { deliverSampleSale } from './sampleSale';
import { SandboxStore } from './store';
import type { RequestLogEntry, Sandbox, SandboxOptions } from './types';

const PARTNER_ROUTES: Record<string, PartnerEndpoint> = {
	[PARTNER_API_PATHS.grant]: 'token',
	// The refresh endpoint belongs to the token resource: faults and limits on `token` apply to it too.
	[PARTNER_API_PATHS.refresh]: 'token',
	[PARTNER_API_PATHS.webhooks]: 'webhooks',
	[PARTNER_API_PATHS.listings]: 'listings',
};

function loggableBody(req: http.IncomingMessage, buffer: Buffer, tooLarge: boolean): unknown {
	if (tooLarge) return { unparsed: true, reason: 'too large' };
	if (buffer.length === 0) return undefined;
	const parsed = mediaType(req.headers['content-type']).endsWith('json')
		? parseJson(buffer)
		: undefined;
	// Bodies that are not JSON are not shown at all: they might carry a password the sandbox cannot find.
	return parsed?.ok ? redactJson(parsed.value) : { unparsed: true, bytes: buffer.length };
}

/**
 * Logs a Partner API request when its answer is handed over ('finish'), so a client that reads the state right after
 * its answer finds the request there; 'close' alone covers dropped connections. Returns the entry's fault list.
 */
function logWhenAnswered(
	store: SandboxStore,
	req: http.IncomingMessage,
	res: http.ServerResponse,
	url: URL,
	endpoint: PartnerEndpoint | null,
	body: unknown,
	started: number,
): string[] {
	const entry: RequestLogEntry = {
		id: newId(ID_PREFIX.request),
		at: new Date(started).toISOString(),
		endpoint,
		method: req.method ?? '',
		path: url.pathname,
		query: redactQuery(url.searchParams),
		headers: redactHeaders(req.headers),
		body,
		status: null,
		faults: [],
		durationMs: 0,
	};
	let logged = false;
	const log = () => {
		if (logged) return;
		logged = true;
		entry.status = res.writableFinished ? res.statusCode : null;
		entry.durationMs = Date.now() - started;
		store.logRequest(entry);
	};
	res.on('finish', log);
	res.on('close', log);
	return entry.faults;
}

async function handle(
	store: SandboxStore,
	req: http.IncomingMessage,
	res: http.ServerResponse,
): Promise<void> {
	const started = Date.now();
	const url = new URL(req.url ?? '/', 'http://127.0.0.1');
	const isPdf = url.pathname.startsWith(PDF_PATH_PREFIX);
	const read = await readBody(
		req,
		isPdf ? Math.max(store.maxBodyBytes, PDF_MAX_BODY_BYTES) : store.maxBodyBytes,
	);
	if (read.abandoned) {
		if (read.tooLarge) {
			sendError(
				res,
				413,
				ERROR_CODE.payloadTooLarge,
				`The body exceeds the limit of ${store.maxBodyBytes} bytes`,
				undefined,
				{ Connection: 'close' },
			);
			res.on('finish', () => req.destroy());
		} else req.destroy();
		return;
	}
	const isAdmin = isAdminPath(url.pathname);
	const endpoint = isPdf ? 'pdfs' : (PARTNER_ROUTES[url.pathname] ?? null);
	// Admin calls are not logged: the log shows what a Partner API client did.
	const appliedFaults = isAdmin
		? []
		: logWhenAnswered(
				store,
				req,
				res,
				url,
				endpoint,
				loggableBody(req, read.buffer, read.tooLarge),
				started,
			);
	if (read.tooLarge) {
		sendError(
			res,
			413,
			ERROR_CODE.payloadTooLarge,
			`The body exceeds the limit of ${store.maxBodyBytes} bytes`,
		);
		return;
	}
	if (isAdmin) return handleAdmin(store, req, res, url, read.buffer);
	if (!endpoint) {
		sendError(res, 404, ERROR_CODE.notFound, `No Partner API endpoint at ${url.pathname}`);
		return;
	}
	if (req.method !== 'POST') {
		sendError(
			res,
			405,
			ERROR_CODE.methodNotAllowed,
			`${req.method} is not allowed on ${url.pathname}; use POST`,
			undefined,
			{ Allow: 'POST' },
		);
		return;
	}

	if (!admitLimits(store, res, endpoint, appliedFaults)) return;
	const faulted = await applyFaults(store, req, res, endpoint, appliedFaults);
	if (!faulted) return;
	if (url.pathname === PARTNER_API_PATHS.refresh)
		handleRefresh(store, req, res, read.buffer, faulted.issue);
	else if (endpoint === 'token') handleToken(store, req, res, url, read.buffer, faulted.issue);
	else if (endpoint === 'webhooks') handleWebhook(store, req, res, read.buffer);
	else if (endpoint === 'pdfs') handlePdfUpload(store, req, res, url.pathname, read.buffer);
	else handleListing(store, req, res, read.buffer, faulted);
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const store = new SandboxStore(options);
	const sockets = new Set<Socket>();

	const server = http.createServer(
		{ requestTimeout: 30_000, headersTimeout: 10_000 },
		(req, res) => {
			handle(store, req, res).catch((error: unknown) => {
				// A bug in the sandbox must answer 500, not crash the process or hang the client.
				sendError(
					res,
					500,
					ERROR_CODE.serverError,
					`Sandbox internal error: ${error instanceof Error ? error.message : String(error)}`,
				);
			});
		},
	);
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	server.on('clientError', (_error, socket) => {
		if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
		else socket.destroy();
	});

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	const port = (server.address() as AddressInfo).port;
	store.url = `http://127.0.0.1:${port}`;

	return {
		url: store.url,
		port,
		state: () => store.state(),
		activateSubscription: (id) => activateSubscription(store, id),
		sell: (listingId, sellOptions) => sell(store, listingId, sellOptions),
		deliverSampleSale: (input) => deliverSampleSale(store, { ...input }),
		expireTokens: (selector) => expireTokens(store, selector),
		revokeTokens: (selector) => revokeTokens(store, selector),
		addFault: (rule) => store.faults.add(parseFaultRule(rule)),
		clearFaults: () => store.faults.clear(),
		reseedFaults: (newSeed) => store.faults.reseed(newSeed),
		configureDelivery: (settings) => store.configureDelivery(settings),
		limitInFlight: (limit) => store.inFlight.set(parseInFlightLimit(limit)),
		limitPerSecond: (limit) => store.perSecond.set(parsePerSecondLimit(limit)),
		limitQuota: (limit) => store.quota.set(parseQuotaLimit(limit)),
		limitSpikeArrest: (limit) => store.spikeArrest.set(parseSpikeArrestLimit(limit)),
		configureAnswers: (settings) => store.configureAnswers(settings),
		reset: () => store.reset(),
		registerApp: (app) => store.registerApp(app),
		registerAccount: (account) => store.registerAccount(account),
		async stop() {
			if (!store.stop()) return;
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			for (const socket of sockets) socket.destroy();
			await closed;
		},
	};
}
