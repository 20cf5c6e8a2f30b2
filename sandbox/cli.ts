#!/usr/bin/env node
/**
 * `npm run sandbox -- [command] [flags]` in this repository, `npx ticket-marketplace-sandbox [command] [flags]` from
 * the published package: starts the sandbox (default command) or drives a running one. Run with --help for every
 * flag.
 */
import { PARTNER_API_PATHS } from '../nodes/shared/partnerApi/paths';
import { drive } from './cliCommands';
import {
	COMMAND,
	deliveryFlags,
	HELP,
	fail,
	inFlightFlags,
	integer,
	parseFlags,
	perSecondFlags,
	quotaFlags,
	spikeArrestFlags,
	answerFlags,
} from './cliFlags';
import type { Flags } from './cliFlags';
import { SANDBOX_DEFAULTS } from './defaults';
import { startSandbox } from './server';

/** What to paste into n8n's credential (its field labels), and how to play a sale to the trigger. */
function banner(url: string): string {
	const d = SANDBOX_DEFAULTS;
	return `Ticket marketplace sandbox listening on ${url}

In n8n, create a "Ticket Marketplace API" credential with these values (sandbox only, not secrets):
  Base URL                       ${url}
  Consumer Key                   ${d.consumerKey}
  Consumer Secret                ${d.consumerSecret}
  Marketplace Account E-Mail     ${d.marketplaceAccount.email}
  Marketplace Account Password   ${d.marketplaceAccount.password}
The developer-portal account ${d.developerAccount.email} / ${d.developerAccount.password} exists and is refused on purpose.

A sample sale to the Ticket Marketplace Trigger: copy its two Test URLs while the editor listens (or its Production
URLs once the workflow is active) and the Client ID and Client Secret of its Ticket Marketplace Callback API
credential, then run:
  TM_CALLBACK_CLIENT_SECRET='<client secret>' ${COMMAND} sample-sale \\
    --token-url <.../token URL> --callback-url <.../notifications URL> --client-id <client id>

Partner API:  POST ${PARTNER_API_PATHS.grant}?grant_type=client_credentials
              POST ${PARTNER_API_PATHS.refresh}
              POST ${PARTNER_API_PATHS.webhooks}
              POST ${PARTNER_API_PATHS.listings}
Admin API:    GET  ${url}/__sandbox (routes)   GET ${url}/__sandbox/state
Sell a listing (notifies active subscriptions): ${COMMAND} sell --url ${url} --listing <listing id>

Press Ctrl-C to stop.`;
}

async function start(values: Flags): Promise<void> {
	const delivery = deliveryFlags(values);
	const sandbox = await startSandbox({
		port: integer(values.port ?? process.env.SANDBOX_PORT, '--port') ?? 0,
		tokenLifetimeSeconds: integer(values['token-lifetime'], '--token-lifetime'),
		deliveryAuth: delivery.clientAuth,
		deliveryAttempts: delivery.attempts,
		deliveryBaseDelayMs: delivery.baseDelayMs,
		deliveryMaxDelayMs: delivery.maxDelayMs,
		deliveryTimeoutMs: delivery.timeoutMs,
		maxBodyBytes: integer(values['max-body-bytes'], '--max-body-bytes'),
		seed: integer(values.seed, '--seed'),
		inFlightLimit: inFlightFlags(values),
		perSecondLimit: perSecondFlags(values),
		quota: quotaFlags(values),
		spikeArrest: spikeArrestFlags(values),
		answers: answerFlags(values),
	});
	if (values.json) {
		console.log(
			JSON.stringify({ url: sandbox.url, port: sandbox.port, credentials: SANDBOX_DEFAULTS }),
		);
	} else {
		console.log(banner(sandbox.url));
	}
	let stopping = false;
	const shutdown = (signal: string) => {
		if (stopping) return;
		stopping = true;
		if (!values.json) console.log(`\n${signal}: stopping the sandbox...`);
		sandbox.stop().then(
			() => process.exit(0),
			(error: unknown) => {
				console.error(error);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', () => shutdown('SIGINT'));
	process.on('SIGTERM', () => shutdown('SIGTERM'));
}

async function main(): Promise<void> {
	const { values, positionals } = parseFlags(process.argv.slice(2));
	if (values.help) {
		console.log(HELP);
		return;
	}
	const command = positionals[0] ?? 'start';
	if (positionals.length > 1) fail(`unexpected argument "${positionals[1]}"`);
	if (command === 'start') await start(values);
	else await drive(command, values);
}

main().catch((error: unknown) => {
	console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
	process.exit(1);
});
