/**
 * The pinned n8n lives in a cache outside the repository, one folder per version, with its own package.json
 * (the xlsx override: n8n-nodes-base otherwise fetches xlsx from a CDN that CI cannot reach). It is installed
 * into a staging folder and renamed into place only when complete, so a folder under the final name is a
 * finished install; an interrupted one is simply started again.
 */
import {
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

import { cleanEnv, runCommand } from './processes';
import { heartbeat, step } from './progress';

/** The n8n the suite runs on by default. */
export const DEFAULT_N8N_VERSION = '2.8.4';
/** The newest 1.x, for self-hosted instances that have not moved to 2.x: `TM_N8N_VERSION=1.123.81 npm run test:e2e`. */
export const LEGACY_N8N_VERSION = '1.123.81';

/** The n8n version this run uses: TM_N8N_VERSION, or the default. */
export function n8nVersion(): string {
	const version = process.env.TM_N8N_VERSION ?? DEFAULT_N8N_VERSION;
	if (!/^\d+\.\d+\.\d+$/.test(version))
		throw new Error(
			`TM_N8N_VERSION must be an exact version such as ${LEGACY_N8N_VERSION}, not "${version}"`,
		);
	return version;
}

export function n8nMajor(version: string): number {
	return Number(version.split('.')[0]);
}

export interface N8nInstall {
	version: string;
	dir: string;
	/** The JavaScript entry of the n8n CLI, run with this Node. */
	entry: string;
}

export function n8nCacheRoot(): string {
	return process.env.N8N_E2E_CACHE ?? join(homedir(), '.cache', 'n8n-nodes-ticket-marketplace');
}

function installedVersion(dir: string): string | undefined {
	const manifest = join(dir, 'node_modules', 'n8n', 'package.json');
	if (!existsSync(manifest)) return undefined;
	return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
}

function describe(dir: string, version: string): N8nInstall {
	return { version, dir, entry: join(dir, 'node_modules', 'n8n', 'bin', 'n8n') };
}

function isRunning(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** Staging folders of interrupted installs (their process is gone) only take space: 2.3 GB each. */
function removeAbandonedStagingFolders(root: string, version: string): void {
	if (!existsSync(root)) return;
	const prefix = `n8n-${version}.staging-`;
	for (const name of readdirSync(root)) {
		const pid = Number(name.slice(prefix.length));
		if (name.startsWith(prefix) && Number.isInteger(pid) && !isRunning(pid)) {
			step(`n8n ${version}: removing ${name}, left by an interrupted install`);
			rmSync(join(root, name), { recursive: true, force: true });
		}
	}
}

export async function ensureN8nInstalled(version = n8nVersion()): Promise<N8nInstall> {
	const root = n8nCacheRoot();
	const dir = join(root, `n8n-${version}`);
	if (installedVersion(dir) === version) {
		step(`n8n ${version}: reusing the cached install at ${dir}`);
		return describe(dir, version);
	}
	if (existsSync(dir)) {
		step(`n8n ${version}: ${dir} is incomplete; installing again`);
		rmSync(dir, { recursive: true, force: true });
	}

	removeAbandonedStagingFolders(root, version);
	const staging = join(root, `n8n-${version}.staging-${process.pid}`);
	rmSync(staging, { recursive: true, force: true });
	mkdirSync(staging, { recursive: true });
	const manifest = {
		name: 'n8n-runtime-cache',
		private: true,
		overrides: { xlsx: 'npm:@e965/xlsx@0.20.2' },
		dependencies: { n8n: version },
	};
	writeFileSync(join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);

	step(
		`n8n ${version}: installing into ${staging} (first run only: about 4 minutes, 2.3 GB; sqlite3 compiles)`,
	);
	const stopHeartbeat = heartbeat(`npm install n8n@${version}`);
	try {
		// The repository's .npmrc disables install scripts. n8n 2.x needs them (sqlite3 builds from source here);
		// 1.x's isolated-vm does not compile on Node 20, so 1.x installs without scripts and rebuilds sqlite3 alone.
		const legacy = n8nMajor(version) < 2;
		const install = await runCommand(
			'npm',
			[
				'install',
				'--save-exact',
				`n8n@${version}`,
				'--no-audit',
				'--no-fund',
				`--ignore-scripts=${legacy}`,
			],
			{
				cwd: staging,
				env: cleanEnv(),
				timeoutMs: 20 * 60_000,
				label: `npm install n8n@${version}`,
			},
		);
		let log = install.output;
		if (legacy) {
			step(`n8n ${version}: building sqlite3 (the only native module 1.x needs here)`);
			const rebuild = await runCommand('npm', ['rebuild', 'sqlite3', '--ignore-scripts=false'], {
				cwd: staging,
				env: cleanEnv(),
				timeoutMs: 15 * 60_000,
				label: 'npm rebuild sqlite3',
			});
			log += rebuild.output;
		}
		writeFileSync(join(staging, 'install.log'), log);
	} catch (error) {
		rmSync(staging, { recursive: true, force: true });
		throw error;
	} finally {
		stopHeartbeat();
	}
	if (installedVersion(staging) !== version) {
		throw new Error(
			`npm install finished but ${staging}/node_modules/n8n is not version ${version}`,
		);
	}
	renameSync(staging, dir);
	step(`n8n ${version}: installed at ${dir}`);
	return describe(dir, version);
}
