/**
 * `npm run test:e2e`: installs (or reuses) the pinned n8n, builds and packs the package, starts the sandbox and
 * n8n once with every suite workflow active, runs the jest e2e project against it, and stops everything (also on
 * failure and Ctrl-C). The tests attach through the context file named in TM_E2E_CONTEXT; run on their own
 * (`npx jest --selectProjects e2e`) they start the same harness themselves.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { harnessWorkflows } from '../support/e2e/workflows';
import { serveHarnessControl } from '../support/harness/control';
import { ensureChromium } from '../support/harness/browser';
import { startHarness } from '../support/harness/harness';
import { REPO_ROOT } from '../support/harness/packageUnderTest';
import { cleanEnv, runScript, track } from '../support/harness/processes';
import { elapsed, step } from '../support/harness/progress';

async function runJest(contextFile: string): Promise<number> {
	const jestArgs = ['--selectProjects', 'e2e', '--runInBand', ...process.argv.slice(2)];
	step(`jest ${jestArgs.join(' ')}`);
	const child = spawn(
		process.execPath,
		[join(REPO_ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), ...jestArgs],
		{
			cwd: REPO_ROOT,
			env: cleanEnv({ TM_E2E_CONTEXT: contextFile }),
			stdio: 'inherit',
		},
	);
	// Ctrl-C reaches jest through the terminal; this covers a SIGTERM sent to the runner alone.
	const untrack = track({
		name: 'jest',
		stop: async () => void child.kill('SIGTERM'),
		stopNow: () => void child.kill('SIGKILL'),
	});
	const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
	untrack();
	return code ?? (signal ? 1 : 0);
}

async function main(): Promise<number> {
	// The editor test drives Debian's Chromium: install it first (CI's clean machine), so its progress shows here.
	await ensureChromium();
	step('e2e: preparing a real n8n with the packed package and the sandbox');
	const harness = await startHarness({
		workflows: harnessWorkflows(),
		keepUserFolder: process.env.TM_E2E_KEEP === '1',
	});
	let exitCode = 1;
	const control = await serveHarnessControl(harness);
	try {
		const contextFile = join(harness.context.userFolder, 'e2e-context.json');
		writeFileSync(
			contextFile,
			JSON.stringify({ ...harness.context, controlUrl: control.url }, null, 2),
		);
		step(`e2e: ready; n8n at ${harness.context.n8nUrl}, sandbox at ${harness.context.sandboxUrl}`);
		exitCode = await runJest(contextFile);
		if (exitCode !== 0)
			step(
				`e2e: jest failed; the n8n log was ${harness.context.n8nLogFile} (set TM_E2E_KEEP=1 to keep it)`,
			);
	} finally {
		await control.stop();
		await harness.stop();
	}
	const leftovers = [
		...(harness.n8n.isRunning() ? ['n8n processes'] : []),
		...(existsSync(harness.context.userFolder) && process.env.TM_E2E_KEEP !== '1'
			? [harness.context.userFolder]
			: []),
	];
	if (leftovers.length) {
		step(`e2e: left behind: ${leftovers.join(', ')}`);
		exitCode = 1;
	}
	step(
		`e2e: ${exitCode === 0 ? 'PASSED' : 'FAILED'} in ${elapsed()}${leftovers.length ? '' : '; nothing left running'}`,
	);
	return exitCode;
}

runScript('e2e', main);
