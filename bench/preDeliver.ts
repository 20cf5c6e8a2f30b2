/**
 * `npx tsx bench/preDeliver.ts [--listings 200] [--files 4] [--kb 300] [--small 50] [--repeat 1]`: Listing → Pre-deliver Tickets
 * against the same upload built by hand with n8n's HTTP Request node (multipart body, one request per file), in one
 * real n8n (the e2e harness, binary data on the filesystem). Each case: a webhook call with one entry per ticket,
 * Split Out, Read/Write Files from Disk, then the upload; the wall time of the call, and n8n's peak RSS sampled
 * during it (main process and task runner together). Pre-deliver runs twice, with `--small` listings and with
 * `--listings`, so that its peak can be compared as the number of files grows. Separate from `npm run bench`.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { PARTNER_API_PATHS } from '../nodes/shared/partnerApi/paths';
import { SANDBOX_DEFAULTS } from '../sandbox/index';
import { postJson } from '../support/e2e/helpers';
import { ACTION_NODE_TYPE } from '../support/e2e/workflows';
import { startHarness } from '../support/harness/harness';
import { CREDENTIAL_IDS, type WorkflowJson, type WorkflowNode } from '../support/harness/workflows';
import { listingBody } from '../support/listingBody';

const arg = (name: string, fallback: number) => {
	const index = process.argv.indexOf(`--${name}`);
	return index === -1 ? fallback : Number(process.argv[index + 1]);
};
const LISTINGS = arg('listings', 200);
const FILES = arg('files', 4);
const KB = arg('kb', 300);
const SMALL = arg('small', 50);
const REPEAT = arg('repeat', 1);

function workflow(id: string, upload: WorkflowNode): WorkflowJson {
	const at = (x: number) => [x, 0] as [number, number];
	const nodes: WorkflowNode[] = [
		{
			id: `${id}-1`,
			name: 'Run over HTTP',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2.1,
			position: at(0),
			webhookId: `${id}-webhook`,
			parameters: {
				httpMethod: 'POST',
				path: `bench/${id}`,
				authentication: 'headerAuth',
				responseMode: 'lastNode',
				responseData: 'firstEntryJson',
				options: {},
			},
			credentials: { httpHeaderAuth: { ...CREDENTIAL_IDS.webhookKey } },
		},
		{
			id: `${id}-2`,
			name: 'Tickets',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: at(220),
			parameters: { fieldToSplitOut: 'body.tickets', options: {} },
		},
		{
			id: `${id}-3`,
			name: 'Read ticket PDF',
			type: 'n8n-nodes-base.readWriteFile',
			typeVersion: 1.1,
			position: at(440),
			parameters: { operation: 'read', fileSelector: '={{ $json.file }}', options: {} },
		},
		{ ...upload, id: `${id}-4`, position: at(660) },
	];
	const to = (target: string) => ({ main: [[{ node: target, type: 'main', index: 0 }]] });
	return {
		id,
		name: `Bench: ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes,
		connections: {
			'Run over HTTP': to('Tickets'),
			Tickets: to('Read ticket PDF'),
			'Read ticket PDF': to(upload.name),
		},
	};
}

const ticket = (field: string) => `={{ $('Tickets').item.json.${field} }}`;
const PRE_DELIVER = workflow('tmBenchPreDeliver', {
	id: '',
	name: 'Pre-deliver tickets',
	type: ACTION_NODE_TYPE,
	typeVersion: 1.1,
	position: [0, 0],
	parameters: {
		resource: 'listing',
		operation: 'preDeliver',
		binaryPropertyName: 'data',
		listingId: ticket('listingId'),
		row: ticket('row'),
		seat: ticket('seat'),
		options: { skipAlreadySent: false },
	},
	credentials: { ticketMarketplaceApi: { ...CREDENTIAL_IDS.api } },
});
/** What a user builds by hand: one multipart request per ticket, its PDF as the part the `listing` JSON names. */
const BY_HAND = workflow('tmBenchByHand', {
	id: '',
	name: 'HTTP Request',
	type: 'n8n-nodes-base.httpRequest',
	typeVersion: 4.2,
	position: [0, 0],
	parameters: {
		method: 'POST',
		url: `={{ 'https://api.example.com${PARTNER_API_PATHS.preDeliver}/' + $('Tickets').item.json.listingId }}`,
		authentication: 'predefinedCredentialType',
		nodeCredentialType: 'ticketMarketplaceApi',
		sendBody: true,
		contentType: 'multipart-form-data',
		bodyParameters: {
			parameters: [
				{
					name: 'listing',
					value: `={{ JSON.stringify({ products: [{ row: $('Tickets').item.json.row, seat: $('Tickets').item.json.seat, name: 'file1.pdf' }] }) }}`,
				},
				{ parameterType: 'formBinaryData', name: 'file1.pdf', inputDataFieldName: 'data' },
			],
		},
		options: {},
	},
	credentials: { ticketMarketplaceApi: { ...CREDENTIAL_IDS.api } },
});

