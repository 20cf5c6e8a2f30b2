/**
 * `npm test`: every check, one stage after another, stopping at the first that fails; then how long each stage took.
 * A stage is an npm script of package.json, so each can also be run on its own (`npm run test:unit`, ...).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';

/** In order: the fast checks first, the real-n8n suites last; the demo runs where the e2e suite left n8n installed. */
export const STAGES = [
	'lint',
	'typecheck',
	'build',
	'build:sandbox',
	'lint:packed',
	'test:unit',
	'test:integration',
	'test:e2e',
	'demo',
	'test:e2e:current',
	'test:queue',
];

function minutes(ms: number): string {
	const seconds = Math.round(ms / 1000);
	return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

async function runStage(script: string): Promise<number> {
	const child = spawn('npm', ['run', script], { stdio: 'inherit' });
	const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
	return code ?? (signal ? 1 : 0);
}

async function main(): Promise<number> {
	const times: Array<{ script: string; ms: number; code: number }> = [];
	const began = Date.now();
	for (const script of STAGES) {
		process.stdout.write(
			`\n== npm test: ${script} (stage ${times.length + 1} of ${STAGES.length})\n`,
		);
		const started = Date.now();
		const code = await runStage(script);
		times.push({ script, ms: Date.now() - started, code });
		if (code !== 0) break;
	}
	process.stdout.write('\n== npm test: time per stage\n');
	for (const { script, ms, code } of times)
		process.stdout.write(
			`${script.padEnd(18)} ${minutes(ms).padStart(12)}${code === 0 ? '' : `  FAILED (exit ${code})`}\n`,
		);
	const skipped = STAGES.slice(times.length);
	if (skipped.length) process.stdout.write(`not run: ${skipped.join(', ')}\n`);
	process.stdout.write(`${'in all'.padEnd(18)} ${minutes(Date.now() - began).padStart(12)}\n`);
	return times.every((stage) => stage.code === 0) && !skipped.length ? 0 : 1;
}

if (require.main === module)
	main().then(
		(code) => process.exit(code),
		(error: unknown) => {
			process.stderr.write(`npm test: ${error instanceof Error ? error.message : String(error)}\n`);
			process.exit(1);
		},
	);
