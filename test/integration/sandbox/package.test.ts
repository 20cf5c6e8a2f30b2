/**
 * The sandbox's npm package (sandbox/, ticket-marketplace-sandbox) installs from its packed tarball into an
 * empty folder and starts, with nothing of this repository around it: `npm pack` of the current build (npm test runs
 * `npm run build:sandbox` first), `npm install <tarball>` in a fresh temporary folder, then its command with a PATH
 * that holds no node_modules/.bin (no tsx, no TypeScript). It prints the Base URL and the credential's values, answers
 * a token request, plays a sample sale to a trigger-like receiver, and stops on SIGTERM.
 */
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

import { SANDBOX_DEFAULTS } from '../../../sandbox/index';
import {
	cleanEnv,
	runCommand,
	startLoggedProcess,
	type LoggedProcess,
} from '../../../support/harness/processes';
import { getToken, startReceiver, type Receiver } from '../../../support/sandboxRequests';

const ROOT = join(__dirname, '..', '..', '..');
const PACKAGE_DIR = join(ROOT, 'sandbox');
/** The one file of the nodes the sandbox compiles in: the Partner API's paths (dist/nodes/...). */
const SHARED_PATHS = join(ROOT, 'nodes', 'shared', 'partnerApi', 'paths.ts');
const SHARED_FILES = [
	'dist/nodes/shared/partnerApi/paths.js',
	'dist/nodes/shared/partnerApi/paths.d.ts',
];
const NAME = 'ticket-marketplace-sandbox';

/** The newest modification time under `dir` (recursively), of files whose name passes `keep`. */
function newestMtime(dir: string, keep: (name: string) => boolean): number {
	let newest = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path, keep));
		else if (keep(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
	}
	return newest;
}

/** Fails early, with what to run, when the package was not built or is older than its sources. */
function assertBuilt(): void {
	const cli = join(PACKAGE_DIR, 'dist', 'sandbox', 'cli.js');
	if (!existsSync(cli))
		throw new Error('sandbox/dist is missing: run npm run build:sandbox (npm test does)');
	const built = newestMtime(join(PACKAGE_DIR, 'dist'), (name) => name.endsWith('.js'));
	const source = Math.max(
		newestMtime(PACKAGE_DIR, (name) => name.endsWith('.ts') && !name.endsWith('.d.ts')),
		statSync(SHARED_PATHS).mtimeMs,
	);
	if (source > built)
		throw new Error('sandbox/dist is older than its sources: run npm run build:sandbox');
}

/** The caller's environment without npm's and jest's variables, and without any node_modules/.bin on PATH. */
function userEnv(): NodeJS.ProcessEnv {
	const env = cleanEnv();
	delete env.SANDBOX_PORT;
	delete env.SANDBOX_URL;
	delete env.NODE_PATH;
	env.PATH = (env.PATH ?? '')
		.split(delimiter)
		.filter((dir) => !dir.includes('node_modules'))
		.join(delimiter);
	return env;
}

