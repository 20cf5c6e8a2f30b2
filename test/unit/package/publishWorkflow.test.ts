/**
 * Publishing: only .github/workflows/publish.yml publishes, on a version tag, with npm provenance, after the checks
 * that prove the tarballs: the nodes (the repository root) and the sandbox (sandbox/), both at one version;
 * each package.json's prepublishOnly guard refuses a publish anywhere else. No network: the
 * workflow is parsed as YAML and the guard runs as a child process with a controlled environment.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { parse } from 'yaml';

import { publishRefusal } from '../../../scripts/prepublishGuard';
import { TEST_STAGES } from '../../../scripts/testStages';

const REPO = join(__dirname, '..', '..', '..');
const read = (file: string) => readFileSync(join(REPO, file), 'utf8');

interface Step {
	uses?: string;
	run?: string;
	'working-directory'?: string;
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
const publishSteps = steps.filter((step) => step.run?.trim().startsWith('npm publish'));

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

	it('installs from the lockfile, then lints, typechecks, builds both packages, proves both tarballs and unit-tests before publishing', () => {
		expect(runs[0]).toMatch(/^npm ci\b/);
		expect(runs.slice(1, publishIndex)).toEqual([
			'npm run lint',
			'npm run typecheck',
			'npm run build',
			'npm run build:sandbox',
			'npm run lint:packed',
			'npm run test:unit',
			'npx jest test/integration/sandbox/package.test.ts',
		]);
		expect(runs).not.toContain('npm test');
	});

	it('publishes the nodes, then the sandbox from sandbox/, last, with nothing in between', () => {
		expect(publishSteps).toHaveLength(2);
		expect(runs.slice(publishIndex)).toHaveLength(2);
		expect(publishSteps.map((step) => step['working-directory'])).toEqual([undefined, 'sandbox']);
		for (const step of steps) {
			if (!publishSteps.includes(step)) expect(step['working-directory']).toBeUndefined();
		}
	});

	it.each([0, 1])(
		'publish %i: publicly with provenance, with the token from secrets, and lets the guard run',
		(index) => {
			const step = publishSteps[index];
			expect(step.run?.trim().split(/\s+/)).toEqual(
				expect.arrayContaining(['--provenance', '--access', 'public', '--ignore-scripts=false']),
			);
			expect(step.env?.NODE_AUTH_TOKEN).toMatch(/^\$\{\{\s*secrets\.\w+\s*\}\}$/);
		},
	);
});

interface Manifest {
	name: string;
	version: string;
	scripts: Record<string, string>;
	publishConfig?: Record<string, unknown>;
	repository?: { type: string; url: string; directory?: string };
	bin?: Record<string, string>;
	main?: string;
	files?: string[];
	dependencies?: Record<string, string>;
	keywords?: string[];
	license?: string;
}

const rootManifest = JSON.parse(read('package.json')) as Manifest;
const sandboxManifest = JSON.parse(read('sandbox/package.json')) as Manifest;

describe.each([
	['package.json', rootManifest, 'tsx scripts/prepublishGuard.ts'],
	['sandbox/package.json', sandboxManifest, 'tsx ../scripts/prepublishGuard.ts'],
])('%s publishing settings', (file, manifest, guard) => {
	it('runs the guard before any publish', () => {
		expect(manifest.scripts.prepublishOnly).toBe(guard);
		const script = guard.split(' ')[1];
		expect(existsSync(join(REPO, dirname(file), script))).toBe(true);
	});

	it('asks for provenance in publishConfig, so a local publish that skips the guard still fails', () => {
		expect(manifest.publishConfig).toEqual({ provenance: true, access: 'public' });
	});
});

describe('sandbox/package.json', () => {
	it('has the version of the nodes: one tag publishes both', () => {
		expect(sandboxManifest.version).toBe(rootManifest.version);
	});

	it('names this repository and its folder, as provenance needs', () => {
		expect(sandboxManifest.repository).toEqual({
			...rootManifest.repository,
			directory: 'sandbox',
		});
		expect(sandboxManifest.license).toBe(rootManifest.license);
	});

	it('ships its compiled command only, needs no dependency, and is no community node', () => {
		expect(sandboxManifest.name).toBe('ticket-marketplace-sandbox');
		expect(sandboxManifest.bin).toEqual({ 'ticket-marketplace-sandbox': 'dist/sandbox/cli.js' });
		expect(sandboxManifest.main).toBe('dist/sandbox/index.js');
		expect(sandboxManifest.files).toEqual(['dist']);
		expect(sandboxManifest.dependencies ?? {}).toEqual({});
		expect(sandboxManifest.keywords).not.toContain('n8n-community-node-package');
	});

	it('is built by npm run build:sandbox, which npm test runs before the integration tests', () => {
		expect(rootManifest.scripts['build:sandbox']).toBe('npm run --prefix sandbox build');
		expect(rootManifest.scripts.test).toBe('tsx scripts/test.ts');
		for (const stage of TEST_STAGES) expect(rootManifest.scripts).toHaveProperty([stage]);
		expect(TEST_STAGES).toContain('build:sandbox');
		expect(TEST_STAGES.indexOf('build:sandbox')).toBeLessThan(
			TEST_STAGES.indexOf('test:integration'),
		);
	});

	it('stays out of the nodes package: its files list names only dist/ folders of the nodes', () => {
		const included = (rootManifest.files ?? []).filter((entry) => !entry.startsWith('!'));
		expect(included.length).toBeGreaterThan(0);
		for (const entry of included) expect(entry).toMatch(/^dist\/(credentials|nodes|icons)$/);
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
