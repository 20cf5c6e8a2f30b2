/**
 * Builds the package, packs it with `npm pack` and installs the
 * tarball's contents into an n8n user folder exactly as a community package is laid out, with no node_modules
 * of its own: zod and n8n-workflow must then resolve from n8n's own copies.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

import { cleanEnv, runCommand } from './processes';
import { step } from './progress';

export const REPO_ROOT = join(__dirname, '..', '..');
export const PACKAGE_NAME = 'n8n-nodes-ticket-marketplace';

/** The files package.json's `n8n` attribute promises, which n8n will require. */
export function declaredEntryFiles(packageDir = REPO_ROOT): string[] {
	const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
		n8n?: { nodes?: string[]; credentials?: string[] };
	};
	return [...(manifest.n8n?.credentials ?? []), ...(manifest.n8n?.nodes ?? [])];
}

/**
 * Always builds (about 2 s): an mtime check proved unreliable (gulp copies icons with their source's mtime), and
 * testing a stale dist/ would prove nothing. TM_PACKAGE_BUILT=1 says the caller has just built it (two suites
 * running at once must not empty dist/ under each other).
 */
export async function ensureBuilt(): Promise<void> {
	if (process.env.TM_PACKAGE_BUILT !== '1') {
		step('build: npm run build');
		await runCommand('npm', ['run', 'build'], {
			cwd: REPO_ROOT,
			env: cleanEnv(),
			timeoutMs: 5 * 60_000,
			label: 'npm run build',
		});
	}
	const missing = declaredEntryFiles().filter((file) => !existsSync(join(REPO_ROOT, file)));
	if (missing.length)
		throw new Error(`package.json declares files the build did not produce: ${missing.join(', ')}`);
}

function listFiles(dir: string): string[] {
	const files: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) files.push(...listFiles(path));
		else files.push(path);
	}
	return files;
}

/**
 * `npm pack`s the repository (its current dist/) into workDir and extracts the tarball into packageDir, as npm
 * does when it installs a package. Returns the tarball's name and the packed file list.
 */
export async function packInto(
	packageDir: string,
	workDir: string,
): Promise<{ tarball: string; files: string[] }> {
	const packDir = join(workDir, 'pack');
	mkdirSync(packDir, { recursive: true });
	const { output } = await runCommand('npm', ['pack', '--json', '--pack-destination', packDir], {
		cwd: REPO_ROOT,
		env: cleanEnv(),
		timeoutMs: 120_000,
		label: 'npm pack',
	});
	const tarballs = readdirSync(packDir).filter((name) => name.endsWith('.tgz'));
	if (tarballs.length !== 1)
		throw new Error(`npm pack produced ${tarballs.length} tarballs:\n${output}`);
	rmSync(packageDir, { recursive: true, force: true });
	mkdirSync(packageDir, { recursive: true });
	// The tarball's entries all start with package/: strip it, as npm does when it installs.
	await runCommand(
		'tar',
		['-xzf', join(packDir, tarballs[0]), '-C', packageDir, '--strip-components=1'],
		{
			cwd: workDir,
			timeoutMs: 60_000,
			label: 'tar -x',
		},
	);
	const files = listFiles(packageDir)
		.map((file) => relative(packageDir, file))
		.sort();
	return { tarball: tarballs[0], files };
}

/**
 * Packs the repository and installs the tarball's contents into `<userFolder>/.n8n/nodes/node_modules/<package>/`,
 * the layout of a community package. Returns that folder and the packed file list.
 */
export async function installPackedPackage(
	userFolder: string,
	workDir: string,
): Promise<{ packageDir: string; files: string[] }> {
	const packageDir = join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
	const { tarball, files } = await packInto(packageDir, workDir);
	step(`package: packed ${tarball} (${files.length} files) into ${packageDir}`);
	return { packageDir, files };
}