describe('the ticket-marketplace-sandbox package', () => {
	let workDir: string | undefined;
	let sandbox: LoggedProcess | undefined;
	let receiver: Receiver | undefined;

	afterAll(async () => {
		await sandbox?.stop();
		await receiver?.stop();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
	});

	it('installs from its packed tarball into an empty folder, starts, answers and stops', async () => {
		assertBuilt();
		workDir = mkdtempSync(join(tmpdir(), 'tm-sandbox-package-'));
		const env = userEnv();

		// npm pack: only the compiled command and library (with the paths it shares with the nodes), the README and
		// the license.
		const packed = await runCommand('npm', ['pack', '--json', '--pack-destination', workDir], {
			cwd: PACKAGE_DIR,
			env,
			timeoutMs: 60_000,
			label: 'npm pack (sandbox/)',
		});
		const [pack] = JSON.parse(packed.output.slice(packed.output.indexOf('['))) as Array<{
			filename: string;
			files: Array<{ path: string }>;
		}>;
		const files = pack.files.map((file) => file.path);
		expect(files).toEqual(
			expect.arrayContaining([
				'package.json',
				'README.md',
				'LICENSE.md',
				'dist/sandbox/cli.js',
				...SHARED_FILES,
			]),
		);
		expect(
			files.filter(
				(file) =>
					!['package.json', 'README.md', 'LICENSE.md', ...SHARED_FILES].includes(file) &&
					!/^dist\/sandbox\/.+\.(js|d\.ts)$/.test(file),
			),
		).toEqual([]);

		// npm install of the tarball into a folder of its own, as a user's machine would.
		const appDir = join(workDir, 'app');
		mkdirSync(appDir);
		writeFileSync(join(appDir, 'package.json'), JSON.stringify({ private: true }));
		await runCommand('npm', ['install', '--no-audit', '--no-fund', join(workDir, pack.filename)], {
			cwd: appDir,
			env,
			timeoutMs: 120_000,
			label: 'npm install <tarball>',
		});
		const installed = readdirSync(join(appDir, 'node_modules')).filter(
			(name) => !name.startsWith('.'),
		);
		expect(installed).toEqual([NAME]); // no dependency came with it
		const bin = join(appDir, 'node_modules', '.bin', NAME);
		expect(existsSync(bin)).toBe(true);

		const help = await runCommand(bin, ['--help'], { cwd: appDir, env, timeoutMs: 30_000 });
		expect(help.output).toContain(`npx ${NAME} [start] [flags]`);
		const library = await runCommand(
			process.execPath,
			['-e', `process.exit(typeof require('${NAME}').startSandbox === 'function' ? 0 : 1)`],
			{ cwd: appDir, env, timeoutMs: 30_000, label: `require('${NAME}')` },
		);
		expect(library.code).toBe(0);

		// Its command, on a free port of 127.0.0.1: the Base URL and the credential's values, then a token.
		sandbox = await startLoggedProcess({
			name: NAME,
			command: bin,
			args: ['--port', '0'],
			cwd: appDir,
			env,
			logFile: join(workDir, 'sandbox.log'),
			ready: /Press Ctrl-C to stop/,
			readyTimeoutMs: 30_000,
		});
		const banner = sandbox.output();
		const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
		expect(url).toBeDefined();
		expect(banner).toMatch(new RegExp(`Base URL\\s+${url}`));
		expect(banner).toMatch(new RegExp(`Consumer Key\\s+${SANDBOX_DEFAULTS.consumerKey}`));
		expect(banner).toMatch(new RegExp(`Consumer Secret\\s+${SANDBOX_DEFAULTS.consumerSecret}`));
		expect(banner).toContain(SANDBOX_DEFAULTS.marketplaceAccount.email);
		expect(banner).toContain(SANDBOX_DEFAULTS.marketplaceAccount.password);
		expect(banner).toContain(`npx ${NAME} sample-sale`);
		expect(await getToken({ url: url as string })).toEqual(expect.any(String));

		// A sample sale from the installed command to a trigger-like receiver, without a running sandbox.
		receiver = await startReceiver({
			clientId: 'package client',
			clientSecret: 'package secret',
			clientAuth: 'basic',
		});
		const sample = await runCommand(
			bin,
			[
				'sample-sale',
				'--token-url',
				receiver.tokenUrl,
				'--callback-url',
				receiver.callbackUrl,
				'--client-id',
				'package client',
			],
			{
				cwd: appDir,
				env: { ...env, TM_CALLBACK_CLIENT_SECRET: 'package secret' },
				timeoutMs: 30_000,
				label: 'sample-sale',
			},
		);
		expect(sample.output).toContain('Sample sale delivered');
		expect(receiver.callbacks).toHaveLength(1);

		await sandbox.stop();
		expect(sandbox.output()).toContain('SIGTERM: stopping the sandbox');
		expect(sandbox.isRunning()).toBe(false);
	}, 180_000);
});
