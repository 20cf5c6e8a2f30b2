/**
 * Debian packages the suites need (Chromium for the editor test; Redis and PostgreSQL for queue mode), installed
 * with apt-get when missing, as CI's clean machine needs. Without the rights to install, it says exactly what to
 * install and fails: a suite is never skipped in silence.
 */
import { existsSync } from 'node:fs';

import { cleanEnv, runCommand } from './processes';
import { heartbeat, step } from './progress';

export interface DebianPackage {
	/** The file that shows the package is installed. */
	binary: string;
	name: string;
}

export async function ensureDebianPackages(what: string, packages: DebianPackage[]): Promise<void> {
	const missing = packages.filter((entry) => !existsSync(entry.binary));
	if (missing.length === 0) return;
	const names = missing.map((entry) => entry.name);
	const isRoot = process.getuid?.() === 0;
	const sudo = !isRoot && existsSync('/usr/bin/sudo');
	if (!isRoot && !sudo) {
		throw new Error(
			`${what} needs Debian's ${names.join(', ')}; install them first: apt-get update && apt-get install -y ${names.join(' ')}`,
		);
	}
	step(
		`${what}: installing Debian's ${names.join(', ')} with apt-get (missing: ${missing.map((entry) => entry.binary).join(', ')})`,
	);
	const stopHeartbeat = heartbeat(`apt-get install ${names.join(' ')}`);
	try {
		const run = (args: string[]) =>
			runCommand(sudo ? 'sudo' : args[0], sudo ? args : args.slice(1), {
				cwd: process.cwd(),
				env: cleanEnv({ DEBIAN_FRONTEND: 'noninteractive' }),
				timeoutMs: 10 * 60_000,
				label: args.join(' '),
			});
		await run(['apt-get', 'update']);
		// Services are not started: the suites start their own, on free ports, in temporary folders.
		await run(['apt-get', 'install', '-y', '--no-install-recommends', ...names]);
	} finally {
		stopHeartbeat();
	}
	const still = missing.filter((entry) => !existsSync(entry.binary));
	if (still.length)
		throw new Error(
			`apt-get finished but ${still.map((entry) => entry.binary).join(', ')} does not exist`,
		);
	step(`${what}: installed ${names.join(', ')}`);
}