/** n8n's processes (those started with this user folder) and their resident memory, in MB. */
function n8nRssMb(userFolder: string): number {
	let kb = 0;
	for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
		try {
			const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
			if (!environ.includes(`N8N_USER_FOLDER=${userFolder}\0`)) continue;
			const rss = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
			kb += rss ? Number(rss[1]) : 0;
		} catch {
			// A process that ended, or one of another user.
		}
	}
	return kb / 1024;
}

async function createListings(baseUrl: string, count: number, firstId: number): Promise<string[]> {
	const basic = Buffer.from(`${SANDBOX_DEFAULTS.consumerKey}:${SANDBOX_DEFAULTS.consumerSecret}`);
	const grant = await fetch(`${baseUrl}${PARTNER_API_PATHS.grant}?grant_type=client_credentials`, {
		method: 'POST',
		headers: {
			Authorization: `Basic ${basic.toString('base64')}`,
			'Content-Type': 'application/json',
		},
		body: JSON.stringify({
			username: SANDBOX_DEFAULTS.marketplaceAccount.email,
			password: SANDBOX_DEFAULTS.marketplaceAccount.password,
		}),
	});
	const { access_token: token } = (await grant.json()) as { access_token: string };
	const ids: string[] = [];
	for (let n = 0; n < count; n++) {
		const externalListingId = firstId + n;
		const products = Array.from({ length: FILES }, (_, seat) => ({
			externalId: `${externalListingId}-${seat + 1}`,
			row: 'R',
			seat: String(seat + 1),
		}));
		const body = listingBody({
			eventId: externalListingId,
			amount: 20,
			currency: 'EUR',
			externalListingId,
			products,
		});
		const answer = await fetch(`${baseUrl}${PARTNER_API_PATHS.listings}`, {
			method: 'POST',
			headers: {
				Authorization: `Bearer ${token}`,
				Accept: 'application/json',
				'Content-Type': 'application/json',
				'Accept-Language': 'en-US',
			},
			body: JSON.stringify(body),
		});
		const created = (await answer.json()) as { id?: string };
		if (!created.id)
			throw new Error(`listing ${externalListingId} not created: ${JSON.stringify(created)}`);
		ids.push(created.id);
	}
	return ids;
}

/** One distinct PDF per seat position and listing slot, written once and shared by every case. */
function writePdfs(folder: string): string[][] {
	return Array.from({ length: LISTINGS }, (_, listing) =>
		Array.from({ length: FILES }, (_, seat) => {
			const file = join(folder, `bench-${listing}-${seat}.pdf`);
			const filler = Buffer.alloc(KB * 1024, (listing * 7 + seat * 13) % 251);
			writeFileSync(file, Buffer.concat([Buffer.from(`%PDF-1.7\n%${listing}-${seat}\n`), filler]));
			return file;
		}),
	);
}

async function main(): Promise<void> {
	const harness = await startHarness({
		workflows: [PRE_DELIVER, BY_HAND].map((w) => ({ workflow: w, activate: true })),
		n8nEnv: { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' },
		sandbox: { requestLogLimit: 100_000 },
	});
	const { context } = harness;
	const results: Array<Record<string, unknown>> = [];
	try {
		const files = writePdfs(context.filesFolder);
		let nextId = 9_800_000 + (Date.now() % 100_000) * 10;
		const round: Array<[string, WorkflowJson, number]> = [
			['Pre-deliver Tickets', PRE_DELIVER, SMALL],
			['Pre-deliver Tickets', PRE_DELIVER, LISTINGS],
			['HTTP Request by hand', BY_HAND, LISTINGS],
		];
		// Rounds alternate the order of the two large cases, so that neither always runs on a warmer n8n.
		const cases = Array.from({ length: REPEAT }, (_, n) =>
			n % 2 === 0 ? round : [round[0], round[2], round[1]],
		).flat();
		for (const [label, flow, listings] of cases) {
			const ids = await createListings(context.sandboxUrl, listings, nextId);
			nextId += listings;
			const tickets = ids.flatMap((listingId, listing) =>
				files[listing].map((file, seat) => ({ listingId, row: 'R', seat: String(seat + 1), file })),
			);
			const before = n8nRssMb(context.userFolder);
			let peak = before;
			const sampler = setInterval(() => {
				peak = Math.max(peak, n8nRssMb(context.userFolder));
			}, 100);
			const started = Date.now();
			const answer = await postJson(`${context.n8nUrl}/webhook/bench/${flow.id}`, { tickets });
			const seconds = (Date.now() - started) / 1000;
			clearInterval(sampler);
			const state = await (await fetch(`${context.sandboxUrl}/__sandbox/state`)).json();
			const held = (state as { listings: Array<{ id: string; preDelivered: boolean }> }).listings;
			const delivered = held.filter((l) => ids.includes(l.id) && l.preDelivered).length;
			const row = {
				case: label,
				listings,
				files: tickets.length,
				status: answer.status,
				seconds,
				delivered,
				rssBeforeMb: Math.round(before),
				peakRssMb: Math.round(peak),
			};
			results.push(row);
			console.log(JSON.stringify(row));
		}
	} finally {
		await harness.stop();
	}
	console.table(results);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
