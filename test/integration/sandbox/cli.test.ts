import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';

import { SANDBOX_DEFAULTS } from '../../../sandbox/index';
import { createListing, getToken, validListing } from '../../../support/sandboxRequests';

const ROOT = path.resolve(__dirname, '../../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const CLI = path.join(ROOT, 'sandbox/cli.ts');

/** Starts the CLI and resolves with the first stdout line (the banner's first line or the --json line). */
function startCli(
	args: string[],
): Promise<{ child: ChildProcessWithoutNullStreams; firstLine: string; output: () => string }> {
	const child = spawn(TSX, [CLI, ...args], {
		cwd: ROOT,
		env: { ...process.env, SANDBOX_PORT: '' },
	});
	let output = '';
	return new Promise((resolve, reject) => {
		child.stdout.on('data', (chunk: Buffer) => {
			output += chunk.toString();
			const newline = output.indexOf('\n');
			if (newline >= 0)
				resolve({ child, firstLine: output.slice(0, newline), output: () => output });
		});
		child.on('error', reject);
		child.on('exit', (code) =>
			reject(new Error(`sandbox CLI exited early with ${code}: ${output}`)),
		);
	});
}

function exited(child: ChildProcessWithoutNullStreams): Promise<number | null> {
	return new Promise((resolve) => {
		if (child.exitCode !== null) resolve(child.exitCode);
		else child.once('exit', (code) => resolve(code));
	});
}

describe('sandbox CLI', () => {
	let running: ChildProcessWithoutNullStreams | undefined;

	afterEach(async () => {
		if (running && running.exitCode === null) {
			running.kill('SIGKILL');
			await exited(running);
		}
		running = undefined;
	});

	it('--help documents every flag and command', () => {
		const help = spawnSync(TSX, [CLI, '--help'], { cwd: ROOT, encoding: 'utf8' });
		expect(help.status).toBe(0);
		for (const word of [
			'--port',
			'SANDBOX_PORT',
			'--token-lifetime',
			'--delivery-auth',
			'client_secret_post',
			'--delivery-attempts',
			'--delivery-base-delay',
			'--delivery-max-delay',
			'--delivery-timeout',
			'--max-body-bytes',
			'--seed',
			'--max-in-flight',
			'in-flight',
			'--max-per-second',
			'per-second',
			'--endpoint',
			'--json',
			'--url',
			'state',
			'activate',
			'sell',
			'sample-sale',
			'--token-url',
			'--callback-url',
			'--client-id',
			'--client-secret',
			'TM_CALLBACK_CLIENT_SECRET',
			'expire-tokens',
			'revoke-tokens',
			'fault',
			'clear-faults',
			'reset',
			'--answers',
			'--listing-status',
			'--without-api-product',
			'--inactive-events',
			'--quota',
			'--quota-window',
			'--spike-arrest',
			'--use-effective-count',
			'--keep-tokens',
			'--rate-limit-status',
			'spike-arrest',
			'answers',
		]) {
			expect(help.stdout).toContain(word);
		}
	});

	it('prints the URL and demo credentials, is driven by subcommands, and stops cleanly on SIGINT', async () => {
		const started = await startCli(['--port', '0']);
		running = started.child;
		const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(started.firstLine)?.[1];
		expect(url).toBeDefined();
		// The banner is written in one piece; wait for its last line.
		for (let i = 0; i < 100 && !started.output().includes('Ctrl-C'); i++)
			await new Promise((r) => setTimeout(r, 20));
		for (const value of [
			SANDBOX_DEFAULTS.consumerKey,
			SANDBOX_DEFAULTS.consumerSecret,
			SANDBOX_DEFAULTS.marketplaceAccount.email,
			SANDBOX_DEFAULTS.developerAccount.email,
		]) {
			expect(started.output()).toContain(value);
		}

		const sandbox = { url: url as string } as Parameters<typeof getToken>[0];
		const token = await getToken(sandbox);
		const listingId = (await createListing(sandbox, token, validListing())).body.id as string;
		const sell = spawnSync(
			TSX,
			[CLI, 'sell', '--url', url as string, '--listing', listingId, '--external-id', 'p-3'],
			{ cwd: ROOT, encoding: 'utf8' },
		);
		expect(sell.status).toBe(0);
		expect(JSON.parse(sell.stdout)).toMatchObject({
			sale: { listingId, externalIds: ['p-3'] },
			deliveries: [],
			complete: true,
		});
		const badSell = spawnSync(TSX, [CLI, 'sell', '--url', url as string], {
			cwd: ROOT,
			encoding: 'utf8',
		});
		expect(badSell.status).toBe(2);
		expect(badSell.stderr).toContain('sell needs --listing ID');

		started.child.kill('SIGINT');
		expect(await exited(started.child)).toBe(0);
		await expect(fetch(`${url}/__sandbox/state`)).rejects.toThrow();
	});

	it('--json prints one machine-readable line; SIGTERM stops it', async () => {
		const started = await startCli(['--json', '--token-lifetime', '60', '--max-in-flight', '10']);
		running = started.child;
		const line = JSON.parse(started.firstLine) as { url: string; port: number };
		expect(line.url).toBe(`http://127.0.0.1:${line.port}`);
		const readState = async () =>
			(await (await fetch(`${line.url}/__sandbox/state`)).json()) as {
				settings: { tokenLifetimeSeconds: number };
				inFlight: { limit: unknown };
			};
		const state = await readState();
		expect(state.settings.tokenLifetimeSeconds).toBe(60);
		expect(state.inFlight.limit).toEqual({ maxInFlight: 10, endpoint: '*', retryAfterSeconds: 1 });
		const changed = spawnSync(
			TSX,
			[
				CLI,
				'in-flight',
				'--url',
				line.url,
				'--max-in-flight',
				'3',
				'--endpoint',
				'listings',
				'--retry-after',
				'2',
			],
			{ cwd: ROOT, encoding: 'utf8' },
		);
		expect(changed.status).toBe(0);
		expect((await readState()).inFlight.limit).toEqual({
			maxInFlight: 3,
			endpoint: 'listings',
			retryAfterSeconds: 2,
		});
		expect(
			spawnSync(TSX, [CLI, 'in-flight', '--url', line.url, '--no-limit'], {
				cwd: ROOT,
				encoding: 'utf8',
			}).status,
		).toBe(0);
		expect((await readState()).inFlight.limit).toBeNull();
		started.child.kill('SIGTERM');
		expect(await exited(started.child)).toBe(0);
	});

	it('--max-per-second starts with a per-second limit; per-second changes and removes it', async () => {
		const started = await startCli(['--json', '--max-per-second', '40', '--retry-after', '2']);
		running = started.child;
		const line = JSON.parse(started.firstLine) as { url: string };
		const readLimit = async () =>
			(
				(await (await fetch(`${line.url}/__sandbox/state`)).json()) as {
					perSecond: { limit: unknown };
				}
			).perSecond.limit;
		expect(await readLimit()).toEqual({ maxPerSecond: 40, endpoint: '*', retryAfterSeconds: 2 });
		const cli = (args: string[]) =>
			spawnSync(TSX, [CLI, 'per-second', '--url', line.url, ...args], {
				cwd: ROOT,
				encoding: 'utf8',
			});
		const changed = cli(['--max-per-second', '10', '--endpoint', 'listings']);
		expect(changed.status).toBe(0);
		expect(JSON.parse(changed.stdout)).toMatchObject({
			limit: { maxPerSecond: 10, endpoint: 'listings', retryAfterSeconds: null },
		});
		expect(await readLimit()).toEqual({
			maxPerSecond: 10,
			endpoint: 'listings',
			retryAfterSeconds: null,
		});
		const bad = cli(['--max-per-second', '0']);
		expect(bad.status).toBe(2);
		expect(bad.stderr).toContain('--max-per-second must be at least 1');
		expect(cli(['--no-limit']).status).toBe(0);
		expect(await readLimit()).toBeNull();
		started.child.kill('SIGTERM');
		expect(await exited(started.child)).toBe(0);
	}, 30_000); // four CLI processes, each starting tsx

	it('starts with the gateway limits and answer settings given; quota, spike-arrest and answers change them', async () => {
		const started = await startCli([
			'--json',
			'--spike-arrest',
			'40ps',
			'--quota',
			'5',
			'--quota-window',
			'60',
			'--rate-limit-status',
			'429',
			'--endpoint',
			'listings',
			'--listing-status',
			'INCOMPLETE',
			'--without-api-product',
			'webhooks',
			'--inactive-events',
			'7,8',
			'--seat-check',
			'off',
		]);
		running = started.child;
		const line = JSON.parse(started.firstLine) as { url: string };
		const readState = async () =>
			(await (await fetch(`${line.url}/__sandbox/state`)).json()) as {
				quota: { limit: unknown };
				spikeArrest: { limit: unknown };
				answers: unknown;
			};
		const state = await readState();
		expect(state.spikeArrest.limit).toEqual({
			rate: '40ps',
			useEffectiveCount: false,
			endpoint: 'listings',
			status: 429,
		});
		expect(state.quota.limit).toEqual({
			limit: 5,
			windowMs: 60_000,
			endpoint: 'listings',
			status: 429,
		});
		expect(state.answers).toEqual({
			shapes: 'service',
			listingStatus: 'INCOMPLETE',
			withoutApiProduct: 'webhooks',
			inactiveEventIds: [7, 8],
			seatCheck: false,
		});
		const cli = (args: string[]) =>
			spawnSync(TSX, [CLI, ...args, '--url', line.url], { cwd: ROOT, encoding: 'utf8' });
		expect(cli(['spike-arrest', '--spike-arrest', '5pm', '--use-effective-count']).status).toBe(0);
		expect(cli(['quota', '--no-limit']).status).toBe(0);
		const answers = cli([
			'answers',
			'--answers',
			'spec',
			'--without-api-product',
			'none',
			'--seat-check',
			'on',
		]);
		expect(answers.status).toBe(0);
		expect(JSON.parse(answers.stdout)).toMatchObject({
			shapes: 'spec',
			withoutApiProduct: null,
			seatCheck: true,
		});
		const after = await readState();
		expect(after.spikeArrest.limit).toMatchObject({ rate: '5pm', useEffectiveCount: true });
		expect(after.quota.limit).toBeNull();
		const bad = cli(['spike-arrest', '--spike-arrest', '40/s']);
		expect(bad.status).toBe(2);
		expect(bad.stderr).toContain('--spike-arrest must be a rate such as 40ps');
		const badSeatCheck = cli(['answers', '--seat-check', 'no']);
		expect(badSeatCheck.status).toBe(2);
		expect(badSeatCheck.stderr).toContain('--seat-check must be on or off');
		started.child.kill('SIGTERM');
		expect(await exited(started.child)).toBe(0);
	}, 40_000); // five CLI processes, each starting tsx
});
