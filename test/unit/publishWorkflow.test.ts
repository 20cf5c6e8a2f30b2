/**
 * Publishing: only .github/workflows/publish.yml publishes, on a version tag, with npm provenance, after the checks
 * that prove the tarball; package.json's prepublishOnly guard refuses a publish anywhere else. No network: the
 * workflow is parsed as YAML and the guard runs as a child process with a controlled environment.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { parse } from 'yaml';

import { publishRefusal } from '../../scripts/prepublishGuard';

const REPO = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(REPO, file), 'utf8');

interface Step {
	uses?: string;
	run?: string;
	with?: Record<string, unknown>;
	env?: Record<string, string>;
}
interface Workflow {
	on: { push?: { tags?: string[]; branches?: string[] } } & Record<string, unknown>;
	permissions: Record<string, string>;
	jobs: Record<string, { 'runs-on': string; permissions?: unknown; steps: Step[] }>;
}

const workflow = parse(read('.github/workflows/publish.yml')) as Workflow;
const jobs = Object.values(workflow.jobs);
const steps = jobs.flatMap((job) => job.steps);
const runs = steps.flatMap((step) => (step.run ? [step.run.trim()] : []));
const publishIndex = runs.findIndex((run) => run.startsWith('npm publish'));

describe('.github/workflows/publish.yml', () => {
	it('runs only on a pushed version tag (v*.*.*)', () => {
		expect(Object.keys(workflow.on)).toEqual(['push']);
		expect(workflow.on.push).toEqual({ tags: ['v*.*.*'] });
	});

	it('may request an OIDC token for provenance and only read the repository', () => {
		expect(workflow.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
		for (const job of jobs) expect(job.permissions).toBeUndefined();
	});

	it('sets up Node 22 with the npm registry, for NODE_AUTH_TOKEN', () => {
		const setup = steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
		expect(setup?.with).toMatchObject({
			'node-version': 22,
			'registry-url': 'https://registry.npmjs.org',
		});
		expect(steps.findIndex((step) => step.uses?.startsWith('actions/checkout@'))).toBe(0);
	});

	it('installs from the lockfile, then lints, typechecks, builds, lints the tarball and unit-tests before publishing', () => {
		expect(runs[0]).toMatch(/^npm ci\b/);
		expect(runs.slice(1, publishIndex)).toEqual([
			'npm run lint',
			'npm run typecheck',
			'npm run build',
			'npm run lint:packed',
			'npm run test:unit',
		]);
		expect(runs).not.toContain('npm test');
	});

	it('publishes publicly with provenance, last, with the token from secrets, and lets the guard run', () => {
		expect(publishIndex).toBe(runs.length - 1);
		const publish = runs[publishIndex].split(/\s+/);
		expect(publish).toEqual(
			expect.arrayContaining(['--provenance', '--access', 'public', '--ignore-scripts=false']),
		);
		const step = steps.find((candidate) => candidate.run?.trim().startsWith('npm publish'));
		expect(step?.env?.NODE_AUTH_TOKEN).toMatch(/^\$\{\{\s*secrets\.\w+\s*\}\}$/);
	});
});

describe('package.json publishing settings', () => {
	const manifest = JSON.parse(read('package.json')) as {
		scripts: Record<string, string>;
		publishConfig?: Record<string, unknown>;
	};

	it('runs the guard before any publish', () => {
		expect(manifest.scripts.prepublishOnly).toBe('tsx scripts/prepublishGuard.ts');
	});

	it('asks for provenance in publishConfig, so a local publish that skips the guard still fails', () => {
		expect(manifest.publishConfig).toEqual({ provenance: true, access: 'public' });
	});
});

describe('scripts/prepublishGuard.ts', () => {
	it('names what is missing', () => {
		expect(publishRefusal({})).toMatch(/GitHub Actions workflow/);
		expect(publishRefusal({ GITHUB_ACTIONS: 'true' })).toMatch(/--provenance/);
		expect(publishRefusal({ npm_config_provenance: 'true' })).toMatch(/GitHub Actions workflow/);
		expect(
			publishRefusal({ GITHUB_ACTIONS: 'true', npm_config_provenance: 'true' }),
		).toBeUndefined();
	});

	/** Runs the guard as npm's prepublishOnly does, with only PATH, HOME and the given variables set. */
	function runGuard(env: Record<string, string>) {
		const result = spawnSync(
			process.execPath,
			[require.resolve('tsx/cli'), join(REPO, 'scripts', 'prepublishGuard.ts')],
			{
				cwd: REPO,
				env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
				encoding: 'utf8',
				timeout: 60_000,
			},
		);
		return { status: result.status, output: `${result.stdout}${result.stderr}` };
	}

	it('refuses a publish outside CI, with a message that says how to publish', () => {
		const { status, output } = runGuard({ npm_config_provenance: 'true' });
		expect(status).toBe(1);
		expect(output).toMatch(/refusing to publish.*publish\.yml.*v\*\.\*\.\* tag/);
	}, 60_000);

	it('refuses a publish in GitHub Actions without --provenance', () => {
		const { status, output } = runGuard({ GITHUB_ACTIONS: 'true' });
		expect(status).toBe(1);
		expect(output).toMatch(/refusing to publish.*npm publish --provenance/);
	}, 60_000);

	it('lets the workflow publish: GitHub Actions with --provenance', () => {
		const { status, output } = runGuard({ GITHUB_ACTIONS: 'true', npm_config_provenance: 'true' });
		expect(status).toBe(0);
		expect(output).toMatch(/publishing/);
	}, 60_000);
});
