/**
 * `npm run test:e2e:both`: the e2e suite on n8n 2.8.4 and on 2.41.1 at the same time, each with its own n8n, sandbox
 * and browser (`npm run test:e2e` and `npm run test:e2e:current`). Much of either run waits on n8n and the browser,
 * so the two together take less than one after the other. The package is built and Chromium installed once, first:
 * two builds would empty dist/ under each other. Each line is printed with its n8n version in front.
 */
import { once } from 'node:events';
import { join } from 'node:path';

import { ensureChromium } from '../support/harness/browser';
import { DEFAULT_N8N_VERSION, CURRENT_N8N_VERSION } from '../support/harness/n8nInstall';
import { ensureBuilt, REPO_ROOT } from '../support/harness/packageUnderTest';
import {
	cleanEnv,
	spawnGroup,
	runScript,
	stopProcessGroup,
	track,
} from '../support/harness/processes';
import { formatDuration, step } from '../support/harness/progress';

async function runSuite(version: string): Promise<{ version: string; code: number; ms: number }> {
	const started = Date.now();
	const tsx = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
	const child = spawnGroup(tsx, [join(REPO_ROOT, 'scripts', 'e2e.ts')], {
		cwd: REPO_ROOT,
		env: cleanEnv({ TM_N8N_VERSION: version, TM_PACKAGE_BUILT: '1' }),
	});
	// The suite stops what it started on SIGTERM; its grace covers stopping n8n and the sandbox.
	const untrack = track({
		name: `e2e on n8n ${version}`,
		stop: () => stopProcessGroup(child, 60_000),
		stopNow: () => void child.kill('SIGKILL'),
	});
	for (const stream of [child.stdout, child.stderr]) {
		let rest = '';
		stream?.on('data', (chunk: Buffer) => {
			const lines = (rest + chunk.toString()).split('\n');
			rest = lines.pop() ?? '';
			for (const line of lines) process.stdout.write(`[n8n ${version}] ${line}\n`);
		});
		stream?.on('end', () => rest && process.stdout.write(`[n8n ${version}] ${rest}\n`));
	}
	const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
	untrack();
	return { version, code: code ?? (signal ? 1 : 0), ms: Date.now() - started };
}

async function main(): Promise<number> {
	await ensureChromium();
	await ensureBuilt();
	step(`e2e: n8n ${DEFAULT_N8N_VERSION} and ${CURRENT_N8N_VERSION} at the same time`);
	const runs = await Promise.all([DEFAULT_N8N_VERSION, CURRENT_N8N_VERSION].map(runSuite));
	for (const { version, code, ms } of runs)
		step(
			`e2e on n8n ${version}: ${code === 0 ? 'PASSED' : `FAILED (exit ${code})`} in ${formatDuration(ms)}`,
		);
	return runs.every(({ code }) => code === 0) ? 0 : 1;
}

runScript('e2e', main);
