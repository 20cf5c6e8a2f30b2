/** Progress lines for long-running scripts: every step is printed with the time since the script started. */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const startedAt = Date.now();

let quiet = false;

/** Tests that run many steps may silence the narration; failures still surface through thrown errors. */
export function setQuiet(value: boolean): void {
	quiet = value;
}

export function elapsed(): string {
	return `${((Date.now() - startedAt) / 1000).toFixed(1)}s`;
}

export function step(message: string): void {
	if (!quiet) process.stdout.write(`[${elapsed().padStart(7)}] ${message}\n`);
}

/** "45 s", "6 min 43 s". */
export function formatDuration(ms: number): string {
	const seconds = Math.round(ms / 1000);
	return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** Sizes as `du -h` prints them (1 GB = 1024 MB): "2.3 GB", "812 MB". */
export function formatBytes(bytes: number): string {
	const mb = bytes / 1024 ** 2;
	return mb < 1024 ? `${Math.round(mb)} MB` : `${(mb / 1024).toFixed(1)} GB`;
}

/** What an npm install has written so far. */
export interface InstallSize {
	bytes: number;
	/** Packages directly in node_modules, scoped ones included (not those nested deeper). */
	packages: number;
}

/**
 * The heartbeat's words for an install under way: node_modules' size against the size a finished install has, and
 * its packages. Once the size is reached, npm is still at work (install scripts: sqlite3 compiles for minutes).
 */
export function describeInstall(size: InstallSize | undefined, expectedBytes: number): string {
	if (!size) return 'npm is resolving packages (nothing written yet)';
	const written = `node_modules ${formatBytes(size.bytes)} of about ${formatBytes(expectedBytes)}, ${size.packages} packages`;
	return size.bytes >= 0.95 * expectedBytes
		? `${written}; the files are in place, npm is finishing (install scripts, native builds)`
		: written;
}

const run = promisify(execFile);

/** Measures `<dir>/node_modules` (undefined while it does not exist): its size on disk by `du`, and its packages. */
export async function measureInstall(dir: string): Promise<InstallSize | undefined> {
	const modules = join(dir, 'node_modules');
	if (!existsSync(modules)) return undefined;
	const { stdout } = await run('du', ['-sk', modules]);
	const names = readdirSync(modules).filter((name) => !name.startsWith('.'));
	const packages = names.reduce(
		(count, name) => count + (name.startsWith('@') ? readdirSync(join(modules, name)).length : 1),
		0,
	);
	return { bytes: Number.parseInt(stdout, 10) * 1024, packages };
}

/**
 * Prints a heartbeat while a long silent task (an npm install) runs; returns the function that stops it. `measure`
 * says what the task has done so far (a tick that finds the previous measure still running, or failing, says only
 * the time).
 */
export function heartbeat(
	label: string,
	measure?: () => Promise<string>,
	everyMs = 15_000,
): () => void {
	const began = Date.now();
	let measuring = false;
	let stopped = false;
	const timer = setInterval(() => {
		const time = `${label}: ${formatDuration(Date.now() - began)} so far`;
		if (!measure || measuring) return step(time);
		measuring = true;
		measure()
			.then((done) => stopped || step(`${time}; ${done}`))
			.catch(() => stopped || step(time))
			.finally(() => (measuring = false));
	}, everyMs);
	timer.unref();
	return () => {
		stopped = true;
		clearInterval(timer);
	};
}
